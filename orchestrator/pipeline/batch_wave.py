"""`book run --message-batches`: the runner's steps that call a model go out as Message
Batches, one batch per wave of ready steps.

The runner walks the plan as one task per node; a node whose dependencies are done asks
`BatchWave.generate` for its file. The request is queued, and the queue is flushed as one
batch a moment later (`WINDOW`), so the steps that became ready together travel together.
While a wave is in flight, newly ready steps wait for the next one: one `BatchEngine` at a
time owns the journals (batches/journal.py), which keeps re-attachment simple and safe.

A result is validated and written through the same marker protocol as a streamed answer
(agents.clean_and_validate, markers.compose, fsio.atomic_write), from the files as they are
when it arrives: a result whose inputs changed meanwhile is discarded and the step is asked
again. Re-asks after a failed validation and errored/expired/canceled requests go into the
next batch; past the engine's bounds the step is handed back to the runner, which streams it
with the feedback. Ctrl-C leaves the batches running on the server (the engine says so) and
`book resume` re-attaches to them before anything else (`reattach`).

Nothing here imports `anthropic` until a batch is actually sent.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import agents
from ..batches import journal as jr
from ..errors import ValidationFailed
from ..steps import BOOK, Node
from .answers import request_for, write_answer

if TYPE_CHECKING:
    from ..batches.engine import BatchEngine
    from ..batches.journal import Item
    from ..batches.types import BatchItem, Progress, Verdict
    from ..providers.base import MessageBatches, Provider, Request, Result
    from .budget import Budget
    from .outcomes import RunOptions
    from .run_state import RunState

WINDOW = 0.25  # seconds a wave stays open after its first step, so siblings ready together join it
MAX_ROUNDS = 4  # a step discarded (inputs changed) this often while waiting is streamed instead
POLL_ENV = "BOOK_BATCH_POLL_SECONDS"  # tests and benchmarks poll the fake faster than 5 s
# Seconds a journal whose create never returned waits before the server's list may say "no such
# batch" (journal.SEARCH_GRACE, 60 s against the real API); tests against the fake, whose creates
# land at once, shorten it.
GRACE_ENV = "BOOK_BATCH_SEARCH_GRACE"


def wanted(book: Any, provider: Provider, opts: RunOptions) -> bool:
    """Batch mode: asked for (`--message-batches`, `message_batches: true`), or batches of an
    earlier run are still in flight (a resume re-attaches and goes on the same way). Only a
    provider with a batch endpoint (the Claude provider) can."""
    if provider.batches() is None:
        return False
    if opts.message_batches or book.cfg.message_batches:
        return True
    return bool(jr.waiting(book.root / "output"))


def resumes_in_batches(book: Any) -> bool:
    """`book resume` goes on the way the interrupted run went: through Message Batches when
    the last run said so (its `message_batches` event)."""
    starts = book.ledger.events(type="run_start", limit=1)
    marks = book.ledger.events(type="message_batches", limit=1)
    return bool(starts and marks and marks[-1]["run"] == starts[-1]["run"])


def setup(rs: RunState, provider: Provider, budget: Budget) -> BatchWave | None:
    """At the run's start: batch mode or not."""
    api = provider.batches()
    return BatchWave(rs, budget, api) if api is not None and wanted(rs.book, provider, rs.opts) else None


async def start(rs: RunState, batch: BatchWave | None) -> None:
    """Before the walk: record batch mode for `book resume`; collect the batches in flight."""
    if batch is not None:
        rs.book.ledger.event("message_batches", rs.run_id)
        await batch.reattach()


async def before_generate(rs: RunState, batch: BatchWave | None, set_aside: Callable[[Node], None], n: Node,
                          why: str) -> tuple[tuple[str, str] | None, str]:
    """Before a model step streams: ((status, reason), "") when it is settled without a stream
    (a `.partial` the ledger vouches for, committed; or its batch result); else (None, the
    re-ask feedback the stream must carry). `set_aside`: the generator's, for what an
    interrupted generation left."""
    from ..state.fsio import backup, partial_path
    from .answers import commit_completed_partial

    resumed = why == "half-finished" or why.startswith("interrupted")
    if why.startswith("interrupted") and commit_completed_partial(rs, n):
        return ("ok", ""), ""
    if batch is None or (resumed and rs.opts.strategy == "aggressive"):
        return None, ""  # an aggressive resume continues the text it has: a stream
    part = partial_path(rs.book.ws.path(rs.rel(n)))
    if resumed:
        set_aside(n)
    elif part.exists():
        backup(part)
    got = await batch.generate(n, why)
    return (got, "") if isinstance(got, tuple) else (None, got)


