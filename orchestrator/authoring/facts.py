"""Claims the offline writer makes about the code, from resolved references only (issue 23
item 6): "used from N files", "X calls Y", "at work in Z". A name match is not a reference: a
one-field test struct named like a core type, a MIME string in a test table, or a private
wrapper's name written in a comment are not uses. A file uses a definition when it writes the
name as code, can reach it (in Go another package's name only through its qualifier), and —
when several files define that name — names the definition's module in an import line, or
lives in its directory; a method counts only where its type's name is written too.

`ClaimFacts` answers the same questions for R1 (checks/claims.py), so a draft's sentence is
checked against the map the way the offline writer made it."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable

from .codeinfo import resolved_calls
from .project import Project, Sym
from .references import code_lines, use_lines

_IMPORT_LINE = re.compile(r"^\s*(?:import|from|use|using|#\s*include|require|package|const .*require\(|.*\brequire\()",
                          re.M)


def _homes(p: Project) -> dict[str, set[str]]:
    key = ("fact_homes",)
    if key not in p._keys:
        out: dict[str, set[str]] = defaultdict(set)
        for s in p.symbols():
            out[s.short].add(s.rel)
        p._keys[key] = dict(out)
    return p._keys[key]


def _text(p: Project, rel: str) -> str:
    key = ("fact_text", rel)
    if key not in p._keys:
        p._keys[key] = "\n".join(p.lines_of(rel))
    return p._keys[key]


def _writes(text: str, name: str) -> bool:
    return bool(re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text))


def _module_named(p: Project, user: str, home: str) -> bool:
    """The user's import lines name the home's module (`from .table import`, `require('./router')`,
    `#include "sds.h"`, `use crate::kv`), or the two share a directory (Go, Java, C packages)."""
    if posixpath.dirname(user) == posixpath.dirname(home) and p.lang(user) in ("go", "java", "c", "cpp", "rust"):
        return True
    stem = posixpath.basename(home).split(".", 1)[0]
    imports = "\n".join(m.group(0) + _line_rest(_text(p, user), m.end())
                        for m in _IMPORT_LINE.finditer(_text(p, user)))
    return _writes(imports, stem)


def _line_rest(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[at:end if end >= 0 else len(text)]


def uses(p: Project, user: str, s: Sym) -> bool:
    """Whether file `user` really uses the definition `s` (see the module doc)."""
    if user == s.rel or user not in p.files:
        return False
    lines = use_lines(p, user, s, lambda x: all_calls(p, x))
    if lines is not None:  # a method by its receiver's type, a script's function by its import
        return bool(lines) and p.reaches(user, s.rel, s.short)
    text = _text(p, user)
    if not _writes(text, s.short) or not p.reaches(user, s.rel, s.short):
        return False
    if "." in s.dotted:  # a method or field: its type must be written in the same file
        owner = s.dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        if not _writes(text, owner) and len(_homes(p).get(s.short, ())) > 1:
            return False
    homes = _homes(p).get(s.short, set())
    if len(homes) > 1 and not _module_named(p, user, s.rel):
        return False
    # a line that writes the name only as something else's (`r.Route(` of an interface, a local
    # `realIP :=`, `Self::Error`) is no use: at least one line must write it as this definition
    rx = re.compile(rf"(?<![\w$]){re.escape(s.short)}(?![\w$])")
    return any(not _only_foreign(ln, s, p, user) for ln in code_lines(p, user) if rx.search(ln))


def resolved_users(p: Project, s: Sym) -> list[str]:
    """Files (tests and examples included) that use `s`, by resolved reference, most used first."""
    key = ("fact_users", s.rel, s.name, s.d.start_line)
    if key not in p._keys:
        cands = p.map.users_of(s.name)
        from .references import default_export

        if default_export(p, s):  # a default export is used by the name its `require(…)` binds
            stem = posixpath.basename(s.rel).split(".", 1)[0]
            cands = [u for u in p.files if _writes(_text(p, u), stem)]
        p._keys[key] = [u for u in cands if uses(p, u, s)]
    return list(p._keys[key])


_FIELD_CALL = re.compile(r"\b(?:self|this)\.(\w+)\.(\w+)\s*\(")


def field_calls(p: Project, s: Sym, code: str) -> list[Sym]:
    """Calls through a field whose type the owner's own code gives (`self.log = Log(path)`, then
    `self.log.append(...)` is `Log.append`; `this.router = new Router()` in JavaScript): the
    field's one assignment from a constructor, in the owner's file, names the type."""
    if "." not in s.dotted or s.lang not in ("python", "javascript", "typescript"):
        return []
    owner = s.dotted.rsplit(".", 1)[0]
    text = _text(p, s.rel)
    out: list[Sym] = []
    for field, method in dict.fromkeys(_FIELD_CALL.findall(code)):
        types = set(re.findall(rf"\b(?:self|this)\.{re.escape(field)}\s*=\s*(?:new\s+)?([A-Z]\w*)\s*\(", text))
        if len(types) != 1:
            continue  # assigned from several types, or from no constructor: not resolved
        t = types.pop()
        hit = [x for x in p.find(f"{t}.{method}") if x.dotted == f"{t}.{method}"]
        if len(hit) == 1 and hit[0].name != s.name and not owner.endswith(t) and hit[0] not in out:
            out.append(hit[0])
    return out


def all_calls(p: Project, s: Sym) -> list[Sym]:
    """What `s` calls, as the map resolves it (codeinfo.resolved_calls), through typed fields and
    through the elements of its own containers (elements.element_calls)."""
    key = ("fact_calls", s.rel, s.name, s.d.start_line)
    if key not in p._keys:
        # `@overload` stubs share the name: the implementation is the one with a body (the longest)
        if s.lang == "python":  # (Java and C++ overloads are functions of their own)
            s = max((x for x in p.symbols(within=[s.rel]) if x.name == s.name), key=lambda x: x.lines, default=s)
        code = "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])
        found = resolved_calls(p, s, code)
        found += [x for x in field_calls(p, s, code) if x not in found]
        from .codeinfo import _sym_index
        from .elements import element_calls

        p._keys[key] = found + [x for x in element_calls(p, s, code, _sym_index(p)[0]) if x not in found]
    return list(p._keys[key])


def side_calls(p: Project, s: Sym) -> set[tuple[str, int]]:
    """(file, line) of the callees `s` calls only on a side road: an error handler, a condition on an
    error or a deprecation, or on one of the object's own settings (sideroads.branch_lines)."""
    key = ("fact_side", s.rel, s.name, s.d.start_line)
    if key not in p._keys:
        from .codeinfo import resolved_calls_where

        code = "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])
        where = resolved_calls_where(p, s, code)
        main = [(last, c) for c, side, last in where if not side and last >= 0]
        p._keys[key] = {(c.rel, c.d.start_line) for c, side, _ in where if side}
        p._keys[("fact_handoff",) + key[1:]] = (max(main, key=lambda x: x[0])[1].rel, max(main, key=lambda x: x[0])[1].d.start_line) \
            if main else None
    return set(p._keys[key])


