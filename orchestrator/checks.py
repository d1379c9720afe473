"""Deterministic checks of a chapter (DESIGN §7), run by the reviewers in both modes and by
the final audit: R1 verifies quoted code, cited paths and symbols against the source repo;
R2 checks cross references, glossary terms and metaphor reuse; R3 checks structure and
length; `audit_book` checks links, leftovers and cross references across the final chapters.

Markdown conventions: one `# Title`, `##` sections; code quoted from the source is a fence
whose info string names the file (```` ```python file=minikv/store.py lines=10-24 ````);
cited paths and symbols are inline code; chapter links are `[text](chNN.md#anchor)`.

Everything is a pure function of its arguments (plus reading files under the source
directory); findings come out sorted by line, then message. Only the stdlib is used."""

from __future__ import annotations

import ast
import builtins
import io
import os
import re
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

SEVERITIES = ("blocking", "major", "minor")


@dataclass(frozen=True)
class Finding:
    check: str  # e.g. "r1.code", "r2.xref", "r3.length", "audit.link"
    severity: str  # "blocking" | "major" | "minor"
    line: int  # 1-based line in the checked markdown; 0 = the whole file
    message: str  # one sentence a person can act on
    chapter: str | None = None  # set by audit_book


@dataclass(frozen=True)
class CodeBlock:
    lang: str
    file: str | None  # the `file=` attribute: a path relative to the source root
    lines: tuple[int, int] | None  # the `lines=a-b` attribute (1-based, inclusive)
    code: str  # the content, without the fences
    line: int  # 1-based line of the opening fence
    closed: bool = True  # False: the fence runs to the end of the text (a truncated chapter)


class _Out(list[Finding]):
    """Findings being collected (keeps each check's call on one line)."""

    def add(self, check: str, severity: str, line: int, message: str) -> None:
        self.append(Finding(check, severity, line, message))


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(dict.fromkeys(findings), key=lambda f: (f.line, f.message, f.check, f.severity))


# ----------------------------------------------------------------- markdown scanning

_FENCE_RE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_ATTR_RE = re.compile(r"""([A-Za-z_][\w-]*)=("[^"]*"|'[^']*'|\S+)""")
_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")  # an inline code span, on one line
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_LINK_RE = re.compile(r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]"  # [text], one level of nested [] allowed
                      r"\(\s*<?([^\s()<>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")  # (target "title")
_REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s<>]+)>?")
_CHLINK_RE = re.compile(r"^(?:\./)?(ch\d{2,})\.md(?:#(.*))?$")
_LATIN_B, _LATIN_A = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"  # word edges that work beside CJK
_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"  # kana, CJK, hangul
                     "\U00020000-\U0002ebef]")


def _split_lines(md: str) -> list[str]:
    # split("\n"), not splitlines(): line numbers must be the ones an editor shows
    return [ln.removesuffix("\r") for ln in md.split("\n")]


def _make_block(info: str, body: list[str], line: int, closed: bool) -> CodeBlock:
    words = info.split()
    lang = "" if not words or "=" in words[0] else words[0].strip("{}.")
    attrs = {k: v.strip("\"'") for k, v in _ATTR_RE.findall(info)}
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", attrs.get("lines", ""))
    span = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None
    return CodeBlock(lang, attrs.get("file") or None, span, "\n".join(body), line, closed)


def _scan(md: str) -> tuple[list[CodeBlock], list[str], list[bool]]:
    """Fenced blocks, the lines, and for each line whether it belongs to a fence. A fence is
    closed by the same character repeated at least as often; fences inside fences are text."""
    lines = _split_lines(md)
    in_code = [False] * len(lines)
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence = len(m.group(1)), m.group(2)
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        # a fence indented in a list item: its content loses the same indentation
        body = [ln[min(indent, len(ln) - len(ln.lstrip(" \t"))) :] for ln in lines[i + 1 : j]]
        for k in range(i, min(j + 1, len(lines))):
            in_code[k] = True
        blocks.append(_make_block(m.group(3), body, i + 1, j < len(lines)))
        i = j + 1
    return blocks, lines, in_code


def code_blocks(md: str) -> list[CodeBlock]:
    """Every fenced block (``` or ~~~, any length ≥ 3), in order."""
    return _scan(md)[0]


def _prose(md: str) -> list[tuple[int, str, str]]:
    """(line number, raw line, line with inline code blanked out) for each line outside fences."""
    _, lines, in_code = _scan(md)
    return [(n + 1, ln, _SPAN_RE.sub(_blank, ln)) for n, ln in enumerate(lines) if not in_code[n]]


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())  # same length, so columns stay put


