"""R1: quoted code, cited paths and symbols verified against the source repository (an index
of its Python definitions, built once per source tree and memoised)."""

from __future__ import annotations

import ast
import builtins
import io
import os
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..text.markdown import SPAN_RE, CodeBlock, code_blocks, prose_lines, split_lines
from . import r1_store
from .citations import check_citations
from .diagrams import check_diagrams
from .findings import Collected, Finding, sorted_findings
from .known_names import external_alias, in_project, project_texts, stdlib_member

_SOURCE_MAX = 8_000_000  # a quoted file is read whole up to this size (the walker's cap for the index is 1 MB)
# bytes of text kept per file and in all for the fallback: per file as much as the map reads (repo.read's cap), so a
# name the map found deep in a big file (syn's 1.6 MB expansion: `ThreadBound` past its first megabyte) is not
# "undefined" to R1 when chapter 1's diagram draws it
_TEXT_LIMIT, _TEXT_TOTAL = 4 << 20, 64 << 20
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
    aliases: dict[str, set[str]] = field(default_factory=dict)  # a name an import binds → the modules it names
    # non-Python text files (and Python files that do not parse), and the Python files' strings
    # and docstrings: a name they say (`_cmd`, `mix_stderr`, "store_const") is the project's word
    text: str = ""
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


_INDEX_CACHE: dict[str, tuple[str, _Index]] = {}  # resolved source dir → (tree signature, index)


def _index_python(tree: ast.Module, module: str, idx: _Index, strings: list[str]) -> None:
    """Modules, classes, functions, methods, parameters, locals, module and class level
    assignments, `self.x` attributes, and imported names (re-exports like `minikv.Store`)."""

    def visit(nodes: Sequence[ast.AST], qual: str, cls: str | None) -> None:
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
                        if isinstance(node, ast.Import):  # `import typing as t` → typing; `import os.path` → os
                            whole = alias.name if alias.asname else bound
                        else:  # `from enum import IntEnum` → enum.IntEnum (the source's own relative imports: none)
                            whole = f"{node.module}.{alias.name}" if node.module and not node.level else ""
                        if whole:
                            idx.aliases.setdefault(bound, set()).add(whole)
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
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
            idx.names.add(sub.attr)  # `lex.whitespace_split = True`: a member the source sets
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and len(sub.value) < 20_000:
            strings.append(sub.value)  # docstrings and string literals, searched as text


def _index(root: Path, state_db: Path | None = None) -> _Index:
    """The index of a source tree, rebuilt only when a file was added, removed or changed
    (mtime or size). The files are the safe walker's (no link out of the source, no FIFO or
    device, nothing over its size cap), read with its checks, so R1 never blocks or balloons."""
    from ..repo.walk import SourceReadError, read_source_bytes, walk

    try:
        tree = walk(root)
    except SourceReadError:
        return _Index()
    stats = []
    for f in tree.files:
        try:
            st = os.stat(root / f.rel)
        except OSError:
            continue
        stats.append((f.rel, st.st_mtime_ns, f.size))
    signature = r1_store.signature(stats)
    key = str(root.resolve())
    if key in _INDEX_CACHE and _INDEX_CACHE[key][0] == signature:
        return _INDEX_CACHE[key][1]
    stored = r1_store.load(state_db, key, signature) if state_db is not None else None
    if stored is not None:  # built by an earlier process from this very tree
        _INDEX_CACHE[key] = (signature, _Index(**stored))
        return _INDEX_CACHE[key][1]
    idx, texts, total = _Index(), [], 0
    for rel, _, _ in stats:
        idx.files.add(rel)
        idx.dirs.update(rel.rsplit("/", k)[0] for k in range(1, rel.count("/") + 1))
        try:
            data = read_source_bytes(root, rel)
        except OSError:
            continue
        if rel.endswith(".py"):
            try:
                with warnings.catch_warnings():  # SyntaxWarnings of odd sources are not ours
                    warnings.simplefilter("ignore")
                    module = re.sub(r"(^|/)__init__$", "", rel[:-3]).replace("/", ".") or root.name
                    strings: list[str] = []
                    _index_python(ast.parse(data), module, idx, strings)
                said = "\n".join(strings)[:max(0, _TEXT_TOTAL - total)]
                texts.append(said)
                total += len(said)
                continue
            except (SyntaxError, ValueError, RecursionError):
                pass  # not Python 3 after all: searched as text below
        data = data[:min(_TEXT_LIMIT, _TEXT_TOTAL - total)]
        if b"\0" not in data[:8192]:  # not a binary file
            texts.append(data.decode("utf-8", "replace"))
            total += len(data)
    texts += project_texts(root)
    idx.text = "\n".join(texts)
    _INDEX_CACHE[key] = (signature, idx)
    if state_db is not None:
        r1_store.save(state_db, key, signature, {k: getattr(idx, k) for k in (*r1_store._SETS, *r1_store._MAPS, "text")})
    return idx


