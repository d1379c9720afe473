"""R3: structure and length of a chapter."""

from __future__ import annotations

import re

from ..text.markdown import headings_in, scan_fences, text_length
from .findings import Collected, Finding, sorted_findings


def check_structure(md: str, *, language: str = "en", min_words: int = 300,
                    max_words: int = 6000) -> list[Finding]:
    """R3: one H1, at least two `##` sections, length within bounds (outside code and comments),
    closed fences, no heading level jumps, no empty sections."""
    out = Collected()
    blocks, lines, in_code = scan_fences(md)
    for b in blocks:
        if not b.closed:
            out.add("r3.fence", "blocking", b.line,
                    f"the code fence opened at line {b.line} is never closed; the chapter looks truncated")
    heads = headings_in(md)
    h1 = [n for n, level, _ in heads if level == 1]
    if not h1:
        out.add("r3.title", "major", 0, "the chapter has no `# Title` line; add one H1 title")
    elif len(h1) > 1:
        at = ", ".join(map(str, h1))
        out.add("r3.title", "major", h1[1],
                f"the chapter has {len(h1)} H1 titles (lines {at}); keep one, make the rest `##`")
    if (k := sum(1 for h in heads if h[1] == 2)) < 2:
        out.add("r3.sections", "major", 0, f"the chapter has {k} `##` section(s); it needs at least 2")
    prose = "\n".join(ln for ln, code in zip(lines, in_code) if not code)
    size = text_length(re.sub(r"<!--.*?-->", " ", prose, flags=re.DOTALL))
    unit = "characters" if language.lower().startswith("zh") else "words"
    if size < min_words:
        out.add("r3.length", "major", 0, f"the chapter is {size} {unit} long; the minimum is {min_words}")
    elif size > max_words:
        out.add("r3.length", "major", 0, f"the chapter is {size} {unit} long; the maximum is {max_words}")
    for k, (n, level, text) in enumerate(heads):
        prev = heads[k - 1][1] if k else level
        if level > prev + 1:
            out.add("r3.sections", "minor", n,
                    f"heading '{text}' jumps from {'#' * prev} to {'#' * level}; use {'#' * (prev + 1)}")
        # empty: only blank lines and comments before the next heading of the same or a higher
        # level (or the end); a section that opens straight with its subsections is not empty
        nxt = heads[k + 1] if k + 1 < len(heads) else None
        between = lines[n : nxt[0] - 1 if nxt else len(lines)]
        empty = not any(re.sub(r"<!--.*?-->", "", ln).strip() for ln in between)
        if empty and (nxt is None or nxt[1] <= level):
            out.add("r3.sections", "minor", n,
                    f"section '{text}' is empty; write its text or remove the heading")
    return sorted_findings(out)