def _blank_urls(text: str) -> str:
    return re.sub(r"(?<=\])\([^)\n]*\)", _blank, text)


def _links(md: str) -> list[tuple[int, str]]:
    """(line, target) of inline links, images and reference definitions outside code."""
    out = []
    for n, _, masked in _prose(md):
        out += [(n, m.group(1)) for m in _LINK_RE.finditer(masked) if m.group(1)]
        if m := _REFDEF_RE.match(masked):
            out.append((n, m.group(1)))
    return out


def _headings(md: str) -> list[tuple[int, int, str]]:
    """(line, level, text) of every ATX heading outside fences."""
    found = ((n, _HEADING_RE.match(raw)) for n, raw, _ in _prose(md))
    return [(n, len(m.group(1)), (m.group(2) or "").strip()) for n, m in found if m]


def slugify(text: str) -> str:
    """A heading's anchor, as GitHub and markdown-it's anchors plugin make it: lowercase,
    spaces to `-`, punctuation dropped except `-` and `_`, letters of any script (CJK) kept."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images → their text
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def heading_slugs(md: str) -> list[str]:
    """The anchors of all headings in order; repeats get `-1`, `-2`; an explicit `{#id}` wins."""
    seen: set[str] = set()
    out = []
    for _, _, text in _headings(md):
        m = re.search(r"\s*\{#([\w-]+)\}\s*$", text)
        base = m.group(1) if m else slugify(text)
        slug, k = base, 0
        while slug in seen:
            k += 1
            slug = f"{base}-{k}"
        seen.add(slug)
        out.append(slug)
    return out


def text_length(text: str) -> int:
    """CJK characters plus words of other scripts: words for English, characters for Chinese."""
    words = _CJK_RE.sub(" ", text).split()
    return len(_CJK_RE.findall(text)) + sum(1 for w in words if re.search(r"\w", w))


# ----------------------------------------------------------------- the source index

_SKIP_DIRS = {"__pycache__", "node_modules"}  # and every hidden directory
_TEXT_LIMIT, _TEXT_TOTAL = 1 << 20, 64 << 20  # bytes of text kept per file and in all for the fallback
_EXTERNAL = set(sys.stdlib_module_names) | set(dir(builtins))
_BUILTIN_MEMBERS = {n for t in (str, bytes, bytearray, dict, list, set, tuple, int, float, memoryview,
                                io.TextIOWrapper, io.BufferedRandom, io.BytesIO) for n in dir(t)}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Index:
    """What a source tree defines: Python files through `ast`, the rest as plain text."""

    files: set[str] = field(default_factory=set)  # relative posix paths
    dirs: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # every bare name defined anywhere
    qualified: set[str] = field(default_factory=set)  # dotted suffixes of qualified names: "Store.get"
    modules: set[str] = field(default_factory=set)  # dotted suffixes of module names
    classes: dict[str, set[str]] = field(default_factory=dict)  # class name → member names
    bases: dict[str, set[str]] = field(default_factory=dict)  # class name → base class names
    imported: set[str] = field(default_factory=set)  # names bound by import statements
    text: str = ""  # non-Python text files (and Python files that do not parse)
    _found: dict[str, bool] = field(default_factory=dict)  # memo of text searches

    def add(self, qual: str, bare: bool = True) -> None:
        parts = qual.split(".")
        self.qualified.update(".".join(parts[k:]) for k in range(len(parts) - 1))
        if bare:
            self.names.add(parts[-1])

    def in_text(self, name: str) -> bool:
        if name not in self._found:
            self._found[name] = bool(re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", self.text))
        return self._found[name]


_INDEX_CACHE: dict[str, tuple[int, _Index]] = {}  # resolved source dir → (tree signature, index)


def _index_python(tree: ast.Module, module: str, idx: _Index) -> None:
    """Modules, classes, functions, methods, parameters, locals, module and class level
    assignments, `self.x` attributes, and imported names (re-exports like `minikv.Store`)."""

    def visit(nodes: list[ast.AST], qual: str, cls: str | None) -> None:
        for node in nodes:
            if isinstance(node, _DEFS):
                q = f"{qual}.{node.name}"
                idx.add(q)
                if cls:
                    idx.classes[cls].add(node.name)
                if isinstance(node, ast.ClassDef):
                    idx.classes.setdefault(node.name, set())
                    bases = (getattr(b, "id", None) or getattr(b, "attr", None) for b in node.bases)
                    idx.bases.setdefault(node.name, set()).update(b for b in bases if b and b != "object")
                    visit(node.body, q, node.name)
                    continue
                for sub in ast.walk(node):
                    if isinstance(sub, ast.arg):
                        idx.names.add(sub.arg)
                    elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        idx.names.add(sub.id)
                    elif (cls and isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store)
                          and isinstance(sub.value, ast.Name) and sub.value.id in ("self", "cls")):
                        idx.add(f"{qual}.{sub.attr}")
                        idx.classes[cls].add(sub.attr)
                visit([n for n in node.body if isinstance(n, _DEFS)], q, None)  # nested functions
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if bound != "*":
                        idx.imported.add(bound)
                        idx.add(f"{qual}.{bound}", bare=False)
            else:
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
                for name in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                    idx.add(f"{qual}.{name.id}")
                    if cls:
                        idx.classes[cls].add(name.id)
                for attr in ("body", "orelse", "finalbody", "handlers", "cases"):  # if/try/with/match
                    if isinstance(sub_nodes := getattr(node, attr, None), list):
                        visit(sub_nodes, qual, cls)

    parts = module.split(".")
    idx.add(module)
    idx.modules.update(".".join(parts[k:]) for k in range(len(parts)))
    idx.names.update(parts)
    visit(tree.body, module, None)


def _index(root: Path) -> _Index:
    """The index of a source tree, rebuilt only when a file was added, removed or changed
    (mtime or size): a check costs a walk and a `stat` per file when nothing changed."""
    stats = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            p = Path(dirpath) / name
            try:
                st = p.stat()
            except OSError:
                continue
            stats.append((p, st.st_mtime_ns, st.st_size))
    signature = hash(tuple((str(p), m, s) for p, m, s in stats))
    key = str(root.resolve())
    if key in _INDEX_CACHE and _INDEX_CACHE[key][0] == signature:
        return _INDEX_CACHE[key][1]
    idx, texts, total = _Index(), [], 0
    for p, _, _ in stats:
        rel = p.relative_to(root).as_posix()
        idx.files.add(rel)
        idx.dirs.update(rel.rsplit("/", k)[0] for k in range(1, rel.count("/") + 1))
        if p.suffix == ".py":
            try:
                with warnings.catch_warnings():  # SyntaxWarnings of odd sources are not ours
                    warnings.simplefilter("ignore")
                    module = re.sub(r"(^|/)__init__$", "", rel[:-3]).replace("/", ".") or root.name
                    _index_python(ast.parse(p.read_bytes()), module, idx)
                continue
            except (SyntaxError, ValueError, OSError, RecursionError):
                pass  # not Python 3 after all: searched as text below
        try:
            with open(p, "rb") as fh:
                data = fh.read(min(_TEXT_LIMIT, _TEXT_TOTAL - total))
        except OSError:
            continue
        if b"\0" not in data[:8192]:  # not a binary file
            texts.append(data.decode("utf-8", "replace"))
            total += len(data)
    idx.text = "\n".join(texts)
    _INDEX_CACHE[key] = (signature, idx)
    return idx


# ----------------------------------------------------------------- R1: code, paths, symbols

_ELISIONS = {"...", "# ...", "// ...", "…", "# …"}
_EXTS = frozenset((
    "py", "pyi", "md", "rst", "txt", "toml", "yaml", "yml", "json", "cfg", "ini", "lock", "js", "mjs",
    "cjs", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cc", "cpp", "hpp", "java", "kt", "rb", "php", "sh",
    "bash", "sql", "html", "htm", "css", "scss", "proto", "xml", "csv", "j2", "jinja", "tmpl", "mk"
))
_LITERAL_RE = re.compile(r"""^(?:[-+]?v?\d[\w.+-]*|["'].*|True|False|None)$""")
_PATH_RE = re.compile(r"^(?:\./)?[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/?$")
_SYMBOL_RE = re.compile(r"^@?([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)(\([^()]*\))?$")
_Src = list[tuple[int, str, str]]  # a source file's non-blank lines: (number, tabs expanded, stripped)


def _resolve(root: Path, rel: str) -> tuple[str | None, Path | None]:
    """(problem, path) of a `file=` path: it must stay inside the source and exist."""
    p = rel.replace("\\", "/")
    if p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", p) or ".." in p.split("/"):
        return "is outside the source directory", None
    full = (root / p.removeprefix("./")).resolve()
    if not full.is_relative_to(root.resolve()):  # a symlink out of the source
        return "is outside the source directory", None
    return (None, full) if full.is_file() else ("does not exist in the source", None)


def _shape(lines: list[str]) -> tuple[int, ...]:
    """Relative indentation: the rank of each line's indent among the indents of the piece.
    Two pieces with the same shape differ only in indentation width (tabs vs spaces, 2 vs 4)."""
    indents = [len(ln) - len(ln.lstrip()) for ln in lines]
    levels = sorted(set(indents))
    return tuple(levels.index(i) for i in indents)


def _find_piece(piece: list[str], src: _Src, pos: int) -> int | None:
    """Where the piece starts in src at or after pos: same lines, same indentation shape."""
    content, shape, n = [ln.strip() for ln in piece], _shape(piece), len(piece)
    for i in range(pos, len(src) - n + 1):
        if src[i][2] == content[0] and [s[2] for s in src[i : i + n]] == content \
                and _shape([s[1] for s in src[i : i + n]]) == shape:
            return i
    return None


def _match(pieces: list[list[str]], src: _Src, pos: int = 0) -> tuple[int, int] | None:
    """Greedy in-order match of the pieces; the (first, last) source line of the match."""
    first = last = 0
    for piece in pieces:
        i = _find_piece(piece, src, pos)
        if i is None:
            return None
        first, pos = first or src[i][0], i + len(piece)
        last = src[pos - 1][0]
    return first, last


def _why_missing(pieces: list[list[str]], src: _Src) -> str:
    """Names the first quoted line that breaks the longest partial match."""
    for piece in pieces:
        if _find_piece(piece, src, 0) is not None:
            continue
        content, best = [ln.strip() for ln in piece], 0
        for i in range(len(src)):
            k = 0
            while k < len(content) and i + k < len(src) and src[i + k][2] == content[k]:
                k += 1
            best = max(best, k)
        if best == len(content):
            return "its lines are there but indented differently"
        return f"`{content[best][:70]}` does not appear there"
    return "its pieces appear there in another order"


def _verify_block(b: CodeBlock, src: _Src) -> tuple[Finding | None, bool]:
    """(finding, verified) of a `file=` block against its file's lines."""
    pieces: list[list[str]] = [[]]  # the runs of lines between elisions (`...`, `# ...`)
    for ln in b.code.split("\n"):
        if ln.strip() in _ELISIONS:
            pieces.append([])
        elif ln.strip():  # blank lines never count: a writer may drop or add one
            pieces[-1].append(ln.expandtabs(8).rstrip())
    pieces = [p for p in pieces if p]
    where = f"code block at line {b.line}"
    if not pieces:
        return Finding("r1.code", "minor", b.line, f"{where} quotes nothing from {b.file}"), False
    if b.lines:  # prefer the occurrence at the declared lines
        start = next((i for i, s in enumerate(src) if s[0] >= b.lines[0]), len(src))
        found = _match(pieces, src, start)
        if found and b.lines[0] <= found[0] and found[1] <= b.lines[1]:
            return None, True
    found = _match(pieces, src)
    if found is None:
        why = _why_missing(pieces, src)
        return Finding("r1.code", "blocking", b.line, f"{where} is not in {b.file}: {why}"), False
    if b.lines:
        said, real = f"lines={b.lines[0]}-{b.lines[1]}", f"lines {found[0]}-{found[1]}"
        message = f"{where} says {said}; the code is at {real} of {b.file}"
        return Finding("r1.code", "minor", b.line, message), True
    return None, True


def _path_exists(cand: str, root: Path, idx: _Index) -> bool:
    cand = cand.removeprefix("./").rstrip("/")
    parts = cand.split("/")
    if not cand or cand.startswith(("/", "~")) or ".." in parts:
        return True  # not a path inside the source: not ours to check
    if (root / cand).exists() or (parts[0] == root.name and (root / "/".join(parts[1:])).exists()):
        return True
    return any(f.endswith("/" + cand) for f in idx.files | idx.dirs)  # `store.py` for `minikv/store.py`


def _class_has(cls: str, member: str, idx: _Index, seen: set[str]) -> bool:
    if cls in seen:
        return False
    seen.add(cls)
    if member in idx.classes.get(cls, ()):
        return True
    # a base the source does not define (dict, Enum, a library class) may provide anything
    return any(b not in idx.classes or _class_has(b, member, idx, seen) for b in idx.bases.get(cls, ()))


def _symbol_problem(name: str, idx: _Index) -> str | None:
    """Why a cited symbol does not exist in the source, or None when it does."""
    parts = name.replace("::", ".").split(".")
    if len(parts) > 1 and parts[0] in ("self", "cls"):
        parts = parts[1:]
    head, last = parts[0], parts[-1]
    if head in _EXTERNAL or (head in idx.imported and head not in idx.names):
        return None  # the stdlib, a builtin, or a library the source imports
    if re.fullmatch(r"__\w+__", last):
        return None
    if len(parts) == 1:
        return None if last in idx.names or idx.in_text(last) else "no such name is defined in the source"
    if ".".join(parts) in idx.qualified:
        return None
    owner, prefix = parts[-2], ".".join(parts[:-1])
    if owner in idx.classes:
        return None if _class_has(owner, last, idx, set()) else f"class `{owner}` has no member `{last}`"
    if prefix in idx.modules and len(parts) > 2:  # `minikv.wal.X`; a bare `store.get` may be an instance
        return f"module `{prefix}` defines no `{last}`"
    # an instance or a variable (`store.get()`): the member must exist somewhere
    if last in idx.names or last in _BUILTIN_MEMBERS or idx.in_text(last):
        return None
    return f"nothing named `{last}` is defined in the source"


def _check_inline(token: str, root: Path, idx: _Index) -> tuple[str, str] | None:
    """(check, message) when an inline code span cites a path or symbol the source lacks."""
    token = token.strip()
    if not token or re.search(r"\s", token) or _LITERAL_RE.match(token) or "://" in token:
        return None  # a shell command, a literal or a URL
    cand = re.sub(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?|::[\w.\[\]-]+)$", "", token)  # `a.py:12`, `a.py::T`
    if _PATH_RE.match(cand) and "*" not in cand:
        base = cand.rstrip("/").rsplit("/", 1)[-1]
        ext = base.rsplit(".", 1)[-1].lower() if "." in base.lstrip(".") else ""
        if ("/" in cand and (ext or cand.endswith("/"))) or ext in _EXTS:
            ok = _path_exists(cand, root, idx)
            return None if ok else ("r1.path", f"`{token}` is cited but does not exist in the source")
    m = _SYMBOL_RE.match(token)
    if not m:
        return None
    name = m.group(1)
    camel = re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", name)
    if not ("." in name or ":" in name or "_" in name or m.group(2) or camel):
        return None  # a plain word
    problem = _symbol_problem(name, idx)
    return ("r1.symbol", f"`{token}` is cited but {problem}") if problem else None


def check_code(md: str, source_dir: Path) -> tuple[list[Finding], list[CodeBlock]]:
    """R1: every `file=` block must be in its file (modulo indentation; `...` elides), every
    cited path must exist, every cited symbol must be defined. Returns (findings, the blocks
    verified against the source)."""
    root = Path(source_dir)
    out, verified = _Out(), []
    sources: dict[Path, _Src] = {}
    for b in code_blocks(md):
        if b.file is None:
            continue  # illustrative, not verified
        problem, path = _resolve(root, b.file)
        if problem or path is None:
            out.add("r1.code", "blocking", b.line,
                    f"code block at line {b.line} cites {b.file}, which {problem}")
            continue
        if path not in sources:
            try:
                text = path.read_text("utf-8-sig", errors="replace")
            except OSError as e:
                out.add("r1.code", "blocking", b.line, f"code block at line {b.line} cites {b.file}, "
                        f"which cannot be read ({e.strerror})")
                continue
            sources[path] = [(n, ln.expandtabs(8).rstrip(), ln.strip())
                             for n, ln in enumerate(_split_lines(text), 1) if ln.strip()]
        finding, ok = _verify_block(b, sources[path])
        out += [finding] if finding else []
        verified += [b] if ok else []
    idx = _index(root)
    for n, raw, _ in _prose(md):
        for m in _SPAN_RE.finditer(raw):
            if hit := _check_inline(m.group(2), root, idx):
                out.add(hit[0], "major", n, hit[1])
    return _sorted(out), verified


# ----------------------------------------------------------------- R2: consistency

_DEFINE_RES = (re.compile(r"\*\*([^*\n]+?)\*\*\s*[:：（(]"), re.compile(r"\*\*([^*\n]+?)[:：]\*\*"))


def _term_re(term: str, end: bool = True) -> re.Pattern[str]:
    return re.compile(_LATIN_B + re.escape(term) + (_LATIN_A if end else ""), re.IGNORECASE)


def _glossary_findings(prose: list[tuple[int, str, str]], chapter: str, glossary: dict[str, str]) -> _Out:
    out = _Out()
    owners = {t.lower(): (t, c) for t, c in glossary.items()}
    cased = [(t, _term_re(t)) for t in glossary if t.lower() != t.upper()]  # CJK terms have no case
    # fine: the glossary form, that form starting a sentence, and the ordinary lowercase word for a
    # term that is merely capitalised ("record" for the class `Record`; not "memtable" for `MemTable`)
    plain = {t for t in glossary if t[:1].isupper() and t[1:] == t[1:].lower()}
    seen: set[tuple[str, str]] = set()
    for n, raw, text in prose:
        for rx in _DEFINE_RES:  # `**term**: ...`, `**term**（...）`: a definition
            for m in rx.finditer(text):
                term, owner = owners.get(m.group(1).strip().lower(), ("", ""))
                if term and owner and owner != chapter:
                    out.add("r2.glossary", "minor", n,
                            f"redefines '{term}', defined in {owner}; link to it instead")
        if _HEADING_RE.match(raw):
            continue  # headings may be in title case
        for term, rx in cased:
            for m in rx.finditer(text):
                found = m.group()
                if found in (term, term[:1].upper() + term[1:]) or (term in plain and found == term.lower()):
                    continue
                if (term, found) not in seen:
                    seen.add((term, found))
                    out.add("r2.glossary", "minor", n,
                            f"writes '{found}' for the glossary term '{term}'; use '{term}'")
    return out


def check_consistency(md: str, chapter: str, *, glossary: dict[str, str], chapters: dict[str, str],
                      metaphors: dict[str, str]) -> list[Finding]:
    """R2: links to chapters that do not exist (or to this one), glossary terms redefined or
    written with another capitalisation, and metaphors that belong to another chapter."""
    out = _Out()
    for n, target in _links(md):
        if m := _CHLINK_RE.match(target):
            if m.group(1) not in chapters:
                out.add("r2.xref", "major", n,
                        f"link to {target} points to a chapter that is not in this book")
            elif m.group(1) == chapter:
                out.add("r2.xref", "minor", n,
                        f"link to {target} points to this chapter itself; use an anchor (#...)")
    prose = [(n, raw, _blank_urls(masked)) for n, raw, masked in _prose(md)]
    out += _glossary_findings(prose, chapter, glossary)
    for phrase, owner in metaphors.items():
        if len(phrase.strip()) < 2 or owner == chapter:
            continue
        if n := next((n for n, _, text in prose if phrase.lower() in text.lower()), 0):  # the first use
            out.add("r2.metaphor", "minor", n,
                    f"reuses the metaphor '{phrase}' of {owner}; find an image of its own")
    return _sorted(out)


# ----------------------------------------------------------------- R3: structure


def check_structure(md: str, *, language: str = "en", min_words: int = 300,
                    max_words: int = 6000) -> list[Finding]:
    """R3: one H1, at least two `##` sections, length within bounds (outside code and comments),
    closed fences, no heading level jumps, no empty sections."""
    out = _Out()
    blocks, lines, in_code = _scan(md)
    for b in blocks:
        if not b.closed:
            out.add("r3.fence", "blocking", b.line,
                    f"the code fence opened at line {b.line} is never closed; the chapter looks truncated")
    heads = _headings(md)
    h1 = [n for n, level, _ in heads if level == 1]
    if not h1:
        out.add("r3.title", "major", 0, "the chapter has no `# Title` line; add one H1 title")
    elif len(h1) > 1:
        at = ", ".join(map(str, h1))
        out.add("r3.title", "major", h1[1],
                f"the chapter has {len(h1)} H1 titles (lines {at}); keep one, make the rest `##`")
    if (k := sum(1 for h in heads if h[1] == 2)) < 2:
        out.add("r3.sections", "major", 0, f"the chapter has {k} `##` section(s); it needs at least 2")
    prose = "\n".join(ln for ln, code in zip(lines, in_code) if not code)
    size = text_length(re.sub(r"<!--.*?-->", " ", prose, flags=re.DOTALL))
    unit = "characters" if language.lower().startswith("zh") else "words"
    if size < min_words:
        out.add("r3.length", "major", 0, f"the chapter is {size} {unit} long; the minimum is {min_words}")
    elif size > max_words:
        out.add("r3.length", "major", 0, f"the chapter is {size} {unit} long; the maximum is {max_words}")
    for k, (n, level, text) in enumerate(heads):
        prev = heads[k - 1][1] if k else level
        if level > prev + 1:
            out.add("r3.sections", "minor", n,
                    f"heading '{text}' jumps from {'#' * prev} to {'#' * level}; use {'#' * (prev + 1)}")
        # empty: only blank lines and comments before the next heading of the same or a higher
        # level (or the end); a section that opens straight with its subsections is not empty
        nxt = heads[k + 1] if k + 1 < len(heads) else None
        between = lines[n : nxt[0] - 1 if nxt else len(lines)]
        empty = not any(re.sub(r"<!--.*?-->", "", ln).strip() for ln in between)
        if empty and (nxt is None or nxt[1] <= level):
            out.add("r3.sections", "minor", n,
                    f"section '{text}' is empty; write its text or remove the heading")
    return _sorted(out)


# ----------------------------------------------------------------- final audit

_LEFTOVER_RES = (
    (re.compile(_LATIN_B + r"(TODO|FIXME|XXX|TBD)" + _LATIN_A), "the leftover '{}'"),
    (re.compile(r"lorem ipsum", re.IGNORECASE), "placeholder text '{}'"),
    (re.compile(r"\[citation needed\]", re.IGNORECASE), "the leftover '{}'"),
)
# a marker-like comment, also once neutralised by markers.neutralise: `<!-- (quoted) DRAFT_COMPLETE -->`
_MARKER_RE = re.compile(r"<!--\s*(?:\(quoted\)\s*)?[A-Z][A-Z0-9_]{2,}(?=\s|-->|$)")
_OWN_MARKER_RE = re.compile(r"\s*<!--\s*[A-Z][A-Z0-9_]*(?:\s[^>]*)?-->\s*")
_ANGLE_RE = re.compile(r"<(?=\S)([^<>\n]{1,80})(?<=\S)>")
_HTML_TAGS = frozenset((
    "a", "abbr", "audio", "b", "bdi", "bdo", "blockquote", "br", "button", "caption", "center", "cite",
    "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption",
    "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "iframe", "img",
    "input", "ins", "kbd", "label", "li", "mark", "nav", "ol", "p", "picture", "pre", "q", "rp", "rt",
    "ruby", "s", "samp", "section", "small", "source", "span", "strong", "style", "sub", "summary", "sup",
    "svg", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "video", "wbr"
))
_MENTION_RE = re.compile(rf"\b[Cc]hapter\s+(\d+)\b|{_LATIN_B}ch(\d{{2,}}){_LATIN_A}"  # Chapter 9, ch09
                         r"|第\s*([0-9零一二三四五六七八九十百〇两]+)\s*章")  # 第九章
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}


