"""Links between chapters, settled when the book is published: a link whose text is a title
the target chapter has had shows its current title; a link to a retired chapter becomes text."""

from __future__ import annotations

from .markdown import CHAPTER_LINK_RE, ParsedChapter, plain_inline


def retitle_links(parsed: ParsedChapter, titles: dict[str, str], known: dict[str, set[str]]) -> None:
    """A link to a whole chapter (`[Title](ch03.md)`, no #section) whose text is one of the
    titles that chapter has had (`known`, case-folded) shows its title as it is now, so a
    rename republishes pages and redrafts nothing. Any other link text is the author's words
    and stays."""
    for tok in parsed.tokens:
        kids = tok.children or []
        for i, child in enumerate(kids):
            if child.type != "link_open" or child.meta.get("glossary"):
                continue
            href = str(child.attrGet("href") or "")
            path, _, frag = href.partition("#")
            m = CHAPTER_LINK_RE.match(path)
            if not m or frag or m.group(1) not in titles:
                continue
            j = i + 1
            while j < len(kids) and kids[j].type == "text":
                j += 1
            text = "".join(k.content for k in kids[i + 1:j]).strip().casefold()
            if j > i + 1 and j < len(kids) and kids[j].type == "link_close" and text in known.get(m.group(1), ()):
                kids[i + 1].content = plain_inline(titles[m.group(1)])
                for k in range(i + 2, j):
                    kids[k].content = ""


def unlink_chapters(parsed: ParsedChapter, gone: frozenset[str]) -> None:
    """A link to a chapter retired from the book keeps its words and loses its link."""
    for tok in parsed.tokens:
        opened: list[bool] = []  # per open link: does it go to a retired chapter?
        for child in tok.children or []:
            if child.type == "link_open":
                m = CHAPTER_LINK_RE.match(str(child.attrGet("href") or "").partition("#")[0])
                opened.append(bool(m and m.group(1) in gone and not child.meta.get("glossary")))
                drop = opened[-1]
            elif child.type == "link_close" and opened:
                drop = opened.pop()
            else:
                continue
            if drop:
                child.type, child.tag, child.content, child.attrs = "text", "", "", {}
    parsed.links[:] = [link for link in parsed.links
                       if not ((m := CHAPTER_LINK_RE.match(link.href.partition("#")[0])) and m.group(1) in gone)]