# ----------------------------------------------------------------- R1: code, paths, symbols

_ELISIONS = {"...", "# ...", "// ...", "…", "# …"}
_EXTS = frozenset((
    "py", "pyi", "md", "rst", "txt", "toml", "yaml", "yml", "json", "cfg", "ini", "lock", "js", "mjs",
    "cjs", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cc", "cpp", "hpp", "java", "kt", "rb", "php", "sh",
    "bash", "sql", "html", "htm", "css", "scss", "proto", "xml", "csv", "j2", "jinja", "tmpl", "mk",
    "cs", "kts", "swift", "scala", "sc", "ex", "exs", "lua", "zig", "hs", "dart", "erl", "jl",  # issue 33
))
_LITERAL_RE = re.compile(r"""^(?:[-+]?v?\d[\w.+-]*|["'].*|True|False|None)$""")
_PATH_RE = re.compile(r"^(?:\./)?[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/?$")
_SYMBOL_RE = re.compile(r"^@?([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)(\([^()]*\))?$")
_Src = list[tuple[int, str, str]]  # a source file's non-blank lines: (number, tabs expanded, its words: _words)


def _resolve(root: Path, rel: str) -> tuple[str | None, Path | None]:
    """(problem, path) of a `file=` path: it must stay inside the source and exist."""
    p = rel.replace("\\", "/")
    if p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", p) or ".." in p.split("/"):
        return "is outside the source directory", None
    from ..repo.walk import source_problem

    rel_ = p.removeprefix("./")
    full = (root / rel_).resolve()
    if not full.is_relative_to(root.resolve()):  # a symlink out of the source
        return "is outside the source directory", None
    why = source_problem(root, rel_, max_bytes=_SOURCE_MAX)
    if why is None:
        return None, root / rel_
    why = why.removeprefix(f"source file {rel_}: ")
    if why.startswith("does not exist"):
        return "does not exist in the source", None
    if why == "not a regular file (directory)":
        return "does not exist in the source as a file (it is a directory)", None
    return f"cannot be read ({why})", None


def _words(line: str) -> str:
    """A line's text with its runs of blanks as one space: a tab inside a line (echo aligns its
    comments with tabs after a word) is spaces once a quote's tabs are expanded."""
    return " ".join(line.split())


def _shape(lines: list[str]) -> tuple[int, ...]:
    """Relative indentation: the rank of each line's indent among the indents of the piece.
    Two pieces with the same shape differ only in indentation width (tabs vs spaces, 2 vs 4)."""
    indents = [len(ln) - len(ln.lstrip()) for ln in lines]
    levels = sorted(set(indents))
    return tuple(levels.index(i) for i in indents)


def _find_piece(piece: list[str], src: _Src, pos: int) -> int | None:
    """Where the piece starts in src at or after pos: same lines, same indentation shape."""
    content, shape, n = [_words(ln) for ln in piece], _shape(piece), len(piece)
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
        content, best = [_words(ln) for ln in piece], 0
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
    if head in _EXTERNAL or (head in idx.imported and head not in idx.names) or external_alias(head, idx):
        return None  # the stdlib, a builtin, or a library the source imports (`t.Any` of `import typing as t`)
    if len(parts) == 1 and stdlib_member(last, idx):
        return None  # `IntEnum`: a name of a standard module the source imports (enum)
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


# a symbol the tool cannot stand behind (a member of an instance whose type it does not know) is a note
_UNSURE = ("nothing named",)


