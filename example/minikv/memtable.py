"""The memtable: recent writes kept in memory, in key order, until they are flushed to disk.

Every put and delete lands here after it has been logged. Deletes are kept as tombstones
rather than removing the key, because an older value of the key may still sit in a table on
disk and the tombstone is what hides it.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterator

from .record import Record


class MemTable:
    """A sorted map from key to its latest `Record`.

    Keys are held in a sorted list next to a dict, so a lookup is a dict access and a new key
    costs one `insort`. That insertion is linear in the number of keys, which is fine for a
    table that is flushed after a megabyte or so; a larger one would use a skip list or a tree.
    """

    def __init__(self) -> None:
        """Create an empty memtable."""
        self._keys: list[bytes] = []
        self._records: dict[bytes, Record] = {}
        self._size = 0

    def apply(self, record: Record) -> None:
        """Make `record` the latest state of its key, replacing any earlier record."""
        previous = self._records.get(record.key)
        if previous is None:
            insort(self._keys, record.key)
        else:
            self._size -= previous.encoded_size
        self._records[record.key] = record
        self._size += record.encoded_size

    def put(self, key: bytes, value: bytes) -> None:
        """Set `key` to `value`."""
        self.apply(Record(key, value))

    def delete(self, key: bytes) -> None:
        """Record that `key` is deleted, by storing a tombstone for it."""
        self.apply(Record(key, None))

    def get(self, key: bytes) -> Record | None:
        """Return the latest record for `key`: a tombstone if it was deleted here, None if
        the memtable knows nothing about the key (and older tables must be asked)."""
        return self._records.get(key)

    def records(self) -> Iterator[Record]:
        """Yield every record, tombstones included, in ascending key order."""
        return self.scan()

    def scan(self, start: bytes | None = None, end: bytes | None = None) -> Iterator[Record]:
        """Yield the records whose keys lie in [start, end), in ascending key order.

        None means unbounded on that side. The memtable must not change while a scan runs.
        """
        first = 0 if start is None else bisect_left(self._keys, start)
        for key in self._keys[first:]:
            if end is not None and key >= end:
                return
            yield self._records[key]

    @property
    def approximate_size(self) -> int:
        """The size, in bytes, the current records would take once encoded."""
        return self._size

    def clear(self) -> None:
        """Forget every record, after they have been flushed."""
        self._keys.clear()
        self._records.clear()
        self._size = 0

    def __len__(self) -> int:
        return len(self._keys)
