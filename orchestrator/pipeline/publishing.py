"""Phase 5 glue: builds the publisher's Site from the files and writes the pages through the
write protocol. The rendering itself is in `publish.py` (pure functions of a Site)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from ..resources import search_path
from ..state.evidence_view import record_claims, revision, source_links
from ..state.fsio import atomic_write, write_if_changed
from ..state.markers import compose
from ..state.memory import long_memory, read_body
from ..state.partial_view import cut_items
from ..state.ready import final_title, ready_chapters
from ..steps import BOOK, BOOK_STEPS, CHAPTER_RE, FINAL, HTML, INDEX, OUT, RESEARCH, STEPS
from .plan import gate_node
from .retire import RETIRED_DIR

TITLES = f"{OUT}/publish/.titles.json"  # every title each chapter was published under


def build_site(book, not_ready: dict[str, str] | None = None):
    """The publisher's view of the book. A chapter whose final is not complete, or that is in
    `not_ready` (chapter -> why: a failed step, a blocked review, a gate waiting), is listed
    as not ready (the public site shows no operator text: the why and the commands stay in the
    CLI, checkpoint.md and needs-human.md); the others are published. A chapter's title is
    its final's `# ` line (the outline's until it has one); the book's is book.yaml's."""
    from .. import publish

    o = book.scanner.outline
    not_ready = dict(not_ready or {})
    ready = set(ready_chapters(book.scanner))
    for c in o.chapters:
        if c.id not in ready and c.id not in not_ready:
            not_ready[c.id] = "its final is not written yet"
    former = _former_titles(book)
    chapters = []
    for c in o.chapters:
        waits = c.id in not_ready
        title = (None if waits else final_title(book.root, STEPS[FINAL].file(c.id))) or c.title
        chapters.append(publish.ChapterDoc(
            c.id, title, c.summary, c.batch, "" if waits else read_body(book.root, STEPS[FINAL].file(c.id)),
            ready=not waits,  # the site says "not ready yet", nothing more: what to do is the CLI's
            former_titles=tuple(sorted(set(former.get(c.id, [])) | {c.title} - {title})),
            file=STEPS[FINAL].file(c.id), sources=tuple(c.sources),
            partial=() if waits else tuple(cut_items(read_body(book.root, STEPS[RESEARCH].file(c.id))))))
    # a chapter memory file that cannot be read: its terms are left out of the glossary page (the
    # run warned, naming it, when it made the aggregates) rather than every page failing
    mem = long_memory(book, [c.id for c in o.chapters if c.id not in not_ready], [])
    # the book's title is book.yaml's, read now: a new title is on the site without a redraft
    return publish.Site(title=book.cfg.title or o.title, language=book.cfg.language, audience=book.cfg.audience,
                        chapters=tuple(chapters), glossary=tuple(mem.glossary_entries()),
                        template_dirs=tuple(search_path("templates", book.root)), root=book.root / "output/publish",
                        retired=_retired(book), built=built_date(book, [c.id for c in chapters if c.ready]),
                        site_url=book.cfg.site_url, source=source_links(book),
                        parts=tuple((p.title, p.chapters) for p in o.parts),
                        revision=revision(book).label())


def built_date(book, ready: list[str]) -> str:
    """The date the book was built: its newest published final's (a rebuild of the same files
    gives the same pages; SOURCE_DATE_EPOCH wins, for reproducible builds)."""
    import time

    env = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    t = float(env) if env.isdigit() else 0.0
    if not env.isdigit():
        for ch in ready:
            try:
                t = max(t, book.ws.path(STEPS[FINAL].file(ch)).stat().st_mtime)
            except OSError:
                pass
    return time.strftime("%Y-%m-%d", time.gmtime(int(t))) if t else ""


def _retired(book) -> tuple[str, ...]:
    try:
        names = os.listdir(book.ws.path(RETIRED_DIR))
    except OSError:
        return ()
    return tuple(sorted({n.split("-", 1)[0] for n in names if CHAPTER_RE.match(n.split("-", 1)[0])}))


def _former_titles(book) -> dict[str, list[str]]:
    try:
        data = json.loads(book.ws.path(TITLES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: [t for t in v if isinstance(t, str)] for k, v in data.items() if isinstance(v, list)} \
        if isinstance(data, dict) else {}


def _remember_titles(book, site) -> None:
    """Add the titles just published to the history, so links written with them are renamed later."""
    hist = _former_titles(book)
    for c in site.chapters:
        if c.title not in hist.setdefault(c.id, []):
            hist[c.id].append(c.title)
    write_if_changed(book.ws.path(TITLES), json.dumps(hist, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def waiting_chapters(runner) -> dict[str, str]:
    """Chapters this run could not bring to a publishable final (their final, or the gate
    after it, did not complete): chapter -> why, from needs-human or the outcome."""
    out: dict[str, str] = {}
    for n, o in runner.outcomes.items():
        if n[0] != BOOK and n[1] in (FINAL, gate_node(FINAL)) and o.status != "ok":
            out.setdefault(n[0], runner.needs.get(n[0]) or _upstream(runner, n[0]) or f"{o.status}: {o.reason}")
    return out


def _upstream(runner, ch: str) -> str | None:
    """`waits for ch03` when a chapter was skipped because a chapter it depends on did not complete."""
    for n, o in runner.outcomes.items():
        other = o.reason.split(" ", 1)[0] if o.status == "skipped" else ""
        if n[0] == ch and other not in (ch, BOOK) and CHAPTER_RE.match(other):
            return f"waits for {other}"
    return None


class SiteCache:
    """The site a run publishes from: built once, when the first page is written, and dropped
    when a final changes under it (the delivery check sent a chapter back to the editor)."""

    def __init__(self) -> None:
        self._site: Any = None

    def get(self, build: Callable[[], Any]) -> Any:
        if self._site is None:
            self._site = build()
        return self._site

    def drop(self) -> None:
        self._site = None


def load_publisher() -> None:
    """Import the publisher (its templates, highlighter and Markdown parser: a second or more on a
    loaded machine), off the loop's thread like the rendering."""
    from .. import publish  # noqa: F401


