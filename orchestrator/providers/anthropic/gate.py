"""The cache gate: for each new cached prefix, one request goes first and its siblings wait
until it has started streaming, so they read the cache instead of all writing it (requests
sent together would each pay the cache write). A sibling never waits longer than `timeout`:
then it goes anyway. A prefix unused for longer than the lifetime it was written with (its
breakpoint's TTL: 5 minutes or 1 hour, cache_ttl.py), less a margin, is new again.

A request has one key per cached prefix (the book, the chapter's material, the role's
instructions): `enter_all` waits for the longest prefix another request is writing and leads
the longer ones, so R1, R2 and R3 of one chapter sent together read the chapter's material
that the first of them writes, although their instructions differ."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

MARGIN = 30.0  # seconds before the cache's own expiry that a prefix counts as gone (clocks, queueing)
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


@dataclass
class _Entry:
    warm: asyncio.Event = field(default_factory=asyncio.Event)
    last_used: float = 0.0
    leader_active: bool = True
    ttl: float = 270.0  # the window in which a read finds it: the lifetime it was written with, less MARGIN


def window(ttl: str | None) -> float:
    """How long after its last use a prefix written with this TTL ("5m", "1h") is still read."""
    return TTL_SECONDS.get(ttl or "5m", TTL_SECONDS["5m"]) - MARGIN


class CacheGate:
    def __init__(self, timeout: float = 20.0, clock: Callable[[], float] = time.monotonic):
        self.timeout, self.clock = timeout, clock
        self._entries: dict[str, _Entry] = {}
        self.waited = 0  # siblings that waited (for tests and the benchmark)
        self.timed_out = 0

    def _claim(self, key: str, ttl: str | None = None) -> bool:
        """Lead `key` when nobody has written it (or it expired, or its leader gave up). The
        entry keeps the lifetime its leader writes it with: that is how long reads find it."""
        now = self.clock()
        e = self._entries.get(key)
        if e is None or (e.warm.is_set() and now - e.last_used > e.ttl) or \
                (not e.warm.is_set() and not e.leader_active):
            self._entries[key] = _Entry(last_used=now, ttl=window(ttl))
            return True
        return False

    async def enter(self, key: str, ttl: str | None = None) -> bool:
        """Wait (bounded) until a request with this prefix has started streaming. Returns True
        when this caller leads: it must call `opened(key)` when its stream starts (or ends).
        `ttl`: the lifetime this request's breakpoint asks for ("5m" when not given)."""
        if not key:
            return False
        if self._claim(key, ttl):
            return True
        e = self._entries[key]
        e.last_used = self.clock()
        if e.warm.is_set():
            return False
        self.waited += 1
        try:
            await asyncio.wait_for(e.warm.wait(), self.timeout)
        except TimeoutError:
            self.timed_out += 1
        return False

    async def enter_all(self, keys: list[str], ttls: list[str] | None = None) -> list[str]:
        """`enter` for each cached prefix, shortest first: wait while a shorter prefix is being
        written by another request, then lead every prefix nobody has written yet. Returns the
        keys this caller leads (call `opened`/`failed` on each). `ttls`: each breakpoint's
        lifetime, in the same order (params.prefix_ttls)."""
        led: list[str] = []
        for i, key in enumerate(keys):
            ttl = ttls[i] if ttls and i < len(ttls) else None
            if led:  # leading a shorter prefix: the longer ones are new too; never wait holding a lead
                if self._claim(key, ttl):
                    led.append(key)
                continue
            if await self.enter(key, ttl):
                led.append(key)
        return led

    def opened(self, key: str) -> None:
        """The leader's stream started (message_start): the prefix is in the cache now."""
        e = self._entries.get(key)
        if e is not None:
            e.last_used = self.clock()
            e.warm.set()

    def opened_all(self, keys: list[str]) -> None:
        for key in keys:
            self.opened(key)

    def failed(self, key: str) -> None:
        """The leader failed before its stream started: release the waiters (they go, and the
        next request with this prefix leads again)."""
        e = self._entries.get(key)
        if e is not None and not e.warm.is_set():
            e.leader_active = False
            e.warm.set()
            del self._entries[key]
