"""R1's source index kept in the workspace's state.db, so that a process that checks one
chapter (a one-chapter edit, a resume) does not parse the whole repository again: the index
is stored with the signature of the tree it was built from (every included file's path,
modification time and size, from the safe walker) and reused while the signature holds."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

_SCHEMA = "CREATE TABLE IF NOT EXISTS r1_index (root TEXT PRIMARY KEY, signature TEXT, version INTEGER, data TEXT)"
VERSION = 2  # bump when _Index's fields or the way they are filled change
_SETS = ("files", "dirs", "names", "qualified", "modules", "imported")
_MAPS = ("classes", "bases", "aliases")


def signature(stats: list[tuple[str, int, int]]) -> str:
    """A stable digest of (rel, mtime_ns, size) of every file (Python's hash() is per process)."""
    h = hashlib.sha256()
    for rel, mtime, size in stats:
        h.update(f"{rel}\t{mtime}\t{size}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def load(db: Path, root: str, sig: str) -> dict[str, Any] | None:
    """The stored index fields for `root` if built from this very tree, else None."""
    try:
        conn = sqlite3.connect(str(db), timeout=5)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT signature, version, data FROM r1_index WHERE root = ?", (root,)).fetchone()
    except sqlite3.Error:  # no table yet, or a locked or damaged database: build it instead
        return None
    finally:
        conn.close()
    if row is None or row[0] != sig or row[1] != VERSION:
        return None
    try:
        raw = json.loads(row[2])
        out: dict[str, Any] = {k: set(raw[k]) for k in _SETS}
        out.update({k: {n: set(v) for n, v in raw[k].items()} for k in _MAPS})
        out["text"] = str(raw["text"])
        return out
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # a damaged row is a miss


def save(db: Path, root: str, sig: str, fields: dict[str, Any]) -> None:
    """Store the index (best effort: a locked database only costs a rebuild next time). ASCII JSON:
    a source file's undecodable byte, read as a lone surrogate (`\udce2`), is escaped, not a crash."""
    data: dict[str, Any] = {k: sorted(fields[k]) for k in _SETS}
    data.update({k: {n: sorted(v) for n, v in fields[k].items()} for k in _MAPS})
    data["text"] = fields["text"]
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(db), timeout=5)
        try:
            with conn:
                conn.execute(_SCHEMA)
                conn.execute("INSERT OR REPLACE INTO r1_index (root, signature, version, data) VALUES (?, ?, ?, ?)",
                             (root, sig, VERSION, json.dumps(data, ensure_ascii=True, separators=(",", ":"))))
        finally:
            conn.close()
    except (sqlite3.Error, OSError):
        pass
