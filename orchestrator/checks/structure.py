"""R3: structure and length of a chapter."""

from __future__ import annotations

import re

from ..text.markdown import headings_in, scan_fences, text_length
from .findings import Collected, Finding, sorted_findings

# sentences that say nothing about the code (issue 23: one book had the first 265 times)
FILLER = (re.compile(r"(?i)\bit has no doc comment, so its code is the explanation\b"),
          re.compile(r"(?i)\bthis (?:section|chapter) (?:will )?(?:describes?|explains?|covers?) (?:the|this) "
                     r"(?:code|function|class|method)\.?$"),
          re.compile(r"(?i)\bas (?:we|you) can see(?: from the code)?, the code (?:does|is) what it says\b"))
REFERENCE_SHARE = 0.5  # above this share of `##` sections headed by one symbol, the chapter reads as a lookup table
_ONE_SYMBOL = re.compile(r"^`[^`]+`$")


def check_structure(md: str, *, language: str = "en", min_words: int = 300,
                    max_words: int = 6000, first: bool = False, path: tuple[str, ...] = ()) -> list[Finding]:
    """R3: one H1, at least two `##` sections, length within bounds (outside code and comments),
    closed fences, no heading level jumps, no empty sections; and the shape of issue 23: the
    chapter tells (not more than half of its sections one symbol each), no filler sentence, the
    articles and "is a <verb>" right; chapter 1 (`first`) is the big picture: it quotes a usage
    example in a code block, and follows the main path (`path`: the names of the calls the map
    traces from where a user's call begins) through most of its steps."""
    out = Collected()
    _check_shape(md, out, language=language, first=first)
    if first and len(path) > 1:
        _check_path(md, out, path)
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
    # a length outside the range is a note: a chapter about a small module is rightly short, and
    # the check cannot tell that from a thin one (a model's thin chapter shows in R1's uncited lines)
    if size < min_words:
        out.add("r3.length", "minor", 0, f"the chapter is {size} {unit} long; the minimum is {min_words}")
    elif size > max_words:
        out.add("r3.length", "minor", 0, f"the chapter is {size} {unit} long; the maximum is {max_words}")
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


def _check_path(md: str, out: Collected, path: tuple[str, ...]) -> None:
    """Chapter 1 follows the main path: of its names, at least three (all of a shorter path) are
    written as code in the chapter (`Schema.dump`, or `dump` alone)."""
    spans = {w for span in re.findall(r"`([^`\n]+)`", md) for w in re.split(r"\.|::|#|\(|\s", span) if w}
    short = [re.split(r"\.|::|#", n)[-1] for n in path]
    met = [n for n, sh in zip(path, short) if sh in spans]
    if len(met) < min(3, len(path)):
        out.add("r3.overview", "major", 0,
                "chapter 1 is the big picture: follow the main path one call at a time, each step a call the code "
                "makes, citing its lines: " + " → ".join(f"`{n}`" for n in path))


def _check_shape(md: str, out: Collected, *, language: str, first: bool) -> None:
    from .grammar import mistakes

    blocks, lines, in_code = scan_fences(md)
    heads = [(n, text) for n, level, text in headings_in(md) if level == 2]
    single = [(n, text) for n, text in heads if _ONE_SYMBOL.match(text.strip())]
    if len(heads) >= 4 and len(single) > REFERENCE_SHARE * len(heads):
        out.add("r3.shape", "major", single[0][0],
                f"{len(single)} of {len(heads)} sections are headed by one symbol (`## `Name``): the chapter reads as "
                "a lookup of doc comments; walk the code in the order the work flows (a section per path of calls) "
                "and put per-symbol detail in a table")
    if first and not blocks:
        out.add("r3.overview", "major", 0,
                "chapter 1 is the big picture: quote a usage example from the project's README, docs or examples "
                "(verbatim, in a code block, naming its file) and name the entry points a user calls")
    for n, (ln, code) in enumerate(zip(lines, in_code), 1):
        if code:
            continue
        for rx in FILLER:
            hit = rx.search(ln)
            if hit:
                out.add("r3.filler", "minor", n, f"line {n} is filler ('{hit.group(0)}'): say what the code does, or nothing")
    if not language.lower().startswith("zh"):
        for n, wrote, should in mistakes(md)[:20]:
            out.add("r3.grammar", "minor", n, f"line {n}: '{wrote}' should read '{should}'")
