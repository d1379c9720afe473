"""Part 1 of the book, the big picture (issue 23): what the project is for in its own words,
how a user meets it (a real example from its README, guides or examples, quoted verbatim with
its file), its main entry points in code, the architecture at a glance, and the path of one
central operation traced through the calls the map resolves, from the entry point a user calls
down to the core.

The evidence comes from the project around the source (repo.project.discover): a README above
`src/` is read, never a file outside the project's root. A quote from outside the source tree
carries its path in the caption, not in the fence (R1 verifies `file=` against the source)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..repo.project import ProjectInfo, discover
from .facts import all_calls, hand_off, side_calls
from .project import Project, Sym, project_name

# fence info strings that name a programming language, by the map's language names
LANG_TAGS = {
    "python": ("python", "py", "python3", "pycon", "pytb"), "javascript": ("js", "javascript", "node", "mjs", "cjs", "jsx"),
    "typescript": ("ts", "typescript", "tsx"), "rust": ("rust", "rs"), "go": ("go", "golang"), "java": ("java",),
    "c": ("c", "h"), "cpp": ("cpp", "c++", "cxx", "cc", "hpp"),
    "csharp": ("csharp", "cs", "c#"), "ruby": ("ruby", "rb"), "kotlin": ("kotlin", "kt", "kts"), "php": ("php",),
    "swift": ("swift",), "scala": ("scala",), "elixir": ("elixir", "ex", "exs", "iex"), "lua": ("lua",),
}
_FENCE = re.compile(r"^([ \t]*)(```+|~~~+)[ \t]*\{?\.?([\w+#-]*)[^\n]*$")
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode)::\s*(\S*)")
# a call: `f(…)`, and in Ruby and Elixir one without parentheses (`get '/' do`, `plug :match`)
_CALL = re.compile(r"[A-Za-z_$][\w$]*!?\s*\(")
_BARE_CALL = re.compile(r"(?m)^[ \t]*[a-z_][\w.]*[!?]?[ \t]+(?:['\"]|:\w|do\b)")
MAX_EXAMPLE_LINES = 40
# names a C++ parser may take for definitions (`std`, `string`): never a project's entry point
CXX_NAMES = frozenset({"std", "string", "decltype", "bool", "noexcept", "auto", "size_t", "char", "int", "void",
                       "const", "constexpr", "template", "typename", "operator", "detail", "float", "double", "long",
                       "short", "unsigned", "signed"})
NOT_ENTRIES = ("variable", "impl", "module", "import", "namespace", "package")  # a user writes none of them first
MAX_PATH = 7  # definitions followed from the entry point down to the core


@dataclass(frozen=True)
class Example:
    rel: str  # path in the project
    first: int  # 1-based lines of the quoted code in that file
    last: int
    lang: str  # the fence's language (the map's name when known)
    code: str  # exactly the file's lines (an rST block dedented as a whole)
    source_rel: str | None  # the same file as a path of the source tree, when it is inside it


def info_of(p: Project) -> ProjectInfo | None:
    try:
        return discover(p.root)
    except OSError:
        return None


def _lang_of_tag(tag: str) -> str | None:
    tag = tag.lower()
    return next((lang for lang, tags in LANG_TAGS.items() if tag in tags), None)


def code_blocks(text: str) -> list[tuple[int, int, str, str]]:
    """(first line, last line, language tag, code) of the fenced Markdown and rST code blocks."""
    lines = text.splitlines()
    out: list[tuple[int, int, str, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m:
            ind, mark, tag = m.group(1), m.group(2), m.group(3)
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith(mark[:3]) and lines[j].strip().strip(mark[0]) == ""):
                j += 1
            if j < len(lines) and j > i + 1:
                body = [ln[len(ind):] if ln.startswith(ind) else ln for ln in lines[i + 1:j]]
                out.append((i + 2, j, tag, "\n".join(body)))
            i = j + 1
            continue
        d = _RST_DIRECTIVE.match(lines[i])
        if d or (lines[i].rstrip().endswith("::") and not lines[i].lstrip().startswith("..")):
            tag = d.group(1) if d else ""
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")) and j < i + 4:
                j += 1  # the directive's options and the blank line
            k = j
            while k < len(lines) and (not lines[k].strip() or lines[k][:1] in " \t"):
                k += 1
            while k > j and not lines[k - 1].strip():
                k -= 1
            if k > j and lines[j][:1] in " \t":
                import textwrap

                out.append((j + 1, k, tag, textwrap.dedent("\n".join(lines[j:k]))))
                i = k
                continue
        i += 1
    return out


# fence tags that say the block is no code to run: output, a session, a configuration, a diff
_NOT_CODE_TAG = re.compile(r"^(?:not?[_-].*|text|txt|plain(?:text)?|console|output|log|shell|sh|bash|zsh|fish|"
                           r"powershell|ps1|bat|cmd|diff|patch|toml|json5?|ya?ml|ini|xml|html?|css|sql|dockerfile|"
                           r"makefile|cmake|none|ignore|compile_fail|should_panic)$", re.IGNORECASE)
_DIAGNOSTIC = re.compile(r"(?m)^\s*(?:error|warning)(?:\[\w+\])?:|^\s*-->\s")


def _leading_part(blk: tuple[int, int, str, str]) -> tuple[int, int, str, str]:
    """A block longer than MAX_EXAMPLE_LINES as its leading part, cut at its last blank line within
    the bound that comes before a line at the margin (axum's README example: its imports, `main`
    and the first handler); a block with no such place is left whole (and too long to quote)."""
    first, last, tag, code = blk
    lines = code.split("\n")
    if len(lines) <= MAX_EXAMPLE_LINES:
        return blk
    cut = max((k for k in range(8, MAX_EXAMPLE_LINES + 1) if not lines[k].strip()
               and lines[k + 1][:1].strip()), default=0)  # before a line at the margin: between definitions
    if not cut:
        return blk
    return first, first + cut - 1, tag, "\n".join(lines[:cut])


def _example_score(code: str, lang: str | None, langs: set[str], names: set[str]) -> float:
    calls = _CALL.search(code) or (langs & {"ruby", "elixir"} and _BARE_CALL.search(code))
    if not calls or code.count("\n") + 1 > MAX_EXAMPLE_LINES or _DIAGNOSTIC.search(code):
        return 0.0
    if lang is not None and lang not in langs:
        return 0.0  # a shell session, a manifest snippet (`[dependencies]`), another language
    lines = [ln for ln in code.splitlines() if ln.strip()]
    if lines and sum(ln.lstrip().startswith(("$", "pip ", "npm ", "go get", "cargo ")) for ln in lines) > len(lines) / 2:
        return 0.0
    named = {n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", code)}
    if not named:
        return 0.0
    uses = sum(1 for ln in lines if "=" in ln or ln.lstrip().startswith((">>>", "import", "use ", "#include", "from ", "@",
                                                                     "require ", "require_relative ", "alias "))
               or re.search(r"\(\s*['\"\d]", ln))  # a call with a literal: code that runs, not a prototype
    if not uses:
        return 0.0  # declarations (`redisContext *redisConnect(const char *ip, int port);`) show no use
    return len(named) + 0.5 * min(uses, 4) + (1.0 if lang else 0.0)


def first_example(p: Project, names: set[str]) -> Example | None:
    """The project's first real usage example: a code block of the README (then of the guides,
    most introductory first, then an example file) in one of the project's languages that
    writes the project's own names, quoted exactly with its lines."""
    info = info_of(p)
    if info is None:
        return None
    langs = {lang for lang, _kind in p.files.values() if lang}
    if langs & {"c", "cpp"}:
        langs |= {"c", "cpp"}  # headers of a C++ library are often read as C
    if langs & {"javascript", "typescript"}:
        langs |= {"javascript", "typescript"}
    docs = ([info.readme] if info.readme else []) + list(info.docs[:12])
    for rel in docs:
        try:
            text = info.read(rel)
        except OSError:
            continue
        best: tuple[float, tuple[int, int, str, str]] | None = None
        for blk in code_blocks(text):
            if blk[2] and _NOT_CODE_TAG.match(blk[2]):
                continue  # axum's ```not_rust: a compiler's message, not a use of the project
            blk = _leading_part(blk)
            sc = _example_score(blk[3], _lang_of_tag(blk[2]) if blk[2] else None, langs, names)
            if sc >= 2.0:  # the first that uses the project's names (the README's own first example)
                best = (sc, blk)
                break
        if best is not None:
            a, b, tag, code = best[1]
            return Example(rel, a, b, _lang_of_tag(tag) or tag or "text", code, info.in_source(rel))
    for rel in info.examples[:20]:
        try:
            text = info.read(rel)
        except OSError:
            continue
        lines = text.splitlines()
        from ..repo.classify import language_of

        lang = language_of(rel)
        if lang is None or len(lines) > MAX_EXAMPLE_LINES or _example_score(text, lang, langs | {lang}, names) < 1.5:
            continue
        return Example(rel, 1, len(lines), lang, text.rstrip("\n"), info.in_source(rel))
    return None


