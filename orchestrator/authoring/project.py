"""The source project as the offline authors see it: its files (the safe walker), its
repository map (tree-sitter definitions ranked by use), its name, and exact excerpts.

A build asks for the same project many times (the planner, then each chapter's researcher
and writer): the walk and the map are kept per process, keyed by the tree's file sizes and
modification times, and the parsed files are cached by content in the workspace's state.db
when the context names it, so a second run parses nothing that did not change."""

from __future__ import annotations

import posixpath
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..signals import stop_requested

if TYPE_CHECKING:  # heavy (tree-sitter, networkx-free ranking): imported when a map is built
    from ..repo.map import RepoMap
    from ..repo.parse import Definition

MAX_EXCERPT_LINES = 36  # longer bodies are quoted as head, an elision, and their last line
_GO_PACKAGE_RE = re.compile(r"^package\s+(\w+)")
_GO_QUALIFIED_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)")
_GO_ALIAS_RE = re.compile(r'^\s*(?:import\s+)?([A-Za-z_]\w*)\s+"(?:[^"]*/)?([^"/]+?)(?:/v\d+)?"', re.M)


@dataclass
class Sym:
    """One definition of the map, with what the authors need beside it."""
    rel: str
    d: Definition
    score: float
    lang: str

    @property
    def name(self) -> str:
        """As the language writes it: `Mux.Route`, `Error::msg`."""
        return self.d.qualified_name

    @property
    def dotted(self) -> str:
        return self.d.qualified_name.replace("::", ".")

    @property
    def short(self) -> str:
        return self.d.name

    @property
    def names(self) -> tuple[str, ...]:
        """The names code calls it by: a function's other names too (Ruby's `alias :t :translate`,
        PapaParse's `Papa.parse = CsvToJson` names `CsvToJson` `parse`); a C struct's tag is no call."""
        if self.d.kind not in ("method", "function") or self.lang in ("c", "cpp"):
            return (self.d.name,)
        return (self.d.name, *(a.rsplit(".", 1)[-1] for a in self.d.aliases))

    @property
    def kind(self) -> str:
        return self.d.kind

    @property
    def lines(self) -> int:
        return self.d.end_line - self.d.start_line + 1


