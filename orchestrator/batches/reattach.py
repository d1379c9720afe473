"""Re-attaching a submission whose create never confirmed a batch id (the rule is in
journal.py's docstring): list the server's batches since the journal was written, take the
unclaimed ones of the same size as candidates, and let the first custom_id of each one's
results tell whether it is ours. Only when none is left is the submission `abandoned`, and its
requests are then sent again under a new submission id."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Protocol

from . import journal as jr
from .endpoint import Endpoint
from .journal import Item, Journal


class BatchEngine(Protocol):
    """What a re-attach needs of the engine (engine.BatchEngine), said here: engine.py imports
    this module, and this module imports nothing of it."""

    journals: list[Journal]
    search_grace: float
    clock_skew: float
    notice: Callable[[str], None]
    endpoint: Endpoint

    def _progress(self, j: Journal, status: str | None = None) -> None: ...

    def _retry(self, j: Journal, it: Item, outcome: str, reason: str) -> None: ...


async def search(eng: BatchEngine, j: Journal) -> None:
    """Resolve a journal with no batch id (the re-attach rule in journal.py)."""
    created = jr.parse_iso(j.created).timestamp()
    # Before the grace the server is listed too: a create whose answer was lost has usually
    # landed, and once its batch has ended its first custom_id re-attaches it at once (with
    # faults on the batch endpoint, waiting the grace out cost a minute a create). Only
    # "there is no such batch" waits for the grace: a create still in flight may land.
    settled = time.time() - created >= eng.search_grace
    client = eng.endpoint.client()
    if j.listed_at is None:
        claimed = jr.claimed_batch_ids(eng.journals)
        since = created - eng.clock_skew
        found = await eng.endpoint.call("list", lambda: _candidates(eng, since, claimed, len(j.items)))
        if found != j.candidates or settled or j.state != "searching":
            j.state, j.candidates = "searching", found
            j.listed_at = jr.now_iso() if settled else None  # the listing that decides is one after the grace
            j.save()
    for bid in list(j.candidates):
        b = await eng.endpoint.call("retrieve", partial(client.messages.batches.retrieve, bid), missing=None)
        if b is None:  # gone: whoever's it was, there is nothing of it to collect
            j.candidates.remove(bid)
            j.save()
            continue
        if b.processing_status != "ended":
            eng._progress(j, f"unconfirmed {bid}: {b.processing_status}")
            continue
        first = await eng.endpoint.call("results", partial(_first_custom_id, eng, bid))
        if first is not None and first.startswith(j.submission + "-"):
            j.batch_id, j.batch_created_at, j.candidates = bid, b.created_at.isoformat(), []
            j.counts, j.state, j.note = b.request_counts.model_dump(), "ended", "re-attached by listing"
            j.save()
            eng.notice(f"batch submission {j.submission}: re-attached to {bid}")
            return
        j.candidates.remove(bid)
        j.save()
    if not j.candidates and settled:
        j.state, j.note = "abandoned", "the server has no batch of this submission (listed after the grace)"
        for it in j.pending():
            eng._retry(j, it, "requeued", "its batch was never created")
        j.save()


async def _candidates(eng: BatchEngine, since: float, claimed: set[str], n: int) -> list[str]:
    out = []
    async for b in eng.endpoint.client().messages.batches.list(limit=100):  # newest first
        if b.created_at.timestamp() < since:
            break
        total = sum(b.request_counts.model_dump().values())
        if b.id not in claimed and total == n:
            out.append(b.id)
    return out


async def _first_custom_id(eng: BatchEngine, bid: str) -> str | None:
    dec = await eng.endpoint.client().messages.batches.results(bid)
    try:
        async for line in dec:
            return line.custom_id
    finally:
        await dec.close()
    return None
