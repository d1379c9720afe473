"""FileMaps cached by content: a file is parsed once per (SHA-256, language, parser version).

The table lives in whatever SQLite database the caller hands over (the ledger's
``output/.book/state.db`` in a run, an in-memory one in tests). Keying by content, not by
path, means a renamed or copied file costs nothing, and an edit re-parses only that file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

from .parse import PARSER_VERSION, FileMap

_SCHEMA = """CREATE TABLE IF NOT EXISTS repo_map_files (
    sha256 TEXT, lang TEXT, parser_version INTEGER, data TEXT,
    PRIMARY KEY (sha256, lang, parser_version))"""


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class MapCache:
    """Read-through cache of FileMaps. Writes are buffered and stored by ``flush()`` in one
    transaction (build_map flushes at the end, and every few hundred files)."""

    def __init__(self, conn: sqlite3.Connection, *, parser_version: int = PARSER_VERSION) -> None:
        self.conn = conn
        self.parser_version = parser_version
        self._pending: list[tuple[str, str, int, str]] = []
        with conn:
            conn.execute(_SCHEMA)

    def get(self, sha256: str, lang: str) -> FileMap | None:
        row = self.conn.execute(
            "SELECT data FROM repo_map_files WHERE sha256 = ? AND lang = ? AND parser_version = ?",
            (sha256, lang, self.parser_version)).fetchone()
        if row is None:
            return None
        try:
            return FileMap.from_dict(json.loads(row[0]))
        except (ValueError, TypeError, KeyError):
            return None  # a damaged row is a miss: the file is parsed again and the row replaced

    def put(self, sha256: str, lang: str, fm: FileMap) -> None:
        data = json.dumps(fm.to_dict(), ensure_ascii=False, separators=(",", ":"))
        self._pending.append((sha256, lang, self.parser_version, data))

    def flush(self) -> None:
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO repo_map_files (sha256, lang, parser_version, data) "
                "VALUES (?, ?, ?, ?)", rows)

    def prune(self) -> int:
        """Drop rows of other parser versions; returns how many were removed."""
        with self.conn:
            cur = self.conn.execute("DELETE FROM repo_map_files WHERE parser_version != ?",
                                    (self.parser_version,))
        return cur.rowcount