def _zh_number(s: str) -> int | None:
    """Digits or a Chinese numeral up to 999 (三, 十二, 二十, 一百零五)."""
    if s.isdigit():
        return int(s)
    total = cur = 0
    for ch in s:
        if ch in _ZH_DIGITS:
            cur = _ZH_DIGITS[ch]
        elif ch in "十百":
            total, cur = total + (cur or 1) * (10 if ch == "十" else 100), 0
        else:
            return None
    return total + cur


def _is_placeholder(inner: str) -> bool:
    """`<insert diagram here>` is; a comment, an autolink or a known HTML tag is not."""
    if inner.startswith("!--") or re.match(r"^[A-Za-z][\w+.-]*:\S*$|^[^\s@]+@[^\s@]+$", inner):
        return False
    m = re.match(r"^/?([A-Za-z][\w-]*)(?:\s[^<>]*)?/?$", inner)
    return not (m and m.group(1).lower() in _HTML_TAGS)


def _audit_links(md: str, own: str, slugs: dict[str, list[str]], chapters: dict[str, str]) -> _Out:
    out = _Out()
    for n, target in _links(md):
        if target.startswith("#"):
            if unquote(target[1:]) not in slugs.get(own, []):
                out.add("audit.link", "major", n, f"anchor {target} matches no heading of this chapter")
        elif m := _CHLINK_RE.match(target):
            cid, anchor = m.group(1), m.group(2)
            if cid not in chapters:
                out.add("audit.link", "major", n,
                        f"link to {target} points to a chapter that is not in this book")
            elif cid not in slugs:
                out.add("audit.xref", "minor", n,
                        f"link to {target} points to {cid}, which has no final text yet")
            elif anchor and unquote(anchor) not in slugs[cid]:
                known = ", ".join(slugs[cid][:6]) or "none"
                out.add("audit.link", "major", n,
                        f"link to {target}: {cid} has no heading '{anchor}' (its anchors: {known})")
        elif not re.match(r"^(?:https?|mailto):", target, re.IGNORECASE):
            out.add("audit.link", "minor", n,
                    f"link to {target} is not a chapter of the book and will not be published")
    return out


