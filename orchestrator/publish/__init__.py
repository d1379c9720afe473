"""Phase 5: the final chapters as a static HTML site.

The publisher returns strings; the runner writes each page through its own atomic write
and completion marker. Pages: `chNN.html` (one per chapter), `index.html` (title,
audience, contents by part), `glossary.html`, `print.html` (the whole book on one page),
plus `search-index.js`, `book.css` and `book.js`. Everything is local: no CDN, no web
fonts, no images from URLs, and a Content-Security-Policy on every page that forbids
anything else. The same `Site` always gives byte-identical files.

Templates are Jinja2 files found on `Site.template_dirs` (a workspace's `templates/`
first, then the built-in ones), overridable file by file:
`layout.html` (the frame every page shares), `chapter.html`, `index.html`,
`glossary.html`, `print.html`, and the static `book.css` and `book.js`."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jinja2
from markupsafe import Markup

from ..errors import UsageError
from ..state.markers import find_marker, split_marked
from ..steps import CHAPTER_RE
from .markdown import (
    CHAPTER_LINK_RE,
    GlossaryTerm,
    ParsedChapter,
    RenderCtx,
    classify_url,
    formatter,
    parse_chapter,
    permalink,
    plain_inline,
    pygments_css,
    render_inline,
    render_tokens,
    retitle_links,
    site_page,
    slugify,
    unique_slug,
    unlink_chapters,
)
from .search import IndexBuilder

__all__ = [
    "ChapterDoc",
    "Site",
    "LinkProblem",
    "load_templates",
    "render_chapter",
    "render_index",
    "render_glossary",
    "render_print",
    "search_index_js",
    "static_files",
    "check_links",
    "render_site",
    "chapter_anchors",
    "clear_cache",
    "slugify",
    "SEARCH_INDEX",
    "CSP",
]

SEARCH_INDEX = "search-index.js"
SITE_PAGES = ("index.html", "glossary.html", "print.html")

# Every page carries this policy: scripts and styles from our own files only, images from
# the site's folder, nothing from the network. A hostile chapter that got past the renderer
# would still be inert, and the site cannot make a request to anywhere else.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class ChapterDoc:
    id: str  # "ch01"
    title: str
    summary: str
    batch: int
    markdown: str  # the final chapter's Markdown (body only, no marker)
    # A partial book: a chapter not ready (failed, blocked, waiting for a person) has no page;
    # the contents list it with `note` (its state and what a person can do).
    ready: bool = True
    note: str = ""
    # Titles the chapter had before (the outline's, earlier finals'): a link whose text is one
    # of them is shown with the current title.
    former_titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Site:
    title: str
    language: str  # "en" | "zh" -> <html lang>
    audience: str
    chapters: tuple[ChapterDoc, ...]  # in book order
    glossary: tuple[tuple[str, str, str], ...]  # (term, definition, defining chapter id), in book order
    template_dirs: tuple[Path, ...]  # workspace templates/ first, then the built-in ones
    # The folder the pages are published into: a relative link to any other file must exist
    # there. None: only the site's own files count (check_links reports the rest).
    root: Path | None = None
    retired: tuple[str, ...] = ()  # chapters deleted from the outline: links to them become text


@dataclass(frozen=True, order=True)
class LinkProblem:
    chapter: str
    line: int  # 1-based, in the chapter's Markdown
    target: str
    message: str


# --------------------------------------------------------------------------- UI strings

_UI: dict[str, dict[str, str]] = {
    "en": {
        "contents": "Contents",
        "toc": "Table of contents",
        "part": "Part {n}",
        "chapter": "Chapter {n}",
        "prev": "Previous",
        "next": "Next",
        "pager": "Chapter navigation",
        "search": "Search the book",
        "search_placeholder": "Search… (press / )",
        "no_results": "No results for “{q}”",
        "results": "{n} chapters match “{q}”",
        "searching": "Loading the search index…",
        "glossary": "Glossary",
        "print": "Print or save the whole book as PDF",
        "print_short": "Print",
        "skip": "Skip to content",
        "toggle": "Show or hide the table of contents",
        "permalink": "Link to this section",
        "audience": "Written for",
        "start": "Start reading",
        "defined_in": "Defined in",
        "other_terms": "Other terms",
        "lines": "lines {lines}",
        "copy_text": "Copy",
        "copied": "Copied",
        "copy_label": "Copy this code",
        "backref": "Back to the text",
        "on_this_page": "In this chapter",
        "whole_book": "The whole book",
        "terms": "{n} terms",
        "glossary_intro": "Every term the book defines, grouped by the chapter that introduces it.",
        "no_chapters": "This book has no chapters yet.",
        "not_ready": "not ready yet",
    },
    "zh": {
        "contents": "目录",
        "toc": "目录",
        "part": "第 {n} 部分",
        "chapter": "第 {n} 章",
        "prev": "上一章",
        "next": "下一章",
        "pager": "章节导航",
        "search": "搜索全书",
        "search_placeholder": "搜索…（按 / 键）",
        "no_results": "没有找到“{q}”",
        "results": "{n} 章包含“{q}”",
        "searching": "正在加载搜索索引…",
        "glossary": "术语表",
        "print": "打印全书或保存为 PDF",
        "print_short": "打印",
        "skip": "跳到正文",
        "toggle": "显示或隐藏目录",
        "permalink": "本节链接",
        "audience": "读者对象",
        "start": "开始阅读",
        "defined_in": "出自",
        "other_terms": "其他术语",
        "lines": "第 {lines} 行",
        "copy_text": "复制",
        "copied": "已复制",
        "copy_label": "复制这段代码",
        "backref": "回到正文",
        "on_this_page": "本章内容",
        "whole_book": "全书",
        "terms": "{n} 个术语",
        "glossary_intro": "本书定义的全部术语，按首次引入它们的章节分组。",
        "no_chapters": "本书还没有章节。",
        "not_ready": "尚未完成",
    },
}


def ui_strings(language: str) -> dict[str, str]:
    return _UI["zh"] if language.lower().startswith("zh") else _UI["en"]


# --------------------------------------------------------------------------- templates


def load_templates(dirs: Any) -> jinja2.Environment:
    """One environment for a search path of template folders (first match wins, file by
    file); autoescape on, StrictUndefined so a typo in a template fails loudly."""
    return _environment(tuple(Path(d) for d in dirs))


@functools.lru_cache(maxsize=8)
def _environment(dirs: tuple[Path, ...]) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # Titles, summaries and definitions may carry `code` and *emphasis*: rendered safely,
    # without links (they appear inside links).
    env.filters["md_inline"] = lambda s: Markup(render_inline(str(s)))
    env.filters["md_plain"] = lambda s: plain_inline(str(s))
    return env


def _static(site: Site, name: str) -> str:
    env = load_templates(site.template_dirs)
    assert env.loader is not None
    return env.loader.get_source(env, name)[0]


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


class _Book:
    """Everything derived from a Site, computed once: parsed chapters, glossary slugs, parts."""

    def __init__(self, site: Site):
        self.site = site
        self.ui = ui_strings(site.language)
        self.env = load_templates(site.template_dirs)
        used: set[str] = set()
        self.glossary = [
            _GlossaryEntry(t.strip(), d.strip(), c, unique_slug(slugify(t), used))
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
        self.all = list(self.chapters.values())  # the contents: every chapter, ready or not
        titles = {c.doc.id: c.doc.title for c in self.all}
        known = {c.doc.id: {plain_inline(t).casefold() for t in (c.doc.title, *c.doc.former_titles)} for c in self.all}
        for c in self.all:
            retitle_links(c.parsed, titles, known)
            if site.retired:
                unlink_chapters(c.parsed, frozenset(site.retired) - set(titles))
        self.order = [c for c in self.all if c.doc.ready]  # the pages, the pager, print and search
        # Parts: one per batch, in batch order; chapters keep book order inside a part.
        batches = sorted({c.doc.batch for c in self.all})
        self.parts: list[dict[str, Any]] = [
            {
                "label": self.ui["part"].format(n=i),
                "batch": b,
                "chapters": [c for c in self.all if c.doc.batch == b],
            }
            for i, b in enumerate(batches, 1)
        ]
        self.problems = self._check()

    # ---- links

    def _check(self) -> list[LinkProblem]:
        out: list[LinkProblem] = []
        known_files = {c.url for c in self.order} | set(SITE_PAGES) | {SEARCH_INDEX, "book.css", "book.js"}
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
        return {
            "site": self.site,
            "lang": self.site.language,
            "ui": self.ui,
            "csp": Markup(CSP),
            "page_title": page_title,
            "page_kind": kind,
            "current": current,
            "parts": self.sidebar(current, mode),
            "show_parts": len(self.parts) > 1,
            "has_glossary": bool(self.glossary),
            "prev": prev,
            "next": next,
            "search_index": SEARCH_INDEX,
        }

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


# --------------------------------------------------------------------------- the API


def render_chapter(site: Site, ch: str) -> tuple[str, list[LinkProblem]]:
    """The page chNN.html (without a marker) and the link problems found in that chapter."""
    book = _book(site)
    c = book.chapters.get(ch)
    if c is None or not c.doc.ready:
        raise UsageError(f"publish: chapter {ch!r} is not {'in the site' if c is None else 'ready'}")
    i = book.order.index(c)
    prev = (
        book.link_to(book.order[i - 1])
        if i > 0
        else {"url": "index.html", "title": book.ui["contents"], "label": site.title}
    )
    nxt = (
        book.link_to(book.order[i + 1])
        if i + 1 < len(book.order)
        else (
            {"url": "glossary.html", "title": book.ui["glossary"], "label": site.title}
            if book.glossary
            else None
        )
    )
    ctx = book.context(
        f"{plain_inline(c.doc.title)} — {site.title}", "chapter", current=ch, prev=prev, next=nxt
    )
    body = render_tokens(c.parsed, book.render_ctx(ch, "page"), c.doc.title)
    ctx.update(
        chapter={
            "id": ch,
            "number": c.number,
            "title": c.doc.title,
            "summary": c.doc.summary,
            "label": book.ui["chapter"].format(n=c.number),
        },
        body=Markup(body),
    )
    page = book.env.get_template("chapter.html").render(ctx)
    return page, [p for p in book.problems if p.chapter == ch]


def render_index(site: Site) -> str:
    """index.html: title, audience, the contents grouped by part, with chapter summaries."""
    book = _book(site)
    first = book.link_to(book.order[0]) if book.order else None
    ctx = book.context(site.title, "index", next=first)
    ctx.update(
        first=first,
        toc=[
            {
                "label": p["label"],
                "chapters": [
                    {
                        "url": c.url,
                        "title": c.doc.title,
                        "summary": c.doc.summary,
                        "number": c.number,
                        "label": book.ui["chapter"].format(n=c.number),
                        "ready": c.doc.ready,
                        "note": c.doc.note,
                    }
                    for c in p["chapters"]
                ],
            }
            for p in book.parts
        ],
    )
    return book.env.get_template("index.html").render(ctx)


def render_glossary(site: Site) -> str:
    """glossary.html: every term with an anchor id, grouped by the defining chapter."""
    book = _book(site)
    prev = (
        book.link_to(book.order[-1])
        if book.order
        else {"url": "index.html", "title": book.ui["contents"], "label": site.title}
    )
    ctx = book.context(f"{book.ui['glossary']} — {site.title}", "glossary", prev=prev)
    ctx.update(groups=book.glossary_groups("page"), term_count=len(book.glossary))
    return book.env.get_template("glossary.html").render(ctx)


def render_print(site: Site) -> str:
    """print.html: the whole book on one page, a page break before each chapter. Ids are
    prefixed with the chapter id, and cross references point inside the page."""
    book = _book(site)
    chapters = []
    for c in book.order:
        body = render_tokens(c.parsed, book.render_ctx(c.doc.id, "print"), c.doc.title)
        chapters.append(
            {
                "id": c.doc.id,
                "number": c.number,
                "title": c.doc.title,
                "label": book.ui["chapter"].format(n=c.number),
                "body": Markup(body),
            }
        )
    ctx = book.context(f"{site.title} — {book.ui['whole_book']}", "print", mode="print")
    ctx.update(chapters=chapters, groups=book.glossary_groups("print"))
    return book.env.get_template("print.html").render(ctx)


def search_index_js(site: Site) -> str:
    """search-index.js: `window.BOOK_SEARCH = {...};` (pages, sections with text, postings)."""
    book = _book(site)
    idx = IndexBuilder()
    for c in book.order:
        title = plain_inline(c.doc.title)
        page = idx.page(f"{c.number}. {title}", c.url)
        for n, sec in enumerate(c.parsed.sections):
            idx.doc(
                page, sec.anchor, sec.title if n else title, sec.text, page_title=title if n == 0 else None
            )
    if book.glossary:
        page = idx.page(book.ui["glossary"], "glossary.html")
        for g in book.glossary:
            idx.doc(page, g.slug, g.term, plain_inline(g.definition))
    return idx.js()


def static_files(site: Site) -> dict[str, str]:
    """book.css (with the Pygments colours generated in front, so the template can override
    them) and book.js, read from the template search path."""
    return {
        "book.css": pygments_css() + "\n" + _static(site, "book.css"),
        "book.js": _static(site, "book.js"),
    }


def check_links(site: Site) -> list[LinkProblem]:
    """Every internal link and cross reference of every chapter: a chapter not in the site,
    an anchor the target chapter lacks, a local file that is not there. External links are
    not fetched."""
    return list(_book(site).problems)


def chapter_anchors(site: Site, ch: str) -> frozenset[str]:
    """The anchors a cross reference `chNN.md#x` may name (heading slugs and footnotes)."""
    return _book(site).chapters[ch].parsed.anchors


def render_site(site: Site) -> tuple[dict[str, str], list[LinkProblem]]:
    """Every file of the site by name, and the link problems: for tests and previews (the
    runner writes chapter pages one by one, each with its marker)."""
    files = {c.id + ".html": render_chapter(site, c.id)[0] for c in site.chapters if c.ready}
    files.update(
        {
            "index.html": render_index(site),
            "glossary.html": render_glossary(site),
            "print.html": render_print(site),
            SEARCH_INDEX: search_index_js(site),
        }
    )
    files.update(static_files(site))
    return files, check_links(site)
