"""Kotlin's `val x by lazy { … }` (issue 35): the map holds the property as a method of its class (repo.languages),
its block the body; reading it, with no call's parentheses, runs that body the first time."""

from __future__ import annotations

import re

from .project import Project, Sym

_LAZY = re.compile(r"\bby\s+lazy\b")


def lazy_reads(p: Project, s: Sym, code: str) -> list[tuple[Sym, int]]:
    """The lazy properties of `s`'s own class that its code reads (kotlin-argparser's `force` reads `parseOptions`,
    whose block parses the arguments), each with the offset of its first read."""
    if s.lang != "kotlin" or "." not in s.dotted:
        return []
    owner = s.dotted.rsplit(".", 1)[0]
    out = []
    for x in p.symbols(within=[s.rel]):
        if x.kind == "method" and x is not s and x.dotted == f"{owner}.{x.short}" and _LAZY.search(x.d.signature):
            m = re.search(rf"(?<![\w$.])(?:this\s*\.\s*)?{re.escape(x.short)}(?![\w$(])(?!\s*=[^=])", code)
            if m is not None:
                out.append((x, m.start()))
    return out
