"""The PDF: the export's HTML typeset by WeasyPrint (CSS Paged Media), so the book is laid
out by the same renderer and stylesheet as the site and the EPUB, with what paper needs
on top: a title page, a table of contents whose page numbers come from `target-counter`,
running headers from `string-set`, code that wraps inside the margin, and break rules that
keep a listing with its caption (`templates/export-pdf.css`).

WeasyPrint needs Pango (Debian's libpango-1.0-0, libpangoft2-1.0-0); it is imported only here.
It reads nothing from the network: its URL fetcher serves files under the site's folder and
refuses everything else. The PDF's dates are the recorded `modified`; its identifier is
derived from the content, so the same book gives the same bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from ..errors import UsageError
from . import xhtml
from .content import ExportBook
from .epub import _title_page


def document_html(book: ExportBook, pdf_css: str) -> str:
    """The whole book as one HTML document (what WeasyPrint typesets; also handy to inspect)."""
    ui = book.ui
    parts = [f'<section class="cover" id="title-page">{_title_page(book)}</section>', _toc(book)]
    for c in book.chapters:
        part = f'<p class="part-label">{escape(c.part_label)}</p>\n' if c.part_label else ""
        parts.append(f'<section class="chapter" id="{c.id}">\n{part}<p class="chapter-label">{escape(c.label)}</p>\n'
                     f"{c.body_html}\n</section>")
    if book.glossary_html:
        parts.append(book.glossary_html)
    body = xhtml.parse("\n".join(parts))
    xhtml.clean(body)
    known = xhtml.ids(body)
    xhtml.rewrite_links(body, lambda frag: f"#{frag}" if frag in known else None)
    meta = [f'<meta name="author" content={quoteattr(a)}/>' for a in book.meta.authors]
    if book.audience:
        meta.append(f'<meta name="description" content={quoteattr(ui["audience"] + ": " + book.audience)}/>')
    meta.append(f'<meta name="dcterms.created" content={quoteattr(book.meta.modified)}/>')
    meta.append(f'<meta name="dcterms.modified" content={quoteattr(book.meta.modified)}/>')
    meta.append('<meta name="generator" content="book"/>')
    return (f'<!DOCTYPE html>\n<html lang={quoteattr(book.language)}>\n<head>\n<meta charset="utf-8"/>\n'
            f"<title>{escape(book.title)}</title>\n" + "\n".join(meta)
            + f"\n<style>\n{book.css}\n{pdf_css}\n</style>\n</head>\n<body>\n"
            + xhtml.serialize(body) + "\n</body>\n</html>\n")


def _toc(book: ExportBook) -> str:
    ui = book.ui
    rows: list[tuple[int, str]] = []  # in book order: a waiting chapter where it belongs, without a link
    for c in book.chapters:
        sub = "".join(f'<li class="toc-section"><a href="#{escape(a)}">{escape(t)}</a></li>' for a, t in c.sections)
        rows.append((c.number, f'<li class="toc-chapter"><a href="#{c.id}"><span class="toc-label">{escape(c.label)}'
                     f"</span> {c.title_html}</a>" + (f"<ol>{sub}</ol>" if sub else "") + "</li>"))
    for w in book.waiting:
        rows.append((w.number, f'<li class="toc-waiting" id="{w.id}"><span class="toc-label">'
                     f'{escape(ui["chapter"].format(n=w.number))}</span> {escape(w.title_text)} '
                     f'<em>({escape(ui["not_ready"])})</em></li>'))
    for label, ids in book.parts:  # a part's title just before its first chapter, published or waiting
        first = min([c.number for c in book.chapters if c.id in ids] + [w.number for w in book.waiting if w.id in ids])
        rows.append((first, f'<li class="toc-part">{escape(label)}</li>'))
    lines = [html for _, html in sorted(rows, key=lambda r: (r[0], "toc-part" not in r[1]))]
    if book.glossary_html:
        lines.append(f'<li class="toc-chapter"><a href="#glossary">{escape(ui["glossary"])}</a></li>')
    return (f'<nav class="toc" id="toc">\n<h1 class="toc-title">{escape(ui["contents"])}</h1>\n<ol>\n'
            + "\n".join(lines) + "\n</ol>\n</nav>")


def build(book: ExportBook, pdf_css: str, root: Path | None = None) -> tuple[bytes, str]:
    """The PDF's bytes, and its page count said in words. `root`: the folder relative image
    paths are read from (the site's)."""
    try:
        import weasyprint
    except (ImportError, OSError) as e:  # OSError: the Python package is there, Pango is not
        raise UsageError(f"PDF export needs WeasyPrint and Pango ({e}): pip install weasyprint; "
                         "apt-get install libpango-1.0-0 libpangoft2-1.0-0") from None
    html = document_html(book, pdf_css)
    base = (root or Path.cwd()).resolve()
    doc = weasyprint.HTML(string=html, base_url=base.as_uri() + "/", url_fetcher=_fetcher(base)).render()
    ident = hashlib.sha256(book.digest.encode()).hexdigest()[:32].encode()
    return doc.write_pdf(pdf_identifier=ident), f"{len(doc.pages)} pages"


def _fetcher(root: Path):
    """Files under `root` (and data: URLs), nothing else: no network, no file elsewhere."""
    from urllib.parse import unquote, urlparse

    import weasyprint

    class LocalFetcher(weasyprint.URLFetcher):
        def fetch(self, url, headers=None):
            u = urlparse(url)
            if u.scheme == "file" and not Path(unquote(u.path)).resolve().is_relative_to(root):
                raise ValueError(f"not part of the book: {url}")
            return super().fetch(url, headers)

    return LocalFetcher(allowed_protocols=("file", "data"), fail_on_errors=False)
