"""The Message Batches engine: a wave of ready steps goes out as one batch, and its results
come back through the pipeline's own validation and marker protocol.

The pipeline calls, per wave of ready steps:

    engine = BatchEngine(book.root / "output", commit=commit, is_current=is_current,
                         rebuild=rebuild, on_call=log_row, on_progress=show)
    h = journal.inputs_hash(g.inputs)          # g = agents.gather(book, step, ch, ...)
    req.feedback = engine.feedback_for(ch, step, h)   # a re-ask journaled by an earlier process
    report = await engine.run_wave([BatchItem.from_request(req, target_rel, h), ...])
    # report.committed / .discarded: done; report.to_stream: stream these (with .feedback);
    # report.retry: ask these again in the next wave (only without a `rebuild` callback)
    await engine.aclose()                      # or `async with engine:`

and, on `book resume`, `await engine.resume()` first (it re-attaches to every batch the
journals record as in flight, collects them, and returns the same kind of report).
`journal.waiting(output_dir)` tells `book scan`/checkpoint.md which steps wait in a batch.

- `commit(item, result) -> bool | Verdict` (sync or async) validates a succeeded result and
  writes it through the marker protocol. False / Verdict(False, reason) = validation failed:
  the step is re-asked in the next batch with the reason, up to `max_reasks`, then streamed.
  It must be idempotent: after a kill between its write and the journal's, it is called again
  for the same result, and a target already marked from the same inputs counts as committed.
- `is_current(item) -> bool`: the step's inputs still hash to `item.input_hash`; a result
  whose inputs changed while it waited is discarded.
- `rebuild(item, feedback) -> BatchItem | None`: the request for the step again (with the
  re-ask feedback, if any), from the files as they are now; None = no longer needed.
- Errored (except invalid requests), expired and canceled requests go into the next batch,
  up to `max_batch_retries`, then to streaming. Endpoint calls (retrieve, list, results,
  cancel) are retried with backoff (endpoint.py); a create that fails ambiguously is never retried blindly
  (see the re-attach rule in journal.py).
- Ctrl-C / cancellation leaves every batch running on the server and says so; the journals
  keep them for `book resume`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import random
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from ..providers.base import Result, Usage
from . import journal as jr
from .endpoint import Endpoint, redact, retryable
from .journal import Item, Journal
from .types import BatchError, BatchItem, Handoff, Progress, Report, Verdict, _handoff

__all__ = ["BatchEngine", "BatchError", "BatchItem", "Handoff", "Progress", "Report", "Verdict", "crash_hook"]

log = logging.getLogger(__name__)

# Test hook, like fsio.mutation_hook: called as crash_hook(point, journal) at "before_create",
# "after_create" (create returned, its batch id not yet journaled) and "result" (one result
# handled and journaled). A test raises from it to simulate a kill at that instant.
crash_hook: Callable[[str, Journal], None] | None = None

REFUSED_STATUS = {400, 401, 402, 403, 404, 413, 422}  # the create was refused: nothing exists
NOT_CREATED_STATUS = {429}  # rate limited before anything was created


class _NotDownload(Exception):
    """Carries an error of commit/is_current/the journal through the download's retry loop."""


async def _maybe_await(x: Any) -> Any:
    return await x if inspect.isawaitable(x) else x