_SKIP_LINE = re.compile(r"^\s*(?:<|!\[|\[!\[|\[[^\]]*\]:|\.\.\s|[-=*~^#+]{3,}\s*$|\||:\w+:|https?://|"
                        r"[-*+]\s|\d+[.)]\s|\[[^\]]*\]\([^)]*\)\s*$)")


def purpose(p: Project) -> tuple[str, int, str] | None:
    """(README path, first line, text) of what the project says it is for: the README's first
    paragraph of prose, and the next one when it continues the thought (badges, images, a table
    of contents and headings left out)."""
    info = info_of(p)
    if info is None or not info.readme:
        return None
    try:
        lines = info.read(info.readme).splitlines()
    except OSError:
        return None
    paras: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = 0
    fence = ""
    for i, ln in enumerate(lines[:400]):
        s = ln.strip()
        if fence or s.startswith(("```", "~~~")):  # code is no sentence of the introduction (known-folders
            opener = s[:3] if s.startswith(("```", "~~~")) else ""  # opens its README with its API block)
            fence = "" if fence and opener == fence[:3] else (fence or opener)
            s = ""
        prose = s and not _SKIP_LINE.match(ln) and not s.startswith(("#", "- [", "* [", "```", "~~~", ">")) \
            and not re.fullmatch(r"[=\-~^*`#]+", s)
        if prose and not (i + 1 < len(lines) and re.fullmatch(r"[=\-~^*#+]{3,}", lines[i + 1].strip())):
            if not cur:
                start = i + 1
            cur.append(s)
        elif cur:
            paras.append((start, cur))
            cur = []
            if len(paras) >= 2:
                break
        if fence and paras:
            break  # the example begins: what came before was the introduction
    if cur and len(paras) < 2:
        paras.append((start, cur))
    paras = [(a, ps) for a, ps in paras if len(" ".join(ps).split()) >= 6 and not re.match(r"^\*\*?This ", ps[0])]
    if not paras:
        return None
    text = " ".join(paras[0][1])
    second = " ".join(paras[1][1]) if len(paras) > 1 else ""
    if second and len(text.split()) < 60 and second[:1].isupper() and second.rstrip().endswith((".", "!", ")")):
        text += "\n\n" + " ".join(paras[1][1])
    return info.readme, paras[0][0], text


