"""Whether a chapter was written from a partial view of its sources (issue 36 item 5): the
research report's own section "Left out of the sources" (agents.source_context.with_sources_cut
writes it when a small context window could not carry the chapter's files) is the record. It is
read from the file, so it survives a restart and a person's edit of the report; the page's
`partial` input (state.scan) is its hash, so the page is republished when it changes, and the
publisher says it to the reader (publish.partial_note)."""

from __future__ import annotations

import json
import re

from .markers import short_hash

CUT_HEADING = {"en": "## Left out of the sources", "zh": "## 未纳入的源码"}

# One item of the section: "- `path`: what of it was shown", or the closing "- why: ..."
_ITEM_RE = re.compile(r"^- `(?P<path>[^`\n]+)`: (?P<what>.+)$")
_NOT_SHOWN_RE = re.compile(r"^not shown \((?P<n>\d+) lines\)")
_PART_RE = re.compile(r"^(?P<kept>\d+) of (?P<n>\d+) lines shown")
# "...; left out: `Flask.run`, `Flask.test_client` and 12 more" (agents.packing.LEFT_OUT, naming)
_LEFT_OUT_RE = re.compile(r"; left out: (?P<names>(?:`[^`\n]+`(?:, )?)+)(?: and (?P<more>\d+) more)?\s*$")
_NAME_RE = re.compile(r"`([^`\n]+)`")


def cut_items(report: str) -> list[tuple[str, str]]:
    """(path, what of it was shown) for each source file the report says was cut, in the
    report's order; a file cut twice (the window cut again what was already cut) keeps its last
    line. [] when the report has no such section."""
    lines = report.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() in CUT_HEADING.values()), None)
    if start is None:
        return []
    found: dict[str, str] = {}
    for ln in lines[start + 1:]:
        if ln.startswith("## "):
            break
        m = _ITEM_RE.match(ln.strip())
        if m:
            found.pop(m["path"], None)
            found[m["path"]] = m["what"].strip()
    return list(found.items())


def partial_hash(report: str) -> str | None:
    """The page's `partial` input: the hash of what the report says was cut; None when nothing
    was (so a page published before this input existed is not stale for it)."""
    items = cut_items(report)
    return short_hash(json.dumps(items, ensure_ascii=False)) if items else None


def shown_lines(what: str) -> tuple[int, int] | None:
    """(lines shown, lines in the file) from an item's words; None when they say neither."""
    if m := _NOT_SHOWN_RE.match(what):
        return 0, int(m["n"])
    if m := _PART_RE.match(what):
        return int(m["kept"]), int(m["n"])
    return None


def left_out_names(what: str) -> tuple[list[str], int]:
    """(the definitions an item names as left out, most needed first; how many more it counts);
    ([], 0) when it names none (a report written before items named them, or a file with no
    definition the map knows)."""
    m = _LEFT_OUT_RE.search(what)
    if not m:
        return [], 0
    return _NAME_RE.findall(m["names"]), int(m["more"] or 0)
