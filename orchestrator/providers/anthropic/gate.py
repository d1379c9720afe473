"""The cache gate: for each new cached prefix, one request goes first and its siblings wait
until it has started streaming, so they read the cache instead of all writing it (requests
sent together would each pay the cache write). A sibling never waits longer than `timeout`:
then it goes anyway. A prefix unused for longer than the cache's lifetime is new again.

A request has one key per cached prefix (the book, the chapter's material, the role's
instructions): `enter_all` waits for the longest prefix another request is writing and leads
the longer ones, so R1, R2 and R3 of one chapter sent together read the chapter's material
that the first of them writes, although their instructions differ."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field


@dataclass
class _Entry:
    warm: asyncio.Event = field(default_factory=asyncio.Event)
    last_used: float = 0.0
    leader_active: bool = True


class CacheGate:
    def __init__(self, timeout: float = 20.0, ttl: float = 270.0):
        self.timeout, self.ttl = timeout, ttl
        self._entries: dict[str, _Entry] = {}
        self.waited = 0  # siblings that waited (for tests and the benchmark)
        self.timed_out = 0

    def _claim(self, key: str) -> bool:
        """Lead `key` when nobody has written it (or it expired, or its leader gave up)."""
        now = time.monotonic()
        e = self._entries.get(key)
        if e is None or (e.warm.is_set() and now - e.last_used > self.ttl) or \
                (not e.warm.is_set() and not e.leader_active):
            self._entries[key] = _Entry(last_used=now)
            return True
        return False

    async def enter(self, key: str) -> bool:
        """Wait (bounded) until a request with this prefix has started streaming. Returns True
        when this caller leads: it must call `opened(key)` when its stream starts (or ends)."""
        if not key:
            return False
        if self._claim(key):
            return True
        e = self._entries[key]
        e.last_used = time.monotonic()
        if e.warm.is_set():
            return False
        self.waited += 1
        try:
            await asyncio.wait_for(e.warm.wait(), self.timeout)
        except TimeoutError:
            self.timed_out += 1
        return False

    async def enter_all(self, keys: list[str]) -> list[str]:
        """`enter` for each cached prefix, shortest first: wait while a shorter prefix is being
        written by another request, then lead every prefix nobody has written yet. Returns the
        keys this caller leads (call `opened`/`failed` on each)."""
        led: list[str] = []
        for key in keys:
            if led:  # leading a shorter prefix: the longer ones are new too; never wait holding a lead
                if self._claim(key):
                    led.append(key)
                continue
            if await self.enter(key):
                led.append(key)
        return led

    def opened(self, key: str) -> None:
        """The leader's stream started (message_start): the prefix is in the cache now."""
        e = self._entries.get(key)
        if e is not None:
            e.last_used = time.monotonic()
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