class BatchEngine:
    def __init__(self, output_dir: str | os.PathLike[str], *, commit: Callable[[Item, Result], Any],
                 is_current: Callable[[Item], Any] | None = None,
                 rebuild: Callable[[Item, str], Any] | None = None,
                 on_call: Callable[[dict[str, Any]], None] | None = None,
                 on_progress: Callable[[Progress], None] | None = None,
                 notice: Callable[[str], None] | None = None, client: Any = None,
                 prices: dict[str, dict[str, Any]] | None = None, max_batch_retries: int = 2,
                 max_reasks: int = 2, max_creates: int = 5, poll_interval: float = 5.0,
                 poll_max: float = 60.0, retry_delay: float = 1.0, retry_max: float = 60.0,
                 endpoint_attempts: int = 8, search_grace: float = jr.SEARCH_GRACE,
                 clock_skew: float = jr.CLOCK_SKEW):
        self.output_dir = Path(output_dir)
        self.commit, self.is_current, self.rebuild = commit, is_current, rebuild
        self.on_call, self.on_progress = on_call, on_progress
        self.notice = notice or (lambda msg: print(msg, file=sys.stderr))
        self.prices = prices
        # the endpoint's calls: the client, retries with backoff, errors without the key (endpoint.py)
        self.endpoint = Endpoint(self.output_dir, client, retry_delay, retry_max, endpoint_attempts)
        self.max_batch_retries, self.max_reasks, self.max_creates = max_batch_retries, max_reasks, max_creates
        self.poll_interval, self.poll_max = poll_interval, poll_max
        self.search_grace, self.clock_skew = search_grace, clock_skew
        self.journals: list[Journal] = jr.load_all(self.output_dir)
        self._params: dict[str, dict[str, Any]] = {}  # custom_id -> params sent (this process only)
        self._retries: list[tuple[Item, str]] = []  # (item, feedback) to ask again
        self.report = Report()

    # ------------------------------------------------------------------ the pipeline's calls

    async def run_wave(self, items: list[BatchItem]) -> Report:
        """Submit `items` (with whatever the journals still have in flight), wait, collect, and
        resubmit what must be asked again, until every step is committed, discarded or handed
        back. Ctrl-C leaves the batches running on the server and says so."""
        self.report = Report()
        try:
            todo, misses = list(items), 0
            while True:
                unsent = self._unsent()
                if todo:
                    await self.submit(todo)
                await self.drain()
                todo = await self._next_round()
                if not todo:
                    return self.report
                if self._unsent() > unsent:  # a create came to nothing (429, or none on the server)
                    misses += 1
                    await asyncio.sleep(self.endpoint.backoff(misses))
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._say_left_running()
            raise

    async def resume(self) -> Report:
        """Re-attach to every batch the journals record as in flight and collect it."""
        return await self.run_wave([])

    async def submit(self, items: list[BatchItem]) -> Journal | None:
        """Journal first, then create: the journal never misses a batch that exists."""
        send: list[BatchItem] = []
        for bi in items:
            hand = self._guard(bi)
            if hand == "waiting":
                self.report.skipped.append(bi)
            elif isinstance(hand, Handoff):
                self.report.to_stream.append(hand)
            else:
                send.append(bi)
        if not send:
            return None
        sub = jr.new_submission_id()
        while any(j.submission == sub for j in self.journals):
            sub = jr.new_submission_id()
        jitems = [Item(jr.make_custom_id(sub, bi.chapter, bi.step, bi.input_hash), bi.chapter, bi.step,
                       bi.target, bi.input_hash, bi.role, jr.params_hash(bi.params), bi.reask) for bi in send]
        j = jr.new_journal(self.output_dir, sub, jitems)
        for it, bi in zip(jitems, send):
            self._params[it.custom_id] = bi.params
        client = self.endpoint.client()  # first: importing the SDK takes seconds
        j.save()
        self.journals.append(j)
        self._hook("before_create", j)
        try:
            batch = await client.messages.batches.create(
                requests=[{"custom_id": it.custom_id, "params": self._params[it.custom_id]} for it in jitems])
        except Exception as e:  # noqa: BLE001 - classified below; nothing is retried blindly
            self._create_failed(j, e)
            return j
        self._hook("after_create", j)
        j.batch_id, j.batch_created_at, j.state = batch.id, batch.created_at.isoformat(), "submitted"
        j.counts = batch.request_counts.model_dump()
        j.save()
        self._progress(j)
        return j

    async def drain(self) -> None:
        """Advance every open journal until none is open: resolve unconfirmed creates, poll with
        backoff, collect results."""
        delay = self.poll_interval
        while True:
            open_js = [j for j in self.journals if j.open]
            if not open_js:
                return
            moved = False
            for j in open_js:
                moved = await self._advance(j) or moved
            if any(j.open for j in self.journals) and not moved:
                await asyncio.sleep(delay * random.uniform(0.9, 1.1))
                delay = min(self.poll_max, delay * 1.5)
            elif moved:
                delay = self.poll_interval

    async def poll(self, j: Journal) -> str:
        """One look at a submitted batch; returns its processing_status."""
        b = await self.endpoint.call("retrieve", lambda: self.endpoint.client().messages.batches.retrieve(j.batch_id),
                            missing=None)
        if b is None:  # deleted, or archived with its results: what it held is asked again
            j.note = f"batch {j.batch_id} is gone from the server (deleted or archived)"
            for it in j.pending():
                self._retry(j, it, "requeued", j.note)
            j.state = "done"
            j.save()
            self.notice(f"batch submission {j.submission}: {j.note}; its requests are asked again")
            return "gone"
        j.counts = b.request_counts.model_dump()
        self._progress(j, b.processing_status)
        if b.processing_status == "ended":
            j.state = "ended"
            j.save()
        return b.processing_status

    async def results(self, j: Journal) -> AsyncIterator[tuple[Item, str]]:
        """Stream the ended batch's JSONL results, handle each (commit, discard, requeue, hand
        to streaming), journal its outcome, and yield (item, outcome). A download cut off is
        started again; items already handled are skipped."""
        client = self.endpoint.client()
        for attempt in range(1, self.endpoint.attempts + 1):
            try:
                dec = await client.messages.batches.results(j.batch_id)
                try:
                    async for line in dec:
                        it = j.item(line.custom_id)
                        if it is None or it.outcome is not None:
                            continue
                        try:
                            await self._handle(j, it, line.result)
                            j.save()
                        except Exception as e:  # noqa: BLE001 - the pipeline's, not the download's
                            raise _NotDownload() from e
                        self._hook("result", j)
                        yield it, it.outcome or ""
                finally:
                    await dec.close()
                break
            except _NotDownload as e:
                raise e.__cause__ from None  # type: ignore[misc]
            except Exception as e:  # noqa: BLE001
                if not retryable(e) or attempt == self.endpoint.attempts:
                    msg = f"batch {j.batch_id}: results could not be downloaded: {e}"
                    raise BatchError(redact(msg)) from e
                await asyncio.sleep(self.endpoint.backoff(attempt))
        for it in j.pending():  # the API lists every request; a missing one is asked again
            self._retry(j, it, "requeued", "the batch's results had no line for it")
        j.state = "done"
        j.save()

    async def cancel(self, submission: str) -> None:
        """Ask the server to cancel a submission's batch; its requests come back `canceled`."""
        j = next((j for j in self.journals if j.submission == submission), None)
        if j is None or not j.batch_id:
            raise BatchError(f"no submitted batch {submission!r} in {jr.journal_dir(self.output_dir)}")
        await self.endpoint.call("cancel", lambda: self.endpoint.client().messages.batches.cancel(j.batch_id))

    def _unsent(self) -> int:
        return sum(1 for j in self.journals if j.state in ("abandoned", "refused"))

    def in_flight(self) -> list[Journal]:
        return [j for j in self.journals if j.open]

    def feedback_for(self, chapter: str | None, step: str, input_hash: str) -> str:
        """The validation feedback a new request for this step must carry: set when its last
        batched answer (from these inputs) was rejected, also by an earlier process."""
        last = None
        for entry in jr.history(self.journals, chapter, step, input_hash):
            last = entry
        return last.feedback if last is not None and last.outcome in ("rejected", "to_stream") else ""

    # ------------------------------------------------------------------ states

    async def _advance(self, j: Journal) -> bool:
        before = (j.state, j.batch_id, len(j.candidates))
        if j.state in ("submitting", "searching"):
            await self._search(j)
        elif j.state == "submitted":
            await self.poll(j)
        if j.state == "ended":
            async for _ in self.results(j):
                pass
        return (j.state, j.batch_id, len(j.candidates)) != before

    async def _search(self, j: Journal) -> None:
        from .reattach import search

        await search(self, j)

    def _create_failed(self, j: Journal, e: Exception) -> None:
        import anthropic

        status = e.status_code if isinstance(e, anthropic.APIStatusError) else None
        from ..providers.anthropic.retry import classify

        if status is not None and classify(e, "", None).stop_run:
            status = 402  # a spend limit (or `x-should-retry: false`): streaming stops the run at its first request
        if status in NOT_CREATED_STATUS:
            j.state, j.note = "abandoned", f"create refused with HTTP {status}: nothing was created"
            for it in j.pending():
                self._retry(j, it, "requeued", j.note)
        elif status in REFUSED_STATUS:
            j.state = "refused"
            j.note = redact(f"the batch endpoint refused the create: HTTP {status}: {e}")[:500]
            for it in j.pending():
                j.set_outcome(it, "to_stream", j.note, it.feedback)
                self.report.to_stream.append(_handoff(it, j.note))
        elif isinstance(e, (TypeError, AttributeError, NameError, ImportError)):
            raise e  # a bug, not an answer: the journal stays `submitting` and resume searches
        else:  # 5xx, timeout, dropped connection, garbled answer: the server may have created it
            j.state = "searching"
            log.info("batch create for %s failed ambiguously (%s); searching", j.submission, e)
        j.save()

    async def _handle(self, j: Journal, it: Item, res: Any) -> None:
        kind = res.type
        if kind == "succeeded":
            m = res.message
            text = "".join(b.text for b in m.content if getattr(b, "type", "") == "text")
            u = m.usage
            from ..providers.anthropic.pricing import usage_of

            usage = usage_of(u)  # the cache writes split by TTL (1-hour writes cost 2x input), thinking
            from .pricing import call_cost_usd

            cost = call_cost_usd(usage, m.model, batch=True, prices=self.prices)
            self._log(j, it, m.model, usage, cost, m.stop_reason, None)
            result = Result(text, m.stop_reason or "", usage, m.model, m.id, cost, 1)
            if self.is_current is not None and not await _maybe_await(self.is_current(it)):
                j.set_outcome(it, "discarded", "its inputs changed while it waited in the batch")
                self.report.discarded.append(it)
            elif m.stop_reason != "end_turn":
                why = f"the batched answer stopped with {m.stop_reason!r}; streaming continues or falls back"
                j.set_outcome(it, "to_stream", why)
                self.report.to_stream.append(_handoff(it, why))
            else:
                v = await _maybe_await(self.commit(it, result))
                if not isinstance(v, Verdict):
                    v = Verdict(bool(v), "" if v else "the answer did not validate")
                if v.ok:
                    j.set_outcome(it, "committed")
                    self.report.committed.append(it)
                else:
                    self._retry(j, it, "rejected", v.reason or "the answer did not validate")
        elif kind == "errored":
            err = res.error.error
            why = redact(f"errored: {err.type}: {err.message}")
            model = str(self._params.get(it.custom_id, {}).get("model", ""))
            self._log(j, it, model, Usage(), 0.0, None, why)
            if err.type == "invalid_request_error":  # a batch would refuse it again; streaming says why
                j.set_outcome(it, "to_stream", why)
                self.report.to_stream.append(_handoff(it, why))
            else:
                self._retry(j, it, "requeued", why)
        else:  # expired, canceled
            self._retry(j, it, "requeued", kind)

    def _retry(self, j: Journal, it: Item, outcome: str, reason: str) -> None:
        """Ask again in the next batch, or hand to streaming once the bound is reached."""
        prior = list(jr.history(self.journals, it.chapter, it.step, it.input_hash))
        feedback = reason if outcome == "rejected" else ""
        if outcome == "rejected":
            n, bound = sum(1 for p in prior if p.outcome == "rejected"), self.max_reasks
        elif j.state in ("abandoned", "searching", "submitting"):
            n, bound = sum(1 for jj in self.journals if jj.state in ("abandoned", "refused")
                           and any(p.key == it.key and p.input_hash == it.input_hash for p in jj.items)), \
                self.max_creates
        else:
            n, bound = self._batch_failures(it.chapter, it.step, it.input_hash), self.max_batch_retries
        if n >= bound:
            why = f"{reason} (after {n + 1} tries in a batch: streamed instead)"
            j.set_outcome(it, "to_stream", why, feedback)
            self.report.to_stream.append(_handoff(it, why, feedback))
            return
        j.set_outcome(it, outcome, reason, feedback)
        self._retries.append((it, feedback))

    def _batch_failures(self, chapter: str | None, step: str, input_hash: str) -> int:
        return sum(1 for jj in self.journals if jj.state not in ("abandoned", "refused") for p in jj.items
                   if p.key == (chapter, step) and p.input_hash == input_hash and p.outcome == "requeued")

    async def _next_round(self) -> list[BatchItem]:
        retries, self._retries = self._retries, []
        out: list[BatchItem] = []
        for it, feedback in retries:
            if self.rebuild is not None:
                bi = await _maybe_await(self.rebuild(it, feedback))
                if bi is not None:
                    out.append(bi)
            elif not feedback and it.custom_id in self._params:  # the same request again
                out.append(BatchItem(it.chapter, it.step, it.target, it.input_hash,
                                     self._params[it.custom_id], it.role, it.reask))
            else:
                self.report.retry.append(_handoff(it, it.reason, feedback))
        return out

    def _guard(self, bi: BatchItem) -> Handoff | str | None:
        """'waiting' if the step already waits in a batch made from the same inputs; a Handoff
        if it was already handed to streaming; else None (submit it)."""
        for j in self.journals:
            for it in j.items:
                if it.key != (bi.chapter, bi.step) or it.input_hash != bi.input_hash:
                    continue
                if it.outcome is None and j.open:
                    return "waiting"
                if it.outcome == "to_stream":
                    return _handoff(it, it.reason, it.feedback)
        return None

    # ------------------------------------------------------------------ plumbing

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    async def __aenter__(self) -> BatchEngine:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def _hook(self, point: str, j: Journal) -> None:
        if crash_hook is not None:
            crash_hook(point, j)

    def _progress(self, j: Journal, status: str | None = None) -> None:
        if self.on_progress is not None:
            self.on_progress(Progress(j.submission, j.batch_id, status or j.state, dict(j.counts or {}),
                                      len(j.items)))

    def _log(self, j: Journal, it: Item, model: str, usage: Usage, cost: float, stop: str | None,
             error: str | None) -> None:
        if self.on_call is None:
            return
        self.on_call({"role": it.role, "chapter": it.chapter, "step": it.step, "provider": "anthropic",
                      "model": model, "input_tokens": usage.input_tokens,
                      "output_tokens": usage.output_tokens,
                      "cache_creation_tokens": usage.cache_creation_tokens,
                      "cache_read_tokens": usage.cache_read_tokens, "thinking_tokens": usage.thinking_tokens,
                      "cost_usd": cost, "latency_ms": None,
                      "stop_reason": stop, "request_id": f"{j.batch_id}/{it.custom_id}",
                      "error": error[:500] if error else None, "batch": 1,
                      "status": "error" if error else "ok"})  # as a streamed call's row says it

    def _say_left_running(self) -> None:
        live = [j for j in self.journals if j.open]
        if not live:
            return
        parts = [f"{j.batch_id} ({len(j.pending())} requests)" if j.batch_id else
                 f"submission {j.submission} (create not confirmed: resume checks the server before "
                 f"sending anything again)" for j in live]
        self.notice("Message Batches left running on the server, not cancelled: " + "; ".join(parts) +
                    ". Their results wait there; `book resume` collects them.")
