"""The offline writer meets the checks the pipeline applies to its chapters (issue 33 item 1): a
deterministic writer whose output its own checks reject is a bug. Two passes over a draft:

* links: a link the chapter copied from a README or a doc (`[guide](site/content/x.md)`,
  `[see](#browser-support)`, an image beside the README) names a file or an anchor the published
  book does not have. It is kept where the book has it (an anchor of this chapter, another chapter,
  the web) and otherwise becomes its own words, so delivery never fails on it;
* evidence: a paragraph about the code that cites no source lines gets the citation of the
  smallest range that shows every name one of its sentences gives (the definition it speaks of,
  with its doc comment, or a range the chapter cites already), so the share of cited paragraphs
  meets `evidence_min` with citations that resolve. A sentence whose names no range shows (a
  type of another library) stays as it is.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..evidence.annotate import MAX_SPAN
from ..evidence.cite import Block, blocks as prose_blocks, citation_link, last_part
from ..text.markdown import split_lines

if TYPE_CHECKING:
    from .project import Project

_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_LINK = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_CHAPTER = re.compile(r"^(?:\./)?ch\d{2,}(?:-final)?\.(?:md|html)(?:#.*)?$")
# A comment line above a definition: its doc (`///`, `/** … */`, `#`, `--`, `@doc`) or an attribute.
_DOC_LINE = re.compile(r"^\s*(?://|/\*|\*|#|--|@|\[[A-Z])")
MAX_DOC_LINES = 80


def meet_checks(md: str, p: Project) -> str:
    """The draft with its links and citations made to pass delivery and R1's evidence check."""
    return cite_uncited(tidy_links(md), p)


# --------------------------------------------------------------------------- links

def tidy_links(md: str) -> str:
    from ..publish.markdown import classify_url, parse_chapter

    anchors = parse_chapter(md, "", []).anchors

    def keep(href: str) -> bool:
        kind = classify_url(href)
        if kind in ("external", "mailto", "source"):
            return True
        if kind == "fragment":
            return href[1:] in anchors or href == "#"
        return kind == "relative" and _CHAPTER.match(href) is not None

    def image(m: re.Match[str]) -> str:
        return m.group(0) if keep(m.group(2)) else m.group(1)

    def link(m: re.Match[str]) -> str:
        return m.group(0) if keep(m.group(2)) else m.group(1)

    return _outside_code(md, lambda text: _LINK.sub(link, _IMAGE.sub(image, text)))


def _outside_code(md: str, change: object) -> str:
    """Apply ``change`` to the prose of ``md``: not inside fences, not inside code spans."""
    from ..text.markdown import scan_fences

    assert callable(change)
    _, lines, in_code = scan_fences(md)
    out = []
    for ln, code in zip(lines, in_code):
        if code or "](" not in ln:
            out.append(ln)
            continue
        parts = re.split(r"(`+[^`]*`+)", ln)
        out.append("".join(part if k % 2 else change(part) for k, part in enumerate(parts)))
    return "\n".join(out)


# --------------------------------------------------------------------------- evidence

def cite_uncited(md: str, p: Project) -> str:
    lines = split_lines(md)
    ranges = _Ranges(p, md)
    for b in prose_blocks(md):  # a citation goes inside a line: no line moves, and what it cites serves below
        if not b.is_claim or b.cites:
            continue
        place = _citable(b, ranges)
        if place is None:
            continue
        offset, (rel, first, last) = place
        ranges.cited.add((rel, first, last))
        ranges.by_section.setdefault(b.section, set()).add((rel, first, last))
        row = b.first - 1 + b.text.count("\n", 0, offset)
        col = offset - (b.text.rfind("\n", 0, offset) + 1)
        lines[row] = _insert(lines[row], col, citation_link(rel, first, last))
    return "\n".join(lines)


def _insert(line: str, col: int, link: str) -> str:
    """The citation at the end of a sentence: before its closing punctuation, inside a table's last cell."""
    head, tail = line[:col].rstrip(), line[col:]
    if head.endswith("|") and head.lstrip().startswith("|"):
        return head[:-1].rstrip() + f" ({link}) |" + tail
    stop = re.search(r"[.!?:;。！？；]+$", head)
    if stop:
        return head[:stop.start()] + f" ({link})" + head[stop.start():] + tail
    return head + f" ({link})" + tail


def _citable(b: Block, ranges: _Ranges) -> tuple[int, tuple[str, int, int]] | None:
    """(offset in the block's text where a sentence ends, the range to cite) for the first
    sentence whose names one range shows, or None."""
    pos = 0
    for s in b.sentences:
        at = b.text.find(s.text, pos)
        if at < 0:
            continue
        pos = at + len(s.text)
        if not s.names or re.match(r"^\s*\|[\s:|-]*\|\s*$", s.text):
            continue
        best = ranges.best(s.names, ranges.by_section.get(b.section, set()))
        if best is not None:
            return pos, best
    return None


class _Ranges:
    """The source ranges a sentence may cite: the chapter's own citations and the definitions of
    the names it gives, each widened to the doc comment above it; the smallest that shows all."""

    def __init__(self, p: Project, md: str) -> None:
        from ..evidence.cite import citations

        self.p = p
        self.cited = {(c.path, c.first, c.last) for c in citations(md)}
        self.by_section: dict[str, set[tuple[str, int, int]]] = {}  # what each `## ` section cites
        for b in prose_blocks(md):
            self.by_section.setdefault(b.section, set()).update((c.path, c.first, c.last) for c in b.cites)
        self._text: dict[tuple[str, int, int], str | None] = {}

    def best(self, names: list[str], near: set[tuple[str, int, int]]) -> tuple[str, int, int] | None:
        """The smallest range that shows every name, one the sentence's own section cites first."""
        parts = [last_part(n) for n in names]
        candidates = set(self.cited)
        for n in names:
            for s in self.p.find(n) or self.p.find(last_part(n)):
                candidates.add((s.rel, s.d.start_line, s.d.end_line))
        found: list[tuple[bool, int, tuple[str, int, int]]] = []
        for rel, a, b in candidates:
            widened = self._widen(rel, a, b)
            if widened[2] - widened[1] + 1 > MAX_SPAN:
                continue  # a whole `impl` block or class is no evidence of a sentence (the support check says so)
            text = self.text(widened)
            if text is not None and all(re.search(rf"(?<![\w$]){re.escape(x)}(?![\w$])", text) for x in parts):
                found.append(((rel, a, b) not in near and widened not in near, widened[2] - widened[1], widened))
        return min(found)[2] if found else None

    def _widen(self, rel: str, a: int, b: int) -> tuple[str, int, int]:
        try:
            lines = self.p.lines_of(rel)
        except (OSError, KeyError, ValueError):
            return rel, a, b
        first = a
        while first > 1 and a - first < MAX_DOC_LINES and _DOC_LINE.match(lines[first - 2] if first - 2 < len(lines) else ""):
            first -= 1
        return rel, first, b

    def text(self, r: tuple[str, int, int]) -> str | None:
        if r not in self._text:
            try:
                lines = self.p.lines_of(r[0])
            except (OSError, KeyError, ValueError):
                lines = []
            self._text[r] = "\n".join(lines[r[1] - 1:r[2]]) if 1 <= r[1] <= r[2] <= len(lines) else None
        return self._text[r]
