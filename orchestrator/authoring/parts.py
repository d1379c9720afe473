"""The picture of the project's parts (issue 35): the planner's parts (its chapters' files,
grouped from the map's call graph), each labelled with its role and the name a reader finds
there, and the few uses between them that matter — not the file import graph."""

from __future__ import annotations

import re
from typing import Any

from .project import Project

MAX_PARTS = 12  # nodes of the picture of the parts: more is a map, not a picture


def architecture_diagram(p: Project, chapters: list[dict[str, Any]], lead: str = "Entry points") -> str:
    """The project's parts as a Mermaid block, or '' (no diagram): one node per part the planner
    grouped from the map's call graph (a chapter's files), labelled with its role (the chapter's
    idea; `lead` for chapter 1's, where a user comes in) and the name a reader finds there, and
    the few uses that matter between them, each labelled with the name it calls (issue 35)."""
    from .. import diagrams
    from .plan import group_graph

    groups = [[f for f in (c.get("sources") or []) if f in p.map.files] for c in chapters]
    idx = [i for i, g in enumerate(groups) if g]
    if len(idx) < 2:
        return diagrams.parts_block(p)
    rank = p.map.file_rank()
    if len(idx) > MAX_PARTS:  # the best-ranked parts, chapter 1's always
        idx = sorted(sorted(idx, key=lambda i: (i != 0, -sum(rank.get(f, 0.0) for f in groups[i])))[:MAX_PARTS])
    gs = [groups[i] for i in idx]
    gg = group_graph(p, gs)
    nodes = [(lead if i == 0 else _role_label(str(chapters[i].get("title") or "")), _part_name(p, g))
             for i, g in zip(idx, gs)]
    base = foundations(gg, len(gs))
    edges = _edges(p, gs, {a: {b: w for b, w in uses.items() if b not in base} for a, uses in gg.items()})
    if base and len(edges) >= 2:  # said once on the part, not drawn as an arrow from every other part
        nodes = [(f"{role}, used by most parts" if k in base else role, name) for k, (role, name) in enumerate(nodes)]
    else:  # without the arrows into it nothing much is left to draw: draw them
        edges = _edges(p, gs, gg)
    return diagrams.subsystems_block(nodes, edges)


def _edges(p: Project, gs: list[list[str]], gg: dict[int, dict[int, float]]) -> list[tuple[int, int, str]]:
    """About one use per part, the strongest: each part's own when it is a real share of what it
    uses, then the heaviest others; an edge only with a name the part uses by resolution (a shared
    name alone is no use)."""
    total = {a: sum(gg.get(a, {}).values()) for a in range(len(gs))}
    chosen: list[tuple[int, int]] = []
    for a in range(len(gs)):
        best = max(sorted(gg.get(a, {}).items()), key=lambda x: x[1], default=None)
        if best and best[1] >= 0.25 * total[a]:
            chosen.append((a, best[0]))
    pairs = sorted(((w, x, y) for x in gg for y, w in gg[x].items()), key=lambda t: (-t[0], t[1], t[2]))
    top = pairs[0][0] if pairs else 0.0
    for w, a, b in pairs:
        if len(chosen) >= len(gs) or w < 0.2 * top:  # the few that matter
            break
        if (a, b) not in chosen and (b, a) not in chosen:
            chosen.append((a, b))
    return [(a, b, lab) for a, b in chosen if (lab := _called(p, gs[a], gs[b]))]


FOUNDATION_SHARE = 0.6  # a part that this share of the others use is the ground they stand on


def foundations(gg: dict[int, dict[int, float]], n: int) -> set[int]:
    """The parts most others use (the types every module annotates with, the shared helpers):
    an arrow from every part into one of them is the whole picture's weight on one node and
    tells a reader nothing (starlette's parts all pointed at the part of `Request`); they get a
    label instead. Only in a picture of five parts or more, where "most" means something."""
    if n < 5:
        return set()
    users: dict[int, int] = {}
    for a, uses in gg.items():
        for b, w in uses.items():
            if w > 0 and b != a:
                users[b] = users.get(b, 0) + 1
    return {b for b, k in users.items() if k >= FOUNDATION_SHARE * (n - 1)}


def _role_label(title: str) -> str:
    words = re.sub(r"[`*]", "", title).split()
    return " ".join(words[:5]) + ("…" if len(words) > 5 else "")


def _part_name(p: Project, files: list[str]) -> str:
    """The name a reader finds first in a part: its best-ranked type or function (an exported one
    first), else its directory or, last, its file."""
    from .plan import key_symbols

    key = [s for s in key_symbols(p, files, 8) if re.fullmatch(r"[A-Za-z_$][\w$]*", s.short)
           and s.kind in ("class", "struct", "interface", "trait", "function", "enum", "type", "macro")]
    key = sorted(key, key=lambda s: (not s.d.exported, s.short.startswith("_")))  # exported first, any after
    # a part whose public names are methods (goquery's `traversal.go`, on `Selection`): its best one, not a helper
    methods = [s for s in key_symbols(p, files, 8) if s.kind == "method" and s.d.exported and not s.short.startswith("_")
               and re.fullmatch(r"[A-Za-z_$][\w$.]*", s.dotted) and len(s.dotted) <= 32]
    if key and (key[0].d.exported or not methods):
        return key[0].short
    if methods:
        return methods[0].dotted
    dirs = {f.rsplit("/", 1)[0] + "/" for f in files if "/" in f}
    return dirs.pop() if len(dirs) == 1 and len(files) > 1 else files[0]


def _called(p: Project, src: list[str], dst: list[str]) -> str:
    """The name of `dst` that the files of `src` reference most: what the use is for."""
    from collections import Counter

    defined = {d.name for f in dst for d in p.map.files[f].definitions  # what is called or built, not a constant
               if d.kind in ("function", "class", "struct", "interface", "trait", "type", "enum", "macro") and len(d.name) > 2
               and re.fullmatch(r"[A-Za-z_$][\w$]*", d.name) and not d.name.startswith("_")}
    counts: Counter[str] = Counter()
    for f in src:
        for name, n in p.map.files[f].references.items():
            if name in defined:
                counts[name] += n
    from .facts import uses

    # the most referenced name that a file of `src` really uses (facts.uses: by resolution), not
    # one it only spells alike (`JSON.stringify(` is no use of a `stringify` of the project)
    for name in sorted(counts, key=lambda n: (-counts[n], n)):
        # (a Ruby class is named inside its gem's module: `Faraday::Connection`)
        defs = [s for s in p.symbols(within=dst) if s.name == name or (s.short == name and s.kind != "method")]
        if any(uses(p, f, s) for s in defs for f in src):
            return name
    return ""
