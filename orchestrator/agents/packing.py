"""What of a chapter's sources goes into a small window first (issue 36, item 5): by need, not by
position nor by the repository's rank alone.

1. the definitions the chapter's outline entry names (its title, summary and goals mention
   `take`, `TokenBucket.take`, `TokenBucket`);
2. the call path: the definitions of the chapter's files that those call (their bodies name them);
3. the rest, by rank in the repository map.

`need_order` gives, per file, the line spans of its definitions in that order, and the files in the
order of their most needed definition; source_context cuts what does not fit from the end.
`need_defs` gives the same with each definition's name, so that what was cut can be named by the
definitions left out (`left_out`: the research report lists them, and the chapter's page says
which ones the chapter could not see: publish.partial_note).
"""

from __future__ import annotations

import re
from typing import Any

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def named_in(text: str) -> set[str]:
    """The identifiers an outline entry mentions (words of code, dotted names split)."""
    return set(WORD.findall(text))


Def = tuple[str, int, int]  # a definition's qualified name, first and last line
NUMBER_RE = re.compile(r"^ *(\d+)→")  # a shown source line's number (agents.source_context.numbered)
LEFT_OUT = "; left out: "  # how a cut file's entry in the report goes on to name its lost definitions
LISTED = 40  # definitions named per file in the report; the rest are counted


def need_order(ranked: list[Any], texts: dict[str, str], entry_text: str) -> dict[str, list[tuple[int, int]]]:
    """Per file, its definitions' spans, most needed first (see need_defs)."""
    return {rel: [(a, b) for _, a, b in defs] for rel, defs in need_defs(ranked, texts, entry_text).items()}


def need_defs(ranked: list[Any], texts: dict[str, str], entry_text: str) -> dict[str, list[Def]]:
    """Per file, its definitions (name, span), most needed first: named by the entry, then called
    by a named one, then by rank. `ranked`: the map's ranked definitions of the chapter's files
    (best first, each with `.rel` and `.definition`); `texts`: the files' text (numbered or not)."""
    names = named_in(entry_text)
    named = [r for r in ranked if r.definition.name in names or r.definition.qualified_name in names]
    body_words: set[str] = set()
    for r in named:
        lines = texts.get(r.rel, "").splitlines()[r.definition.start_line - 1:r.definition.end_line]
        body_words |= set(WORD.findall("\n".join(lines)))
    called = [r for r in ranked if r not in named and r.definition.name in body_words]
    rest = [r for r in ranked if r not in named and r not in called]
    out: dict[str, list[Def]] = {}
    for r in named + called + rest:
        d = r.definition
        out.setdefault(r.rel, []).append((d.qualified_name or d.name, d.start_line, d.end_line))
    return out


def left_out(shown: str, defs: list[Def] | list[list[Any]] | list[Any]) -> list[str]:
    """The names of `defs` (most needed first) whose first line `shown`, a numbered excerpt of
    their file, does not show: the definitions a reader of the excerpt cannot see."""
    lines = {int(m[1]) for ln in shown.splitlines() if (m := NUMBER_RE.match(ln))}
    names: list[str] = []
    for name, start, _end in defs:
        if int(start) not in lines and name not in names:
            names.append(str(name))
    return names


def naming(names: list[str], cap: int = LISTED) -> str:
    """`a`, `b` and 3 more: the first `cap` names, the rest counted (the report's words, read back
    by state.partial_view.left_out_names)."""
    listed = ", ".join(f"`{n}`" for n in names[:cap])
    return listed + (f" and {len(names) - cap} more" if len(names) > cap else "")


def entry_text(chapter: dict[str, Any]) -> str:
    """The words of an outline entry that say what the chapter needs."""
    return " ".join([str(chapter.get("title") or ""), str(chapter.get("summary") or ""),
                     *[str(g) for g in chapter.get("goals") or ()]])
