"""Writing files so that a crash at any instant loses nothing.

The final path only ever holds complete content or a person's content: generations stream
into `<file>.partial`, the complete text goes to a temp file that is fsynced and renamed
over the final path, then the directory is fsynced. Nothing is deleted: a file that is
redone is first moved to `<file>.bak.<UTC timestamp>`. Every mutation goes through this
module, which is also what the kill-at-every-write test wraps."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import PathError
from .lock import Lock, LockOwner, pid_alive  # noqa: F401 (the lock lives in lock.py; re-exported)

# Test hook: called before every file-system mutation with (kind, path).
# The kill-at-every-write test raises from here to simulate a crash.
mutation_hook = None


def _mutate(kind: str, path: Path) -> None:
    if mutation_hook is not None:
        mutation_hook(kind, path)


class Workspace:
    """The workspace root, and the only gate through which paths are written."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()

    def path(self, rel: str) -> Path:
        p = (self.root / rel).resolve()
        if p != self.root and self.root not in p.parents:
            raise PathError(f"refusing to touch {rel!r}: it is outside the workspace {self.root}")
        return p

    def rel(self, p: Path) -> str:
        return p.resolve().relative_to(self.root).as_posix()


def utc_stamp() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")


def fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_path(path: Path) -> Path:
    """Where a write of `path` is made before it is renamed into place (the sweep's pattern)."""
    return path.with_name(f".{path.name}.tmp.{os.getpid()}")


def write_temp(path: Path, data: str | bytes) -> Path:
    """The first half of a crash-safe write: `data` in a temp file beside `path`, flushed and
    fsynced; the caller renames it into place (and removes it if that fails)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)
    _mutate("write", path)
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return tmp


def atomic_write(path: Path, data: str | bytes) -> None:
    """temp → flush → fsync → os.replace → fsync(dir)."""
    tmp = temp_path(path)
    try:
        write_temp(path, data)
        os.replace(tmp, path)
    except OSError:
        # A failed write (a full disk) leaves no temp file for the next run's sweep: the
        # final path still holds the old content, the temp file nothing of value.
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


_TMP_RE = None


def sweep_temp_files(root: Path) -> list[Path]:
    """Remove the temp files of atomic writes that a killed process left behind. They never
    hold anything unique: the final path still has the old content or the new one."""
    import re

    global _TMP_RE
    _TMP_RE = _TMP_RE or re.compile(r"^\..+\.tmp\.(\d+)$")
    gone = []
    for d, _, files in os.walk(root):
        for f in files:
            m = _TMP_RE.match(f)
            if m and not pid_alive(int(m.group(1))):
                p = Path(d) / f
                p.unlink(missing_ok=True)
                gone.append(p)
    return gone


def write_if_changed(path: Path, data: str | bytes) -> bool:
    """atomic_write, unless the file already holds exactly this (no needless mtime change)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.read_bytes() == raw:
            return False
    except OSError:
        pass
    atomic_write(path, raw)
    return True


def backup(path: Path) -> Path | None:
    """Move `path` aside to `path.bak.<UTC timestamp>`; never overwrite an older backup."""
    if not path.exists():
        return None
    stamp = utc_stamp()
    dest = path.with_name(f"{path.name}.bak.{stamp}")
    n = 1
    while dest.exists():
        dest = path.with_name(f"{path.name}.bak.{stamp}-{n}")
        n += 1
    _mutate("backup", path)
    os.replace(path, dest)
    fsync_dir(path.parent)
    return dest


def partial_path(path: Path) -> Path:
    return path.with_name(path.name + ".partial")


