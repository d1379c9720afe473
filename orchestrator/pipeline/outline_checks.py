"""What the outline gate's card says about a plan, from real checks: a plan that does not
parse, an empty book title, empty or duplicate chapter titles, chapters with no source,
dependency cycles, and parts that a reader would not meet as parts: one without a title, one
split by another part's chapter (the check says which chapter, and where), a book that does
not open with its first part. (The outline loader refuses some of these outright; the card
says so before a person approves a plan the run would then reject.)"""

from __future__ import annotations

import re

from ..contracts.title_shape import name_title
from ..errors import BookError
from ..outline import Outline, parse

_BLOCK_RE = re.compile(r"```ya?ml\s*\n(.*?)```", re.S)


def outline_risks(text: str) -> list[str]:
    """The problems of an outline's text, most serious first; [] when the checks find none."""
    try:
        o = parse(text, "outline.md", None)
    except BookError as e:
        return [f"the plan cannot be used: {e}"] + _raw_risks(text)
    risks: list[str] = []
    if not o.title.strip():
        risks.append("the book has no title")
    seen: dict[str, str] = {}
    for c in o.chapters:
        key = c.title.strip().casefold()
        if key in seen:
            risks.append(f"{c.id} has the same title as {seen[key]}: {c.title!r}")
        seen.setdefault(key, c.id)
        if not c.sources:
            risks.append(f"{c.id} ({c.title}) cites no source file: it would be written from nothing")
        why = name_title(c.title, list(c.sources), project=o.title)
        if why:  # issue 35: a title says what the reader will understand; the names go inside
            risks.append(f"{c.id}'s title {c.title!r} only names code ({why}): say the idea the chapter explains")
    risks += [f"dependency cycle: {' → '.join(cyc)}" for cyc in _cycles({c.id: list(c.depends_on) for c in o.chapters})]
    return risks + part_risks(o)


def part_risks(o: Outline) -> list[str]:
    """A part's chapters follow each other in reading order, the parts come in the order listed,
    and part 1 opens the book; else why not, in a sentence that names the chapters. [] for an
    outline without parts (its parts are derived, one per batch)."""
    if not o.parts:
        return []
    order = [c.id for c in o.chapters]  # reading order: the chapters' numbers
    at = {ch: i for i, ch in enumerate(order)}
    part_of = {ch: k for k, p in enumerate(o.parts, 1) for ch in p.chapters}
    out: list[str] = []
    seen: set[str] = set()
    for k, p in enumerate(o.parts, 1):
        if p.title.casefold() in seen:
            out.append(f"part {k} has the same title as an earlier part: {p.title!r}")
        seen.add(p.title.casefold())
        mine = sorted(at[ch] for ch in p.chapters)
        inside = [order[i] for i in range(mine[0], mine[-1] + 1) if part_of[order[i]] != k]
        if inside:
            other = part_of[inside[0]]
            before = max((order[i] for i in mine if i < at[inside[0]]), key=lambda ch: at[ch])
            out.append(f"part {k} ({p.title}) is split: {inside[0]} of part {other} ({o.parts[other - 1].title}) "
                       f"comes after its {before} in reading order, so the contents show the part in two places; "
                       f"list {inside[0]} under part {k}, or give it a number outside {order[mine[0]]}–{order[mine[-1]]}")
    first = part_of[order[0]]
    if first != 1:
        out.append(f"the book opens with {order[0]}, of part {first} ({o.parts[first - 1].title}), not with part 1 "
                   f"({o.parts[0].title}): list the first part first, or number its chapters from ch01")
    starts = [min(at[ch] for ch in p.chapters) for p in o.parts]
    for k in range(1, len(starts)):
        if starts[k] < starts[k - 1] and not (k == 1 and first != 1):
            out.append(f"part {k + 1} ({o.parts[k].title}) is listed after part {k} ({o.parts[k - 1].title}) but its "
                       f"first chapter {order[starts[k]]} comes before {order[starts[k - 1]]}: the contents show the "
                       "parts in the order listed")
    return out


def _raw_risks(text: str) -> list[str]:
    """Checks on the YAML itself, for a plan the loader refuses (so the card lists them all)."""
    import yaml

    m = _BLOCK_RE.search(text)
    try:
        data = yaml.safe_load(m.group(1)) if m else None
    except yaml.YAMLError:
        return []
    if not isinstance(data, dict):
        return []
    parts: list = data["parts"] if isinstance(data.get("parts"), list) else []
    chapters = data.get("chapters") if not parts else \
        [c for p in parts if isinstance(p, dict) and isinstance(p.get("chapters"), list) for c in p["chapters"]]
    if not isinstance(chapters, list):
        return []
    out: list[str] = [] if str(data.get("title") or "").strip() else ["the book has no title"]
    seen: dict[str, str] = {}
    for c in chapters:
        if not isinstance(c, dict):
            continue
        title, cid = str(c.get("title") or "").strip(), str(c.get("id"))
        if not title:
            out.append(f"{cid} has an empty title")
        elif title.casefold() in seen:
            out.append(f"{cid} has the same title as {seen[title.casefold()]}: {title!r}")
        seen.setdefault(title.casefold(), cid)
        if not c.get("sources"):
            out.append(f"{cid} cites no source file")
    for k, part in enumerate(parts, 1):
        if not isinstance(part, dict) or not str(part.get("title") or "").strip():
            out.append(f"part {k} has no title")
    deps = {str(c.get("id")): [str(d) for d in c.get("depends_on") or []] for c in chapters if isinstance(c, dict)}
    return out + [f"dependency cycle: {' → '.join(cyc)}" for cyc in _cycles(deps)]


def _cycles(deps: dict[str, list[str]]) -> list[list[str]]:
    """Each dependency cycle once, as a path that ends where it starts."""
    out: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        path.append(n)
        for d in deps.get(n, []):
            if state.get(d) == 1:
                out.append(path[path.index(d):] + [d])
            elif d in deps and d not in state:
                visit(d)
        path.pop()
        state[n] = 2

    for n in deps:
        if n not in state:
            visit(n)
    return out