@dataclass
class Project:
    root: Path
    files: dict[str, tuple[str | None, str]]  # rel -> (language, kind)
    map: RepoMap
    tree_summary: str = ""  # the walk's one line: what was read, what was left out and why
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (rel, reason) of what the walk left out
    _texts: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _deps: dict[str, dict[str, float]] | None = field(default=None, repr=False)  # plan.dep_graph, once
    _calls: dict[str, Any] = field(default_factory=dict, repr=False)  # rel -> Counter of `.name(` calls
    _keys: dict[tuple, Any] = field(default_factory=dict, repr=False)  # memo of plan's per-chapter readings
    _syms: list[Sym] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ files

    def code_files(self) -> list[str]:
        """Files a chapter may cover: code the map could parse (tests and examples are evidence),
        not the tools' configuration around it (zustand's `eslint.config.mjs` and
        `rollup.config.mjs` made a chapter "Configuration") nor fuzzing and benchmark harnesses."""
        return sorted(rel for rel, (lang, kind) in self.files.items()
                      if kind == "code" and lang and rel in self.map.files and not self.map.files[rel].error
                      and not is_tooling(rel))

    def lines_of(self, rel: str) -> list[str]:
        if rel not in self._texts:
            from ..repo.walk import read_source

            try:
                # (without a byte-order mark, as R1 reads the file: esprima-dotnet's `\ufeffusing System.Diagnostics;`)
                self._texts[rel] = read_source(self.root, rel).removeprefix("\ufeff").splitlines()
            except OSError:
                self._texts[rel] = []
        return self._texts[rel]

    def lang(self, rel: str) -> str:
        return (self.files.get(rel, (None, ""))[0] or "text")

    def size(self, rel: str) -> int:
        fm = self.map.files.get(rel)
        return fm.lines if fm else 0

    def module_doc(self, rel: str) -> str:
        """A file's own doc; a Java file's is its package's (the package-info.java beside it)."""
        fm = self.map.files.get(rel)
        if fm is not None and not fm.doc and self.lang(rel) == "java":
            info = self.map.files.get(posixpath.join(posixpath.dirname(rel), "package-info.java"))
            return info.doc if info is not None else ""
        return fm.doc if fm else ""

    # ------------------------------------------------------------------ what reaches what

    def reaches(self, src: str, dst: str, name: str) -> bool:
        """Code in `src` can use the name `dst` defines: the one rule behind every relation the
        offline authors draw (the plan's dependency graph, the research report's relations, the
        calls a chapter explains). In Go a directory is a package, and a name of another package
        is reached only through its qualifier (`middleware.New`, `chi.RouteContext`): chi's mux.go
        setting `mux.pool.New` does not use middleware's `New`. Other languages: True (their
        imports are not read here)."""
        if self.lang(src) != "go" or self.lang(dst) != "go":
            return True
        if posixpath.dirname(src) == posixpath.dirname(dst):
            return True
        return (self.go_package(dst), name) in self.go_qualified(src)

    def go_package(self, rel: str) -> str:
        """The Go package a file belongs to: its `package` clause (chi's root is `package chi`),
        else its directory's name."""
        for ln in self.lines_of(rel)[:200]:
            m = _GO_PACKAGE_RE.match(ln)
            if m:
                return m.group(1)
        return posixpath.basename(posixpath.dirname(rel))

    def go_packages(self) -> set[str]:
        """The Go packages the project defines something in (their `package` clauses)."""
        key = ("go_packages",)
        if key not in self._keys:
            self._keys[key] = {self.go_package(x.rel) for x in self.symbols() if x.lang == "go"}
        return self._keys[key]

    def go_qualified(self, rel: str) -> set[tuple[str, str]]:
        """The (qualifier, name) pairs a Go file writes (`middleware.New`), an import alias read as its package."""
        key = ("goqual", rel)
        if key not in self._keys:
            text = "\n".join(self.lines_of(rel))
            found = set(_GO_QUALIFIED_RE.findall(text))
            # `import mw ".../middleware"`: mw.New reaches middleware's New
            aliases = {a: path for a, path in _GO_ALIAS_RE.findall(text) if a not in ("_", "import")}
            found |= {(aliases[q], n) for q, n in found if q in aliases}
            self._keys[key] = found
            self._keys[("goalias", rel)] = aliases
        return self._keys[key]

    def go_import_package(self, rel: str, qualifier: str) -> str:
        """The package a qualifier names in a Go file: an import alias read as its package."""
        self.go_qualified(rel)
        return self._keys[("goalias", rel)].get(qualifier, qualifier)

    # ------------------------------------------------------------------ symbols

    def symbols(self, within: list[str] | None = None) -> list[Sym]:
        """Definitions of `within` (all code files when None), best ranked first."""
        if self._syms is None:
            self._syms = [Sym(r.rel, r.definition, r.score, self.lang(r.rel)) for r in self.map.ranked_definitions()]
        if within is None:
            return self._syms
        wanted = set(within)
        return [s for s in self._syms if s.rel in wanted]

    def find(self, name: str) -> list[Sym]:
        """Definitions by qualified or bare name (`Mux.Route`, `Route`, `Error::msg`)."""
        key = name.replace("::", ".")
        head, _, last = key.rpartition(".")
        # (a method's other names too: Ruby's `alias :t :translate`)
        return [s for s in self.symbols() if s.dotted == key or s.short == key
                or key in s.d.aliases and s.kind == "function" or last in s.names[1:] and (not head or s.dotted.rpartition(".")[0] == head)]

    def excerpt(self, s: Sym, skip_doc: bool = True) -> tuple[str, int, int]:
        """(code, first line, last line) of a definition, exactly as in its file. A Python
        docstring is replaced by an elision (the prose shows it once, converted); a long body
        keeps its head and its last line around an elision. Blank lines are kept as they are."""
        lines = self.lines_of(s.rel)
        a, b = s.d.start_line, min(s.d.end_line, len(lines))
        body = lines[a - 1:b]
        if not body:
            return "", a, a
        marker = "# ..." if s.lang == "python" else ("// ..." if s.lang != "text" else "...")
        out: list[str] = []
        i = 0
        if skip_doc and s.lang == "python":
            i = _python_doc_span(body)
        if i:
            head_end = _python_head_end(body)
            out = body[:head_end] + [_indent_of(body[head_end] if head_end < len(body) else body[0]) + marker]
            rest = body[i:]
        else:
            rest = body
            out = []
        if len(out) + len(rest) > MAX_EXCERPT_LINES and s.kind in CONTAINER_KINDS:
            skeleton = self._skeleton(s, lines, marker)
            if skeleton:
                return _dedent("\n".join(skeleton)), a, b
        if len(out) + len(rest) > MAX_EXCERPT_LINES:
            keep = max(8, MAX_EXCERPT_LINES - len(out) - 2)
            tail = rest[-1] if rest[-1].strip() else ""
            ind = _indent_of(next((ln for ln in rest[1:keep] if ln.strip()), rest[0]))
            rest = rest[:keep] + [ind + marker] + ([tail] if tail and tail.strip() not in ("", marker) else [])
        code = "\n".join(out + rest)
        return _dedent(code), a, b


    def _skeleton(self, s: Sym, lines: list[str], marker: str) -> list[str]:
        """A large class, struct or trait as its header and the first line of each member, with
        elisions between them: the shape of the type, every line exactly as in the file."""
        a, b = s.d.start_line, min(s.d.end_line, len(lines))
        members = sorted({d.start_line for d in self.map.files[s.rel].definitions
                          if a < d.start_line <= b and d.qualified_name.replace("::", ".").startswith(s.dotted + ".")
                          and d.qualified_name.replace("::", ".").count(".") == s.dotted.count(".") + 1})
        if len(members) < 2:
            return []
        head_end = a
        while head_end < b and not re.search(r"[:{]\s*(#.*|//.*)?$", lines[head_end - 1]):
            head_end += 1
        out = lines[a - 1:head_end]
        for ln in members[:24]:
            k = ln
            while k <= b and (lines[k - 1].lstrip().startswith("@") or not lines[k - 1].strip()):
                k += 1  # a decorator: the member's own line is what the reader looks for
            if k > head_end and lines[k - 1] not in out:  # overloads repeat the same first line
                out += [_indent_of(lines[k - 1]) + marker, lines[k - 1]]
        ind = _indent_of(out[-1])
        out.append(ind + marker)
        if lines[b - 1].strip() in ("}", "};", "})"):
            out.append(lines[b - 1])
        return out


