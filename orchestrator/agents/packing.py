"""What of a chapter's sources goes into a small window first (issue 36, item 5): by need, not by
position nor by the repository's rank alone.

1. the definitions the chapter's outline entry names (its title, summary and goals mention
   `take`, `TokenBucket.take`, `TokenBucket`);
2. the call path: the definitions of the chapter's files that those call (their bodies name them);
3. the rest, by rank in the repository map.

`need_order` gives, per file, the line spans of its definitions in that order, and the files in the
order of their most needed definition; source_context cuts what does not fit from the end.
"""

from __future__ import annotations

import re
from typing import Any

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def named_in(text: str) -> set[str]:
    """The identifiers an outline entry mentions (words of code, dotted names split)."""
    return set(WORD.findall(text))


def need_order(ranked: list[Any], texts: dict[str, str], entry_text: str) -> dict[str, list[tuple[int, int]]]:
    """Per file, its definitions' spans, most needed first: named by the entry, then called by a
    named one, then by rank. `ranked`: the map's ranked definitions of the chapter's files (best
    first, each with `.rel` and `.definition`); `texts`: the files' text (numbered or not)."""
    names = named_in(entry_text)
    named = [r for r in ranked if r.definition.name in names or r.definition.qualified_name in names]
    body_words: set[str] = set()
    for r in named:
        lines = texts.get(r.rel, "").splitlines()[r.definition.start_line - 1:r.definition.end_line]
        body_words |= set(WORD.findall("\n".join(lines)))
    called = [r for r in ranked if r not in named and r.definition.name in body_words]
    rest = [r for r in ranked if r not in named and r not in called]
    out: dict[str, list[tuple[int, int]]] = {}
    for r in named + called + rest:
        out.setdefault(r.rel, []).append((r.definition.start_line, r.definition.end_line))
    return out


def entry_text(chapter: dict[str, Any]) -> str:
    """The words of an outline entry that say what the chapter needs."""
    return " ".join([str(chapter.get("title") or ""), str(chapter.get("summary") or ""),
                     *[str(g) for g in chapter.get("goals") or ()]])
