"""Sorted string tables: immutable on-disk files of records in key order, with a sparse index.

A table file has three parts::

    +---------------------------+-----------------------------+--------------------+
    | data: records, sorted     | index: one record per block | footer (20 bytes)  |
    +---------------------------+-----------------------------+--------------------+

The data records use the same encoding as the write-ahead log. They are grouped into blocks
of `index_interval` records, and the index holds one entry per block: a record whose key is
the block's first key and whose value is the block's offset in the file. The footer gives the
index's offset, its number of entries and a magic number.

The index is *sparse*: it names one key in every block, not every key, so it stays small
enough to keep in memory. A lookup binary-searches it for the one block that could hold the
key, then reads and scans only that block.

Tables are written once, atomically, and never modified; the store replaces them wholesale
during compaction.
"""

from __future__ import annotations

import heapq
import os
import struct
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence

from .fileio import atomic_writer
from .memtable import MemTable
from .record import Record, RecordError, encode, iter_records

MAGIC = b"MKVSST01"
FOOTER = struct.Struct("<QI8s")
"""Index offset, number of index entries, magic number."""

OFFSET = struct.Struct("<Q")
DEFAULT_INDEX_INTERVAL = 16


class SSTableError(Exception):
    """A table file is damaged or is not a minikv table at all."""


def write_table(path: str | os.PathLike[str], records: Iterable[Record],
                index_interval: int = DEFAULT_INDEX_INTERVAL) -> int:
    """Write `records` to a new table file at `path` and return how many were written.

    The records must come in strictly ascending key order, as a memtable or a merge yields
    them; tombstones are written like any other record. The file appears at `path` only once
    it is complete, so a crash leaves either no table or a whole one.
    """
    if index_interval < 1:
        raise ValueError(f"index_interval must be >= 1, got {index_interval}")
    index: list[Record] = []
    count = 0
    offset = 0
    previous: bytes | None = None
    with atomic_writer(path) as out:
        for record in records:
            if previous is not None and record.key <= previous:
                raise ValueError(f"keys out of order: {record.key!r} after {previous!r}")
            if count % index_interval == 0:
                index.append(Record(record.key, OFFSET.pack(offset)))
            data = encode(record)
            out.write(data)
            offset += len(data)
            count += 1
            previous = record.key
        for entry in index:
            out.write(encode(entry))
        out.write(FOOTER.pack(offset, len(index), MAGIC))
    return count


def write_memtable(path: str | os.PathLike[str], memtable: MemTable,
                   index_interval: int = DEFAULT_INDEX_INTERVAL) -> int:
    """Flush the whole of `memtable`, tombstones included, to a new table file at `path`."""
    return write_table(path, memtable.records(), index_interval)


class SSTable:
    """Read access to one table file.

    Opening a table reads its footer and its index; the data blocks stay on disk and are read
    on demand. The file stays open until `close`.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        """Open the table at `path`; raises SSTableError if the file is not a valid table."""
        self.path = os.fspath(path)
        self._file = open(self.path, "rb")
        try:
            self._load_index()
        except BaseException:
            self._file.close()
            raise

    def _load_index(self) -> None:
        """Read the footer and the sparse index into memory."""
        size = os.fstat(self._file.fileno()).st_size
        if size < FOOTER.size:
            raise SSTableError(f"{self.path}: too short to be a table ({size} bytes)")
        index_offset, count, magic = FOOTER.unpack(self._read(size - FOOTER.size, FOOTER.size))
        if magic != MAGIC:
            raise SSTableError(f"{self.path}: bad magic number {magic!r}")
        if index_offset > size - FOOTER.size:
            raise SSTableError(f"{self.path}: index offset {index_offset} is past the data")
        raw = self._read(index_offset, size - FOOTER.size - index_offset)
        try:
            entries = list(iter_records(raw))
        except RecordError as exc:
            raise SSTableError(f"{self.path}: damaged index: {exc}") from exc
        if len(entries) != count:
            raise SSTableError(f"{self.path}: index has {len(entries)} entries, "
                               f"the footer says {count}")
        self._first_keys = [entry.key for entry in entries]
        self._block_starts = [OFFSET.unpack(entry.value or b"")[0] for entry in entries]
        self._block_starts.append(index_offset)

    def _read(self, offset: int, length: int) -> bytes:
        """Read exactly `length` bytes at `offset`."""
        self._file.seek(offset)
        data = self._file.read(length)
        if len(data) != length:
            raise SSTableError(f"{self.path}: short read at offset {offset}")
        return data

    def _block(self, number: int) -> list[Record]:
        """Read and decode data block `number`."""
        start, end = self._block_starts[number], self._block_starts[number + 1]
        try:
            return list(iter_records(self._read(start, end - start)))
        except RecordError as exc:
            raise SSTableError(f"{self.path}: damaged block at offset {start}: {exc}") from exc

    def get(self, key: bytes) -> Record | None:
        """Return the record for `key` (possibly a tombstone), or None if the table lacks it.

        Only the block whose first key is the greatest one not above `key` can hold it.
        """
        number = bisect_right(self._first_keys, key) - 1
        if number < 0:
            return None
        for record in self._block(number):
            if record.key == key:
                return record
            if record.key > key:
                break
        return None

    def scan(self, start: bytes | None = None, end: bytes | None = None) -> Iterator[Record]:
        """Yield the records, tombstones included, whose keys lie in [start, end), in order."""
        first = 0 if start is None else max(bisect_right(self._first_keys, start) - 1, 0)
        for number in range(first, len(self._first_keys)):
            for record in self._block(number):
                if start is not None and record.key < start:
                    continue
                if end is not None and record.key >= end:
                    return
                yield record

    def __iter__(self) -> Iterator[Record]:
        return self.scan()

    def close(self) -> None:
        """Close the underlying file."""
        self._file.close()


def merge_records(sources: Sequence[Iterable[Record]]) -> Iterator[Record]:
    """Merge several sorted record streams into one, keeping one record per key.

    `sources` are ordered from newest to oldest: when a key appears in more than one, the
    record from the earliest source wins and the older ones are dropped. Tombstones are
    passed through; whether they may be discarded is for the caller to decide.
    """
    tagged = [_tag(source, age) for age, source in enumerate(sources)]
    previous: bytes | None = None
    for key, _age, record in heapq.merge(*tagged):
        if key != previous:
            yield record
            previous = key


def _tag(records: Iterable[Record], age: int) -> Iterator[tuple[bytes, int, Record]]:
    """Pair each record with its source's age, so equal keys sort newest first in a merge."""
    for record in records:
        yield record.key, age, record
