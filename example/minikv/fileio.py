"""Small helpers for writing files so that a crash never leaves a half-written one in place.

The pattern is the classic one: write to a temporary file next to the target, fsync it,
rename it over the target (a rename within a directory is atomic on POSIX systems), then
fsync the directory so that the rename itself is durable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

TEMP_SUFFIX = ".tmp"


def fsync_directory(path: str | os.PathLike[str]) -> None:
    """Make the creations, renames and removals of entries in directory `path` durable.

    Does nothing on platforms where a directory cannot be opened for fsync (Windows).
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a binary file that replaces `path` only if the `with` block finishes normally.

    Readers see either the old file or the complete new one, never a partial write. If the
    block raises, the temporary file is removed and `path` is left untouched.
    """
    target = os.fspath(path)
    temp = target + TEMP_SUFFIX
    with open(temp, "wb") as handle:
        try:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        except BaseException:
            handle.close()
            os.remove(temp)
            raise
    os.replace(temp, target)
    fsync_directory(os.path.dirname(target) or ".")