def _audit_text(md: str, chapters: dict[str, str]) -> _Out:
    out = _Out()
    lines = _split_lines(md)
    last = max((i + 1 for i, ln in enumerate(lines) if ln.strip()), default=0)
    numbers = {int(c[2:]) for c in chapters if re.fullmatch(r"ch\d+", c)}
    for n, raw, masked in _prose(md):
        for rx, what in _LEFTOVER_RES:
            for m in rx.finditer(masked):
                out.add("audit.leftover", "major", n,
                        f"{what.format(m.group())} is still in the text; finish or remove it")
        for m in _ANGLE_RE.finditer(masked):
            if _is_placeholder(m.group(1)):
                out.add("audit.leftover", "major", n,
                        f"the placeholder '{m.group()}' is still in the text; replace it")
        own_marker = n == last and _OWN_MARKER_RE.fullmatch(raw)  # the file's own completion marker
        if not own_marker and (m := _MARKER_RE.search(masked)):
            out.add("audit.leftover", "major", n,
                    f"the marker-like comment '{m.group()}' is left in the text; remove it")
        for m in _MENTION_RE.finditer(_blank_urls(masked)):  # "Chapter 9", "ch09", "第九章"
            num = int(m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) else _zh_number(m.group(3))
            if num is not None and numbers and num not in numbers:
                out.add("audit.xref", "minor", n,
                        f"'{m.group()}' refers to a chapter that is not in this book")
    return out