def entry_points(p: Project, limit: int = 5) -> list[Sym]:
    """The names a user writes first: the definitions the project's first example writes, in its
    order; then the others the README's code writes most and earliest; then the root files'."""
    key = ("entry_points", limit)
    if key not in p._keys:
        cands = _entry_candidates(p, 12)
        ex = first_example(p, {e.short for e in cands})
        at = {e.name: _first_at(ex.code, e.short) for e in cands} if ex else {}
        ordered = sorted(cands, key=lambda e: (at.get(e.name, -1) < 0, at.get(e.name, 0), e.kind == "method"))
        p._keys[key] = [e for e in ordered if at.get(e.name, -1) >= 0][:limit] + \
            [e for e in ordered if at.get(e.name, -1) < 0][:max(0, limit - sum(1 for v in at.values() if v >= 0))]
    return list(p._keys[key])[:limit]


def _first_at(code: str, name: str) -> int:
    m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", code)
    return m.start() if m else -1


def opening_symbol(p: Project) -> Sym | None:
    """The first definition a user writes in the project's first example (tinydb's `TinyDB`,
    chi's `NewRouter`): the book's first chapter is the one that holds it."""
    eps = entry_points(p)
    # a top-level name, not a member (express's `res.send = function` is a member of `res`)
    top = [e for e in eps if e.kind != "method" and "." not in e.dotted] or eps
    return top[0] if top else None


