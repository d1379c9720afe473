"""A long book's PDF typeset in pieces, so that its memory stays that of one piece.

WeasyPrint keeps the layout of every page until the PDF is written: about 2.5 MB a page, so
the 1,451 pages of a 120-chapter SQLAlchemy book took 3.5 GB. Here the document
(`pdf.document_parts`: the same HTML as the one-piece PDF) is cut between its top-level
sections into pieces of about `PIECE_CHARS` of HTML; each piece is typeset and written on
its own, its layout freed before the next, and pypdf joins the pieces.

What crosses a cut is carried by hand: the page counter (each piece starts where the last
ended, `@page :first { counter-reset }`), the running header's book title (a string literal),
the contents' page numbers (read from where each piece put its anchors, then typeset in the
front matter as numbers), and a link to another piece (written by WeasyPrint as a URI
`book-anchor:ID`, turned into a link to the named destination once the pieces are one file).
The front matter is typeset first with placeholder numbers to learn its page count, and
again with the real ones (if that changes its count, the pieces are redone once)."""

from __future__ import annotations

import gc
import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from . import xhtml
from .content import ExportBook

PIECE_CHARS = 600_000  # HTML per piece: about 120 pages, some 300 MB of layout
ANCHOR_URI = "book-anchor:"
_PLACEHOLDER = 9999  # as wide as a real page number: the front matter's count does not move


def needs_pieces(book: ExportBook, budget: int | None = None) -> bool:
    """More than two pieces' worth (about 240 pages): a shorter book is one document, whose
    PDF is smaller (each piece embeds its own subsets of the fonts)."""
    budget = PIECE_CHARS if budget is None else budget
    return sum(len(c.body_html) for c in book.chapters) + len(book.glossary_html) > 2 * budget


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def _pieces(body: ET.Element, budget: int) -> tuple[list[ET.Element], list[list[ET.Element]]]:
    """The front matter (everything up to the contents), and the rest in pieces of about
    `budget` characters, cut only between top-level elements."""
    kids = list(body)
    cut = next((i + 1 for i, e in enumerate(kids) if e.get("id") == "toc"), 0)
    front, rest = kids[:cut], kids[cut:]
    pieces: list[list[ET.Element]] = []
    size = budget
    for e in rest:
        n = len(ET.tostring(e, encoding="unicode"))
        if size + n > budget and (not pieces or pieces[-1]):
            pieces.append([])
            size = 0
        pieces[-1].append(e)
        size += n
    return front, pieces


def page_html(head: str, body: str) -> str:
    return f"{head}<body>\n{body}\n</body>\n</html>\n"


def _serialize(elements: list[ET.Element]) -> str:
    holder = ET.Element(f"{{{xhtml.XHTML}}}body")
    holder.extend(elements)
    return xhtml.serialize(holder)


def build(book: ExportBook, head: str, body: ET.Element, render: Callable[[str], Any],
          budget: int | None = None) -> tuple[bytes, int]:
    """The PDF's bytes and its page count, from `pdf.document_parts`: the document's text up to
    `<body>`, and its body. `render(html)` typesets one document (WeasyPrint's
    `HTML(...).render()`, with the export's fetcher)."""
    try:
        from pypdf import PdfReader, PdfWriter
        from pypdf.generic import NameObject, TextStringObject
    except ImportError as missing:  # an environment installed before pypdf was a dependency
        raise UsageError(f"a PDF this long is typeset in pieces and joined with pypdf ({missing}): pip install pypdf") from None

    front, pieces = _pieces(body, PIECE_CHARS if budget is None else budget)
    where: dict[str, int] = {}
    for n, group in enumerate([front, *pieces]):
        for e in group:
            where.update((i, n) for i in xhtml.ids(e))
    for n, group in enumerate([front, *pieces]):
        def resolve(frag: str, n: int = n) -> str:
            # a link inside its own piece stays a link; one to another piece goes by URI
            return f"#{frag}" if where.get(frag) == n else f"{ANCHOR_URI}{frag}"

        for e in group:
            xhtml.rewrite_links(e, resolve)
    bodies = [_serialize(g) for g in pieces]
    title = f"html {{ string-set: book-title {_css_string(book.title)}; }}\n"

    def front_pdf(numbers: dict[str, int]) -> tuple[bytes, int]:
        rules = "".join(
            f'nav.toc a[href={_css_string(ANCHOR_URI + a)}]::after {{ content: leader(".") " {numbers.get(a, "")}"; }}\n'
            for a in sorted({e.get("href", "")[len(ANCHOR_URI):] for g in front for e in g.iter(f"{{{xhtml.XHTML}}}a")
                             if e.get("href", "").startswith(ANCHOR_URI)}))
        rules += "html body { margin-bottom: 0; }\n"  # the book goes on after its contents
        doc = render(page_html(head.replace("</style>", rules + "</style>", 1), _serialize(front)))
        return doc.write_pdf(), len(doc.pages)

    _, front_count = front_pdf({a: _PLACEHOLDER for a in where})
    for _attempt in range(2):
        numbers: dict[str, int] = {}
        datas: list[bytes] = []
        page = front_count + 1
        for n, html in enumerate(bodies):
            # the body's margins open the whole book and close it, not each piece
            edges = "html body { margin-top: 0; }\n" + ("html body { margin-bottom: 0; }\n" if n < len(bodies) - 1 else "")
            css = f"@page :first {{ counter-reset: page {page}; }}\n{title}{edges}"
            doc = render(page_html(head.replace("</style>", css + "</style>", 1), html))
            for k, p in enumerate(doc.pages):
                for a in p.anchors:
                    numbers.setdefault(a, page + k)
            page += len(doc.pages)
            datas.append(doc.write_pdf())
            del doc
            gc.collect()  # the layout of this piece, before the next is typeset
        front_data, count = front_pdf(numbers)
        if count == front_count:
            break
        front_count = count
    writer = PdfWriter()
    first = PdfReader(io.BytesIO(front_data))
    for data in [front_data, *datas]:
        writer.append(PdfReader(io.BytesIO(data)))
    for pg in writer.pages:
        for ref in pg.get("/Annots") or []:
            annot = ref.get_object()
            action = annot.get("/A")
            uri = str(action.get("/URI", "")) if action is not None else ""
            if uri.startswith(ANCHOR_URI):
                del annot["/A"]
                annot[NameObject("/Dest")] = TextStringObject(uri[len(ANCHOR_URI):])
    if first.metadata:
        writer.add_metadata(dict(first.metadata))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue(), page - 1
