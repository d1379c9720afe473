"""Content hashes through the `(path, size, mtime_ns) -> hash` cache, so that a scan of an
unchanged tree costs a `stat` and a tail read per file whatever the files' size."""

from __future__ import annotations

import os
from collections.abc import Callable

from .markers import body_hash, find_marker, saved_as_lf, split_marked


class HashCache:
    def __init__(self, rows: dict[str, tuple[int, int, str]] | None = None):
        self.rows = rows or {}
        self.dirty: dict[str, tuple[int, int, str]] = {}

    def body_hash(self, path: str, st: os.stat_result | None = None) -> str | None:
        """Hash of a file's body: everything before a marker line if the last non-blank line
        is one (of any name), else the whole text; trailing whitespace stripped. None if absent."""
        return self._cached(path, path, _body_hash, st)

    def verdict(self, path: str, kind: str, judge: Callable[[bytes], str],
                version: tuple[int, int] | None = None) -> str | None:
        """What the check `kind` says of a file's bytes ("" for nothing), judged again only when
        the file's size or mtime changed: a scan's checks of a person's files (kept for them?
        UTF-8? readable memory?) then cost nothing on an unchanged tree, like its hashes.
        Kept in the same table, under "kind:path". None if the file cannot be read.
        `version`: the file's (size, mtime_ns) when the caller has just stat'ed it (a scan has)."""
        return self._cached(f"{kind}:{path}", path, judge, None, version)

    def _cached(self, key: str, path: str, compute: Callable[[bytes], str],
                st: os.stat_result | None = None, version: tuple[int, int] | None = None) -> str | None:
        """compute(the file's bytes), kept under `key` for as long as the file's size and mtime stay."""
        if version is None:
            try:
                st = st or os.stat(path)
            except OSError:
                return None
            version = (st.st_size, st.st_mtime_ns)
        hit = self.rows.get(key)
        if hit and hit[0] == version[0] and hit[1] == version[1]:
            return hit[2]
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        out = compute(data)
        self.rows[key] = self.dirty[key] = (version[0], version[1], out)
        return out

    def forget(self, path: str) -> None:
        self.rows.pop(path, None)
        self.dirty.pop(path, None)



def _body_hash(data: bytes) -> str:
    mk = find_marker(data)
    # a person's text after the marker is body too; a marked file saved with CRLF or a
    # BOM hashes as the same words (a source file is hashed as it is)
    return body_hash(data if mk is None else saved_as_lf(split_marked(data, mk)))
