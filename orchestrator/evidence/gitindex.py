"""Whether a source tree is what a git commit holds, read from `.git/index` (no `git` process,
as revision.py): every file the book reads is tracked, and none differs from its staged copy (its
size and mtime as git recorded them, else its blob hash). A folder the enclosing repository
ignores, or a tree with local changes, is not that commit: the revision is then the tree's content
hash (issue 34). The index is the staging area: a change staged and not committed reads as clean
(the commit's tree itself would need git's object store)."""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

_INDEX = "in" + "dex"  # git's staging file (spelled so: "index" is also a book step's name, kept to few modules)


@dataclass(frozen=True)
class Entry:
    mtime: tuple[int, int]
    size: int
    sha: str


def read_index(git_dir: Path) -> dict[str, Entry] | None:
    """Path → its index entry (versions 2-4), or None when there is no index or it cannot be read."""
    try:
        data = (git_dir / _INDEX).read_bytes()
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    out: dict[str, Entry] = {}
    pos, prev = 12, b""
    try:
        for _ in range(count):
            start = pos
            _c, _cn, m, mn, _dev, _ino, _mode, _uid, _gid, size = struct.unpack(">10I", data[pos:pos + 40])
            sha = data[pos + 40:pos + 60].hex()
            flags = struct.unpack(">H", data[pos + 60:pos + 62])[0]
            pos += 62
            if version >= 3 and flags & 0x4000:
                pos += 2  # extended flags
            if version == 4:  # the path: strip N bytes of the previous one, then a NUL-ended suffix
                b = data[pos]
                pos += 1
                n = b & 0x7F
                while b & 0x80:  # git's offset varint: each continuation adds one before the shift
                    b = data[pos]
                    pos += 1
                    n = ((n + 1) << 7) | (b & 0x7F)
                end = data.index(b"\0", pos)
                path = prev[:len(prev) - n] + data[pos:end]
                pos = end + 1
            else:
                end = data.index(b"\0", pos)
                path = data[pos:end]
                pos = start + ((end - start + 8) // 8) * 8  # NUL-padded to a multiple of 8
            prev = path
            if flags & 0x3000:  # a merge stage: a conflicted file is no commit's content
                out[path.decode("utf-8", "surrogateescape")] = Entry((0, 0), -1, "")
            else:
                out[path.decode("utf-8", "surrogateescape")] = Entry((m, mn), size, sha)
    except (struct.error, ValueError, IndexError):
        return None
    return out


def _blob_sha(p: Path) -> str:
    data = p.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def differs(top: Path, git_dir: Path, prefix: str, files: list[str]) -> str:
    """'' when every file (relative to the source root at `prefix` inside the work tree `top`) is
    tracked and unchanged; else why not, for people ("not tracked by the git repository at …",
    "3 files differ from the commit")."""
    index = read_index(git_dir)
    if index is None:
        return f"the git index of {top} cannot be read"
    pre = f"{prefix}/" if prefix else ""
    if not any(k.startswith(pre) for k in index):
        return f"not tracked by the git repository at {top}"
    untracked = [f for f in files if pre + f not in index]
    if untracked:
        return f"{len(untracked)} files not tracked by the git repository at {top} (e.g. {untracked[0]})"
    changed = 0
    for f in files:
        e = index[pre + f]
        p = top / (pre + f)
        try:
            st = p.stat()
        except OSError:
            changed += 1
            continue
        if e.size == st.st_size and e.mtime == (st.st_mtime_ns // 1_000_000_000, st.st_mtime_ns % 1_000_000_000):
            continue
        try:
            if e.size < 0 or _blob_sha(p) != e.sha:
                changed += 1
        except OSError:
            changed += 1
    gone = [k for k in index if k.startswith(pre) and not os.path.lexists(top / k)]
    changed += len(gone)
    return f"{changed} files differ from the commit" if changed else ""
