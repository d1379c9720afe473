"""Diagrams made from the repository map, never from names alone: every node is a definition
or a file of the map, every edge a call the map resolves (authoring.codeinfo.resolved_calls),
a base class its signature names, a type its body uses, or a reference between files.

- `call_flow`: from a chapter's entry (its best ranked function or method that calls most),
  the calls it makes, breadth first and bounded; a sequence diagram when the calls cross
  types or files, else a flowchart.
- `class_diagram`: the chapter's key types, their best methods, and the relations among them.
- `file_graph`: the chapter's files and the files they use (when nothing else is drawn).
- `parts_graph`: the book's parts (directories) and their dependencies, for the overview.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from .mermaid import parse

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..authoring.project import Project, Sym

    Calls = Callable[[Project, Sym, str], list[Sym]]

FLOW_DEPTH, FLOW_FANOUT, FLOW_NODES = 3, 4, 10
MAX_TYPES, MAX_MEMBERS, MAX_PARTS, MAX_OUT = 6, 4, 12, 3
STRONG = 0.3  # of a file's strongest use
OVERVIEW_CANDIDATES = 40
CANDIDATES = 8  # entries tried per chapter: the one whose calls reach furthest is drawn
CALLABLE = ("function", "method")
TYPES = ("class", "struct", "interface", "trait", "enum")
_SAFE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_PATH_OK = re.compile(r"^[\w.@+/-]+$")
_CAPTIONS = {
    "en": {"flow": "The calls that `{name}` makes, as the repository map resolves them:",
           "classes": "The key types of this chapter and how they relate:",
           "files": "The files of this chapter and the files they use:",
           "parts": "The parts of the project and what each one uses:",
           "path": "The path of `{name}` through the code, call by call:"},
    "zh": {"flow": "`{name}` 的调用（由仓库映射解析）：",
           "classes": "本章的关键类型及其关系：",
           "files": "本章的文件及其所用的文件：",
           "parts": "项目的各个部分及其依赖：",
           "path": "`{name}` 在代码中的路径，一次调用接一次调用："},
}


_FLOW_WAYS = ["The calls that `{name}` makes, as the repository map resolves them:", "What `{name}` calls, drawn from the map:",
              "From `{name}`, the calls go this way:", "`{name}` and the calls it makes:",
              "The map resolves these calls from `{name}`:", "Where a call to `{name}` leads:"]
_CLASS_WAYS = ["The key types of this chapter and how they relate:", "The types at the centre of this chapter:",
               "How this chapter's types fit together:", "Its main types, and what links them:",
               "The types here and their relations:", "A picture of the types this chapter reads:"]


def for_chapter(p: Project, files: list[str], key: list[Sym], calls: Calls, lang: str = "en") -> list[str]:
    t = dict(_CAPTIONS.get(lang, _CAPTIONS["en"]))
    if lang != "zh" and files:  # English: each chapter says its captions its own way (issue 35)
        import zlib

        n = zlib.crc32(files[0].encode("utf-8"))
        t["flow"] = _FLOW_WAYS[n % len(_FLOW_WAYS)]
        t["classes"] = _CLASS_WAYS[n % len(_CLASS_WAYS)]
    out: list[str] = []
    flow = call_flow(p, files, key, calls)
    if flow:
        out += _block(t["flow"].format(name=flow[0]), flow[1])
    classes = class_diagram(p, files, key)
    if classes:
        out += _block(t["classes"], classes)
    if not out:
        graph = file_graph(p, files)
        if graph:
            out += _block(t["files"], graph)
    return out


def for_overview(p: Project, calls: Calls, lang: str = "en", operation: list[Sym] | None = None) -> list[str]:
    t = _CAPTIONS.get(lang, _CAPTIONS["en"])
    out: list[str] = []
    parts = parts_graph(p)
    if parts:
        out += _block(t["parts"], parts)
    # where a user stands: the entry points' callables and the public API the map ranks best;
    # the one operation drawn is the one whose calls go through the most files
    entries = [e for e in p.map.entry_points() if e in set(p.code_files())]
    ranked = [s for s in p.symbols(within=entries) if s.kind in CALLABLE][:CANDIDATES]
    ranked += [s for s in p.symbols()[:OVERVIEW_CANDIDATES * 2] if s.kind in CALLABLE and s not in ranked]
    ranked = operation or ranked[:OVERVIEW_CANDIDATES]  # the central operation, when the planner names it
    flow = call_flow(p, sorted({s.rel for s in ranked}), ranked, calls, candidates=len(ranked), across=True)
    if flow:
        out += _block(t["path"].format(name=flow[0]), flow[1])
    return out


def fenced(mermaid: str | None) -> str:
    if not mermaid:
        return ""
    parse(mermaid)  # what we made must be what we can render
    return "```mermaid\n" + mermaid.rstrip("\n") + "\n```"


def chain(path: list[Sym], before: dict[tuple[str, int], Sym] | None = None) -> str | None:
    """A chain of calls (each element calls the next) drawn as call_flow draws a walk; a call an element
    makes before it calls the next (`before`, by the caller's file and line: envconfig's `Process` runs
    `gatherInfo` before `processField`) is drawn before that call."""
    path = [s for s in path if _drawable(s)]
    if len(path) < 2:
        return None
    edges: list[tuple[Sym, Sym]] = []
    for a, b in zip(path, path[1:], strict=False):
        first = (before or {}).get((a.rel, a.d.start_line))
        edges += ([(a, first)] if first is not None and _drawable(first) else []) + [(a, b)]
    return _sequence(path[0], edges)  # a path is told in time: always a sequence (issue 35)


def _block(caption: str, mermaid: str) -> list[str]:
    parse(mermaid)  # what we made must be what we can render: a bug here fails loudly, in tests
    return [caption, "", "```mermaid", *mermaid.rstrip("\n").split("\n"), "```", ""]


def _body(p: Project, s: Sym) -> str:
    return "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])


def _drawable(s: Sym) -> bool:
    return bool(_SAFE.match(s.dotted))


# ------------------------------------------------------------------ call flow


def _walk(p: Project, start: Sym, resolved_calls: Calls) -> list[tuple[Sym, Sym]]:
    """(caller, callee) pairs depth first from `start`, in each body's call order (the order a
    sequence diagram reads), bounded in depth, fan-out and size. Raising an error is not a step
    of the path."""
    seen = {start.name}
    edges: list[tuple[Sym, Sym]] = []
    calls: dict[str, list[Sym]] = {}

    def visit(s: Sym, depth: int) -> None:
        if depth >= FLOW_DEPTH:
            return
        if s.name not in calls:
            calls[s.name] = [c for c in resolved_calls(p, s, _body(p, s))
                             if _drawable(c) and c.kind in CALLABLE + TYPES and not _ERRORS.search(c.short)]
        for c in calls[s.name][:FLOW_FANOUT]:
            if c.name in seen or len(seen) >= FLOW_NODES:
                continue
            seen.add(c.name)
            edges.append((s, c))
            visit(c, depth + 1)

    visit(start, 0)
    return edges


_ERRORS = re.compile(r"(?:Error|Exception|Exc|Panic|Failure)$")


def call_flow(p: Project, files: list[str], key: list[Sym], calls: Calls, *,
              candidates: int = CANDIDATES, across: bool = False) -> tuple[str, str] | None:
    """(the entry's name, Mermaid) of the calls from the chapter's entry, or None. The entry is
    the candidate (key symbols first, then the files' best ranked) whose calls reach furthest;
    with `across` (the overview), the one whose calls cross the most parts of the code."""
    wanted = set(files)
    cands = [s for s in key if s.kind in CALLABLE and s.rel in wanted]
    cands += [s for s in p.symbols(within=files) if s.kind in CALLABLE and s not in cands]
    best: tuple[tuple[int, int], Sym, list[tuple[Sym, Sym]]] | None = None
    for s in cands[:candidates]:
        if not _drawable(s):
            continue
        edges = _walk(p, s, calls)
        if len(edges) < 2:
            continue
        parts = len({x.rel for pair in edges for x in pair})
        score = (parts, len(edges)) if across else (len(edges), 0)
        if best is None or score > best[0]:
            best = (score, s, edges)
    if best is None:
        return None
    _, start, edges = best
    return _drawn(start, edges)


def _drawn(start: Sym, edges: list[tuple[Sym, Sym]]) -> tuple[str, str]:
    owners = {_owner(x) for pair in edges for x in pair}
    inside = sum(_owner(a) == _owner(b) for a, b in edges)
    # a sequence shows calls between parts; calls inside one type read better as a tree
    if len(owners) >= 2 and inside * 2 <= len(edges):
        return start.dotted, _sequence(start, edges)
    return start.dotted, _flowchart(start, edges)


def _owner(s: Sym) -> str:
    """Who a call goes to in a sequence diagram: the method's type, else the function's file."""
    if s.kind == "method" and "." in s.dotted:
        return s.dotted.rsplit(".", 1)[0]
    if s.kind in TYPES:  # a constructor call goes to the type itself
        return s.dotted
    # (a file named for its one function is that function: node-semver's `functions/valid.js`, `parse-options.js`)
    stem = posixpath.splitext(posixpath.basename(s.rel))[0]
    return s.dotted if re.sub(r"[-_]", "", stem).lower() == s.dotted.replace("_", "").lower() else s.rel


def _sequence(start: Sym, edges: list[tuple[Sym, Sym]]) -> str:
    ids: dict[str, str] = {}
    lines = ["sequenceDiagram"]
    # one file's functions (tomli's `loads` → `key_value_rule` → …): a participant each, not one file
    # talking to itself
    alone = len({_owner(x) for x in [start, *(c for _, c in edges)]}) < 2

    def who(x: Sym) -> str:
        return x.dotted if alone else _owner(x)
    for x in [start, *(c for _, c in edges)]:
        o = who(x)
        if o not in ids and (_PATH_OK.match(o) if o == x.rel else _SAFE.match(o)):
            ids[o] = f"p{len(ids)}"
            lines.append(f"    participant {ids[o]} as {o}")
    for caller, callee in edges:
        a, b = ids.get(who(caller)), ids.get(who(callee))
        if a and b:
            lines.append(f"    {a}->>{b}: {callee.short}()")
    return "\n".join(lines) + "\n"


def _flowchart(start: Sym, edges: list[tuple[Sym, Sym]]) -> str:
    def key(s: Sym) -> tuple[str, int]:
        return s.rel, s.d.start_line  # overloads (`Gson.toJson` calling `Gson.toJson`) are nodes of their own

    ids: dict[tuple[str, int], str] = {key(start): "n0"}
    lines = ["flowchart LR", f'    n0["{start.dotted}"]']
    for _, c in edges:
        if key(c) not in ids:
            ids[key(c)] = f"n{len(ids)}"
            lines.append(f'    {ids[key(c)]}["{c.dotted}"]')
    lines += [f"    {ids[key(a)]} --> {ids[key(b)]}" for a, b in edges]
    return _fitted("\n".join(lines) + "\n")


# ------------------------------------------------------------------ class diagram

_PY_BASES = re.compile(r"^\s*class\s+\w+\s*\(([^)]*)\)")
_EXTENDS = re.compile(r"\b(?:extends|implements)\s+([\w.,\s<>]+?)(?:\{|$|\bimplements\b|\bwhere\b)", re.S)
_CPP_BASES = re.compile(r"^[^:{(]*\b(?:class|struct)\s+\w+[^:{]*:\s*([^{]+)")


def _bases(s: Sym) -> list[str]:
    sig = s.d.signature
    m = _PY_BASES.match(sig) if s.lang == "python" else None
    if m:
        return [b.split("[")[0].strip().rsplit(".", 1)[-1] for b in m.group(1).split(",") if "=" not in b and b.strip()]
    if s.lang in ("java", "typescript", "tsx", "javascript"):
        names: list[str] = []
        for grp in _EXTENDS.findall(sig):
            names += [re.sub(r"<.*", "", b).strip().rsplit(".", 1)[-1] for b in grp.split(",") if b.strip()]
        return names
    if s.lang == "cpp":
        m = _CPP_BASES.match(sig)
        if m:
            return [re.sub(r"<.*", "", b).split()[-1].rsplit("::", 1)[-1] for b in m.group(1).split(",") if b.split()]
    return []


def class_diagram(p: Project, files: list[str], key: list[Sym]) -> str | None:
    wanted = set(files)
    types: list[Sym] = []
    seen: set[str] = set()
    for s in [*key, *p.symbols(within=files)]:
        if s.kind in TYPES and s.rel in wanted and re.fullmatch(r"[A-Za-z_]\w*", s.short) and s.short not in seen:
            seen.add(s.short)
            types.append(s)
        if len(types) >= MAX_TYPES:
            break
    if not types:
        return None
    by_short = {s.short: s for s in types}
    all_types: dict[str, list[Sym]] = defaultdict(list)
    for s in p.symbols():
        if s.kind in TYPES:
            all_types[s.short].append(s)
    rels: list[tuple[str, str, str]] = []  # (left, relation, right) in Mermaid's order
    extra: dict[str, Sym] = {}
    for s in types:
        for b in _bases(s):
            home = [x for x in all_types.get(b, ()) if p.reaches(s.rel, x.rel, b)]
            if len(home) == 1 and b != s.short and re.fullmatch(r"[A-Za-z_]\w*", b):
                if b not in by_short and len(by_short) + len(extra) < MAX_TYPES + 2:
                    extra[b] = home[0]
                if b in by_short or b in extra:
                    rel = "<|.." if home[0].kind in ("interface", "trait") else "<|--"
                    rels.append((b, rel, s.short))
    for s in types:
        body = code_only(_body(p, s), s.lang)  # a name in a comment or a docstring is no use of it
        for o in types:
            if o is s or any({r[0], r[2]} == {o.short, s.short} for r in rels):
                continue
            if re.search(rf"(?<![\w$]){re.escape(o.short)}(?![\w$])", body) and p.reaches(s.rel, o.rel, o.short):
                rels.append((s.short, "-->", o.short))
    drawn = [*types, *extra.values()]
    members = {s.short: _members(p, s) for s in drawn}
    if not rels and not (len(types) == 1 and len(members[types[0].short]) >= 2):
        return None  # a lone type without methods, or types with nothing between them: a list, not a picture
    lines = ["classDiagram"]
    for s in drawn:
        ms = members[s.short]
        if ms:
            lines += [f"    class {s.short} {{", *[f"        {m}" for m in ms], "    }"]
        else:
            lines.append(f"    class {s.short}")
    lines += [f"    {a} {r} {b}" for a, r, b in dict.fromkeys(rels)]
    return "\n".join(lines) + "\n"


_STRINGS = {
    "python": re.compile(r'#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''),
    "c-like": re.compile(r'//[^\n]*|/\*[\s\S]*?\*/|"(?:\\.|[^"\\\n])*"|`[^`]*`'),
}


def code_only(text: str, lang: str) -> str:
    """The text without its comments and string literals."""
    rx = _STRINGS["python" if lang == "python" else "c-like"]
    return rx.sub(" ", text)


def _members(p: Project, s: Sym) -> list[str]:
    """The type's best methods as class-diagram members: `+get()`, `-_load()`, and a Python
    property as the attribute it reads as (`+debug`)."""
    prefix = s.dotted + "."
    out: dict[str, str] = {}
    for m in p.symbols(within=[s.rel]):
        if m.kind == "method" and m.dotted.startswith(prefix) and "." not in m.dotted[len(prefix):] \
                and re.fullmatch(r"[A-Za-z_]\w*", m.short) and m.short not in out:
            head = p.lines_of(m.rel)[m.d.start_line - 1:m.d.start_line]
            prop = m.lang == "python" and bool(head) and bool(_PROPERTY.match(head[0]))
            out[m.short] = ("-" if m.short.startswith("_") else "+") + m.short + ("" if prop else "()")
        if len(out) >= MAX_MEMBERS:
            break
    return list(out.values())


_PROPERTY = re.compile(r"^\s*@(?:\w+\.)?(?:property|cached_property|setter|getter)\b|^\s*@\w+\.setter\b")


# ------------------------------------------------------------------ files and parts


def file_graph(p: Project, files: list[str]) -> str | None:
    graph = p.map.file_graph()
    wanted = [f for f in files if _PATH_OK.match(f)]
    edges: list[tuple[str, str]] = []
    for f in wanted:
        edges += [(f, g) for g, _ in _strong(graph.get(f, {}))[:4] if g != f and _PATH_OK.match(g)]
    if not edges:
        return None
    return _paths_chart([*wanted, *(g for _, g in edges)], edges)


def _strong(uses: dict[str, float]) -> list[tuple[str, float]]:
    """A file's uses that carry weight, best first: a name it shares with a file by chance (a
    reference the map could not tell from a use) weighs a fraction of what it really uses."""
    ranked = sorted(uses.items(), key=lambda x: (-x[1], x[0]))
    top = ranked[0][1] if ranked else 0.0
    return [(g, w) for g, w in ranked if w >= STRONG * top]


def _paths_chart(nodes: list[str], edges: list[tuple[str, str]]) -> str:
    ids: dict[str, str] = {}
    lines = ["flowchart LR"]
    for n in dict.fromkeys(nodes):
        if len(ids) >= MAX_PARTS + 6:
            break
        ids[n] = f"f{len(ids)}"
        lines.append(f'    {ids[n]}["{n}"]')
    per_source: dict[str, int] = defaultdict(int)
    for a, b in dict.fromkeys(edges):  # best first: each node's strongest uses, few enough to read
        if a in ids and b in ids and per_source[a] < MAX_OUT:
            per_source[a] += 1
            lines.append(f"    {ids[a]} --> {ids[b]}")
    return _fitted("\n".join(lines) + "\n")


def _fitted(flowchart: str) -> str:
    """Left to right, unless that is wider than a page's column and top-down is narrower: a
    wide picture is scaled down until its labels cannot be read."""
    from .svg import COLUMN, render_diagram

    def width(text: str) -> float:
        return float(re.search(r'width="([\d.]+)"', render_diagram(parse(text))).group(1))  # type: ignore[union-attr]

    across = width(flowchart)
    if across <= COLUMN:
        return flowchart
    down = flowchart.replace("flowchart LR", "flowchart TB", 1)
    return down if width(down) < across else flowchart


def subsystems_graph(nodes: list[tuple[str, str]], edges: list[tuple[int, int, str]]) -> str | None:
    """The project's parts as a picture (issue 35): one node per part, labelled with its role and
    the name a reader finds in the code (`Routing a request: Mux`; a part with no such name shows
    its directory or file), and the few uses that matter, each labelled with the name it calls.
    None for fewer than two parts or no edge."""
    keep = [k for k, (_role, name) in enumerate(nodes) if name and (_SAFE.match(name) or _PATH_OK.match(name))]
    keep = keep[:MAX_PARTS]
    ids = {k: f"s{n}" for n, k in enumerate(keep)}
    drawn = [(a, b, lab) for a, b, lab in edges if a in ids and b in ids and a != b]
    if len(ids) < 2 or not drawn:
        return None
    lines = ["flowchart LR"]
    for k in keep:
        role, name = nodes[k]
        role = re.sub(r'["`#|\[\](){}<>:;]', "", role).strip()
        lines.append(f'    {ids[k]}["{role}: {name}"]' if role else f'    {ids[k]}["{name}"]')
    for a, b, lab in drawn:
        lines.append(f"    {ids[a]} -->|{lab}| {ids[b]}" if lab and _SAFE.match(lab) else f"    {ids[a]} --> {ids[b]}")
    return _fitted("\n".join(lines) + "\n")


def parts_graph(p: Project) -> str | None:
    """The project's directories of code (its parts), the most used first, and which uses which;
    a project of one directory is drawn by its files."""
    rank = p.map.file_rank()
    code = [f for f in p.code_files() if f in rank]
    dirs = {posixpath.dirname(f) for f in code}
    # a directory is drawn as `dir/`: a path to the reader and to R1, never taken for a name
    part = (lambda f: posixpath.dirname(f) + "/" if "/" in f else f) if len(dirs) >= 2 else (lambda f: f)
    weight: dict[str, float] = defaultdict(float)
    for f in code:
        weight[part(f)] += rank[f]
    chosen = [g for g, _ in sorted(weight.items(), key=lambda x: (-x[1], x[0]))[:MAX_PARTS] if _PATH_OK.match(g)]
    keep = set(chosen)
    between: dict[tuple[str, str], float] = defaultdict(float)
    for src, dsts in p.map.file_graph().items():
        for dst, w in _strong(dsts):
            a, b = part(src), part(dst)
            if a != b and a in keep and b in keep:
                between[(a, b)] += w
    edges = [e for e, _ in sorted(between.items(), key=lambda x: (-x[1], x[0]))[:3 * MAX_PARTS]]
    if len(chosen) < 2 or not edges:
        return None
    return _paths_chart(chosen, edges)
