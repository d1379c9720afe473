"""What an export holds, taken from the publisher's `Site`: the published chapters rendered by
the site's own Markdown renderer (its "print" mode: every id carries the chapter id, so the
whole book fits in one document and cross references point at `#chNN--slug`), the waiting
chapters listed as not ready, the glossary, and the book's metadata. Pure: the same Site and
metadata give the same `ExportBook`, and its `digest` is the export's input hash."""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import unquote

from markupsafe import escape

from ..publish.highlight import LIGHT_STYLE
from ..publish.markdown import plain_inline, render_inline, render_tokens
from ..publish.model import _book
from ..publish.site import Site

# Bumped when what an export contains or how it is laid out changes: older exports are redone.
FORMAT = 3  # 3: the outline's parts in the contents and above each part's first chapter


@dataclass(frozen=True)
class ExportChapter:
    id: str  # ch01: the chapter's file (EPUB) and anchor (PDF)
    number: int
    label: str  # "Chapter 1"
    title_html: str
    title_text: str
    sections: tuple[tuple[str, str], ...]  # (anchor, plain heading) of each `##` heading
    body_html: str  # the site's renderer, print mode
    part_label: str = ""  # "Part 2 · Using click" on the first published chapter of a part; "" elsewhere


@dataclass(frozen=True)
class Waiting:
    id: str
    number: int
    title_text: str
    note: str


@dataclass(frozen=True)
class Meta:
    authors: tuple[str, ...] = ()
    revision: str = ""  # the source's revision, when known
    # dcterms:modified and the PDF's dates: recorded, not part of the input hash
    modified: str = "1970-01-01T00:00:00Z"


@dataclass(frozen=True)
class ExportBook:
    title: str
    language: str
    audience: str
    ui: dict[str, str]
    chapters: tuple[ExportChapter, ...]
    waiting: tuple[Waiting, ...]
    glossary_html: str  # "" when the book has no glossary
    meta: Meta = field(default_factory=Meta)
    css: str = ""  # the export's stylesheet (templates/export.css and the Pygments colours)
    images: tuple[tuple[str, bytes], ...] = ()  # local images the chapters show: (src, bytes)
    # the parts, (label, the ids of their chapters, published or waiting, in book order); () when
    # the book has a single part (the contents then list the chapters alone, as the site does)
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def digest(self) -> str:
        """The hash of everything the file is made of but its recorded timestamp."""
        data = asdict(self)
        data["meta"].pop("modified")
        data["images"] = [[src, hashlib.sha256(raw).hexdigest()] for src, raw in self.images]
        data["format"] = FORMAT
        raw = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()[:16]


def from_site(site: Site, meta: Meta, css: str) -> ExportBook:
    """The published subset of `site` (its ready chapters, in book order) as an export. Local
    images are read from `site.root` (the site's folder), only from inside it."""
    book = _book(site)
    ui = book.ui
    parts = tuple((p["label"], tuple(c.doc.id for c in p["chapters"])) for p in book.parts) if len(book.parts) > 1 else ()
    opens = {next((c.doc.id for c in p["chapters"] if c.doc.ready), ""): p["label"] for p in book.parts} if parts else {}
    chapters = []
    for c in book.order:
        ctx = book.render_ctx(c.doc.id, "print")
        body = render_tokens(c.parsed, ctx, c.doc.title)
        sections = tuple((ctx.id_for(h.slug), h.text) for h in c.parsed.headings if h.level == 2)
        chapters.append(ExportChapter(c.doc.id, c.number, ui["chapter"].format(n=c.number),
                                      render_inline(c.doc.title), plain_inline(c.doc.title), sections, body,
                                      opens.get(c.doc.id, "")))
    waiting = tuple(Waiting(c.doc.id, c.number, plain_inline(c.doc.title), c.doc.note)
                    for c in book.all if not c.doc.ready)
    return ExportBook(site.title, site.language, site.audience, dict(ui), tuple(chapters), waiting,
                      _glossary_html(book), meta, css, _images(site.root, [c.body_html for c in chapters]), parts)


_IMG_RE = re.compile(r'<img src="([^"]+)"')


def _images(root: Path | None, bodies: list[str]) -> tuple[tuple[str, bytes], ...]:
    if root is None:
        return ()
    base = root.resolve()
    out: dict[str, bytes] = {}
    for body in bodies:
        for src in _IMG_RE.findall(body):
            src = html.unescape(src)
            p = (base / unquote(src)).resolve()
            if src not in out and p.is_file() and p.is_relative_to(base):
                try:
                    out[src] = p.read_bytes()
                except OSError:
                    continue
    return tuple(sorted(out.items()))


def _glossary_html(book) -> str:
    groups = book.glossary_groups("print")
    if not groups:
        return ""
    out = [f'<section class="glossary" id="glossary">\n<h1 id="glossary--top">{escape(book.ui["glossary"])}</h1>']
    for g in groups:
        ch = g["chapter"]
        head = (f'<a href="{escape(ch["url"])}">{escape(ch["label"])} · {render_inline(ch["title"])}</a>'
                if ch else escape(book.ui["other_terms"]))
        out.append(f"<h2>{head}</h2>\n<dl class=\"glossary-list\">")
        for t in g["terms"]:
            out.append(f'<dt id="{escape(t["anchor"])}">{escape(t["term"])}</dt>\n<dd>{t["definition"]}</dd>')
        out.append("</dl>")
    out.append("</section>")
    return "\n".join(out) + "\n"


def code_css() -> str:
    """The Pygments colours of the light style, by class (the exports have no dark mode)."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=LIGHT_STYLE).get_style_defs(".highlight") + "\n"
