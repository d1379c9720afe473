"""Markdown rules for text that came from the source: fences its content cannot close,
headings demoted, markers made inert, and a count of Sphinx/RST markup left in prose."""

from __future__ import annotations

import re

_MD_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_MARKER_RE = re.compile(r"<!--")


def fence(code: str, lang: str = "text") -> str:
    """A fenced block that its own content cannot close."""
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}{lang}\n{code}\n{ticks}"


def safe(md: str) -> str:
    """Markdown from the source made harmless to the book: no line outside a code fence starts
    a heading, a fence the text does not close, or a marker."""
    out, fence_mark = [], None
    for ln in md.splitlines():
        s = ln.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            if fence_mark is None:
                fence_mark = mark
            elif s.startswith(fence_mark) and not s.strip("`~").strip():
                fence_mark = None
            out.append(ln)
            continue
        if fence_mark is None:
            m = _MD_HEADING_RE.match(s)
            if m:
                ln = f"**{m.group(1)}**" if m.group(1) else ""
            ln = _MARKER_RE.sub("&lt;!--", ln)
        out.append(ln)
    if fence_mark is not None:
        out.append(fence_mark)
    return "\n".join(out)


def prose_only(md: str) -> str:
    """Markdown without its code blocks and inline code (what a reader reads as sentences)."""
    md = re.sub(r"(?ms)^\s*(```+|~~~+).*?^\s*\1\s*$", "", md)
    return re.sub(r"`[^`\n]*`", "", md)


_LEAK_RE = re.compile(r":(?:class|meth|func|data|attr|exc|ref|obj|mod|const|doc|term|py:\w+):`|\.\.\s+[\w-]+::|"
                      r"^\s*:(?:param|type|returns?|rtype|raises?)\b|(?<!`)``(?!`)\w|^\s*[=~^-]{4,}\s*$", re.M)


def markup_leaks(md: str) -> int:
    """How many pieces of Sphinx/RST markup remain in the prose of a Markdown text."""
    no_fences = re.sub(r"(?ms)^\s*(```+|~~~+).*?^\s*\1\s*$", "", md)  # roles carry backticks: keep inline code
    return len(_LEAK_RE.findall(no_fences))