def hand_off(p: Project, s: Sym) -> tuple[str, int] | None:
    """(file, line) of the callee `s` calls last on its main line: where it hands the work on
    (`return __redisBlockForReply(c)`, `rv = self.invoke(ctx)` after `make_context`)."""
    side_calls(p, s)
    return p._keys[("fact_handoff", s.rel, s.name, s.d.start_line)]


def calls(p: Project, caller: Sym, callee_name: str) -> bool:
    """`caller`'s code makes a call the map resolves to a definition named `callee_name`."""
    want = callee_name.replace("::", ".")
    return any(c.dotted == want or c.short == want or c.dotted.endswith("." + want) for c in all_calls(p, caller))


class ClaimFacts:
    """The map's answers to R1's questions about a chapter's claims (checks/claims.py): None
    when the name is not one definition of the project (nothing to check)."""

    def __init__(self, p: Project, steps: Callable[[Project, Sym], list[Sym]] | None = None) -> None:
        self.p = p
        # what a call may also reach (handoff.next_steps: an interface's one implementation, a server
        # running the handler it is given): "`X` calls `Y`" holds through those too
        self.steps = steps
        self._memo: dict[str, Sym | None] = {}
        self._by: dict[str, list[Sym]] | None = None

    def _find(self, name: str) -> list[Sym]:
        if self._by is None:  # Project.find scans every symbol: indexed once for a chapter's many names
            self._by = {}
            for s in self.p.symbols():
                self._by.setdefault(s.dotted, []).append(s)
                if s.short != s.dotted:
                    self._by.setdefault(s.short, []).append(s)
        return self._by.get(name.replace("::", "."), [])

    def _one(self, name: str) -> Sym | None:
        if name not in self._memo:
            self._memo[name] = self._resolve(name)
        return self._memo[name]

    def _resolve(self, name: str) -> Sym | None:
        found = self._find(name)
        exact = [s for s in found if s.name == name or s.dotted == name.replace("::", ".")]
        pick = exact or found
        return pick[0] if len(pick) == 1 or (pick and len({s.rel for s in pick}) == 1) else None

    def users(self, name: str) -> list[str] | None:
        s = self._one(name)
        return None if s is None else resolved_users(self.p, s)

    def calls(self, caller: str, callee: str) -> bool | None:
        s = self._one(caller)
        if s is None or not self._find(callee):
            return None
        # Java and C++ overloads share the name: the sentence is true when one of them makes the call
        same = [x for x in self._find(caller) if x.rel == s.rel and x.name == s.name] or [s]
        if any(calls(self.p, x, callee) for x in same):
            return True
        if self.steps is None:
            return False
        want = callee.replace("::", ".")
        near = [c for x in same for c in self.steps(self.p, x)]
        # (through a declaration of a few lines: an interface's or abstract method's one implementation)
        near += [d for c in near if c.lines <= 3 for d in self.steps(self.p, c)]
        return any(c.dotted == want or c.short == want or c.dotted.endswith("." + want) for c in near)

    def kind_of(self, rel: str) -> str | None:
        return self.p.files.get(rel, (None, None))[1]