def site_of(runner):
    """The run's Site (built in the loop's thread: it reads the book's files)."""
    return _site(runner)


def _site(runner):
    return runner.site.get(lambda: build_site(runner.book, waiting_chapters(runner)))


def render_page(site, ch: str) -> tuple[str, list, str]:
    """A chapter's page, its delivery-check problems and its Markdown: pure work on the Site,
    which derived_steps runs off the loop's thread (a signal abandons it at once)."""
    from .. import publish

    html, problems = publish.render_chapter(site, ch)
    return html, problems, "" if problems else publish.chapter_markdown(site, ch)


def publish_chapter(runner, ch: str, rendered: tuple[str, list, str] | None = None) -> list[str]:
    """Write output/publish/chNN.html; return the delivery-check problems (nothing written then)."""
    book = runner.book
    html, problems, md = rendered or render_page(_site(runner), ch)
    if problems:
        return [f"{STEPS[FINAL].file(p.chapter)}:{p.line}: {p.message}" for p in problems]
    inputs = {k: v for k, v in book.scanner.input_hashes(ch, HTML).items() if v is not None}
    record_claims(book, ch, read_body(book.root, STEPS[FINAL].file(ch)), book.scanner.body_hash(STEPS[FINAL].file(ch)))
    # the chapter's Markdown beside its page, for coding agents (llms.txt links it); before the
    # page, whose marker says the chapter is published
    write_if_changed(book.ws.path(STEPS[HTML].file(ch)).with_suffix(".md"), md)
    atomic_write(book.ws.path(STEPS[HTML].file(ch)), compose(html, STEPS[HTML].marker, inputs))  # no run id: the same files give the same page
    return []


def render_site_files(site) -> tuple[dict[str, str], str]:
    """(the site's files but the index, name -> text; the index page): pure work on the Site,
    run off the loop's thread like `render_page`."""
    from .. import publish

    files = dict(sorted({**publish.static_files(site), **publish.source_files(site)}.items()))
    files["search-index.js"] = publish.search_index_js(site)
    for name, render in (("glossary.html", publish.render_glossary), ("print.html", publish.render_print),
                         ("404.html", publish.render_404), ("files.html", publish.render_files)):
        files[name] = compose(render(site), "HTML_COMPLETE")
    files["sitemap.xml"] = publish.sitemap_xml(site)
    files["llms.txt"] = publish.llms_txt(site)
    return files, publish.render_index(site)


def publish_index(runner, rendered: tuple[dict[str, str], str] | None = None) -> None:
    book = runner.book
    site = _site(runner)
    out = book.ws.path("output/publish")
    files, index = rendered or render_site_files(site)
    for name, text in files.items():
        write_if_changed(out / name, text)
    _withdraw_pages(book, site)
    inputs = {k: v for k, v in book.scanner.book_input_hashes(INDEX).items() if v is not None}
    _remember_titles(book, site)  # before the index, whose marker says all of this is done
    atomic_write(book.ws.path(BOOK_STEPS[INDEX].path), compose(index, BOOK_STEPS[INDEX].marker, inputs))


def _withdraw_pages(book, site) -> None:
    """The page of a chapter that is no longer ready (rejected at the final gate, a person's
    edit since the approval) leaves the site, as a fresh publish would not have it. A page is
    derived from its final, which stays; a page a person edited is kept."""
    for c in site.chapters:
        if c.ready:
            continue
        rel = STEPS[HTML].file(c.id)
        if book.scanner.step(c.id, HTML).status == "done":
            for gone in (book.ws.path(rel), book.ws.path(rel).with_suffix(".md")):  # and its Markdown
                try:
                    os.unlink(gone)
                except FileNotFoundError:
                    pass
            book.scanner.invalidate(rel)
