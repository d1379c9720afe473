"""The model-call slots: at most n calls in flight; a freed slot goes to the waiting call with the
longest chain behind it (first come first served among equals); a cancelled waiter never keeps
one. And the rank they use: each node's model calls to the end of the plan."""

from __future__ import annotations

import asyncio

import pytest

from orchestrator.pipeline.plan import NodeSpec, chapter_graph, remaining_calls
from orchestrator.pipeline.slots import Slots
from orchestrator.steps import (
    AUDIT,
    BOOK,
    DRAFT,
    FINAL,
    HTML,
    INDEX,
    MEMORY,
    PANEL,
    R1,
    R2,
    R3,
    RESEARCH,
    REVIEW,
    Node,
)


def test_a_freed_slot_goes_to_the_longest_chain_then_the_first_come():
    order: list[str] = []

    async def go() -> None:
        slots = Slots(1)
        release = asyncio.Event()

        async def call(name: str, rank: int, hold: asyncio.Event | None = None) -> None:
            async with slots.slot(rank):
                order.append(name)
                if hold is not None:
                    await hold.wait()

        first = asyncio.create_task(call("first", 0, release))
        await asyncio.sleep(0)
        waiters = [asyncio.create_task(call(name, rank)) for name, rank in
                   (("short", 1), ("long-a", 5), ("mid", 3), ("long-b", 5))]
        await asyncio.sleep(0)
        assert order == ["first"] and slots.free == 0
        release.set()
        await asyncio.gather(first, *waiters)
        assert slots.free == 1

    asyncio.run(go())
    assert order == ["first", "long-a", "long-b", "mid", "short"]


def test_never_more_than_n_in_flight():
    peak = 0

    async def go() -> None:
        nonlocal peak
        slots, inside = Slots(3), 0

        async def call(rank: int) -> None:
            nonlocal inside, peak
            async with slots.slot(rank):
                inside += 1
                peak = max(peak, inside)
                await asyncio.sleep(0.001 * (rank % 3))
                inside -= 1

        await asyncio.gather(*(call(i) for i in range(20)))
        assert slots.free == 3

    asyncio.run(go())
    assert peak == 3


def test_a_cancelled_waiter_keeps_no_slot():
    async def go() -> None:
        slots = Slots(1)
        hold = asyncio.Event()

        async def holder() -> None:
            async with slots.slot(0):
                await hold.wait()

        h = asyncio.create_task(holder())
        await asyncio.sleep(0)
        waiting = asyncio.create_task(slots.slot(9).__aenter__())
        await asyncio.sleep(0)
        waiting.cancel()  # cancelled while it waits: its place is skipped
        granted_then_cancelled = asyncio.create_task(slots.slot(5).__aenter__())
        await asyncio.sleep(0)
        hold.set()
        await asyncio.sleep(0)  # the holder hands its slot to the rank-5 waiter...
        granted_then_cancelled.cancel()  # ...which is cancelled before it runs: it passes the slot on
        for t in (waiting, granted_then_cancelled):
            with pytest.raises(asyncio.CancelledError):
                await t
        await h
        assert slots.free == 1
        async with slots.slot(0):  # and the slot is there for the next caller
            assert slots.free == 0

    asyncio.run(asyncio.wait_for(go(), 5))


def test_zero_slots_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        Slots(0)


def test_rank_is_the_model_calls_on_the_longest_path_to_the_end():
    class Chapter:  # what chapter_graph reads of an outline's chapter
        def __init__(self, cid: str, batch: int, depends_on: list[str]):
            self.id, self.batch, self.depends_on = cid, batch, depends_on

    class Outline:
        def __init__(self, chapters: list[Chapter]):
            self.chapters = chapters
            self.by_id = {c.id: c for c in chapters}
            self.batches = sorted({c.batch for c in chapters})

    from orchestrator.pipeline.plan import Scope

    graph = chapter_graph(Outline([Chapter("ch01", 1, []), Chapter("ch02", 1, ["ch01"])]), Scope())  # type: ignore[arg-type]
    rank = remaining_calls(graph)
    # a chapter: research, draft, a reviewer, review, panel, memory, final (7 calls), then the audit;
    # html and the index call no model
    assert rank[Node("ch02", RESEARCH)] == 8 and rank[Node("ch02", FINAL)] == 2
    assert rank[Node(BOOK, AUDIT)] == 1 and rank[Node("ch02", HTML)] == 0 and rank[Node(BOOK, INDEX)] == 0
    assert rank[Node("ch02", R1)] == rank[Node("ch02", R2)] == rank[Node("ch02", R3)] == 6
    # ch01's memory comes before all of ch02: its chain is the longer one
    assert rank[Node("ch01", MEMORY)] == 1 + rank[Node("ch02", RESEARCH)]
    assert rank[Node("ch01", RESEARCH)] == 5 + rank[Node("ch01", MEMORY)]
    assert rank[Node("ch01", DRAFT)] > rank[Node("ch01", REVIEW)] > rank[Node("ch01", PANEL)]


def test_rank_of_a_hand_made_graph_counts_only_model_steps():
    a, b, c = Node("ch01", DRAFT), Node("ch01", HTML), Node(BOOK, AUDIT)
    rank = remaining_calls({a: NodeSpec(), b: NodeSpec(hard=[a]), c: NodeSpec(settle=[a])})
    assert rank == {a: 2, b: 0, c: 1}
