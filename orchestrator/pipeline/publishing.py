"""Phase 5 glue: builds the publisher's Site from the files and writes the pages through the
write protocol. The rendering itself is in `publish.py` (pure functions of a Site)."""

from __future__ import annotations

from ..resources import search_path
from ..state.fsio import atomic_write, write_if_changed
from ..state.markers import compose
from ..state.memory import long_memory, read_body
from ..steps import BOOK_STEPS, FINAL, HTML, INDEX, STEPS


def build_site(book):
    from .. import publish

    o = book.scanner.outline
    chapters = tuple(publish.ChapterDoc(c.id, c.title, c.summary, c.batch, read_body(book.root, STEPS[FINAL].file(c.id)))
                     for c in o.chapters)
    mem = long_memory(book, [c.id for c in o.chapters])
    return publish.Site(title=o.title or book.cfg.title, language=book.cfg.language, audience=book.cfg.audience,
                        chapters=chapters, glossary=tuple(mem.glossary_entries()),
                        template_dirs=tuple(search_path("templates", book.root)), root=book.root / "output/publish")


def _site(runner):
    site = getattr(runner, "_site", None)
    if site is None:
        site = runner._site = build_site(runner.book)
    return site


def publish_chapter(runner, ch: str) -> list[str]:
    """Write output/publish/chNN.html; return the delivery-check problems (nothing written then)."""
    from .. import publish

    book = runner.book
    html, problems = publish.render_chapter(_site(runner), ch)
    if problems:
        return [f"{STEPS[FINAL].file(p.chapter)}:{p.line}: {p.message}" for p in problems]
    inputs = {k: v for k, v in book.scanner.input_hashes(ch, HTML).items() if v is not None}
    atomic_write(book.ws.path(STEPS[HTML].file(ch)), compose(html, STEPS[HTML].marker, inputs, runner.run_id))
    return []


def publish_index(runner) -> None:
    from .. import publish

    book = runner.book
    site = _site(runner)
    out = book.ws.path("output/publish")
    for name, text in sorted(publish.static_files(site).items()):
        write_if_changed(out / name, text)
    write_if_changed(out / "search-index.js", publish.search_index_js(site))
    for name, render in (("glossary.html", publish.render_glossary), ("print.html", publish.render_print)):
        write_if_changed(out / name, compose(render(site), "HTML_COMPLETE"))
    inputs = {k: v for k, v in book.scanner.book_input_hashes(INDEX).items() if v is not None}
    atomic_write(book.ws.path(BOOK_STEPS[INDEX].path),
                 compose(publish.render_index(site), BOOK_STEPS[INDEX].marker, inputs, runner.run_id))