def _check_inline(token: str, root: Path, idx: _Index) -> tuple[str, str, str] | None:
    """(check, message) when an inline code span cites a path or symbol the source lacks."""
    token = token.strip()
    if not token or re.search(r"\s", token) or _LITERAL_RE.match(token) or "://" in token:
        return None  # a shell command, a literal or a URL
    cand = re.sub(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?|::[\w.\[\]-]+)$", "", token)  # `a.py:12`, `a.py::T`
    if _PATH_RE.match(cand) and "*" not in cand:
        base = cand.rstrip("/").rsplit("/", 1)[-1]
        ext = base.rsplit(".", 1)[-1].lower() if "." in base.lstrip(".") else ""
        if ("/" in cand and (ext or cand.endswith("/"))) or ext in _EXTS:
            # a path the project's own docs or docstrings name (`yourapplication/app.py` in an example)
            # is quoted, not claimed to exist
            ok = _path_exists(cand, root, idx) or in_project(cand.removeprefix("./").rstrip("/"), root) \
                or idx.in_text(cand)
            if not ok and "/" not in cand and (m := _SYMBOL_RE.match(token)) and not _symbol_problem(m.group(1), idx):
                return None  # `Response.json`: a member the source defines, not a file name
            return None if ok else ("r1.path", "major", f"`{token}` is cited but does not exist in the source")
    m = _SYMBOL_RE.match(token)
    if not m:
        return None
    name = m.group(1)
    camel = re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", name)
    if not ("." in name or ":" in name or "_" in name or m.group(2) or camel):
        return None  # a plain word
    problem = _symbol_problem(name, idx)
    if not problem:
        return None
    return ("r1.symbol", "minor" if problem.startswith(_UNSURE) else "major", f"`{token}` is cited but {problem}")


def source_index(source_dir: Path, state_db: Path | None = None) -> _Index:
    """What the source tree defines, for `check_code(index=...)`: a caller that checks many
    chapters against one tree (a run) takes it once instead of re-walking the tree per check."""
    return _index(Path(source_dir), state_db)


def name_checks(source_dir: Path, index: _Index) -> tuple[Callable[[str], str | None], Callable[[str], bool]]:
    """(why a symbol is not in the source, whether a path is) by R1's rules: what a diagram's
    names are held to (checks.diagrams), for a caller outside R1 (the audit's figures)."""
    root = Path(source_dir)
    return (lambda name: _symbol_problem(name, index)), (lambda f: _path_exists(f, root, index))


def check_code(md: str, source_dir: Path, *, state_db: Path | None = None, index: _Index | None = None,
               evidence_min: float | None = None) -> tuple[list[Finding], list[CodeBlock]]:
    """R1: every `file=` block must be in its file (modulo indentation; `...` elides), every
    cited path must exist, every cited symbol must be defined. Returns (findings, the blocks
    verified against the source); every citation must resolve (checks.citations, with the
    coverage threshold `evidence_min`). With `state_db`, the source index is kept there across processes;
    `index` (from `source_index`) skips the walk that checks the index is current."""
    from ..repo.walk import read_source

    root = Path(source_dir)
    out, verified = Collected(), []
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
                text = read_source(root, path.relative_to(root).as_posix(), max_bytes=_SOURCE_MAX).removeprefix("\ufeff")
            except OSError as e:
                out.add("r1.code", "blocking", b.line, f"code block at line {b.line} cites {b.file}, "
                        f"which cannot be read ({e})")
                continue
            sources[path] = [(n, ln.expandtabs(8).rstrip(), _words(ln))
                             for n, ln in enumerate(split_lines(text), 1) if ln.strip()]
        finding, ok = _verify_block(b, sources[path])
        out += [finding] if finding else []
        verified += [b] if ok else []
    idx = index if index is not None else _index(root, state_db)
    for n, raw, _ in prose_lines(md):
        for m in SPAN_RE.finditer(raw):
            if hit := _check_inline(m.group(2), root, idx):
                out.add(hit[0], hit[1], n, hit[2])
    out += check_diagrams(md, lambda name: _symbol_problem(name, idx), lambda f: _path_exists(f, root, idx))
    out += check_citations(md, root, evidence_min=evidence_min)
    return sorted_findings(out), verified
