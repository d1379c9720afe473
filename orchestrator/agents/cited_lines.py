"""The source lines a research report cites, for the writer (issue 36, item 3).

The writer does not see the chapter's sources, only the research report; its excerpts were
chosen upstream. So that the writer can cite and quote what it says exactly, its prompt also
carries the lines each of the report's citations (`[label](source:PATH#Lm-Ln)`) points at,
numbered as in the source, a few lines of context around each, overlapping spans merged; within
a character budget, in the report's order.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from ..evidence.cite import CITE_RE
from ..repo.walk import read_source
from .source_context import numbered, size

AROUND = 2  # lines of context before and after each cited span
MAX_SPAN = 120  # a citation of more lines shows its first ones


def spans(report: str) -> dict[str, list[tuple[int, int]]]:
    """Per cited file (in the report's order), its cited line spans, widened and merged."""
    out: dict[str, list[tuple[int, int]]] = {}
    for m in CITE_RE.finditer(report):
        path, first = unquote(m.group(2)), int(m.group(3))
        last = int(m.group(4) or first)
        if last < first:
            first, last = last, first
        last = min(last, first + MAX_SPAN - 1)
        out.setdefault(path, []).append((max(1, first - AROUND), last + AROUND))
    for path, ss in out.items():
        merged: list[tuple[int, int]] = []
        for a, b in sorted(ss):
            if merged and a <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        out[path] = merged
    return out


def cited_lines(root: Path, report: str, limit: int) -> dict[str, str]:
    """`{"path lines a-b": numbered lines}` for the report's citations, at most `limit` characters
    (as the source budgets count them); a file that cannot be read is left out."""
    out: dict[str, str] = {}
    used = 0
    for path, ss in spans(report).items():
        try:
            text = read_source(root, path, max_bytes=8_000_000)
        except (OSError, ValueError):
            continue
        lines = numbered(text).splitlines(keepends=True)
        for a, b in ss:
            part = "".join(lines[a - 1:b])
            if not part or used + size(part) > limit:
                continue
            out[f"{path} lines {a}-{min(b, len(lines))}"] = part
            used += size(part)
    return out
