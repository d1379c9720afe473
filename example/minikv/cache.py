"""A least-recently-used cache, which the store puts in front of its on-disk tables.

A lookup that misses the memtable may read a block from several table files; remembering
the answer for popular keys saves that work. The cache knows nothing about keys or records,
and is generic over both.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """A mapping that holds at most `capacity` entries and evicts the least recently used.

    Both `get` (on a hit) and `put` count as a use. A capacity of 0 turns caching off.
    `hits` and `misses` count the outcomes of `get`, for statistics.
    """

    def __init__(self, capacity: int) -> None:
        """Create an empty cache for up to `capacity` entries."""
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """Return the value cached for `key` and mark it most recently used, or None."""
        try:
            value = self._entries[key]
        except KeyError:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: K, value: V) -> None:
        """Cache `value` under `key`, evicting the least recently used entry if full."""
        if self.capacity == 0:
            return
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def invalidate(self, key: K) -> None:
        """Drop `key` from the cache, if it is there, because its value has changed."""
        self._entries.pop(key, None)

    def clear(self) -> None:
        """Drop every entry. The hit and miss counters are kept."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
