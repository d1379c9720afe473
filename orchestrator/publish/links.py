"""Links settled when the book is published: a link whose text is a title the target chapter
has had shows its current title; a link to a retired chapter becomes text; a citation of the
source (`source:PATH#La-Lb`) and a code block's caption go to the source at the pinned revision."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from ..evidence.revision import Revision
from .markdown import CHAPTER_LINK_RE, Link, ParsedChapter, plain_inline


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


# --------------------------------------------------------------------------- links to the source

SOURCE_PAGES = "source"  # the folder of the generated pages of cited files (no remote to link to)
_SOURCE_HREF_RE = re.compile(r"^source:([^#\s]+)#L(\d+)(?:-L?(\d+))?$")


@dataclass(frozen=True)
class SourceLinks:
    """Where a citation of the source goes in the site: the hosting service's page at the pinned
    commit when the source has a known remote, else the site's own page of the file."""

    revision: Revision
    root: Path | None  # the source root (read for the generated pages)

    def href(self, path: str, first: int, last: int) -> str:
        # `path` is the file's own name; in a URL a space, a brace or a `#` is percent-encoded
        url = self.revision.permalink(quote(path, safe="/"), first, last)
        if url:
            return url
        return f"{source_page(quote(path, safe='/'))}#L{first}" + (f"-L{last}" if last > first else "")


def source_page(path: str) -> str:
    """The site's page of a source file: `source/minikv/store.py.html`."""
    return f"{SOURCE_PAGES}/{path}.html"


def parse_source_href(href: str) -> tuple[str, int, int] | None:
    m = _SOURCE_HREF_RE.match(href)
    if not m or ".." in m.group(1).split("/") or m.group(1).startswith("/"):
        return None
    a = int(m.group(2))
    return unquote(m.group(1)).removeprefix("./"), a, int(m.group(3) or a)


def link_sources(parsed: ParsedChapter, links: SourceLinks | None) -> set[tuple[str, int, int]]:
    """Citations (`source:PATH#La-Lb`) and code-block captions (`file=PATH lines=a-b`) pointed at
    the source; returns the (path, first, last) they cite, for the pages to generate. Without
    source links (a site built with no source), a citation keeps its words and loses its link."""
    cited: set[tuple[str, int, int]] = set()
    for tok in parsed.tokens:
        if tok.type == "fence" and links is not None:
            m = re.search(r"(?:^|\s)file=(\S+)", tok.info)
            r = re.search(r"(?:^|\s)lines=(\d+)(?:-(\d+))?", tok.info)
            if m and ".." not in m.group(1).split("/") and not m.group(1).startswith("/"):
                a, b = (int(r.group(1)), int(r.group(2) or r.group(1))) if r else (1, 1)
                tok.meta["source_href"] = links.href(m.group(1).removeprefix("./"), a, b)
                cited.add((m.group(1).removeprefix("./"), a, b))
        opened: list[bool] = []
        for child in tok.children or []:
            if child.type == "link_open":
                target = parse_source_href(str(child.attrGet("href") or ""))
                opened.append(target is not None and links is None)
                if target is not None and links is not None:
                    child.attrSet("href", links.href(*target))
                    cited.add(target)
                drop = opened[-1]
            elif child.type == "link_close" and opened:
                drop = opened.pop()
            else:
                continue
            if drop:
                child.type, child.tag, child.content, child.attrs = "text", "", "", {}
    parsed.links[:] = [Link(x.line, links.href(*t), x.image) if (t := parse_source_href(x.href)) and links else x
                       for x in parsed.links if not (parse_source_href(x.href) and links is None)]
    return cited
