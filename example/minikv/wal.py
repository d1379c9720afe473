"""The write-ahead log: an append-only file that makes every write durable before it is applied.

The store appends each put and delete here, and only then changes its memtable. After a crash
the log is replayed to rebuild the memtable. A crash can interrupt the last append, leaving a
torn record at the end of the file; replay keeps every intact record before it, then cuts the
file back to the last good byte so that new appends do not land after garbage.

Once the memtable has been flushed to a table, the log's contents are no longer needed and
the store resets it to empty.
"""

from __future__ import annotations

import os

from .record import Record, RecordError, decode, encode


class WriteAheadLog:
    """An append-only log of records in one file.

    With `sync=True` (the default) every append is fsynced, so a write that returned is on
    disk. With `sync=False` appends are only handed to the operating system: much faster,
    but the last writes may be lost if the machine (not just the process) goes down.
    """

    def __init__(self, path: str | os.PathLike[str], sync: bool = True) -> None:
        """Open the log at `path`, creating an empty one if it does not exist."""
        self.path = os.fspath(path)
        self.sync = sync
        self.discarded_bytes = 0
        """How many bytes of torn or corrupt tail the last `replay` cut off."""
        self._file = open(self.path, "ab")

    def append(self, record: Record) -> None:
        """Write `record` at the end of the log, and fsync it when the log is synchronous."""
        self._file.write(encode(record))
        self._file.flush()
        if self.sync:
            os.fsync(self._file.fileno())

    def replay(self) -> list[Record]:
        """Return every intact record in the log, oldest first.

        Reading stops at the first record that is truncated or fails its checksum: nothing
        after it can be trusted. That tail is removed from the file and its size is left in
        `discarded_bytes`.
        """
        self._file.flush()
        with open(self.path, "rb") as reader:
            data = reader.read()
        records: list[Record] = []
        offset = 0
        while offset < len(data):
            try:
                record, offset_after = decode(data, offset)
            except RecordError:
                break
            records.append(record)
            offset = offset_after
        self.discarded_bytes = len(data) - offset
        if self.discarded_bytes:
            self._truncate(offset)
        return records

    def reset(self) -> None:
        """Empty the log, once everything in it has been saved somewhere else."""
        self._truncate(0)

    @property
    def size(self) -> int:
        """The current length of the log file in bytes."""
        self._file.flush()
        return os.fstat(self._file.fileno()).st_size

    def close(self) -> None:
        """Close the file. Appends already made stay in the log."""
        if not self._file.closed:
            self._file.flush()
            self._file.close()

    def _truncate(self, length: int) -> None:
        """Cut the file to `length` bytes and make the new length durable."""
        self._file.flush()
        os.truncate(self._file.fileno(), length)
        os.fsync(self._file.fileno())