class PartialWriter:
    """Streams a generation into `<file>.partial` so people can `tail -f` it."""

    def __init__(self, path: Path, prefix: str = ""):
        self.path = partial_path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _mutate("partial", self.path)
        self.prefix = prefix
        self._fh = open(self.path, "w", encoding="utf-8")
        if prefix:
            self._fh.write(prefix)
            self._fh.flush()

    def reset(self, keep_prefix: bool = True) -> None:
        """The provider abandoned an attempt (a retry): drop its text, keep the prefix
        (unless the provider starts afresh instead of continuing it)."""
        if not keep_prefix:
            self.prefix = ""
        self._fh.seek(0)
        self._fh.truncate()
        self._fh.write(self.prefix)
        self._fh.flush()

    def write(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()

    def close(self) -> None:
        """Done with this attempt. A .partial that never got a character (the step failed before
        the model said anything) holds nothing to continue or to read: it is not left behind."""
        if not self._fh.closed:
            empty = self._fh.tell() == 0
            self._fh.close()
            if empty:
                self._remove()

    def retire(self) -> None:
        """The generation was committed: the .partial is no longer needed. It holds
        no one's work (the final file has all of it), so it is removed, not backed up."""
        if not self._fh.closed:
            self._fh.close()
        self._remove()

    def _remove(self) -> None:
        try:
            _mutate("remove-partial", self.path)
            self.path.unlink()
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------- explaining OS errors


def explain_os_error(e: OSError) -> str:
    """A file-system error as a person can act on it: the path, what is wrong, what to do.
    Used where an OSError would otherwise reach the person as a traceback."""
    import errno

    path = e.filename if e.filename is not None else None
    if isinstance(e, IsADirectoryError) and e.filename2 is not None:
        path = e.filename2  # os.replace(temp, final): the final path is the directory
    elif path is not None and re.fullmatch(r"\..+\.tmp\.\d+", Path(path).name):
        path = str(Path(path).parent)  # our own temp file: the folder it could not be made in
    where = f"{path}" if path is not None else "a file of the workspace"
    if isinstance(e, IsADirectoryError):
        return (f"{where} is a directory where a file belongs: move it aside "
                f"(`mv {where} {where}.dir`), then run again")
    if isinstance(e, NotADirectoryError):
        blocker = _file_in_the_way(Path(path)) if path is not None else None
        if blocker is not None:
            return (f"{blocker} is a file where a directory belongs (needed for {where}): move it aside, "
                    "then run again")
        return f"{where}: a file is where a directory belongs; move it aside, then run again"
    if isinstance(e, FileExistsError) and path is not None and Path(path).exists() and not Path(path).is_dir():
        return f"{where} is a file where a directory belongs: move it aside, then run again"  # mkdir's error
    if isinstance(e, PermissionError):
        return (f"{where} cannot be accessed (permission denied): give your user read and write access "
                f"(`chmod u+rw {where}`, and its directory), then run again")
    if e.errno == errno.ENOSPC or e.errno == errno.EDQUOT:
        return f"the disk is full (writing {where}): free some space, then `book resume`"
    if e.errno == errno.EROFS:
        return f"{where} is on a read-only file system: work in a writable copy of the workspace"
    if isinstance(e, FileNotFoundError):
        return f"{where} does not exist"
    return f"{where}: {e.strerror or e}"


def unwritable(e: BaseException) -> bool:
    """An OSError that every later write to the same place would meet as well (a read-only
    folder or file system, a full disk): the run stops with one message, no step is failed."""
    import errno

    return isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC,
                                                  errno.EDQUOT)


def _file_in_the_way(p: Path) -> Path | None:
    """The first ancestor of `p` that exists and is not a directory."""
    for a in reversed([p, *p.parents]):
        if a.exists() and not a.is_dir():
            return a
    return None


def refuse_directories(root: Path, rels: list[str]) -> None:
    """PathError (exit 2) when a directory stands where one of these files belongs: a writing
    command checks before it starts, instead of failing on its first write to one of them."""
    from ..errors import PathError as _PathError

    for rel in rels:
        p = root / rel
        if p.is_dir():
            raise _PathError(f"{p} is a directory where a file belongs: move it aside "
                             f"(`mv {p} {p}.dir`), then run again")
