"""EPUB 3, written with the standard library's zipfile: a handful of XML files, so a
dependency would add nothing but its own timestamps and ids. Deterministic: entries in a
fixed order, each with the same date, `mimetype` first and stored; the identifier is derived
from the title and language; the only date inside is `dcterms:modified`, which the caller
records.

The files: `title.xhtml` (title page: title, audience, authors, revision), `nav.xhtml` (the
table of contents, by part, with every chapter's sections, and the chapters not ready yet), one
`chNN.xhtml` per published chapter, `glossary.xhtml`, `book.css`, and local images."""

from __future__ import annotations

import io
import re
import uuid
import zipfile
from xml.sax.saxutils import escape, quoteattr

from . import xhtml
from .content import ExportBook

_DATE = (2000, 1, 1, 0, 0, 0)  # every entry's zip timestamp: the bytes depend on the book alone
_IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".svg": "image/svg+xml", ".webp": "image/webp"}
_CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
"""


class _Doc:
    """One XHTML content document: its file name, title, body tree and what it needs declared."""

    def __init__(self, name: str, title: str, html: str, epub_type: str = "", wrap_id: str = ""):
        self.name, self.title = name, title
        self.body = xhtml.parse(html)
        xhtml.clean(self.body)
        self.wrap_id, self.epub_type = wrap_id, epub_type
        self.ids = xhtml.ids(self.body) | ({wrap_id} if wrap_id else set())

    @property
    def has_svg(self) -> bool:
        return any(xhtml.local(e.tag)[0] == xhtml.SVG for e in self.body.iter())

    def render(self, lang: str) -> str:
        inner = xhtml.serialize(self.body)
        if self.wrap_id:
            et = f' epub:type="{self.epub_type}"' if self.epub_type else ""
            inner = f'<section id="{self.wrap_id}"{et}>\n{inner}\n</section>'
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
                f'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" '
                f'xml:lang={quoteattr(lang)} lang={quoteattr(lang)}>\n<head>\n<meta charset="utf-8"/>\n'
                f"<title>{escape(self.title)}</title>\n"
                '<link rel="stylesheet" type="text/css" href="book.css"/>\n</head>\n'
                f"<body>\n{inner}\n</body>\n</html>\n")


def identifier(book: ExportBook) -> str:
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'book:' + book.language + ':' + book.title)}"


def _title_page(book: ExportBook) -> str:
    ui = book.ui
    rows = [f'<h1 class="cover-title">{escape(book.title)}</h1>']
    if book.meta.authors:
        rows.append(f'<p class="cover-authors">{escape(", ".join(book.meta.authors))}</p>')
    if book.audience:
        rows.append(f'<p class="cover-audience">{escape(ui["audience"])}: {escape(book.audience)}</p>')
    if book.meta.revision:
        rows.append(f'<p class="cover-revision">{escape(ui.get("revision", "Revision"))}: '
                    f"<code>{escape(book.meta.revision)}</code></p>")
    return '<div class="cover">\n' + "\n".join(rows) + "\n</div>"


def _nav(book: ExportBook) -> str:
    ui = book.ui
    items = []

    def entry(c) -> str:
        sub = "".join(f'<li><a href="#{escape(a)}">{escape(t)}</a></li>' for a, t in c.sections)
        return f'<li><a href="#{c.id}">{escape(c.label)} · {c.title_html}</a>' + (f"<ol>{sub}</ol>" if sub else "") + "</li>"

    if book.parts:  # a part is a heading (a span: no page of its own) over its published chapters
        by_id = {c.id: c for c in book.chapters}
        for label, ids in book.parts:
            mine = [entry(by_id[i]) for i in ids if i in by_id]
            if mine:
                items.append(f'<li><span>{escape(label)}</span><ol>\n' + "\n".join(mine) + "\n</ol></li>")
    else:
        items += [entry(c) for c in book.chapters]
    if book.glossary_html:
        items.append(f'<li><a href="#glossary">{escape(ui["glossary"])}</a></li>')
    out = [f'<nav epub:type="toc" id="toc" role="doc-toc">\n<h1>{escape(ui["contents"])}</h1>\n<ol>\n'
           + "\n".join(items) + "\n</ol>\n</nav>"]
    if book.waiting:
        rows = "\n".join(f'<li id="{w.id}">{escape(ui["chapter"].format(n=w.number))} · {escape(w.title_text)} '
                         f'<em>({escape(ui["not_ready"])})</em></li>' for w in book.waiting)
        out.append(f'<section class="not-ready">\n<h2>{escape(ui["not_ready"])}</h2>\n<ul>\n{rows}\n</ul>\n</section>')
    first = book.chapters[0].id if book.chapters else "toc"
    out.append('<nav epub:type="landmarks" hidden="hidden">\n<ol>\n'
               f'<li><a epub:type="toc" href="#toc">{escape(ui["contents"])}</a></li>\n'
               f'<li><a epub:type="bodymatter" href="#{first}">{escape(ui["start"])}</a></li>\n</ol>\n</nav>')
    return "\n".join(out)


def build(book: ExportBook) -> bytes:
    """The EPUB file's bytes. A local image the book does not hold (`book.images`) is replaced
    by its alt text."""
    images = dict(book.images)
    docs = [_Doc("title.xhtml", book.title, _title_page(book), wrap_id="title-page")]
    # nav.xhtml's anchors are its own; the <nav> holds the links, rewritten below like any page's
    docs.append(_Doc("nav.xhtml", book.ui["contents"], _nav(book)))
    for c in book.chapters:
        part = f'<p class="part-label">{escape(c.part_label)}</p>\n' if c.part_label else ""
        html = f'{part}<p class="chapter-label">{escape(c.label)}</p>\n{c.body_html}'
        docs.append(_Doc(f"{c.id}.xhtml", c.title_text, html, "chapter", wrap_id=c.id))
    if book.glossary_html:
        docs.append(_Doc("glossary.xhtml", book.ui["glossary"], book.glossary_html, "glossary"))
    where = {i: d.name for d in reversed(docs) for i in d.ids}
    used_images: dict[str, str] = {}
    for d in docs:
        xhtml.rewrite_links(d.body, _resolver(where, d.name))
        _images(d, images, used_images)
    manifest = ['<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
                '<item id="css" href="book.css" media-type="text/css"/>']
    spine = []
    for d in docs:
        ident = d.name.rsplit(".", 1)[0].replace("title", "titlepage")
        if d.name != "nav.xhtml":
            props = ' properties="svg"' if d.has_svg else ""
            manifest.append(f'<item id="{ident}" href="{d.name}" media-type="application/xhtml+xml"{props}/>')
        spine.append(f'<itemref idref="{ident}"/>')
    for n, (src, name) in enumerate(sorted(used_images.items(), key=lambda kv: kv[1]), 1):
        manifest.append(f'<item id="img{n}" href="{escape(name)}" media-type="{_IMAGE_TYPES[_ext(src)]}"/>')
    files = [("META-INF/container.xml", _CONTAINER.encode()),
             ("EPUB/package.opf", _package(book, manifest, spine).encode("utf-8")),
             ("EPUB/book.css", book.css.encode("utf-8"))]
    files += [(f"EPUB/{d.name}", d.render(book.language).encode("utf-8")) for d in docs]
    files += [(f"EPUB/{name}", images[src]) for src, name in sorted(used_images.items(), key=lambda kv: kv[1])]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(_info("mimetype", zipfile.ZIP_STORED), b"application/epub+zip")
        for name, data in files:
            z.writestr(_info(name, zipfile.ZIP_DEFLATED), data)
    return buf.getvalue()


def _resolver(where: dict[str, str], here: str):
    """`#x` -> `#x` on its own page, `chNN.xhtml#x` on another, None where no page has it."""
    def resolve(frag: str) -> str | None:
        if frag not in where:
            return None
        return f"#{frag}" if where[frag] == here else f"{where[frag]}#{frag}"
    return resolve


def _info(name: str, method: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = method
    info.external_attr = 0o644 << 16
    info.create_system = 3  # unix, whatever the machine
    return info


def _ext(src: str) -> str:
    m = re.search(r"\.[A-Za-z0-9]+$", src)
    return m.group(0).lower() if m else ""


def _images(doc: _Doc, images: dict[str, bytes], used: dict[str, str]) -> None:
    """Point each `<img>` at its copy in the package, or replace it by its alt text."""
    for parent in list(doc.body.iter()):
        for child in list(parent):
            if xhtml.local(child.tag) != (xhtml.XHTML, "img"):
                continue
            src = child.get("src", "")
            if src in images and _ext(src) in _IMAGE_TYPES:
                name = used.setdefault(src, f"images/img{len(used) + 1}{_ext(src)}")
                child.set("src", name)
                child.set("alt", child.get("alt", ""))
            else:
                span = xhtml.ET.Element(f"{{{xhtml.XHTML}}}span", {"class": "image-missing"})
                span.text, span.tail = child.get("alt") or src, child.tail
                parent[list(parent).index(child)] = span


def _package(book: ExportBook, manifest: list[str], spine: list[str]) -> str:
    m = book.meta
    meta = [f'<dc:identifier id="bookid">{identifier(book)}</dc:identifier>',
            f"<dc:title>{escape(book.title)}</dc:title>",
            f"<dc:language>{escape(book.language)}</dc:language>"]
    meta += [f"<dc:creator>{escape(a)}</dc:creator>" for a in m.authors]
    if book.audience:
        meta.append(f"<dc:description>{escape(book.ui['audience'])}: {escape(book.audience)}</dc:description>")
    if m.revision:
        meta.append(f"<dc:source>{escape(m.revision)}</dc:source>")
    meta.append(f'<meta property="dcterms:modified">{escape(m.modified)}</meta>')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid" '
            f"xml:lang={quoteattr(book.language)}>\n"
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n' + "\n".join(meta) + "\n</metadata>\n"
            "<manifest>\n" + "\n".join(manifest) + "\n</manifest>\n"
            "<spine>\n" + "\n".join(spine) + "\n</spine>\n</package>\n")