def _chapter_key(cid: str | None) -> tuple[bool, int, str]:
    m = re.fullmatch(r"ch(\d+)", cid or "")
    return (cid is None, int(m.group(1)) if m else 0, cid or "")


def audit_book(finals: dict[str, str], *, glossary: dict[str, str], chapters: dict[str, str],
               language: str = "en") -> list[Finding]:
    """The whole-book audit of the final chapters (id → text, its marker line included or not):
    links and anchors, leftovers, textual cross references, glossary terms the book never uses.
    Every finding names its chapter (for a glossary term, the chapter that defined it); they
    come sorted by chapter, line, message. English and Chinese references are both read, so
    `language` changes nothing today."""
    slugs = {cid: heading_slugs(md) for cid, md in finals.items()}
    out: list[Finding] = []
    for cid, md in finals.items():
        found = _audit_links(md, cid, slugs, chapters) + _audit_text(md, chapters)
        out += [replace(f, chapter=cid) for f in found]
    corpus = "\n".join(finals.values())
    for term, owner in glossary.items():
        if term.strip() and not _term_re(term.strip(), end=False).search(corpus):  # plurals count as a use
            msg = f"glossary term '{term}' (defined in {owner}) is never used in the book; use it or drop it"
            out.append(Finding("audit.glossary", "minor", 0, msg, chapter=owner or None))
    return sorted(dict.fromkeys(out), key=lambda f: (*_chapter_key(f.chapter), f.line, f.message, f.check))