def _entry_candidates(p: Project, limit: int) -> list[Sym]:
    import math

    from .entry import readme_code, readme_weight, root_files

    code = readme_code(p)

    def times(n: str) -> int:
        return len(re.findall(rf"(?<![\w$]){re.escape(n)}(?![\w$])", code))

    scored = [(readme_weight(p, s) * (1 + math.log2(max(1, times(s.short)))), s) for s in p.symbols()
              if p.files.get(s.rel, (None, ""))[1] == "code" and s.kind not in NOT_ENTRIES and not _config_macro(p, s)]
    plain = {s.short for w, s in scored if w > 0 and s.kind != "method"}
    scored = [(w, s) for w, s in scored if s.kind != "method" or s.short not in plain]  # `click.command`, not `Group.command`
    out: list[Sym] = []
    for _w, s in sorted((x for x in scored if x[0] > 0),
                       key=lambda x: (-round(x[0], 3), x[1].kind == "method", -x[1].score)):
        if all(o.short != s.short for o in out) and s.kind not in ("variable", "impl", "module", "import"):
            out.append(s)
        if len(out) >= limit:
            return out
    own = project_name(p.root).lower()
    roots = root_files(p) | {f for f in p.code_files() if f.rsplit("/", 1)[-1].split(".", 1)[0].lower() == own}
    for s in p.symbols(within=sorted(roots)):
        if s.d.exported and s.kind not in NOT_ENTRIES and all(o.short != s.short for o in out):
            out.append(s)
        if len(out) >= limit:
            break
    return out


def _config_macro(p: Project, s: Sym) -> bool:
    """A C/C++ macro a user does not write first (FMT_ASSERT, one named like the project), or a
    word of the language taken for a definition."""
    if s.lang in ("c", "cpp") and s.short in CXX_NAMES:
        return True
    return s.kind == "macro" and (s.short.isupper() or (s.lang in ("c", "cpp") and
                                                        s.short.lower() == project_name(p.root).lower()))


_NOT_STEPS = ("class", "struct", "interface", "trait", "type", "enum", "type alias", "constant", "variable", "module",
              "impl")  # a type's body is no call: a path goes through functions, methods and macros
RANK_SHARE = 2.0  # a path through the best-ranked code is worth up to two more calls of depth
HAND_OFF = 1.0  # a step that follows the body's last call on its main line
START_SHARE = 2.0  # a start the README calls first is worth two calls more than one it never writes


def _rank_pct(p: Project) -> dict[tuple[str, int], float]:
    """(file, line) of each definition -> its place in the ranking, 1 for the best, towards 0."""
    key = ("rank_pct",)
    if key not in p._keys:
        syms = p.symbols()
        n = max(1, len(syms))
        p._keys[key] = {(s.rel, s.d.start_line): 1.0 - k / n for k, s in enumerate(syms)}
    return p._keys[key]


# the side roads of an operation: cleaning up, reporting an error, warning of a deprecation
_SIDE_ROADS = re.compile(r"(?i)free|err|fail|close|destroy|deprecat|warn|cleanup|teardown|abort|panic|dispose|exception")


