"""minikv: a tiny persistent key-value store built the way larger ones are.

Writes go first to a write-ahead log (`minikv.wal`) so that they survive a crash, then into
an in-memory sorted table (`minikv.memtable`). When that table grows large enough it is
flushed to an immutable sorted file on disk (`minikv.sstable`). Reads look at the memtable
first and then at the files from newest to oldest, with an LRU cache (`minikv.cache`) in
front of the files. Compaction merges the files into one and forgets deleted keys.

All of this is tied together by `minikv.store.Store`; `minikv.cli` is a small command line
on top of it. Both the log and the tables share one record format, `minikv.record`.

Typical use::

    from minikv import Store

    with Store("data") as db:
        db.put(b"language", b"python")
        assert db.get(b"language") == b"python"
"""

from __future__ import annotations

from .record import Record
from .store import Store

__all__ = ["Record", "Store"]
__version__ = "0.1.0"
