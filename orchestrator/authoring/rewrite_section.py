"""The offline writer asked to rewrite a section its chapter, written now, would not have: its
walk follows the code (a chain of calls gets a section), so when a release reshapes the code a
heading of the chapter as it stands can be one it no longer makes. A model keeps "the same
subject in the same place, headed exactly as now"; so does this: the section is written about the
symbol its heading names, as the writer writes any symbol (what it is for, its code, its steps,
parameters and calls, cited), from the map as it is now. A heading that names nothing the map
still defines gets no section (the answer then fails validation and the chapter is written whole)."""

from __future__ import annotations

import re
from typing import Any

from ..checks import grammar
from ..text import zh_punct
from .phrases import phrases
from .project import Project, Sym
from .research import chapter_of_files

_NAMED = re.compile(r"`([^`\s]+)`")


def _named(p: Project, head: str, files: list[str]) -> Sym | None:
    """The definition the heading names, in the chapter's files first."""
    for name in _NAMED.findall(head):
        found = p.find(name)
        mine = [s for s in found if s.rel in files]
        if mine or found:
            return (mine or found)[0]
    return None


def section_about(ctx: dict[str, Any], p: Project, head: str) -> str | None:
    """`## head` and the writer's section on the symbol it names, or None."""
    from .write import _cited, _symbol_section

    files = [f for f in ctx["chapter"].get("sources") or [] if f in p.map.files]
    s = _named(p, head, files)
    if s is None:
        return None
    t = phrases(ctx.get("language", "en"))
    code, a, b = p.excerpt(s)
    if not code:
        return None
    lines = _symbol_section(p, s, code, a, b, s.lang, ctx, chapter_of_files(ctx), {s.name}, t)
    text = "\n".join([f"## {head}", "", *lines])
    text = zh_punct.normalise(text) if t["lang"] == "zh" else grammar.fix(text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return _cited(text, p).rstrip() + "\n"


def with_missing(ctx: dict[str, Any], text: str, wanted: list[str]) -> str:
    """`text` (the sections the writer has of those `wanted`) with each one it lacks written by
    `section_about` where it can be, in the order asked."""
    from ..evidence.sections import split
    from .project import from_context

    have = {s.head: s.text.strip("\n") for s in split(text) if s.text.strip()}
    missing = [h for h in wanted if h not in have and h]
    if not missing:
        return text
    p = from_context(ctx)
    for h in missing:
        sec = section_about(ctx, p, h)
        if sec is not None:
            have[h] = sec.strip("\n")
    return "\n\n".join(have[h] for h in wanted if h in have).rstrip() + "\n"
