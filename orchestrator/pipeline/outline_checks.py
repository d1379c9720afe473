"""What the outline gate's card says about a plan, from real checks: a plan that does not
parse, an empty book title, empty or duplicate chapter titles, chapters with no source,
dependency cycles. (The outline loader refuses some of these outright; the card says so
before a person approves a plan the run would then reject.)"""

from __future__ import annotations

import re

from ..errors import BookError
from ..outline import parse

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
    risks += [f"dependency cycle: {' → '.join(cyc)}" for cyc in _cycles({c.id: list(c.depends_on) for c in o.chapters})]
    return risks


def _raw_risks(text: str) -> list[str]:
    """Checks on the YAML itself, for a plan the loader refuses (so the card lists them all)."""
    import yaml

    m = _BLOCK_RE.search(text)
    try:
        data = yaml.safe_load(m.group(1)) if m else None
    except yaml.YAMLError:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("chapters"), list):
        return []
    chapters = data["chapters"]
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
