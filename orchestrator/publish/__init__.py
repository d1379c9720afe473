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

from markupsafe import Markup, escape

from ..errors import UsageError
from .highlight import pygments_css
from .markdown import plain_inline, render_tokens, slugify
from .model import _book, _without_marker, clear_cache
from .search import IndexBuilder
from .site import CSP, SEARCH_INDEX, ChapterDoc, LinkProblem, Site, _static, load_templates

__all__ = [
    "ChapterDoc",
    "Site",
    "LinkProblem",
    "load_templates",
    "render_chapter",
    "source_files",
    "render_index",
    "render_glossary",
    "render_print",
    "render_404",
    "render_files",
    "sitemap_xml",
    "llms_txt",
    "chapter_markdown",
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
            "file": c.doc.file,
            "markdown": f"{ch}.md",
        },
        body=Markup(body),
        page_toc=book.page_toc(c),
    )
    page = book.env.get_template("chapter.html").render(ctx)
    return page, [p for p in book.problems if p.chapter == ch]


def render_index(site: Site) -> str:
    """index.html: title, audience, the contents grouped by part, with chapter summaries."""
    book = _book(site)
    first = book.link_to(book.order[0]) if book.order else None
    ctx = book.context(site.title, "home", next=first)
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
                "part_label": "",
            }
        )
    ctx = book.context(f"{site.title} — {book.ui['whole_book']}", "print", mode="print")
    # a chapter that waits has an entry (and the id its cross references point at) in the contents
    waiting = [{"id": c.doc.id, "number": c.number, "title": c.doc.title} for c in book.all if not c.doc.ready]
    # the contents by part, waiting chapters where they belong; a part's title above its first chapter
    entries = {e["id"]: e for e in chapters + waiting}
    toc = [{"label": p["label"], "entries": [entries[c.doc.id] for c in p["chapters"]]} for p in book.parts]
    for p in book.parts:
        first = next((entries[c.doc.id] for c in p["chapters"] if c.doc.ready), None)
        if first is not None:
            first["part_label"] = p["label"]
    ctx.update(chapters=chapters, groups=book.glossary_groups("print"), waiting=waiting, print_toc=toc)
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


def render_404(site: Site) -> str:
    """404.html: what a server shows for an address the book does not have (links are
    relative, so it works from any folder of the site one level deep)."""
    book = _book(site)
    return book.env.get_template("404.html").render(book.context(f"{book.ui['not_found']} — {site.title}", "404"))


def render_files(site: Site) -> str:
    """files.html: the source-file index ("where is router.go explained?")."""
    book = _book(site)
    ctx = book.context(f"{book.ui['files']} — {site.title}", "files")
    ctx.update(files=book.files())
    return book.env.get_template("files.html").render(ctx)


def sitemap_xml(site: Site) -> str:
    """sitemap.xml: every page, with the site's URL in front when `site_url` is set."""
    book = _book(site)
    base = site.site_url.rstrip("/") + "/" if site.site_url else ""
    pages = ["index.html", *(c.url for c in book.order)]
    pages += ["glossary.html"] if book.glossary else []
    pages += ["files.html"] if book.files() else []
    rows = "".join(f"<url><loc>{escape(base + p)}</loc>" + (f"<lastmod>{site.built}</lastmod>" if site.built else "")
                   + "</url>\n" for p in pages)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{rows}</urlset>\n')


def llms_txt(site: Site) -> str:
    """llms.txt (llmstxt.org): the book for coding agents: its title, what it is, and a link
    to each chapter's Markdown, published beside its page as chNN.md."""
    book = _book(site)
    out = [f"# {plain_inline(site.title)}", ""]
    if site.audience:
        out += [f"> {book.ui['audience']}: {site.audience}", ""]
    if site.revision:
        out += [f"{book.ui['revision']}: {site.revision}", ""]
    for part in book.parts:
        ready = [c for c in part["chapters"] if c.doc.ready]
        if not ready:
            continue
        out += [f"## {part['label']}", ""]
        for c in ready:
            summary = f": {plain_inline(c.doc.summary)}" if c.doc.summary else ""
            out.append(f"- [{plain_inline(c.doc.title)}]({c.doc.id}.md){summary}")
        out.append("")
    if book.glossary:
        out += ["## Optional", "", f"- [{book.ui['glossary']}](glossary.html)", ""]
    return "\n".join(out)


def chapter_markdown(site: Site, ch: str) -> str:
    """chNN.md: the chapter's Markdown as published (without its marker), beside its page."""
    from .partial_note import partial_note, with_partial_note

    c = _book(site).chapters[ch]
    text = with_partial_note(_without_marker(c.doc.markdown), partial_note(c.doc.partial, site.language)).rstrip() + "\n"
    return text


def static_files(site: Site) -> dict[str, str]:
    """book.css (with the Pygments colours generated in front, so the template can override
    them) and book.js, read from the template search path."""
    return {
        "book.css": pygments_css() + "\n" + _static(site, "book.css"),
        "book.js": _static(site, "book.js"),
    }


def source_files(site: Site) -> dict[str, str]:
    """The pages of the cited source files (`source/PATH.html`), when the source has no remote
    to link to (publish.source_pages)."""
    from .source_pages import source_pages

    return source_pages(site.source, _book(site).cited, site.title)


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
            "404.html": render_404(site),
            "files.html": render_files(site),
            "sitemap.xml": sitemap_xml(site),
            "llms.txt": llms_txt(site),
            SEARCH_INDEX: search_index_js(site),
        }
    )
    files.update({f"{c.id}.md": chapter_markdown(site, c.id) for c in site.chapters if c.ready})
    files.update(static_files(site))
    files.update(source_files(site))
    return files, check_links(site)