def _node_value(p: Project, s: Sym) -> float:
    v = _rank_pct(p).get((s.rel, s.d.start_line), 0.0)
    if s.short.startswith("_") and not s.short.startswith("__"):
        v *= 0.3  # a private helper
    if s.lines <= 4 and re.match(r"(?:get|set|is|has)[A-Z_]", s.short):
        v *= 0.4  # an accessor: a leaf, not the core
    return v


def path_value(p: Project, path: list[Sym]) -> float:
    """Depth first (each call one point), then the ranks of the nodes (their mean, up to RANK_SHARE)."""
    if not path:
        return 0.0
    return len(path) + RANK_SHARE * sum(_node_value(p, s) for s in path) / len(path)


def call_path(p: Project, start: Sym, limit: int = MAX_PATH) -> list[Sym]:
    """From `start`, the chain of calls the map resolves (facts.all_calls), at most `limit` long,
    of the best path_value: as deep as the code goes, through its best-ranked definitions. At each
    step the best-ranked few callees are tried; a type is never a step (its body calls nothing)."""
    def callees(cur: Sym, seen: set[tuple[str, int]]) -> list[Sym]:
        side = side_calls(p, cur)  # an operation's path, not its error handling
        found = [c for c in all_calls(p, cur) if (c.rel, c.d.start_line) not in seen and c.kind not in _NOT_STEPS
                 and (c.rel, c.d.start_line) not in side and not _SIDE_ROADS.search(c.short)]
        return sorted(found, key=lambda c: (-_node_value(p, c), c.rel, c.d.start_line))[:5]

    def value(path: list[Sym]) -> float:
        # from a method, a helper function is a side step: the operation goes on through the objects;
        off = sum(1 for a, b in zip(path, path[1:]) if "." in a.dotted and "." not in b.dotted and b.kind == "function")
        # the call a body makes last on its main line hands the work on: the way the operation flows
        on = sum(1 for a, b in zip(path, path[1:]) if hand_off(p, a) == (b.rel, b.d.start_line))
        return path_value(p, path) - 0.75 * off + HAND_OFF * on

    best: list[Sym] = [start]

    def walk(path: list[Sym], seen: set[tuple[str, int]]) -> None:
        nonlocal best
        if value(path) > value(best):
            best = list(path)
        if len(path) >= limit:
            return
        for c in callees(path[-1], seen):
            walk(path + [c], seen | {(c.rel, c.d.start_line)})

    walk([start], {(start.rel, start.d.start_line)})
    return best