# ----------------------------------------------------------------- findings as text

_FINDING_RE = re.compile(r"^\s*[-*+]\s+\*\*(blocking|major|minor)\*\*\s+`([^`]+)`(?:\s+(ch\d+))?"
                         r"(?:\s+line\s+(\d+))?:\s?(.*)$", re.IGNORECASE)


def blocking(findings: Iterable[Finding]) -> bool:
    """True when any finding blocks the chapter (R1 found code that is not in the source, ...)."""
    return any(f.severity == "blocking" for f in findings)


def format_findings(findings: Iterable[Finding]) -> str:
    """A Markdown bullet list, one finding a line, `- **blocking** `r1.code` line 12: ...`
    (the chapter before the line when set; no line for whole-file findings); `- none` if empty."""
    rows = []
    for f in findings:
        where = (f" {f.chapter}" if f.chapter else "") + (f" line {f.line}" if f.line else "")
        message = re.sub(r"[\r\n]+", " ", f.message)  # a finding is one line
        rows.append(f"- **{f.severity}** `{f.check}`{where}: {message}")
    return "\n".join(rows) or "- none"


def parse_findings(text: str) -> list[Finding]:
    """The findings of `format_findings` lists anywhere in a text (a review file); other lines
    are ignored. Round-trips: parse_findings(format_findings(fs)) == fs for one-line messages."""
    out = []
    for ln in text.split("\n"):
        if m := _FINDING_RE.match(ln.removesuffix("\r")):
            out.append(Finding(m.group(2), m.group(1).lower(), int(m.group(4) or 0), m.group(5), m.group(3)))
    return out
