"""The run's model-call slots (`--concurrency`): at most n calls in flight, and a freed slot goes
to the waiting call with the longest chain of calls still behind it (critical-path list
scheduling), first come first served among equals. A FIFO queue hands slots out in the order
steps became ready, which on a wide book walks it breadth first and leaves the longest chains
for the end; the rank comes from the plan (`plan.remaining_calls`), computed once per walk."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Slots:
    def __init__(self, n: int):
        if n < 1:
            raise ValueError("concurrency must be at least 1")
        self.free = n
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []  # (-rank, arrival, granted)
        self._arrival = itertools.count()

    @asynccontextmanager
    async def slot(self, rank: int = 0) -> AsyncIterator[None]:
        """Hold one slot while the block runs; `rank`: the model calls still ahead of this one
        on its longest path to the end of the plan, this one included."""
        await self._acquire(rank)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, rank: int) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (-rank, next(self._arrival), granted))
        try:
            await granted
        except asyncio.CancelledError:
            # Cancelled after the slot was handed over, before this task ran again: pass it on.
            # (Cancelled while waiting, its entry stays in the heap, done, and is skipped.)
            if granted.done() and not granted.cancelled():
                self._release()
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, granted = heapq.heappop(self._waiting)
            if not granted.done():
                granted.set_result(None)  # the slot passes straight to it: `free` is unchanged
                return
        self.free += 1
