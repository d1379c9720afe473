"""The final audit: links, leftovers and cross references across the final chapters."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import unquote

from ..text.markdown import (
    CHAPTER_LINK_RE,
    LATIN_A,
    LATIN_B,
    blank_urls,
    heading_slugs,
    links_in,
    prose_lines,
    split_lines,
)
from .consistency import fold, term_used
from .findings import Collected, Finding

_LEFTOVER_RES = (
    (re.compile(LATIN_B + r"(TODO|FIXME|XXX|TBD)" + LATIN_A), "the leftover '{}'"),
    (re.compile(r"lorem ipsum", re.IGNORECASE), "placeholder text '{}'"),
    (re.compile(r"\[citation needed\]", re.IGNORECASE), "the leftover '{}'"),
)
# a marker-like comment, also once neutralised by markers.neutralise: `<!-- (quoted) DRAFT_COMPLETE -->`
_MARKER_RE = re.compile(r"<!--\s*(?:\(quoted\)\s*)?[A-Z][A-Z0-9_]{2,}(?=\s|-->|$)")
_OWN_MARKER_RE = re.compile(r"\s*<!--\s*[A-Z][A-Z0-9_]*(?:\s[^>]*)?-->\s*")
_ANGLE_RE = re.compile(r"<(?=\S)([^<>\n]{1,80})(?<=\S)>")
_HTML_TAGS = frozenset((
    "a", "abbr", "audio", "b", "bdi", "bdo", "blockquote", "br", "button", "caption", "center", "cite",
    "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption",
    "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "iframe", "img",
    "input", "ins", "kbd", "label", "li", "mark", "nav", "ol", "p", "picture", "pre", "q", "rp", "rt",
    "ruby", "s", "samp", "section", "small", "source", "span", "strong", "style", "sub", "summary", "sup",
    "svg", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "video", "wbr"
))
_MENTION_RE = re.compile(rf"\b[Cc]hapter\s+(\d+)\b|{LATIN_B}ch(\d{{2,}}){LATIN_A}"  # Chapter 9, ch09
                         r"|第\s*([0-9零一二三四五六七八九十百〇两]+)\s*章")  # 第九章
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}


def _zh_number(s: str) -> int | None:
    """Digits or a Chinese numeral up to 999 (三, 十二, 二十, 一百零五)."""
    if s.isdigit():
        return int(s)
    total = cur = 0
    for ch in s:
        if ch in _ZH_DIGITS:
            cur = _ZH_DIGITS[ch]
        elif ch in "十百":
            total, cur = total + (cur or 1) * (10 if ch == "十" else 100), 0
        else:
            return None
    return total + cur


def _is_placeholder(inner: str) -> bool:
    """`<insert diagram here>` is; a comment, an autolink or a known HTML tag is not."""
    if inner.startswith("!--") or re.match(r"^[A-Za-z][\w+.-]*:\S*$|^[^\s@]+@[^\s@]+$", inner):
        return False
    m = re.match(r"^/?([A-Za-z][\w-]*)(?:\s[^<>]*)?/?$", inner)
    return not (m and m.group(1).lower() in _HTML_TAGS)


def _audit_links(md: str, own: str, slugs: dict[str, list[str]], chapters: dict[str, str]) -> Collected:
    out = Collected()
    for n, target in links_in(md):
        if target.startswith("#"):
            if unquote(target[1:]) not in slugs.get(own, []):
                out.add("audit.link", "major", n, f"anchor {target} matches no heading of this chapter")
        elif m := CHAPTER_LINK_RE.match(target):
            cid, anchor = m.group(1), m.group(2)
            if cid not in chapters:
                out.add("audit.link", "major", n,
                        f"link to {target} points to a chapter that is not in this book")
            elif cid not in slugs:
                out.add("audit.xref", "minor", n,
                        f"link to {target} points to {cid}, which has no final text yet")
            elif anchor and unquote(anchor) not in slugs[cid]:
                known = ", ".join(slugs[cid][:6]) or "none"
                out.add("audit.link", "major", n,
                        f"link to {target}: {cid} has no heading '{anchor}' (its anchors: {known})")
        elif not re.match(r"^(?:https?|mailto|source):", target, re.IGNORECASE):  # source: R1 resolves citations
            out.add("audit.link", "minor", n,
                    f"link to {target} is not a chapter of the book and will not be published")
    return out


def _audit_text(md: str, chapters: dict[str, str]) -> Collected:
    out = Collected()
    lines = split_lines(md)
    last = max((i + 1 for i, ln in enumerate(lines) if ln.strip()), default=0)
    numbers = {int(c[2:]) for c in chapters if re.fullmatch(r"ch\d+", c)}
    for n, raw, masked in prose_lines(md):
        for rx, what in _LEFTOVER_RES:
            for m in rx.finditer(masked):
                out.add("audit.leftover", "major", n,
                        f"{what.format(m.group())} is still in the text; finish or remove it")
        for m in _ANGLE_RE.finditer(masked):
            if _is_placeholder(m.group(1)):
                out.add("audit.leftover", "major", n,
                        f"the placeholder '{m.group()}' is still in the text; replace it")
        own_marker = n == last and _OWN_MARKER_RE.fullmatch(raw)  # the file's own completion marker
        if not own_marker and (mk := _MARKER_RE.search(masked)):
            out.add("audit.leftover", "major", n,
                    f"the marker-like comment '{mk.group()}' is left in the text; remove it")
        for m in _MENTION_RE.finditer(blank_urls(masked)):  # "Chapter 9", "ch09", "第九章"
            num = int(m.group(1) or m.group(2)) if (m.group(1) or m.group(2)) else _zh_number(m.group(3))
            if num is not None and numbers and num not in numbers:
                out.add("audit.xref", "minor", n,
                        f"'{m.group()}' refers to a chapter that is not in this book")
    return out


def _chapter_key(cid: str | None) -> tuple[bool, int, str]:
    m = re.fullmatch(r"ch(\d+)", cid or "")
    return (cid is None, int(m.group(1)) if m else 0, cid or "")


def audit_book(finals: dict[str, str], *, glossary: dict[str, str], chapters: dict[str, str],
               language: str = "en") -> list[Finding]:
    """The whole-book audit of the final chapters (id → text, its marker line included or not):
    links and anchors, leftovers, textual cross references, glossary terms the book never uses.
    Every finding names its chapter (for a glossary term, the chapter that defined it); they
    come sorted by chapter, line, message. English and Chinese references are both read, so
    `language` changes nothing today."""
    slugs = {cid: heading_slugs(md) for cid, md in finals.items()}
    out: list[Finding] = []
    for cid, md in finals.items():
        found = _audit_links(md, cid, slugs, chapters) + _audit_text(md, chapters)
        out += [replace(f, chapter=cid) for f in found]
    corpus = "\n".join(finals.values())
    folded = fold(corpus)
    for term, owner in glossary.items():
        if term.strip() and not term_used(term.strip(), corpus, folded):  # plurals count as a use
            msg = f"glossary term '{term}' (defined in {owner}) is never used in the book; use it or drop it"
            out.append(Finding("audit.glossary", "minor", 0, msg, chapter=owner or None))
    return sorted(dict.fromkeys(out), key=lambda f: (*_chapter_key(f.chapter), f.line, f.message, f.check))