@dataclass
class _Entry:
    node: Node
    item: BatchItem
    future: asyncio.Future[Any]


@dataclass
class WaveStats:
    waves: int = 0
    sent: int = 0
    committed: int = 0
    discarded: int = 0
    streamed: int = 0
    progress: dict[str, str] = field(default_factory=dict)  # submission -> last counts line


class BatchWave:
    def __init__(self, rs: RunState, budget: Budget, api: MessageBatches, window: float = WINDOW):
        self.rs, self.budget, self.book, self.window = rs, budget, rs.book, window
        self.api = api  # the provider's batch endpoint: its request builder and prices
        self.queue: list[_Entry] = []
        self.waiting: dict[tuple[str | None, str], _Entry] = {}
        self.task: asyncio.Task[None] | None = None
        self.stats = WaveStats()

    # ------------------------------------------------------------------ the runner's calls

    async def reattach(self) -> None:
        """`book resume`: collect every batch the journals record as in flight, before the walk."""
        if not jr.waiting(self.book.root / "output"):
            return
        self.rs.warn("re-attaching to the Message Batches still in flight")
        async with self._engine() as engine:
            report = await engine.resume()
        self.stats.committed += len(report.committed)
        for h in report.to_stream:
            self.rs.warn(f"{h.chapter or BOOK} {h.step}: {h.reason}; it is streamed when the walk reaches it")

    async def generate(self, n: Node, why: str) -> tuple[str, str] | str:
        """The node's file through a batch: (status, reason) when done ("ok") or when a person
        must act ("needs_human"); or the feedback (possibly empty) with which the runner must
        stream it instead."""
        led, ch = self.book.ledger, (None if n[0] == BOOK else n[0])
        feedback = ""
        for _ in range(MAX_ROUNDS):
            g, req = self._request(n, feedback)
            over = self.budget.over_budget(req)
            if over:
                return ("needs_human", over)
            h = jr.inputs_hash(g.inputs)
            entry = self._enqueue(n, self._item(req, n, h))
            led.event("step_start", self.rs.run_id, ch, n[1], attempt=1, why=why, batch=True)
            try:
                got = await entry.future
            except asyncio.CancelledError:
                self._stop()
                raise
            finally:
                self.budget.release(req)
            if got == "committed":
                self.rs.generated.append(n)
                return ("ok", "")
            if isinstance(got, tuple) and got[0] == "kept":  # a person's file was at the path: kept
                return ("needs_human", got[1])
            if isinstance(got, tuple):  # ("stream", reason, feedback)
                self.stats.streamed += 1
                led.event("step_retry", self.rs.run_id, ch, n[1], attempt=1, error=got[1], batch=True)
                return got[2]
            feedback = ""  # "again": its inputs changed while it waited; ask from the files as they are now
        return ""

    # ------------------------------------------------------------------ waves

    def _enqueue(self, n: Node, item: BatchItem) -> _Entry:
        e = _Entry(n, item, asyncio.get_running_loop().create_future())
        self.queue.append(e)
        self.waiting[(item.chapter, item.step)] = e
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._waves())
        return e

    async def _waves(self) -> None:
        while self.queue:
            await asyncio.sleep(self.window)
            wave, self.queue = self.queue, []
            self.stats.waves += 1
            self.stats.sent += len(wave)
            try:
                async with self._engine() as engine:
                    report = await engine.run_wave([e.item for e in wave])
            except asyncio.CancelledError:
                for e in wave:
                    if not e.future.done():
                        e.future.cancel()
                raise
            except Exception as exc:  # noqa: BLE001 - the endpoints stayed down: the steps fail, the journals keep all
                for e in wave:
                    self.waiting.pop((e.item.chapter, e.item.step), None)
                    if not e.future.done():
                        e.future.set_exception(exc)
                continue
            for h in report.to_stream:
                self._resolve(h.chapter, h.step, ("stream", h.reason, h.feedback))
            for it in report.discarded:
                self.stats.discarded += 1
                self._resolve(it.chapter, it.step, "again")
            for bi in report.skipped:  # waiting in an older batch: the next wave re-attaches to it
                self._resolve(bi.chapter, bi.step, "again")
            for e in wave:  # anything the report did not name (e.g. no longer needed on rebuild)
                self._resolve(e.item.chapter, e.item.step, "again")

    def _resolve(self, chapter: str | None, step: str, value: Any) -> None:
        e = self.waiting.get((chapter, step))
        if e is not None and not e.future.done():
            del self.waiting[(chapter, step)]
            e.future.set_result(value)

    def _stop(self) -> None:
        """A node was cancelled (Ctrl-C, a signal): stop collecting. The engine leaves the
        batches running on the server and says so; the journals keep them for `book resume`."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _engine(self) -> BatchEngine:
        from ..batches.engine import BatchEngine
        from ..batches.journal import SEARCH_GRACE

        poll = float(os.environ.get(POLL_ENV) or 5.0)
        grace = float(os.environ.get(GRACE_ENV) or SEARCH_GRACE)
        return BatchEngine(self.book.root / "output", commit=self._commit, is_current=self._is_current,
                           rebuild=self._rebuild, on_call=self._log, on_progress=self._progress,
                           notice=self.rs.warn, prices=self.api.prices,
                           poll_interval=poll, poll_max=max(poll, 60.0 if poll >= 5 else poll * 4),
                           retry_delay=min(1.0, poll), search_grace=grace)

    # ------------------------------------------------------------------ the engine's callbacks

    def _request(self, n: Node, feedback: str) -> tuple[agents.Gathered, Request]:
        return request_for(self.rs, n, feedback)

    def _item(self, req: Request, n: Node, input_hash: str) -> BatchItem:
        from ..batches.types import BatchItem

        return BatchItem.from_request(req, self.rs.rel(n), input_hash, build=self.api.batch_params)

    @staticmethod
    def _node(it: Item) -> Node:
        return Node(it.chapter or BOOK, it.step)

    def _is_current(self, it: Item) -> bool:
        g, _ = self._request(self._node(it), "")
        return jr.inputs_hash(g.inputs) == it.input_hash

    def _rebuild(self, it: Item, feedback: str) -> BatchItem | None:
        n = self._node(it)
        g, req = self._request(n, feedback)
        return self._item(req, n, jr.inputs_hash(g.inputs))

    def _commit(self, it: Item, result: Result) -> bool | Verdict:
        """Validate and write one batched answer, as the runner's `generate` writes a streamed
        one. Idempotent: a file already marked from these inputs counts as committed."""
        from ..batches.types import Verdict

        n, rs, book = self._node(it), self.rs, self.book
        ch, step = it.chapter, it.step
        book.scanner.invalidate(rs.rel(n))
        st = rs.state(n)
        if st.status == "done" and not st.stale:
            self._resolve(ch, step, "committed")
            return True
        g, _ = self._request(n, "")
        try:
            kept = write_answer(rs, n, g, result.text, batch=True)
        except ValidationFailed as e:
            book.ledger.event("step_retry", rs.run_id, ch, step, attempt=1, batch=True,
                              error=f"the answer did not pass validation: {e}")
            return Verdict(False, f"Your previous answer was rejected: {e}. Answer again, fixing that.")
        if kept is not None and kept.status != "ok":  # a person's marker-less file: it waits for them
            self._resolve(ch, step, ("kept", kept.reason))
            return True
        self.stats.committed += 1
        self._resolve(ch, step, "committed")
        return True

    def _log(self, row: dict[str, Any]) -> None:
        self.book.ledger.log_call(run=self.rs.run_id, **row)

    def _progress(self, p: Progress) -> None:
        c = p.counts or {}
        counts = ", ".join(f"{k} {v}" for k, v in c.items() if v) or "no counts yet"
        line = f"batch {p.batch_id or p.submission}: {p.state}, {p.requests} requests ({counts})"
        if self.stats.progress.get(p.submission) != line:
            self.stats.progress[p.submission] = line
            self.rs.report("batch", Node(BOOK, "batch"), line)
