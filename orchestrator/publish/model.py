"""The book as the pages see it, derived once from a `Site`: parsed chapters, glossary slugs,
parts, the link problems, and the context every template gets."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from markupsafe import Markup

from ..errors import UsageError
from ..state.markers import find_marker, split_marked
from ..steps import CHAPTER_RE
from .highlight import formatter
from .links import link_sources, retitle_links, source_page, unlink_chapters
from .markdown import (
    CHAPTER_LINK_RE,
    GlossaryTerm,
    ParsedChapter,
    RenderCtx,
    classify_url,
    parse_chapter,
    permalink,
    plain_inline,
    render_inline,
    site_page,
    slugify,
    unique_slug,
)
from .partial_note import add_note, partial_note
from .site import (
    CSP,
    SEARCH_INDEX,
    SITE_PAGES,
    ChapterDoc,
    LinkProblem,
    Site,
    _environment,
    load_templates,
    ui_strings,
)

# --------------------------------------------------------------------------- the book model


def _without_marker(markdown: str) -> str:
    """The body is meant to come without its CHAPTER_FINAL marker; if one is still on the
    last line, it is the file's proof of completion, not text for the reader."""
    data = markdown.encode("utf-8", "surrogateescape")
    marker = find_marker(data)
    return markdown if marker is None else split_marked(data, marker).decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class _Chapter:
    doc: ChapterDoc
    number: int  # 1-based position in the book
    parsed: ParsedChapter

    @property
    def url(self) -> str:
        return f"{self.doc.id}.html"


@dataclass(frozen=True)
class _GlossaryEntry:
    term: str
    definition: str
    chapter: str
    slug: str


# A Markdown link in a definition (a citation such as `[a.py:3-9](source:a.py#L3-L9)`): titles,
# summaries and definitions are rendered without links (they sit inside links and tables of
# contents), so the link keeps its words and loses its syntax, rather than showing `](source:`.
_MD_LINK_RE = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)")


def link_words(text: str) -> str:
    return _MD_LINK_RE.sub(lambda m: m.group(1), text)


