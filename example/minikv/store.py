"""The `Store`: a persistent key-value store in one directory, built from the other modules.

The directory holds::

    wal.log       writes not yet flushed to a table (see minikv.wal)
    000001.sst    immutable sorted tables, a higher number is newer (see minikv.sstable)
    MANIFEST      the names of the live tables, one per line

A write is appended to the log, then applied to the memtable. When the memtable grows past
`memtable_limit` bytes it is flushed to a new table and the log is emptied. A read asks the
memtable, then the cache, then the tables from newest to oldest; the first record found for
the key decides, and a tombstone means the key is deleted.

The manifest is the single commit point for changes to the set of tables: it is replaced
atomically, and any table file it does not name is left over from an interrupted flush or
compaction and is removed when the store is opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from types import TracebackType

from .cache import LRUCache
from .fileio import TEMP_SUFFIX, atomic_writer
from .memtable import MemTable
from .record import Record
from .sstable import (DEFAULT_INDEX_INTERVAL, SSTable, merge_records, write_memtable,
                      write_table)
from .wal import WriteAheadLog

WAL_NAME = "wal.log"
MANIFEST_NAME = "MANIFEST"
TABLE_SUFFIX = ".sst"

Key = bytes | str


class StoreClosedError(Exception):
    """An operation was attempted on a store after `close`."""


class Store:
    """A persistent, crash-safe key-value store of byte strings.

    Keys and values are bytes; a `str` is accepted anywhere a key or value is and is encoded
    as UTF-8. Opening a store recovers it: the live tables are opened and the write-ahead
    log is replayed into the memtable. A store is not safe for use by several threads or
    processes at once.
    """

    def __init__(self, directory: str | os.PathLike[str], *, memtable_limit: int = 1 << 20,
                 cache_size: int = 1024, sync: bool = True,
                 index_interval: int = DEFAULT_INDEX_INTERVAL) -> None:
        """Open the store in `directory`, creating the directory if needed.

        `memtable_limit` is the memtable size in bytes that triggers a flush, `cache_size`
        the number of lookups the cache remembers, `sync` whether each write is fsynced, and
        `index_interval` the number of records per table block.
        """
        self.directory = os.fspath(directory)
        self.memtable_limit = memtable_limit
        self.index_interval = index_interval
        os.makedirs(self.directory, exist_ok=True)
        self._memtable = MemTable()
        self._cache: LRUCache[bytes, Record] = LRUCache(cache_size)
        self._tables: list[SSTable] = []
        self._next_number = 1
        self._closed = False
        self._open_tables()
        self._wal = WriteAheadLog(os.path.join(self.directory, WAL_NAME), sync=sync)
        for record in self._wal.replay():
            self._memtable.apply(record)

    def get(self, key: Key) -> bytes | None:
        """Return the value stored under `key`, or None if it is absent or deleted."""
        record = self._lookup(_as_bytes(key))
        return record.value

    def put(self, key: Key, value: bytes | str) -> None:
        """Store `value` under `key`, replacing any earlier value."""
        self._write(Record(_as_bytes(key), _as_bytes(value)))

    def delete(self, key: Key) -> None:
        """Remove `key`. Deleting a key that is not there is not an error."""
        self._write(Record(_as_bytes(key), None))

    def __contains__(self, key: Key) -> bool:
        """Whether `key` currently has a value."""
        return self.get(key) is not None

    def scan(self, start: Key | None = None,
             end: Key | None = None) -> Iterator[tuple[bytes, bytes]]:
        """Yield the (key, value) pairs with keys in [start, end), in ascending key order.

        None means unbounded on that side. Deleted keys are skipped. Do not write to the
        store while a scan is running.
        """
        self._check_open()
        low = None if start is None else _as_bytes(start)
        high = None if end is None else _as_bytes(end)
        sources = [self._memtable.scan(low, high)]
        sources += [table.scan(low, high) for table in self._tables]
        for record in merge_records(sources):
            if record.value is not None:
                yield record.key, record.value

    def flush(self) -> str | None:
        """Write the memtable to a new table and empty the log; return the table's path.

        Returns None when there is nothing to flush. The new table is made live by the
        manifest before the log is reset, so a crash in between replays writes that are
        already in the table, which is harmless.
        """
        self._check_open()
        if not len(self._memtable):
            return None
        path = self._new_table_path()
        write_memtable(path, self._memtable, self.index_interval)
        self._tables.insert(0, SSTable(path))
        self._write_manifest()
        self._wal.reset()
        self._memtable.clear()
        return path

    def compact(self) -> None:
        """Flush, then merge every table into one, dropping overwritten values and deletes.

        Because the merge covers every table down to the oldest, no older value remains for
        a tombstone to hide, so tombstones are discarded too. What each key maps to does not
        change, so the cache stays valid.
        """
        self.flush()
        if not self._tables:
            return
        old = self._tables
        live = (r for r in merge_records([t.scan() for t in old]) if not r.is_tombstone)
        path = self._new_table_path()
        if write_table(path, live, self.index_interval):
            self._tables = [SSTable(path)]
        else:
            os.remove(path)
            self._tables = []
        self._write_manifest()
        for table in old:
            table.close()
            os.remove(table.path)

    def stats(self) -> dict[str, int]:
        """Counters that describe the store's current state, for display."""
        self._check_open()
        return {
            "memtable_keys": len(self._memtable),
            "memtable_bytes": self._memtable.approximate_size,
            "wal_bytes": self._wal.size,
            "tables": len(self._tables),
            "cache_entries": len(self._cache),
            "cache_hits": self._cache.hits,
            "cache_misses": self._cache.misses,
        }

    def close(self) -> None:
        """Close the log and the tables. Nothing is lost: unflushed writes are in the log."""
        if self._closed:
            return
        self._closed = True
        self._wal.close()
        for table in self._tables:
            table.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _lookup(self, key: bytes) -> Record:
        """Find the newest record for `key`; a tombstone stands for "absent" as well.

        Answers from the tables are cached, including negative ones, which are cached as
        tombstones. The memtable is always asked first, so the cache never needs to hold a
        write that is still in memory.
        """
        self._check_open()
        record = self._memtable.get(key)
        if record is not None:
            return record
        record = self._cache.get(key)
        if record is not None:
            return record
        for table in self._tables:
            record = table.get(key)
            if record is not None:
                break
        else:
            record = Record(key, None)
        self._cache.put(key, record)
        return record

    def _write(self, record: Record) -> None:
        """Log `record`, apply it to the memtable, and flush if the memtable is full."""
        self._check_open()
        self._wal.append(record)
        self._memtable.apply(record)
        self._cache.invalidate(record.key)
        if self._memtable.approximate_size >= self.memtable_limit:
            self.flush()

    def _open_tables(self) -> None:
        """Open the tables the manifest names and delete leftovers of interrupted writes."""
        live = self._read_manifest()
        for name in sorted(os.listdir(self.directory)):
            if name.endswith(TEMP_SUFFIX) or (name.endswith(TABLE_SUFFIX) and name not in live):
                os.remove(os.path.join(self.directory, name))
        numbers = sorted((int(name[:-len(TABLE_SUFFIX)]) for name in live), reverse=True)
        self._tables = [SSTable(self._table_path(number)) for number in numbers]
        self._next_number = (numbers[0] + 1) if numbers else 1

    def _read_manifest(self) -> set[str]:
        """The table names listed in the manifest; none if there is no manifest yet."""
        path = os.path.join(self.directory, MANIFEST_NAME)
        try:
            with open(path, encoding="ascii") as manifest:
                return {line.strip() for line in manifest if line.strip()}
        except FileNotFoundError:
            return set()

    def _write_manifest(self) -> None:
        """Atomically replace the manifest with the names of the current tables."""
        names = "".join(os.path.basename(table.path) + "\n" for table in self._tables)
        with atomic_writer(os.path.join(self.directory, MANIFEST_NAME)) as manifest:
            manifest.write(names.encode("ascii"))

    def _new_table_path(self) -> str:
        """Reserve the next table number and return the path of that table."""
        path = self._table_path(self._next_number)
        self._next_number += 1
        return path

    def _table_path(self, number: int) -> str:
        """The path of table number `number`, which need not exist."""
        return os.path.join(self.directory, f"{number:06d}{TABLE_SUFFIX}")

    def _check_open(self) -> None:
        """Raise StoreClosedError if `close` has been called."""
        if self._closed:
            raise StoreClosedError(f"store {self.directory!r} is closed")


def _as_bytes(data: bytes | str) -> bytes:
    """Return `data` as bytes, encoding a `str` as UTF-8."""
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"expected bytes or str, got {type(data).__name__}")
