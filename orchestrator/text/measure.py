"""Measures of written text: how much of a Chinese book's prose is Chinese.

Code (fenced blocks and inline code), quoted source (block quotes and 「…」), citations, link targets and HTML
comments are set aside: what remains are the sentences the tool wrote."""

from __future__ import annotations

import re

_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\U00020000-\U0002ebef]")
_LATIN = re.compile(r"[A-Za-z0-9]")
_FENCE = re.compile(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$")


def prose_of(md: str) -> str:
    """A Markdown text without code, quoted source, link targets and comments."""
    md = _FENCE.sub("", md)
    md = re.sub(r"<!--.*?-->", "", md, flags=re.S)
    md = "\n".join(ln for ln in md.splitlines() if not ln.lstrip().startswith(">"))
    md = re.sub(r"\[[^\[\]\n]*\]\(source:[^)\s]*\)", "", md)  # a citation of the source is evidence, not prose
    md = re.sub(r"`+[^`\n]*`+", "", md)
    md = re.sub(r"「[^」\n]*」", "", md)  # the source's own words quoted inline, like a block quote
    md = re.sub(r"\]\([^)\s]*\)", "]", md)
    return md


def cjk_share(md: str) -> float:
    """CJK characters as a share of the letters, digits and CJK characters of the prose (0..1;
    1.0 for a text with no letters at all)."""
    text = prose_of(md)
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 1.0