class _Book:
    """Everything derived from a Site, computed once: parsed chapters, glossary slugs, parts."""

    def __init__(self, site: Site):
        self.site = site
        self.ui = ui_strings(site.language)
        self.env = load_templates(site.template_dirs)
        used: set[str] = set()
        self.glossary = [
            _GlossaryEntry(t.strip(), link_words(d.strip()), c, unique_slug(slugify(t), used))
            for t, d, c in site.glossary
            if t.strip()
        ]
        terms = [GlossaryTerm(g.term, g.slug, plain_inline(g.definition)) for g in self.glossary]
        seen: set[str] = set()
        self.chapters: dict[str, _Chapter] = {}
        for n, doc in enumerate(site.chapters, 1):
            if doc.id in seen or not CHAPTER_RE.match(doc.id):
                raise UsageError(f"publish: invalid or duplicate chapter id {doc.id!r}")
            seen.add(doc.id)
            text = _without_marker(doc.markdown) if doc.ready else ""
            self.chapters[doc.id] = _Chapter(doc, n, parse_chapter(text, doc.title, terms))
            if text and doc.partial:
                add_note(self.chapters[doc.id].parsed, partial_note(doc.partial, site.language))
        self.all = list(self.chapters.values())  # the contents: every chapter, ready or not
        titles = {c.doc.id: c.doc.title for c in self.all}
        known = {c.doc.id: {plain_inline(t).casefold() for t in (c.doc.title, *c.doc.former_titles)} for c in self.all}
        # a link to a chapter that is not in the site (retired) or has no page yet (it waits)
        # keeps its words and loses its link: no page links into nothing; the pages are
        # republished when the chapter becomes ready (their `ready` input changes)
        gone = (frozenset(site.retired) - set(titles)) | {c.doc.id for c in self.all if not c.doc.ready}
        for c in self.all:
            retitle_links(c.parsed, titles, known)
            if gone:
                unlink_chapters(c.parsed, frozenset(gone))
        self.cited: set[tuple[str, int, int]] = set()  # (path, first, last) the ready chapters cite
        for c in self.all:
            found = link_sources(c.parsed, site.source)
            if c.doc.ready:
                self.cited |= found
        self.order = [c for c in self.all if c.doc.ready]  # the pages, the pager, print and search
        self.parts = self._parts(site)
        self.problems = self._check()
        self._parts_html: dict[tuple[int, str], Markup] = {}  # (part, mode) -> its entries, no chapter current

    def _parts(self, site: Site) -> list[dict[str, Any]]:
        """The outline's parts in its order, with its titles; chapters keep book order inside a
        part. An outline without parts: one part per batch, named by what its chapters are about
        (as are chapters no part lists, in one part at the end)."""
        groups: list[tuple[str, list[_Chapter]]] = []
        placed: set[str] = set()
        for title, ids in site.parts:
            members = [c for c in self.all if c.doc.id in ids and c.doc.id not in placed]
            if members:
                placed |= {c.doc.id for c in members}
                groups.append((title, members))
        rest = [c for c in self.all if c.doc.id not in placed]
        if site.parts and rest:
            groups.append(("", rest))
        elif rest:
            groups += [("", [c for c in rest if c.doc.batch == b]) for b in sorted({c.doc.batch for c in rest})]
        out: list[dict[str, Any]] = []
        for i, (title, members) in enumerate(groups, 1):
            name = title or part_name([c.doc for c in members], [c.doc for c in self.all])
            label = self.ui["part_named"].format(n=i, name=name) if name else self.ui["part"].format(n=i)
            out.append({"label": label, "title": name, "number": i, "chapters": members})
        return out

    # ---- links

    def _check(self) -> list[LinkProblem]:
        out: list[LinkProblem] = []
        known_files = {c.url for c in self.order} | set(SITE_PAGES) | {SEARCH_INDEX, "book.css", "book.js"}
        known_files |= {source_page(p) for p, _a, _b in self.cited}  # source_pages.py writes them
        gloss_anchors = {g.slug for g in self.glossary}
        for ch in self.order:
            for link in ch.parsed.links:
                msg = self._check_one(ch, link.href, link.image, known_files, gloss_anchors)
                if msg:
                    out.append(LinkProblem(ch.doc.id, link.line, link.href, msg))
        return out

    def _check_one(
        self, ch: _Chapter, href: str, image: bool, known: set[str], gloss: set[str]
    ) -> str | None:
        kind = classify_url(href)
        if kind in ("external", "mailto", None):
            return None  # not fetched; None never became a link
        path, _, frag = href.partition("#")
        path = path.partition("?")[0]
        frag = unquote(frag)
        page = site_page(unquote(path))
        if page == "" or (page and CHAPTER_LINK_RE.match(page)):
            target_id = ch.doc.id if page == "" else page[: -len(".html")]
            target = self.chapters.get(target_id)
            if target is None:
                return f"cross reference to {target_id}, which is not in the book"
            if not target.doc.ready:
                return None  # its page comes when it is ready; this page is republished then
            if frag and frag not in target.parsed.anchors:
                return f"{target_id} has no heading with the anchor #{frag}"
            return None
        if page == "glossary.html":
            if frag and frag not in gloss:
                return f"the glossary has no term with the anchor #{frag}"
            return None
        if page is not None:
            return None
        local = unquote(path)
        if image and local.startswith("/"):
            return "an image with an absolute path is not published (use a path relative to the book)"
        if local in known:
            return None
        if self.site.root is not None and not local.startswith("/"):
            root = self.site.root.resolve()
            file = (root / local).resolve()
            if file.is_file() and file.is_relative_to(root):  # `../` out of the site is not in it
                return None
        return f"link to a local file that is not part of the published book: {local}"

    # ---- page context

    def sidebar(self, current: str | None, mode: str = "page") -> list[dict[str, Any]]:
        parts = []
        for part in self.parts:
            entries = []
            for c in part["chapters"]:
                url = c.url if mode == "page" else f"#{c.doc.id}"
                sections = []
                if c.doc.id == current:
                    sections = [
                        {"url": f"#{h.slug}", "text": h.text} for h in c.parsed.headings if h.level == 2
                    ]
                entries.append(
                    {
                        "id": c.doc.id,
                        "number": c.number,
                        "title": c.doc.title,
                        "url": url,
                        "current": c.doc.id == current,
                        "sections": sections,
                        "ready": c.doc.ready,
                        "note": c.doc.note,
                    }
                )
            parts.append({"label": part["label"], "chapters": entries})
        return parts

    def context(
        self,
        page_title: str,
        kind: str,
        current: str | None = None,
        mode: str = "page",
        prev: dict[str, str] | None = None,
        next: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        parts = self.sidebar(current, mode)
        for i, part in enumerate(parts):
            if not any(c["current"] for c in part["chapters"]):
                part["entries_html"] = self._part_html(i, mode, part)
        return {
            "site": self.site,
            "lang": self.site.language,
            "ui": self.ui,
            "csp": Markup(CSP),
            "page_title": page_title,
            "page_kind": kind,
            "current": current,
            "parts": parts,
            "show_parts": len(self.parts) > 1,
            "has_glossary": bool(self.glossary),
            "prev": prev,
            "next": next,
            "search_index": SEARCH_INDEX,
            "revision": self.site.revision,
            "built": self.site.built,
            "has_files": bool(self.files()),
        }

    def _part_html(self, i: int, mode: str, part: dict[str, Any]) -> Markup:
        """A part's sidebar entries (toc_entries.html) with no current chapter: the same on every
        page whose chapter is in another part, so rendered once per book (every page's sidebar
        lists every chapter: rendered per page, the pages grew as N²)."""
        hit = self._parts_html.get((i, mode))
        if hit is None:
            html = self.env.get_template("toc_entries.html").render(part=part, ui=self.ui)
            hit = self._parts_html[(i, mode)] = Markup(html)
        return hit

    def files(self) -> list[dict[str, Any]]:
        """The source-file index: every file a published chapter explains, with those chapters."""
        hit = getattr(self, "_files", None)
        if hit is None:
            by_file: dict[str, list[_Chapter]] = {}
            for c in self.order:
                for f in c.doc.sources:
                    by_file.setdefault(f, []).append(c)
            hit = self._files = [{"file": f, "chapters": [self.link_to(c) for c in cs]}
                                 for f, cs in sorted(by_file.items())]
        return hit

    def page_toc(self, c: _Chapter) -> list[dict[str, str]]:
        """"On this page" for a long chapter (four or more sections): its `##` and `###` headings."""
        heads = [h for h in c.parsed.headings if h.level in (2, 3)]
        if sum(1 for h in heads if h.level == 2) < 4:
            return []
        return [{"url": f"#{h.slug}", "text": h.text, "level": str(h.level)} for h in heads]

    def link_to(self, c: _Chapter) -> dict[str, str]:
        return {"url": c.url, "title": c.doc.title, "label": self.ui["chapter"].format(n=c.number)}

    def render_ctx(self, ch: str, mode: str) -> RenderCtx:
        return RenderCtx(chapter=ch, mode=mode, ui=self.ui, formatter=formatter())

    def glossary_groups(self, mode: str) -> list[dict[str, Any]]:
        """Terms grouped by the chapter that defines them, in book order; unknown chapters last."""
        groups: list[dict[str, Any]] = []
        for c in self.order:
            terms = [g for g in self.glossary if g.chapter == c.doc.id]
            if terms:
                url = c.url if mode == "page" else f"#{c.doc.id}"
                groups.append(
                    {
                        "chapter": {
                            "url": url,
                            "title": c.doc.title,
                            "label": self.ui["chapter"].format(n=c.number),
                        },
                        "terms": self._terms(terms, mode),
                    }
                )
        rest = [g for g in self.glossary if g.chapter not in self.chapters]
        if rest:
            groups.append({"chapter": None, "terms": self._terms(rest, mode)})
        return groups

    def _terms(self, entries: list[_GlossaryEntry], mode: str) -> list[dict[str, Any]]:
        out = []
        for g in entries:
            anchor = g.slug if mode == "page" else f"glossary--{g.slug}"
            out.append(
                {
                    "term": g.term,
                    "anchor": anchor,
                    "definition": Markup(render_inline(g.definition)),
                    "permalink": Markup(permalink(anchor, plain_inline(g.term), self.ui)),
                }
            )
        return out


_SUBJECT_RE = re.compile(r"\s+[—–:]\s+|\s+-\s+")


def _common_dir(files: list[str]) -> tuple[str, ...]:
    dirs = [PurePosixPath(f).parent.parts for f in files]
    if not dirs:
        return ()
    common: tuple[str, ...] = dirs[0]
    for parts in dirs[1:]:
        n = 0
        while n < min(len(common), len(parts)) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    return common


def part_name(docs: list[ChapterDoc], book: list[ChapterDoc]) -> str:
    """A part without a title in the outline is named by its chapters' common subject: the
    folder all their sources share, when the rest of the book is not all in it (`json`, not
    `src/flask` for every part); else the subjects of the chapters' titles (what comes before
    " — "), the first three."""
    mine = _common_dir([f for d in docs for f in d.sources])
    everyone = _common_dir([f for d in book for f in d.sources])
    if len(docs) > 1 and len(mine) > len(everyone):
        return "/".join(mine[len(everyone):])
    subjects: list[str] = []
    for d in docs:
        subject = plain_inline(_SUBJECT_RE.split(d.title, maxsplit=1)[0]).strip()
        if subject and subject not in subjects:
            subjects.append(subject)
    if not subjects:
        return ""
    return ", ".join(subjects[:3]) + (" …" if len(subjects) > 3 else "")


_cached_book = functools.lru_cache(maxsize=4)(_Book)


def _book(site: Site) -> _Book:
    # Site is frozen and hashable: the runner's many calls for one site parse the book once.
    try:
        return _cached_book(site)
    except TypeError:  # a Site built with lists instead of tuples: correct, just not cached
        return _Book(site)


def clear_cache() -> None:
    """Forget parsed books and template environments (tests; a long-lived process)."""
    _cached_book.cache_clear()
    _environment.cache_clear()
