"""A file of a language no grammar here reads (Zig, Haskell, OCaml, Perl, shell …), read by its
lines: a definition is a line at the left margin that opens with a defining keyword (`fn`, `def`,
`pub const X = struct`, `sub`, `proc`, Haskell's `name ::`, a shell `name() {`), its doc the
comment lines right above it, its end the line before the next one. References are the words it
uses. Nothing here knows scopes, types or calls: the book says so (see authoring/lexical_note.py),
and the map uses such files only when no file of the project is read by a grammar (map.build_map).
"""

from __future__ import annotations

import re

from .definitions import Definition, clean_comment

_MODIFIERS = r"(?:(?:pub(?:\([^)]*\))?|export|public|private|protected|internal|static|local|inline|extern|async|" \
             r"override|abstract|final|sealed|open|noinline|comptime|threadlocal)\s+)*"
_DEF = re.compile(
    rf"^{_MODIFIERS}(?P<kw>fn|func|function|def|defn|defun|defmacro|sub|proc|procedure|class|module|struct|enum|"
    r"union|interface|trait|type|typedef|const|let|val|var|data|newtype|record|object|protocol|macro|method)"
    r"\s+(?P<name>[A-Za-z_][\w!?']*)")
_HASKELL_SIG = re.compile(r"^(?P<name>[a-z_][\w']*)\s*::")
_SHELL_FN = re.compile(r"^(?:function\s+)?(?P<name>[A-Za-z_][\w-]*)\s*\(\)\s*\{?")
_COMMENT = re.compile(r"^\s*(?://|#(?![!\[])|--|;+|%|\(\*|/\*|\*)")
_KINDS = {"fn": "function", "func": "function", "function": "function", "def": "function", "defn": "function",
          "defun": "function", "sub": "function", "proc": "function", "procedure": "function", "method": "function",
          "class": "class", "object": "class", "module": "module", "struct": "struct", "record": "struct",
          "enum": "enum", "union": "struct", "interface": "interface", "protocol": "interface", "trait": "trait",
          "type": "type alias", "typedef": "type alias", "data": "type", "newtype": "type", "const": "constant",
          "let": "constant", "val": "constant", "var": "variable", "macro": "macro", "defmacro": "macro"}
# `const Foo = struct {`, `let f = fn …`: what the value is says the kind
_VALUE_KIND = re.compile(r"=\s*(?:packed\s+|extern\s+)?(?P<v>struct|enum|union|fn|function|class|proc|object)\b")
_IMPORT = re.compile(r"""@import\(\s*"([^"]+)"\s*\)|^\s*(?:import|use|using|open|require|source|include)\s+['"]?([\w./:-]+)"""
                     r"""|^\s*#include\s+[<"]([^>"]+)[>"]""", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_][\w]*")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')


def read_lines(text: str) -> tuple[list[Definition], list[str], dict[str, int], str]:
    """(definitions, imports, references, the file's leading doc) of a file read by its lines."""
    lines = text.splitlines()
    starts: list[tuple[int, str, str, str]] = []  # (0-based line, kind, name, signature)
    for i, line in enumerate(lines):
        if not line or line[0] in " \t" or _COMMENT.match(line):
            continue
        found = _definition(line)
        if found is not None:
            kind, name, _sig = found
            starts.append((i, kind, name, _signature(lines, i)))
    defs = []
    for k, (i, kind, name, sig) in enumerate(starts):
        end = (starts[k + 1][0] if k + 1 < len(starts) else len(lines)) - 1
        while end > i and (not lines[end].strip() or _COMMENT.match(lines[end])):
            end -= 1  # the blank lines and the next definition's doc are not this one's
        doc_first = i
        while doc_first > 0 and _COMMENT.match(lines[doc_first - 1]):
            doc_first -= 1
        defs.append(Definition(
            kind=kind, name=name, qualified_name=name, signature=sig,
            doc=clean_comment("\n".join(lines[doc_first:i])), start_line=i + 1, end_line=end + 1,
            exported=_exported(lines[i], name)))
    imports: list[str] = []
    for m in _IMPORT.finditer(text):
        module = next(g for g in m.groups() if g)
        if module not in imports:
            imports.append(module)
    refs: dict[str, int] = {}
    own = {d.name for d in defs}
    for line in lines:
        if _COMMENT.match(line):
            continue
        for w in _WORD.findall(_STRING.sub(" ", line)):
            if w not in own:
                refs[w] = refs.get(w, 0) + 1
    head = []
    for line in lines:
        if not _COMMENT.match(line):
            break
        head.append(line)
    doc = clean_comment("\n".join(head)) if head and (not defs or defs[0].start_line > len(head) + 1) else ""
    return defs, imports, dict(sorted(refs.items())), doc


def _definition(line: str) -> tuple[str, str, str] | None:
    m = _DEF.match(line)
    if m and re.search(r"=\s*(?:@import|require|import)\b", line):
        return None  # `const std = @import("std")`: an import, not a definition
    if m:
        kind = _KINDS[m.group("kw")]
        value = _VALUE_KIND.search(line, m.end())
        if value is not None and kind in ("constant", "variable"):
            kind = {"fn": "function", "function": "function", "proc": "function", "class": "class",
                    "object": "class"}.get(value.group("v"), value.group("v"))
        return kind, m.group("name"), line
    m = _HASKELL_SIG.match(line) or _SHELL_FN.match(line)
    if m and m.group("name") not in _KINDS:
        return "function", m.group("name"), line
    return None


def _signature(lines: list[str], i: int) -> str:
    """The definition's head: its first line, and the next ones while a bracket it opened is open."""
    out: list[str] = []
    depth = 0
    for line in lines[i:i + 8]:
        out.append(line.rstrip())
        depth += sum(line.count(c) for c in "([") - sum(line.count(c) for c in ")]")
        if depth <= 0:
            break
    return re.sub(r"\s*(?:\{|=|:|\bdo|\bthen|\bwhere|\bbegin)\s*$", "", "\n".join(out))


def _exported(line: str, name: str) -> bool:
    if re.match(r"^(?:pub|export|public)\b", line):
        return True
    if re.match(r"^(?:private|local|static|internal)\b", line) or name.startswith("_"):
        return False
    return not re.match(r"^(?:fn|const|var)\b", line)  # Zig's and Rust-like `fn` without `pub` is the file's own