CONTAINER_KINDS = ("class", "struct", "interface", "trait", "impl", "enum")


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _dedent(code: str) -> str:
    import textwrap

    def shape(text: str) -> list[int]:  # each line's indentation as R1 reads it (tabs at 8), by rank
        widths = [len(_indent_of(ln.expandtabs(8))) for ln in text.splitlines() if ln.strip()]
        return [sorted(set(widths)).index(w) for w in widths]

    out = textwrap.dedent(code)
    # indentation that mixes spaces and tabs (JSON-java's `        \t throw …`): cutting the spaces before a tab
    # moves its stop and changes the code's shape; then it is dedented as it shows, tabs at 8
    return (out if shape(out) == shape(code) else textwrap.dedent(code.expandtabs(8))).rstrip()


_DEF_START = re.compile(r"^\s*(?:async\s+def|def|class)\b")


def _python_head_end(body: list[str]) -> int:
    """The index after the `def ...:` / `class ...:` header (decorators and a wrapped signature included)."""
    for i, ln in enumerate(body):
        if _DEF_START.match(ln):
            depth = 0
            for j in range(i, len(body)):
                depth += body[j].count("(") + body[j].count("[") - body[j].count(")") - body[j].count("]")
                if depth <= 0 and body[j].rstrip().endswith(":"):
                    return j + 1
            return i + 1
    return 1


def _python_doc_span(body: list[str]) -> int:
    """The index after a Python definition's docstring (0 when it has none)."""
    h = _python_head_end(body)
    if h >= len(body):
        return 0
    first = body[h].strip()
    m = re.match(r'^[rRuUbB]?("""|\'\'\')', first)
    if not m:
        return 0
    q = m.group(1)
    if first.count(q) >= 2 and len(first) > 3 + len(m.group(0)) - 3:
        return h + 1
    for j in range(h + 1, len(body)):
        if q in body[j]:
            return j + 1
    return 0


# ---------------------------------------------------------------- loading

_LOCK = threading.Lock()
_PROJECTS: dict[tuple[str, int], Project] = {}


_LATEST: dict[str, tuple[Project, dict[str, tuple[int, int]]]] = {}  # root -> last project, its files' stamps