def _starts(p: Project, entries: list[Sym]) -> list[tuple[Sym, float]]:
    """Where a user's call begins, with a bonus for what the README's code calls: the entry points
    (a type through its public methods, those the README calls first), the object an entry point
    returns when calling it runs code (Python: `command(...) -> Command`, and a decorated function
    is called: `Command.__call__`), and the public methods of the best-ranked types a user imports."""
    from .codeinfo import signature_parts
    from .entry import readme_code, readme_names, root_files

    written, called = readme_names(p)
    called = dict(called)  # (readme_names' answer is kept for every caller)
    ex = first_example(p, {e.short for e in entries})
    if ex is not None:  # the example chapter 1 quotes (gson's is in UserGuide.md): its calls, earliest first
        size = max(1, len(ex.code))
        for m in re.finditer(r"\.([A-Za-z_$][\w$]*)\s*\(", ex.code):
            called[m.group(1)] = max(called.get(m.group(1), 0.0), 1.0 / (1.0 + 3.0 * m.start() / size))
    top = max(called.values(), default=1.0)
    called = {n: w / top for n, w in called.items()}  # the README's first call 1, later ones less
    code = readme_code(p) + "\n" + (ex.code if ex is not None else "")
    times = {e.short: len(re.findall(rf"(?<![\w$]){re.escape(e.short)}\s*!?\s*\(", code)) for e in entries}
    most = max(times.values(), default=0) or 1
    for e in entries:  # a function the README calls bare (`redisCommand(c, "PING")`, `info!(…)`): how often
        if times[e.short] and e.kind not in _NOT_STEPS:
            called[e.short] = max(called.get(e.short, 0.0), 0.5 * written.get(e.short, 0.0) + 0.5 * times[e.short] / most)
    out: list[tuple[Sym, float]] = []

    def add(s: Sym, bonus: float) -> None:
        if s.kind not in _NOT_STEPS and all(o is not s for o, _ in out):
            out.append((s, bonus))

    def methods(t: Sym) -> list[Sym]:
        ms = [m for m in p.symbols(within=[t.rel]) if m.dotted.startswith(t.dotted + ".") and m.kind == "method"
              and (not m.short.startswith("_") or m.short == "__call__")]
        # `__call__` is what calling the object runs (a WSGI server calls the Flask app)
        return sorted(ms, key=lambda m: (m.short != "__call__", -called.get(m.short, 0.0), -m.score))[:6]

    roots = {e.rel for e in entries} | root_files(p)
    types = [s for s in p.symbols(within=sorted(roots)) if s.kind in ("class", "struct") and s.d.exported][:3]
    for e in entries[:5]:
        bonus = called.get(e.short) or (0.5 if written.get(e.short) else 0.0)
        if e.kind in _NOT_STEPS:
            for ms in methods(e):  # the earlier the README calls it, the more (`store.put` before `store.get`)
                add(ms, called[ms.short] if called.get(ms.short) else 1.0 if ms.short == "__call__" else bonus * 0.5)
            continue
        add(e, bonus)
        if e.lang == "python":
            ret = signature_parts(e)[1]
            made = [t for t in p.symbols() if t.kind == "class" and re.search(rf"(?<![\w.]){re.escape(t.short)}\b", ret)]
            if len({t.dotted for t in made}) == 1:
                for ms in (x for x in p.symbols(within=[made[0].rel]) if x.dotted == made[0].dotted + ".__call__"):
                    add(ms, bonus)
                    p._keys[("made_by", ms.rel, ms.d.start_line)] = (e, made[0])
    for t in types:
        for ms in methods(t):
            add(ms, 0.5 if called.get(ms.short) else 0.0)
    return out


def central_path(p: Project, entries: list[Sym]) -> list[Sym]:
    """The operation the overview follows: of the call paths from where a user's call begins
    (_starts), the best by path_value, with a point for a start the README's code writes."""
    key = ("central_path", tuple((e.rel, e.d.start_line) for e in entries))
    if key not in p._keys:
        best: list[Sym] = []
        best_value = 0.0
        for s, bonus in _starts(p, entries):
            path = call_path(p, s)
            value = path_value(p, path) + START_SHARE * bonus if len(path) > 1 else 0.0
            if value > best_value:
                best, best_value = path, value
        if not best:  # no start makes a call the map resolves: the first entry point alone
            best = [e for e in entries if e.kind not in _NOT_STEPS][:1] or entries[:1]
        p._keys[key] = best
    return list(p._keys[key])


def made_by(p: Project, start: Sym) -> tuple[Sym, Sym] | None:
    """(entry point, type) when the path's start is the `__call__` of the type an entry point returns
    (click's `command` returns a `Command`; the README calls the decorated function, which runs
    `Command.__call__`); None when a user calls the start itself. Known once central_path ran."""
    return p._keys.get(("made_by", start.rel, start.d.start_line))


# ---------------------------------------------------------------- diagram slots (issue 23 item 4)

def architecture_diagram(p: Project, chapters: list[dict[str, Any]]) -> str:
    """The parts of the project and their dependencies, as a Mermaid block, or '' (no diagram)."""
    from .. import diagrams

    return diagrams.parts_block(p)


def sequence_diagram(p: Project, path: list[Sym]) -> str:
    """The central operation's calls as a Mermaid block (a sequence between parts), or ''."""
    from .. import diagrams

    return diagrams.path_block(path)