def refers_at(p: Project, rel: str, line: int, s: Sym) -> bool:
    """Line `line` of `rel` refers to `s` by resolution (references.use_lines); where those rules do
    not apply, the file uses `s` by the map's rule."""
    lines = use_lines(p, rel, s, lambda x: all_calls(p, x))
    if lines is not None:
        return line in lines
    code = code_lines(p, rel)  # strings and comments blanked: a name in a test's string is not at work
    text = code[line - 1] if 0 < line <= len(code) else ""
    if not re.search(rf"(?<![\w$]){re.escape(s.short)}(?![\w$])", text):
        return False
    return uses(p, rel, s) and not _only_foreign(text, s, p, rel)


_STD_MODULES = frozenset({"std", "core", "alloc", "io", "fmt", "error", "http", "hyper", "tower", "serde", "os", "net",
                          "errors", "strings", "bytes", "time", "context", "sync", "url", "json"})


_GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:([A-Za-z_]\w*|\.)\s+)?"([^"]+)"\s*$', re.M)


def _go_packages(p: Project, rel: str) -> set[str]:
    """The qualifiers a Go file's imports give (an alias, else the path's last part, a `/v5` skipped)."""
    key = ("fact_goimports", rel)
    if key not in p._keys:
        out = set()
        for alias, path in _GO_IMPORT.findall("\n".join(p.lines_of(rel)[:300])):
            parts = path.split("/")
            last = parts[-2] if len(parts) > 1 and re.fullmatch(r"v\d+", parts[-1]) else parts[-1]
            out.add(alias or last.replace("-", "_"))
        p._keys[key] = out
    return p._keys[key]


def _shadowed(p: Project, rel: str, name: str) -> bool:
    """The file binds the name as a variable of its own (`realIP :=`, `var realIP`, `let x`)."""
    key = ("fact_shadow", rel, name)
    if key not in p._keys:
        n = re.escape(name)
        rx = re.compile(rf"(?<![\w$.]){n}\s*(?:,\s*\w+\s*)*:=|\b(?:var|let|const)\s+(?:mut\s+)?{n}\b")
        p._keys[key] = any(rx.search(ln) for ln in p.lines_of(rel))
    return p._keys[key]


def _only_foreign(text: str, s: Sym, p: Project | None = None, rel: str = "") -> bool:
    """Every occurrence of the name on the line is another's: an associated item (`Self::Error`,
    `S::Rejection`) or a standard module's (`io::Error`, `fmt::Result`, `errors.New`)."""
    hits = list(re.finditer(rf"(?<![\w$])((?:[A-Za-z_]\w*)(?:::|\.))?{re.escape(s.short)}(?![\w$])", text))
    if not hits:
        return False
    def foreign(m: re.Match) -> bool:
        if s.lang == "rust" and re.search(r"\btype\s+$", text[:m.start()]):
            return True  # `type Error = S::Error;`: an associated type's declaration
        before = text[:m.start()].rstrip()
        if "." not in s.dotted and before.endswith(".") and (s.lang == "rust" or before[-2:-1] in (")", "]")):
            return True  # `….to_bytes()`: a method of some value, not the free function
        q = (m.group(1) or "").rstrip(":.")
        after = text[m.end():].lstrip()
        if p is not None and "." not in s.dotted and s.kind in ("function", "method") and not after.startswith("(") \
                and _shadowed(p, rel, s.short):
            return True  # a local variable of the same name
        if p is not None and s.lang == "go" and q and q[:1].islower() and m.group(1).endswith(".") \
                and q not in _go_packages(p, rel):
            return True  # `r.Route(`: a method of a value, not the package's `Route`
        # in Rust `Type::Name` is the type's associated item, never the free `Name`
        return bool(q) and (q == "Self" or (q[:1].isupper() and (len(q) <= 2 or s.lang == "rust")) or q in _STD_MODULES)
    return all(foreign(m) for m in hits)