def load(root: str | Path, state_db: str | Path | None = None, *, should_stop: Callable[[], bool] | None = None,
         progress: Callable[[str], None] | None = None, files: list[str] | None = None) -> Project:
    """The project at `root`, walked and mapped once per process and tree state. `should_stop`
    ends the walk or the map early (WalkStopped); `progress` hears how far they got.

    `files`: the source files this call reads (a chapter's sources). When the process has
    mapped the tree already and those files are as they were then (size and modification
    time), that project is the answer without a walk: a chapter's call costs a few stats,
    whatever the size of the tree. Without `files` (the planner reads everything), the tree is
    walked and the project kept per tree state."""
    from ..repo.map import build_map
    from ..repo.walk import WalkStopped, read_source, walk

    root = Path(root).resolve()
    if files is not None:
        with _LOCK:
            latest = _LATEST.get(str(root))
        if latest is not None and _unchanged(root, files, latest[1]):
            return latest[0]
    tree = walk(root, should_stop=should_stop,
                on_progress=(lambda n: progress(f"{n} entries walked")) if progress else None)
    stamps = {f.rel: st for f in tree.files if (st := _stamp(root / f.rel)) is not None}
    key = (str(root), hash(tuple((f.rel, f.kind) for f in tree.files)) ^ hash(tuple(sorted(stamps.items()))))
    with _LOCK:
        if key in _PROJECTS:
            _LATEST[str(root)] = (_PROJECTS[key], stamps)
            return _PROJECTS[key]
    cache = None
    conn = None
    if state_db is not None:
        import sqlite3

        from ..repo.cache import MapCache

        try:
            Path(state_db).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(state_db), timeout=30)
            cache = MapCache(conn)
        except sqlite3.Error:
            cache, conn = None, None  # a locked or damaged state.db only costs a re-parse

    def read(rel: str) -> str:
        return read_source(root, rel)

    def stop() -> bool:  # the caller's word, or a stop signal a session heard (see signals.watch_stop)
        return stop_requested() or (should_stop is not None and should_stop())

    try:
        m = build_map([(f.rel, f.lang, f.kind) for f in tree.files], read=read, cache=cache, should_stop=stop,
                      package=Path(root).resolve().name)
    finally:
        if conn is not None:
            conn.close()
    if m.stats.get("stopped"):
        raise WalkStopped(f"map of {root} stopped after {len(m.files)} files")
    p = Project(root, {f.rel: (f.lang, f.kind) for f in tree.files}, m, tree_summary=tree.summary(),
                skipped=[(s.rel, s.reason) for s in tree.skipped])
    with _LOCK:
        _PROJECTS[key] = p
        _LATEST[str(root)] = (p, stamps)
    return p


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _unchanged(root: Path, files: list[str], stamps: dict[str, tuple[int, int]]) -> bool:
    """Every file named is in the walked tree and has the size and modification time it had."""
    return all(rel in stamps and _stamp(root / rel) == stamps[rel] for rel in files)


def from_context(ctx: dict[str, Any]) -> Project:
    root = ctx.get("source_root")
    if not root:
        from ..errors import StepFailed

        raise StepFailed("the offline authors need the source root in the context (source_root)", retryable=False)
    chapter = ctx.get("chapter")
    files = list(chapter.get("sources") or []) if isinstance(chapter, dict) else None
    return load(root, ctx.get("state_db"), files=files)


# ---------------------------------------------------------------- the project's name


# (`*.conf.js` too: uuid's `wdio.conf.js`, karma's, protractor's: a test runner's setup is no chapter)
_TOOL_CONFIG_RE = re.compile(r"^\.?[\w.-]+\.conf(?:ig)?\.(?:[cm]?[jt]s)$|^\.[\w-]+rc\.[cm]?js$")  # (rollup.coverage.config.js)
TOOL_FILES = frozenset({"gulpfile.js", "Gruntfile.js", "setup.py", "noxfile.py", "fabfile.py", "Jakefile.js"})
HARNESS_DIRS = frozenset({"fuzz", "fuzz_targets", "benches", "bench", "benchmarks", "benchmark"})


def is_tooling(rel: str) -> bool:
    """A file that configures the project's tools or drives them, not the library itself: a
    `*.config.js` (eslint, rollup, vite, jest), a `.eslintrc.js`, `setup.py`, `noxfile.py`, a
    fuzzing or benchmark harness (serde_json's `fuzz/fuzz_targets/`)."""
    parts = rel.split("/")
    base = parts[-1]
    return (bool(_TOOL_CONFIG_RE.match(base)) or (base in TOOL_FILES and len(parts) == 1) or base == "conftest.py"
            or any(d in HARNESS_DIRS for d in parts[:-1]))


def project_name(root: str | Path) -> str:
    """The project's name (issue 23: the book is named after the project, never "src"): the
    manifest or README of the project the source folder belongs to (repo.project.discover walks
    up to the repository's root), else the directory's name."""
    from ..repo.project import discover

    try:
        return discover(root).name
    except OSError:
        return Path(root).resolve().name
