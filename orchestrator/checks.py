"""Deterministic checks of a chapter (DESIGN §7), run by the reviewers in both modes and by
the final audit: R1 verifies quoted code, cited paths and symbols against the source repo;
R2 checks cross references, glossary terms and metaphor reuse; R3 checks structure and
length; `audit_book` checks links, leftovers and cross references across the finals.

Markdown conventions: one `# Title`, `##` sections; code quoted from the source is a fence
whose info string names the file (```` ```python file=minikv/store.py lines=10-24 ````);
cited paths and symbols are inline code; chapter links are `[text](chNN.md#anchor)`.

Everything here is a pure function of its arguments (plus reading files under the source
directory); findings come out sorted by line, then message. Only the stdlib is used."""

from __future__ import annotations

import ast
import builtins
import io
import os
import re
import sys
import warnings
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
    lines: tuple[int, int] | None  # the `lines=a-b` attribute
    code: str  # the content, without the fences
    line: int  # 1-based line of the opening fence
    closed: bool = True  # False: the fence runs to the end of the text (a truncated chapter)


# ----------------------------------------------------------------- markdown scanning

_FENCE_RE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_ATTR_RE = re.compile(r"""([A-Za-z_][\w-]*)=("[^"]*"|'[^']*'|\S+)""")
_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")  # an inline code span, on one line
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_LINK_RE = re.compile(
    r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(\s*<?([^\s()<>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s<>]+)>?")
_CHLINK_RE = re.compile(r"^(?:\./)?(ch\d{2,})\.md(?:#(.*))?$")
# a marker-like comment, also once neutralised by markers.neutralise: `<!-- (quoted) DRAFT_COMPLETE -->`
_MARKER_RE = re.compile(r"<!--\s*(?:\(quoted\)\s*)?[A-Z][A-Z0-9_]{2,}(?=\s|-->|$)")
_LATIN_B, _LATIN_A = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"  # word edges that work beside CJK text


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
    """Fenced blocks, the lines, and for each line whether it belongs to a fence. A closing
    fence uses the opening character at least as many times; fences inside fences are text."""
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
        body = [ln[min(indent, len(ln) - len(ln.lstrip(" \t"))) :] for ln in lines[i + 1 : j]]
        for k in range(i, min(j + 1, len(lines))):
            in_code[k] = True
        blocks.append(_make_block(m.group(3), body, i + 1, j < len(lines)))
        i = j + 1
    return blocks, lines, in_code


def code_blocks(md: str) -> list[CodeBlock]:
    """Every fenced block (``` or ~~~, any length ≥ 3), in order."""
    return _scan(md)[0]


def _mask(line: str) -> str:
    """The line with inline code spans blanked out (same length, so columns stay put)."""
    return _SPAN_RE.sub(lambda m: " " * len(m.group()), line)


def _prose(md: str) -> list[tuple[int, str, str]]:
    """(line number, raw line, line without inline code) for every line outside fences."""
    _, lines, in_code = _scan(md)
    return [(n + 1, ln, _mask(ln)) for n, ln in enumerate(lines) if not in_code[n]]


def _blank_urls(text: str) -> str:
    return re.sub(r"\]\([^)\n]*\)", lambda m: "]" + " " * (len(m.group()) - 1), text)


def _links(md: str) -> list[tuple[int, str]]:
    out = []
    for n, _, masked in _prose(md):
        out += [(n, m.group(1)) for m in _LINK_RE.finditer(masked) if m.group(1)]
        if m := _REFDEF_RE.match(masked):
            out.append((n, m.group(1)))
    return out


def _headings(md: str) -> list[tuple[int, int, str]]:
    """(line, level, text) of every ATX heading outside fences."""
    out = []
    for n, raw, _ in _prose(md):
        if m := _HEADING_RE.match(raw):
            out.append((n, len(m.group(1)), (m.group(2) or "").strip()))
    return out


def slugify(text: str) -> str:
    """A heading's anchor, as GitHub and markdown-it's anchors plugin make it: lowercase,
    spaces to `-`, punctuation dropped except `-` and `_`, letters of any script kept."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images → their text
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def heading_slugs(md: str) -> list[str]:
    """The anchors of all headings in order; repeats get `-1`, `-2`; `{#id}` wins."""
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


_CJK_RE = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ebef]"
)


def text_length(text: str) -> int:
    """CJK characters plus words of other scripts: words for English, characters for Chinese."""
    cjk = len(_CJK_RE.findall(text))
    return cjk + sum(1 for w in _CJK_RE.sub(" ", text).split() if re.search(r"\w", w))


def _sorted(findings: list[Finding]) -> list[Finding]:
    unique = dict.fromkeys(findings)
    return sorted(unique, key=lambda f: (f.line, f.message, f.check, f.severity))


# ----------------------------------------------------------------- the source index

_SKIP_DIRS = {"__pycache__", "node_modules"}
_TEXT_LIMIT = 1 << 20  # bytes read from one non-Python file for the text fallback
_EXTERNAL = set(sys.stdlib_module_names) | set(dir(builtins))
_BUILTIN_MEMBERS = {
    n
    for t in (
        str,
        bytes,
        bytearray,
        dict,
        list,
        set,
        tuple,
        int,
        float,
        memoryview,
        io.TextIOWrapper,
        io.BufferedRandom,
        io.BytesIO,
    )
    for n in dir(t)
}


@dataclass
class _Index:
    """What a source tree defines. Python files through `ast`, the rest as plain text."""

    files: set[str] = field(default_factory=set)  # relative posix paths
    dirs: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # every bare name defined anywhere
    qualified: set[str] = field(default_factory=set)  # dotted suffixes of qualified names: "Store.get"
    modules: set[str] = field(default_factory=set)  # dotted suffixes of module names
    classes: dict[str, set[str]] = field(default_factory=dict)  # class name → member names
    bases: dict[str, set[str]] = field(default_factory=dict)  # class name → base class names
    imported: set[str] = field(default_factory=set)  # names bound by import statements
    text: str = ""  # non-Python text files (and Python files that do not parse)
    _seen: dict[str, bool] = field(default_factory=dict)  # memo of text searches

    def add(self, qual: str, bare: bool = True) -> None:
        parts = qual.split(".")
        self.qualified.update(".".join(parts[k:]) for k in range(len(parts) - 1))
        if bare:
            self.names.add(parts[-1])

    def in_text(self, name: str) -> bool:
        if name not in self._seen:
            self._seen[name] = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", self.text) is not None
        return self._seen[name]


_INDEX_CACHE: dict[str, tuple[int, _Index]] = {}  # resolved source dir → (tree signature, index)


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _index_python(tree: ast.Module, module: str, idx: _Index) -> None:
    def visit(nodes: list, qual: str, cls: str | None) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{qual}.{node.name}"
                idx.add(q)
                if cls:
                    idx.classes[cls].add(node.name)
                if isinstance(node, ast.ClassDef):
                    idx.classes.setdefault(node.name, set())
                    idx.bases.setdefault(node.name, set()).update(
                        b for b in map(_last_name, node.bases) if b and b != "object"
                    )
                    visit(node.body, q, node.name)
                    continue
                for sub in ast.walk(node):  # parameters, locals, and self.x / cls.x attributes
                    if isinstance(sub, ast.arg):
                        idx.names.add(sub.arg)
                    elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        idx.names.add(sub.id)
                    elif (
                        cls
                        and isinstance(sub, ast.Attribute)
                        and isinstance(sub.ctx, ast.Store)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id in ("self", "cls")
                    ):
                        idx.add(f"{qual}.{sub.attr}")
                        idx.classes[cls].add(sub.attr)
                visit(
                    [
                        n
                        for n in node.body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    ],
                    q,
                    None,
                )
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if bound != "*":
                        idx.imported.add(bound)
                        idx.add(f"{qual}.{bound}", bare=False)  # a re-export: `minikv.Store`
            else:
                targets = (
                    node.targets
                    if isinstance(node, ast.Assign)
                    else ([node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
                )
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            idx.add(f"{qual}.{n.id}")
                            if cls:
                                idx.classes[cls].add(n.id)
                for attr in ("body", "orelse", "finalbody", "handlers", "cases"):  # if/try/with/match
                    sub = getattr(node, attr, None)
                    if isinstance(sub, list):
                        visit(sub, qual, cls)

    idx.add(module)
    parts = module.split(".")
    idx.modules.update(".".join(parts[k:]) for k in range(len(parts)))
    idx.names.update(parts)
    visit(tree.body, module, None)


def _source_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        out += [Path(dirpath) / f for f in sorted(filenames)]
    return out


def _index(root: Path) -> _Index:
    """The index of a source tree, rebuilt only when a file's mtime or size changed."""
    files = _source_files(root)
    stats = []
    for p in files:
        try:
            st = p.stat()
            stats.append((p, st.st_mtime_ns, st.st_size))
        except OSError:
            continue
    signature = hash(tuple((str(p), m, s) for p, m, s in stats))
    key = str(root.resolve()) if root.exists() else str(root)
    if key in _INDEX_CACHE and _INDEX_CACHE[key][0] == signature:
        return _INDEX_CACHE[key][1]
    idx, texts = _Index(), []
    for p, _, size in stats:
        rel = p.relative_to(root).as_posix()
        idx.files.add(rel)
        idx.dirs.update(rel.rsplit("/", k)[0] for k in range(1, rel.count("/") + 1))
        if p.suffix == ".py":
            module = rel[:-3].removesuffix("/__init__").replace("/", ".")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _index_python(ast.parse(p.read_bytes()), module, idx)
                continue
            except (SyntaxError, ValueError, OSError, RecursionError):
                pass  # not Python 3 after all: searched as text below
        try:
            with open(p, "rb") as fh:
                data = fh.read(_TEXT_LIMIT)
        except OSError:
            continue
        if b"\0" not in data[:8192]:
            texts.append(data.decode("utf-8", "replace"))
    idx.text = "\n".join(texts)
    _INDEX_CACHE[key] = (signature, idx)
    return idx


# ----------------------------------------------------------------- R1: code, paths, symbols

_ELISIONS = {"...", "# ...", "// ...", "…", "# …"}
_EXTS = set(
    "py pyi md rst txt toml yaml yml json cfg ini lock js mjs cjs ts tsx jsx go rs c h cc cpp hpp "
    "java kt rb php sh bash sql html htm css scss proto xml csv j2 jinja tmpl mk".split()
)
_LITERAL_RE = re.compile(r"""^(?:[-+]?v?\d[\w.+-]*|["'].*|True|False|None)$""")
_PATH_RE = re.compile(r"^(?:\./)?[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*/?$")
_SYMBOL_RE = re.compile(r"^@?([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)(\([^()]*\))?$")


def _resolve(root: Path, rel: str) -> tuple[str | None, Path | None]:
    """(problem, path) of a `file=` path: it must stay inside the source and exist."""
    p = rel.replace("\\", "/")
    if p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", p) or ".." in p.split("/"):
        return "is outside the source directory", None
    full = (root / p.removeprefix("./")).resolve()
    if not full.is_relative_to(root.resolve()):
        return "is outside the source directory", None
    return (None, full) if full.is_file() else ("does not exist in the source", None)


def _shape(lines: list[str]) -> tuple[int, ...]:
    """Relative indentation: the rank of each line's indent among the indents of the piece.
    Two pieces with the same shape differ only in indentation width (tabs vs spaces, 2 vs 4)."""
    indents = [len(ln) - len(ln.lstrip()) for ln in lines]
    levels = sorted(set(indents))
    return tuple(levels.index(i) for i in indents)


def _find_piece(piece: list[str], src: list[tuple[int, str, str]], pos: int) -> int | None:
    content, shape, n = [ln.strip() for ln in piece], _shape(piece), len(piece)
    for i in range(pos, len(src) - n + 1):
        if (
            src[i][2] == content[0]
            and [s[2] for s in src[i : i + n]] == content
            and _shape([s[1] for s in src[i : i + n]]) == shape
        ):
            return i
    return None


def _match(pieces: list[list[str]], src: list[tuple[int, str, str]], pos: int = 0) -> tuple[int, int] | None:
    """Greedy in-order match of the pieces; (first, last) source line of the match."""
    first = last = None
    for piece in pieces:
        i = _find_piece(piece, src, pos)
        if i is None:
            return None
        first = src[i][0] if first is None else first
        pos = i + len(piece)
        last = src[pos - 1][0]
    return (first, last) if first is not None else None


def _why_missing(pieces: list[list[str]], src: list[tuple[int, str, str]]) -> str:
    """The first quoted line that breaks the longest partial match, for the message."""
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


def _verify_block(b: CodeBlock, src: list[tuple[int, str, str]]) -> Finding | None:
    """None when the block is in its file (src: the file's non-blank lines), else a finding."""
    pieces, cur = [], []
    for ln in b.code.split("\n") + ["..."]:
        if ln.strip() in _ELISIONS:
            if cur:
                pieces.append(cur)
            cur = []
        elif ln.strip():  # blank lines never count: a writer may drop or add one
            cur.append(ln.expandtabs(8).rstrip())
    if not pieces:
        return Finding(
            "r1.code", "minor", b.line, f"code block at line {b.line} quotes nothing from {b.file}"
        )
    if b.lines:  # prefer the occurrence at the declared lines
        start = next((i for i, s in enumerate(src) if s[0] >= b.lines[0]), len(src))
        found = _match(pieces, src, start)
        if found and b.lines[0] <= found[0] and found[1] <= b.lines[1]:
            return None
    found = _match(pieces, src)
    if found is None:
        return Finding(
            "r1.code",
            "blocking",
            b.line,
            f"code block at line {b.line} is not in {b.file}: {_why_missing(pieces, src)}",
        )
    if b.lines:
        return Finding(
            "r1.code",
            "minor",
            b.line,
            f"code block at line {b.line} says lines={b.lines[0]}-{b.lines[1]} "
            f"but the code is at lines {found[0]}-{found[1]} of {b.file}",
        )
    return None


def _path_exists(cand: str, root: Path, idx: _Index) -> bool:
    cand = cand.removeprefix("./").rstrip("/")
    parts = cand.split("/")
    if not cand or cand.startswith(("/", "~")) or ".." in parts:
        return True  # not a path inside the source: not ours to check
    if (root / cand).exists() or (
        parts[0] == root.name and len(parts) > 1 and (root / "/".join(parts[1:])).exists()
    ):
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
        return None  # the stdlib, a builtin or a library the source imports
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
    """(check, message) for an inline code span that cites something missing."""
    token = token.strip()
    if not token or re.search(r"\s", token) or _LITERAL_RE.match(token) or "://" in token:
        return None  # a shell command, a literal or a URL
    cand = re.sub(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?|::[\w.\[\]-]+)$", "", token)
    if _PATH_RE.match(cand) and "*" not in cand:
        base = cand.rstrip("/").rsplit("/", 1)[-1]
        ext = base.rsplit(".", 1)[-1].lower() if "." in base.lstrip(".") else ""
        if ("/" in cand and (ext or cand.endswith("/"))) or ext in _EXTS:
            if not _path_exists(cand, root, idx):
                return "r1.path", f"`{token}` is cited but does not exist in the source"
            return None
    m = _SYMBOL_RE.match(token)
    if not m:
        return None
    name = m.group(1)
    if not (
        "." in name
        or ":" in name
        or m.group(2)
        or "_" in name
        or re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", name)
    ):
        return None  # a plain word
    problem = _symbol_problem(name, idx)
    return ("r1.symbol", f"`{token}` is cited but {problem}") if problem else None


def check_code(md: str, source_dir: Path) -> tuple[list[Finding], list[CodeBlock]]:
    """R1: every `file=` block must be in its file (modulo indentation; `...` elides), every
    cited path must exist, every cited symbol must be defined. Returns (findings, verified)."""
    root = Path(source_dir)
    findings: list[Finding] = []
    verified: list[CodeBlock] = []
    sources: dict[Path, list[tuple[int, str, str]]] = {}
    for b in code_blocks(md):
        if b.file is None:
            continue  # illustrative, not verified
        problem, path = _resolve(root, b.file)
        if problem or path is None:
            findings.append(
                Finding(
                    "r1.code",
                    "blocking",
                    b.line,
                    f"code block at line {b.line} cites {b.file}, which {problem}",
                )
            )
            continue
        if path not in sources:  # (line number, line with tabs expanded, stripped line)
            text = path.read_text("utf-8-sig", errors="replace")
            sources[path] = [
                (n, ln.expandtabs(8).rstrip(), ln.strip())
                for n, ln in enumerate(_split_lines(text), 1)
                if ln.strip()
            ]
        f = _verify_block(b, sources[path])
        if f:
            findings.append(f)
        if f is None or f.severity != "blocking":
            verified.append(b)
    idx = _index(root)
    for n, raw, _ in _prose(md):
        for m in _SPAN_RE.finditer(raw):
            if hit := _check_inline(m.group(2), root, idx):
                findings.append(Finding(hit[0], "major", n, hit[1]))
    return _sorted(findings), verified


# ----------------------------------------------------------------- R2: consistency

_DEFINE_RES = (re.compile(r"\*\*([^*\n]+?)\*\*\s*[:：（(]"), re.compile(r"\*\*([^*\n]+?)[:：]\*\*"))


def _term_re(term: str, end: bool = True) -> re.Pattern[str]:
    return re.compile(_LATIN_B + re.escape(term) + (_LATIN_A if end else ""), re.IGNORECASE)


def _glossary_findings(
    prose: list[tuple[int, str, str]], chapter: str, glossary: dict[str, str]
) -> list[Finding]:
    out: list[Finding] = []
    owners = {t.lower(): (t, c) for t, c in glossary.items()}
    cased = [(t, _term_re(t)) for t in glossary if t.lower() != t.upper()]  # CJK terms have no case
    seen: set[tuple[str, str]] = set()
    for n, raw, text in prose:
        for rx in _DEFINE_RES:  # `**term**: ...`, `**term**（...）`: a definition
            for m in rx.finditer(text):
                term, owner = owners.get(m.group(1).strip().lower(), ("", ""))
                if term and owner and owner != chapter:
                    out.append(
                        Finding(
                            "r2.glossary",
                            "minor",
                            n,
                            f"redefines '{term}', defined in {owner}; link to it instead",
                        )
                    )
        if _HEADING_RE.match(raw):
            continue  # headings may be in title case
        for term, rx in cased:
            for m in rx.finditer(text):
                found = m.group()  # the glossary form, or that form starting a sentence
                if found not in (term, term[:1].upper() + term[1:]) and (term, found) not in seen:
                    seen.add((term, found))
                    out.append(
                        Finding(
                            "r2.glossary",
                            "minor",
                            n,
                            f"writes '{found}' for the glossary term '{term}'; use '{term}'",
                        )
                    )
    return out


def check_consistency(
    md: str, chapter: str, *, glossary: dict[str, str], chapters: dict[str, str], metaphors: dict[str, str]
) -> list[Finding]:
    """R2: links to chapters that do not exist (or to this one), glossary terms redefined or
    written with another capitalisation, and metaphors that belong to another chapter."""
    out: list[Finding] = []
    for n, target in _links(md):
        if m := _CHLINK_RE.match(target):
            if m.group(1) not in chapters:
                out.append(
                    Finding(
                        "r2.xref",
                        "major",
                        n,
                        f"link to {target} points to a chapter that is not in this book",
                    )
                )
            elif m.group(1) == chapter:
                out.append(
                    Finding(
                        "r2.xref",
                        "minor",
                        n,
                        f"link to {target} points to this chapter itself; use an anchor (#...) instead",
                    )
                )
    prose = [(n, raw, _blank_urls(masked)) for n, raw, masked in _prose(md)]
    out += _glossary_findings(prose, chapter, glossary)
    for phrase, owner in metaphors.items():
        if len(phrase.strip()) < 2 or owner == chapter:
            continue
        n = next((n for n, _, text in prose if phrase.lower() in text.lower()), 0)  # the first use only
        if n:
            out.append(
                Finding(
                    "r2.metaphor",
                    "minor",
                    n,
                    f"reuses the metaphor '{phrase}' of {owner}; find an image of this chapter's own",
                )
            )
    return _sorted(out)


# ----------------------------------------------------------------- R3: structure


def check_structure(
    md: str, *, language: str = "en", min_words: int = 300, max_words: int = 6000
) -> list[Finding]:
    """R3: one H1, at least two `##` sections, length within bounds, closed fences, no heading
    level jumps, no empty sections."""
    out: list[Finding] = []
    blocks, lines, in_code = _scan(md)
    for b in blocks:
        if not b.closed:
            out.append(
                Finding(
                    "r3.fence",
                    "blocking",
                    b.line,
                    f"the code fence opened at line {b.line} is never closed; the chapter looks truncated",
                )
            )
    heads = _headings(md)
    h1 = [h for h in heads if h[1] == 1]
    if not h1:
        out.append(Finding("r3.title", "major", 0, "the chapter has no `# Title` line; add one H1 title"))
    elif len(h1) > 1:
        out.append(
            Finding(
                "r3.title",
                "major",
                h1[1][0],
                f"the chapter has {len(h1)} H1 titles (lines {', '.join(str(h[0]) for h in h1)}); keep one and make the others `##`",
            )
        )
    if (k := sum(1 for h in heads if h[1] == 2)) < 2:
        out.append(
            Finding("r3.sections", "major", 0, f"the chapter has {k} `##` section(s); it needs at least 2")
        )
    prose = "\n".join(ln for ln, c in zip(lines, in_code) if not c)
    size = text_length(re.sub(r"<!--.*?-->", " ", prose, flags=re.DOTALL))
    unit = "characters" if language.lower().startswith("zh") else "words"
    if size < min_words:
        out.append(
            Finding("r3.length", "major", 0, f"the chapter is {size} {unit} long; the minimum is {min_words}")
        )
    elif size > max_words:
        out.append(
            Finding("r3.length", "major", 0, f"the chapter is {size} {unit} long; the maximum is {max_words}")
        )
    for k, (n, level, text) in enumerate(heads):
        prev = heads[k - 1][1] if k else level
        if level > prev + 1:
            out.append(
                Finding(
                    "r3.sections",
                    "minor",
                    n,
                    f"heading '{text}' jumps from {'#' * prev} to {'#' * level}; use {'#' * (prev + 1)}",
                )
            )
        # empty: nothing but blank lines and comments before the next heading of the same or a
        # higher level (or the end); a section that opens straight with subsections is not empty
        nxt = heads[k + 1] if k + 1 < len(heads) else None
        between = lines[n : nxt[0] - 1 if nxt else len(lines)]
        if all(not re.sub(r"<!--.*?-->", "", ln).strip() for ln in between) and (
            nxt is None or nxt[1] <= level
        ):
            out.append(
                Finding(
                    "r3.sections",
                    "minor",
                    n,
                    f"section '{text}' is empty; write its text or remove the heading",
                )
            )
    return _sorted(out)


# ----------------------------------------------------------------- final audit

_LEFTOVER_RES = (
    (re.compile(_LATIN_B + r"(TODO|FIXME|XXX|TBD)" + _LATIN_A), "the leftover '{}'"),
    (re.compile(r"lorem ipsum", re.IGNORECASE), "placeholder text '{}'"),
    (re.compile(r"\[citation needed\]", re.IGNORECASE), "the leftover '{}'"),
)
_HTML_TAGS = set(
    "a abbr audio b bdi bdo blockquote br button caption center cite code col colgroup dd del details dfn "
    "div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 header hr i iframe img input ins kbd "
    "label li mark nav ol p picture pre q rp rt ruby s samp section small source span strong style sub "
    "summary sup svg table tbody td tfoot th thead time tr u ul var video wbr".split()
)
_ANGLE_RE = re.compile(r"<(?=\S)([^<>\n]{1,80})(?<=\S)>")
_MENTION_RE = re.compile(
    r"\b[Cc]hapter\s+(\d+)\b|"
    + _LATIN_B
    + r"ch(\d{2,})"
    + _LATIN_A
    + r"|第\s*([0-9零一二三四五六七八九十百〇两]+)\s*章"
)
_ZH_NUM = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}


def _zh_number(s: str) -> int | None:
    """Chinese numerals up to 999 (三, 十二, 二十, 一百零五), or digits."""
    if s.isdigit():
        return int(s)
    total, cur = 0, 0
    for ch in s:
        if ch in _ZH_NUM:
            cur = _ZH_NUM[ch]
        elif ch in "十百":
            total += (cur or 1) * (10 if ch == "十" else 100)
            cur = 0
        else:
            return None
    return total + cur


def _is_placeholder(inner: str) -> bool:
    if inner.startswith("!--") or re.match(r"^[A-Za-z][\w+.-]*:\S*$|^[^\s@]+@[^\s@]+$", inner):
        return False  # a comment or an autolink
    m = re.match(r"^/?([A-Za-z][\w-]*)(?:\s[^<>]*)?/?$", inner)
    return not (m and m.group(1).lower() in _HTML_TAGS)


def _audit_chapter(md: str, slugs: dict[str, list[str]], chapters: dict[str, str], own: str) -> list[Finding]:
    out: list[Finding] = []
    for n, target in _links(md):
        if target.startswith("#"):
            if unquote(target[1:]) not in slugs.get(own, []):
                out.append(
                    Finding("audit.link", "major", n, f"anchor {target} matches no heading of this chapter")
                )
        elif m := _CHLINK_RE.match(target):
            cid, anchor = m.group(1), m.group(2)
            if cid not in chapters:
                out.append(
                    Finding(
                        "audit.link",
                        "major",
                        n,
                        f"link to {target} points to a chapter that is not in this book",
                    )
                )
            elif cid not in slugs:
                out.append(
                    Finding(
                        "audit.xref",
                        "minor",
                        n,
                        f"link to {target} points to {cid}, which has no final text yet",
                    )
                )
            elif anchor and unquote(anchor) not in slugs[cid]:
                known = ", ".join(slugs[cid][:6]) or "none"
                out.append(
                    Finding(
                        "audit.link",
                        "major",
                        n,
                        f"link to {target}: {cid} has no heading '{anchor}' (its anchors: {known})",
                    )
                )
        elif not re.match(r"^(?:https?|mailto):", target, re.IGNORECASE):
            out.append(
                Finding(
                    "audit.link",
                    "minor",
                    n,
                    f"link to {target} is not a chapter of the book and will not be published",
                )
            )
    lines = _split_lines(md)
    last = max((i + 1 for i, ln in enumerate(lines) if ln.strip()), default=0)
    numbers = {int(c[2:]) for c in chapters if re.fullmatch(r"ch\d+", c)}
    for n, raw, masked in _prose(md):
        for rx, what in _LEFTOVER_RES:
            for m in rx.finditer(masked):
                out.append(
                    Finding(
                        "audit.leftover",
                        "major",
                        n,
                        f"{what.format(m.group())} is still in the text; finish or remove it",
                    )
                )
        for m in _ANGLE_RE.finditer(masked):
            if _is_placeholder(m.group(1)):
                out.append(
                    Finding(
                        "audit.leftover",
                        "major",
                        n,
                        f"the placeholder '{m.group()}' is still in the text; replace it",
                    )
                )
        # the file's own completion marker, on its last non-blank line, is no leftover
        own_marker = n == last and re.fullmatch(r"\s*<!--\s*[A-Z][A-Z0-9_]*(?:\s[^>]*)?-->\s*", raw)
        if not own_marker and (m := _MARKER_RE.search(masked)):
            out.append(
                Finding(
                    "audit.leftover",
                    "major",
                    n,
                    f"the marker-like comment '{m.group()}' is left in the text; remove it",
                )
            )
        for m in _MENTION_RE.finditer(_blank_urls(masked)):  # "Chapter 9", "ch09", "第九章"
            num = int(m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) else _zh_number(m.group(3))
            if num is not None and numbers and num not in numbers:
                out.append(
                    Finding(
                        "audit.xref",
                        "minor",
                        n,
                        f"'{m.group()}' refers to a chapter that is not in this book",
                    )
                )
    return out


def _chapter_key(cid: str | None) -> tuple:
    m = re.fullmatch(r"ch(\d+)", cid or "")
    return (cid is None, int(m.group(1)) if m else 0, cid or "")


def audit_book(
    finals: dict[str, str], *, glossary: dict[str, str], chapters: dict[str, str], language: str = "en"
) -> list[Finding]:
    """The whole-book audit of the final chapters (id → text, marker line included or not):
    links and anchors, leftovers, textual cross references, and glossary terms the book never
    uses. Every finding names its chapter (a glossary finding, the chapter that defined the
    term). `language` is accepted for symmetry: English and Chinese references are both read."""
    slugs = {cid: heading_slugs(md) for cid, md in finals.items()}
    out: list[Finding] = []
    for cid, md in finals.items():
        out += [replace(f, chapter=cid) for f in _audit_chapter(md, slugs, chapters, cid)]
    corpus = "\n".join(finals.values())
    for term, owner in glossary.items():
        if term.strip() and not _term_re(term.strip(), end=False).search(corpus):
            out.append(
                Finding(
                    "audit.glossary",
                    "minor",
                    0,
                    f"glossary term '{term}' (defined in {owner}) is never used in the book; use it or drop it",
                    chapter=owner or None,
                )
            )
    unique = dict.fromkeys(out)
    return sorted(unique, key=lambda f: (*_chapter_key(f.chapter), f.line, f.message, f.check))


# ----------------------------------------------------------------- findings as text

_FINDING_RE = re.compile(
    r"^\s*[-*+]\s+\*\*(blocking|major|minor)\*\*\s+`([^`]+)`(?:\s+(ch\d+))?(?:\s+line\s+(\d+))?:\s?(.*)$",
    re.IGNORECASE,
)


def blocking(findings) -> bool:
    return any(f.severity == "blocking" for f in findings)


def format_findings(findings) -> str:
    """A Markdown bullet list, one finding a line: `- **blocking** `r1.code` line 12: ...`
    (the chapter before the line when set; no line for whole-file findings); `- none` if empty."""
    rows = []
    for f in findings:
        where = (f" {f.chapter}" if f.chapter else "") + (f" line {f.line}" if f.line else "")
        message = re.sub(r"[\r\n]+", " ", f.message)  # a finding is one line
        rows.append(f"- **{f.severity}** `{f.check}`{where}: {message}")
    return "\n".join(rows) or "- none"


def parse_findings(text: str) -> list[Finding]:
    """The findings of a `format_findings` list inside any text; other lines are ignored."""
    out = []
    for ln in text.split("\n"):
        if m := _FINDING_RE.match(ln.removesuffix("\r")):
            out.append(Finding(m.group(2), m.group(1).lower(), int(m.group(4) or 0), m.group(5), m.group(3)))
    return out
