"""The run's derived steps: the files the orchestrator writes itself (the registry's
`model=False`): the source map, the style guide, a chapter's page and the index. Built with
the run's shared state alone (run_state.py): no model, no budget."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

from ..errors import BookError
from ..signals import in_daemon_thread
from ..steps import HTML, INDEX, SOURCE_MAP, STYLE_GUIDE, Node
from . import derived, publishing
from .outcomes import Outcome
from .run_state import RunState


class Deriver:
    def __init__(self, rs: RunState):
        self.rs, self.book = rs, rs.book
        self._one_at_a_time: asyncio.Lock | None = None  # made in the run's event loop, on the first derived step

    async def derive(self, n: Node) -> Outcome:
        """A step the orchestrator writes itself (the registry's `model=False`). One at a time,
        each after a turn of the event loop: a derived step never waits, so the pages ready
        together would otherwise all be written before the loop hears a signal ("stopping
        cleanly", then publishing to the end and exit 0)."""
        if self._one_at_a_time is None:
            self._one_at_a_time = asyncio.Lock()
        async with self._one_at_a_time:
            await asyncio.sleep(0)
            try:
                got = self._DERIVERS[n[1]](self, n)
                out = await got if inspect.isawaitable(got) else got
            except BookError as e:
                return Outcome("failed", reason=str(e))
        if out is not None:
            return out
        self.rs.generated.append(n)
        self.book.scanner.invalidate(self.rs.rel(n))
        return Outcome("ok", ran=True)

    def _source_map(self, n: Node) -> Outcome | None:
        book = self.book
        body = derived.source_map(book.scanner.outline, book.cfg.source_dir)
        derived.write_derived(book, self.rs.rel(n), body, self.rs.marker(n), book.scanner.book_input_hashes(n[1]),
                              self.rs.warn)
        return None

    def _style_guide(self, n: Node) -> Outcome | None:
        book = self.book
        if self.rs.state(n).status == "edited":
            return Outcome("ok")
        derived.write_derived(book, self.rs.rel(n), derived.style_guide(book.cfg), self.rs.marker(n),
                              book.scanner.book_input_hashes(n[1]), self.rs.warn)
        derived.sync_memory(book)  # the empty long-memory files belong to phase 2 as well
        return None

    # A page's and the index's rendering (seconds on a loaded machine: highlighting, the delivery
    # checks) runs in a daemon thread that a signal abandons, so a stop during publishing is heard
    # at once; what is written is written here, in the loop's thread.
    async def _page(self, n: Node) -> Outcome | None:
        await in_daemon_thread(publishing.load_publisher)
        rendered = await in_daemon_thread(publishing.render_page, publishing.site_of(self.rs), n[0])
        problems = publishing.publish_chapter(self.rs, n[0], rendered=rendered)
        if problems:
            return Outcome("failed", reason="delivery check: " + "; ".join(problems[:5]))
        return None

    async def _index(self, n: Node) -> Outcome | None:
        await in_daemon_thread(publishing.load_publisher)
        rendered = await in_daemon_thread(publishing.render_site_files, publishing.site_of(self.rs))
        publishing.publish_index(self.rs, rendered=rendered)
        return None

    # step key -> how the orchestrator writes that file
    _DERIVERS: dict[str, Callable[[Deriver, Node], Outcome | None | Awaitable[Outcome | None]]] = {
        SOURCE_MAP: _source_map, STYLE_GUIDE: _style_guide, HTML: _page, INDEX: _index}
