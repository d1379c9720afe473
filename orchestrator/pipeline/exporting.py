"""`book export` and the exports of `book run`'s publish phase: the book's files -> the
publisher's Site (the same published subset as the pages) -> `export.content` -> EPUB/PDF,
each written as a step (`export.step`). Only the chosen format's code is imported."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable

from ..errors import UsageError
from ..steps import FINAL, HTML, STEPS
from .publishing import build_site


def unpublished(book) -> dict[str, str]:
    """Chapters whose final is complete but whose page is not published (a gate, a failed
    delivery check, a run not finished): the exports list them as not ready, like the site."""
    sc = book.scanner
    out = {}
    for c in (sc.outline.chapters if sc.outline else ()):
        if sc.step(c.id, FINAL).complete and not sc.step(c.id, HTML).complete:
            out[c.id] = "its page is not published yet"
    return out


def _modified(book, site) -> str:
    """The export's recorded date: SOURCE_DATE_EPOCH when set (reproducible builds), else
    the newest final of the published chapters (not the clock: a rebuild of the same book,
    with its files untouched, gives the same bytes)."""
    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if env.isdigit():
        t = float(env)
    else:
        t = 0.0
        for c in site.chapters:
            if c.ready:
                try:
                    t = max(t, book.ws.path(STEPS[FINAL].file(c.id)).stat().st_mtime)
                except OSError:
                    pass
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(t)))


def export_book(book, kinds: list[str], not_ready: dict[str, str] | None = None,
                progress: Callable[[str], None] = lambda m: None):
    """Build each export in `kinds` (epub, pdf); return their `export.step.Result`s."""
    from ..export import KINDS, content, step
    from ..publish.site import _static

    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise UsageError(f"unknown export {bad[0]!r}: choose from {', '.join(KINDS)}")
    if book.scanner.outline is None:
        raise UsageError("there is no outline yet: `book run` writes the book before it can be exported")
    site = build_site(book, unpublished(book) if not_ready is None else not_ready)
    if site.source is not None and site.source.revision.permalink("x", 1, 1) is None:
        import dataclasses  # the site's pages of cited files are not in an export: citations stay as text

        site = dataclasses.replace(site, source=None)
    meta = content.Meta(authors=tuple(getattr(book.cfg, "authors", ()) or ()),
                        revision=str(getattr(site, "revision", "") or ""), modified=_modified(book, site))
    css = content.code_css() + _static(site, "export.css")
    ebook = content.from_site(site, meta, css)
    out = book.ws.path(step.EXPORT_DIR)
    results = []
    for kind in kinds:
        progress(f"export {kind}: {len(ebook.chapters)} chapters")
        if kind == "epub":
            from ..export import epub

            results.append(step.run(out, kind, ebook, lambda: (epub.build(ebook), "")))
        else:
            from ..export import pdf

            pdf_css = _static(site, "export-pdf.css")
            results.append(step.run(out, kind, ebook, functools.partial(pdf.build, ebook, pdf_css, site.root),
                                    extra=pdf_css))
    return results
