"""A step's commit that never replaces a file the run did not write.

When a run decides to make a step it notes what the step's path holds (`observe`: no file, or
the bytes it decided on). Just before the answer is renamed into place, the commit checks that
the path still holds exactly that; anything else is a person's (a paste without the marker, a
file created meanwhile, an edit) and stays where it is, the answer going to `<file>.partial`.
Marker or no marker: the check is on the bytes, not on what the scan would call them.

The check and the rename cannot be one system call, so the commit closes the gaps between them:
a path that held nothing is taken with a rename that refuses to replace (`renameat2`
RENAME_NOREPLACE, else `link`), and the run's own earlier version is first renamed aside and
checked *after* the move (what was moved is what was checked), then the answer is put in with
the same no-replace rename; a save that still lands on the moved file through a handle an
editor opened before the move is noticed by a last check and exchanged back."""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .fsio import _mutate, fsync_dir, partial_path, temp_path, utc_stamp, write_temp


@dataclass(frozen=True)
class Seen:
    """What a step's path held when the run started the step: `digest` is the sha256 of its
    bytes (None: no file); `foreign`: it changed after the run decided, so whatever is there at
    commit time is a person's."""

    digest: str | None
    foreign: bool = False


ABSENT = Seen(None)
FOREIGN = Seen(None, foreign=True)


@dataclass(frozen=True)
class Committed:
    written: bool  # the answer is at the path
    backup: Path | None = None  # the run's own earlier version, moved aside
    partial: Path | None = None  # where the answer went instead (the path holds a person's file)


def digest(path: Path) -> str | None:
    """sha256 of the file's bytes, None when there is no file. A directory in a file's place is
    named by its identity: one the run saw is moved aside like a file; one made since is kept."""
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return f"directory {st.st_dev}:{st.st_ino}"


def observe(path: Path, version: tuple[int, int] | None) -> Seen:
    """What the run decided on: `version` is the (size, mtime_ns) the decision read (None: no
    file). A file that is not that version any more changed in between: it is a person's."""
    if version is None:
        return ABSENT if not os.path.lexists(path) else FOREIGN
    try:
        st = os.stat(path)
        if (st.st_size, st.st_mtime_ns) != version:
            return FOREIGN
        d = digest(path)
        st = os.stat(path)  # the bytes hashed are that version, not a save during the read
    except FileNotFoundError:
        return FOREIGN
    if d is None or (st.st_size, st.st_mtime_ns) != version:
        return FOREIGN
    return Seen(d)


def move_aside(path: Path, seen: Seen) -> tuple[Path | None, Seen]:
    """Back up the run's own earlier version (a half-finished file it redoes): only if the path
    still holds what the run saw. Returns (the backup or None, what the path holds for the run now)."""
    if seen.foreign or seen.digest is None:
        return None, seen
    _mutate("backup", path)
    bak = _bak_name(path)
    if not _rename_noreplace(path, bak):
        return None, FOREIGN
    if digest(bak) != seen.digest:  # saved between the decision and the move: put it back
        _put_back(bak, path)
        return None, FOREIGN
    fsync_dir(path.parent)
    return bak, ABSENT


def commit(path: Path, data: str | bytes, seen: Seen) -> Committed:
    """Write `data` at `path` (temp, fsync, no-replace rename, fsync dir) unless the path holds
    something the run did not see; then the data goes to `<path>.partial` and the path is kept."""
    tmp = temp_path(path)
    try:
        write_temp(path, data)
        out = _place(path, tmp, seen)
    finally:  # a failed write (a full disk, a crash in a test) leaves no temp file
        try:
            tmp.unlink()
        except OSError:
            pass
    fsync_dir(path.parent)
    return out


def _place(path: Path, tmp: Path, seen: Seen) -> Committed:
    now = digest(path)
    if now is None:  # nothing there (or deleted meanwhile): nothing of anyone's can be replaced
        return Committed(True) if _rename_noreplace(tmp, path) else _keep(path, tmp)
    if seen.foreign or now != seen.digest:
        return _keep(path, tmp)
    _mutate("backup", path)
    bak = _bak_name(path)
    if not _rename_noreplace(path, bak):
        return _keep(path, tmp)
    if digest(bak) != seen.digest:  # saved between the look and the move
        _put_back(bak, path)
        return _keep(path, tmp)
    if not _rename_noreplace(tmp, path):  # a file saved after the move: it stays, ours was set aside
        return _keep(path, tmp, bak)
    if digest(bak) != seen.digest:  # written through a handle opened before the move: swap back
        if _exchange(bak, path):
            part = partial_path(path)
            os.replace(bak, part)
            return Committed(False, partial=part)
    return Committed(True, backup=bak)


def _keep(path: Path, tmp: Path, bak: Path | None = None) -> Committed:
    part = partial_path(path)
    os.replace(tmp, part)
    return Committed(False, backup=bak, partial=part)


def _put_back(bak: Path, path: Path) -> None:
    # A second save that already made a new file at the path wins; the first stays as the .bak.
    _rename_noreplace(bak, path)


def _bak_name(path: Path) -> Path:
    stamp = utc_stamp()
    dest = path.with_name(f"{path.name}.bak.{stamp}")
    n = 1
    while os.path.lexists(dest):
        dest = path.with_name(f"{path.name}.bak.{stamp}-{n}")
        n += 1
    return dest


# ---------------------------------------------------------------- renames that check atomically

_RENAME_NOREPLACE, _RENAME_EXCHANGE, _AT_FDCWD = 1, 2, -100
_renameat2 = None


def _libc_renameat2():
    global _renameat2
    if _renameat2 is None:
        try:
            _renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", False)
        except OSError:
            _renameat2 = False
    return _renameat2 or None


def _rename2(src: Path, dst: Path, flags: int) -> bool | None:
    """renameat2: True done, False the target exists (NOREPLACE), None not supported here."""
    fn = _libc_renameat2()
    if fn is None:
        return None
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err == errno.EEXIST:
        return False
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return None  # a file system without it (some network and FUSE ones)
    raise OSError(err, os.strerror(err), str(src), None, str(dst))


def _rename_noreplace(src: Path, dst: Path) -> bool:
    """Rename `src` to `dst` unless `dst` exists (False then), in one step where the system allows."""
    done = _rename2(src, dst, _RENAME_NOREPLACE)
    if done is not None:
        return done
    try:
        os.link(src, dst)  # fails if dst exists, atomically
    except FileExistsError:
        return False
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
            raise
        if os.path.lexists(dst):  # no links either: the narrowest check left
            return False
        os.rename(src, dst)
        return True
    os.unlink(src)
    return True


def _exchange(a: Path, b: Path) -> bool:
    done = _rename2(a, b, _RENAME_EXCHANGE)
    if done is not None:
        return done
    mid = a.with_name(a.name + ".swap")
    os.rename(b, mid)
    os.rename(a, b)
    os.rename(mid, a)
    return True
