"""Reading one source file safely, by the rules the walk lists files by: only a regular file
whose real path is inside the real source root and on its file system, no bigger than the
bound, checked before it is opened and again on the open file (what was checked is what is
read). `walk.py` lists the tree with the same helpers; everything else reads through
`read_source` / `read_source_bytes`."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

from .classify import type_name


class SourceReadError(OSError):
    """A source file that cannot be read safely; the message names the file and why."""


# the biggest source file read whole: picocli's core is one hand-written CommandLine.java of 1.2 MB; a
# minified bundle or generated data is told apart by its lines (classify.LONG_LINE), not its size
MAX_SOURCE_BYTES = 4_000_000


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.1f} KB"


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


# O_NOFOLLOW: the last component cannot be swapped for a link after the check; O_NONBLOCK: a FIFO
# that slipped through opens at once instead of waiting for a writer; O_NOCTTY: never a terminal.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def _read_fd(fd: int, limit: int) -> bytes:
    chunks, left = [], limit
    while left > 0:
        b = os.read(fd, min(left, 1 << 20))
        if not b:
            break
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _open_checked(real: str, expect: os.stat_result | None, root_real: str) -> tuple[int, os.stat_result]:
    """Open a path already resolved inside the root; the open file must be a regular file (and the
    very one `expect` described): what was checked is what is read."""
    fd = os.open(real, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SourceReadError(errno.EINVAL, f"not a regular file ({type_name(st.st_mode)})")
        if expect is not None and (st.st_dev, st.st_ino) != (expect.st_dev, expect.st_ino):
            raise SourceReadError(errno.ESTALE, "the file changed while it was being read")
        try:  # Linux: where the open file really is, whatever a parent directory became meanwhile
            where = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            where = None
        if where is not None and where.startswith("/") and not _inside(where, root_real):
            raise SourceReadError(errno.EXDEV, "resolves to outside the source root")
        return fd, st
    except BaseException:
        os.close(fd)
        raise


def _fail(rel: str, why: str) -> SourceReadError:
    return SourceReadError(f"source file {rel}: {why}")


def _check(root: Path, rel: str, max_bytes: int) -> tuple[str, os.stat_result, str]:
    """(real path, its stat, real root) of a source file that passes every rule, without opening it."""
    root_real = os.path.realpath(root)
    if not rel or os.path.isabs(rel) or PurePosixPath(rel).is_absolute():
        raise _fail(rel, "not a path relative to the source root")
    path = os.path.join(root_real, rel)
    try:
        real = os.path.realpath(path, strict=True)
        st = os.stat(real)
        root_dev = os.stat(root_real).st_dev
    except FileNotFoundError:
        raise _fail(rel, "dangling symlink" if os.path.islink(path)
                    else "does not exist (removed since the walk?)") from None
    except OSError as e:
        raise _fail(rel, "symlink loop" if e.errno == errno.ELOOP else f"unreadable: {e.strerror}") from None
    if not _inside(real, root_real):
        raise _fail(rel, "resolves to outside the source root; not read")
    if not stat.S_ISREG(st.st_mode):  # refused before open: opening a device can have effects
        raise _fail(rel, f"not a regular file ({type_name(st.st_mode)})")
    if st.st_dev != root_dev:
        raise _fail(rel, "on another file system than the source root; not read")
    if st.st_size > max_bytes:
        raise _fail(rel, f"too large ({_mb(st.st_size)} > {_mb(max_bytes)})")
    return real, st, root_real


def source_problem(root: Path, rel: str, *, max_bytes: int = MAX_SOURCE_BYTES) -> str | None:
    """Why `rel` could not be read safely (the SourceReadError message), or None if it can: for
    checks that must not open the file, such as validating an outline's `sources`."""
    try:
        _check(root, rel, max_bytes)
    except SourceReadError as e:
        return str(e)
    return None


def read_source_bytes(root: Path, rel: str, *, max_bytes: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of one source file, safely: `rel` may have changed since the walk, so every rule
    is checked again here, and once more on the open file. Raises SourceReadError naming the file."""
    real, st, root_real = _check(root, rel, max_bytes)
    try:
        fd, st2 = _open_checked(real, st, root_real)
    except SourceReadError as e:
        raise _fail(rel, e.strerror or str(e)) from None
    except OSError as e:
        raise _fail(rel, "symlink loop" if e.errno == errno.ELOOP else f"unreadable: {e.strerror}") from None
    try:
        if st2.st_size > max_bytes:
            raise _fail(rel, f"too large ({_mb(st2.st_size)} > {_mb(max_bytes)})")
        data = _read_fd(fd, max_bytes + 1)
    except OSError as e:
        raise _fail(rel, f"unreadable: {e.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise _fail(rel, f"too large (grew past {_mb(max_bytes)} while being read)")
    return data


def read_source(root: Path, rel: str, *, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """The text of one source file (UTF-8, undecodable bytes replaced), read as read_source_bytes."""
    return read_source_bytes(root, rel, max_bytes=max_bytes).decode("utf-8", errors="replace")
