"""Writing files so that a crash at any instant loses nothing.

The final path only ever holds complete content or a person's content: generations stream
into `<file>.partial`, the complete text goes to a temp file that is fsynced and renamed
over the final path, then the directory is fsynced. Nothing is deleted: a file that is
redone is first moved to `<file>.bak.<UTC timestamp>`. Every mutation goes through this
module, which is also what the kill-at-every-write test wraps."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..errors import LockedError, PathError

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


def atomic_write(path: Path, data: str | bytes) -> None:
    """temp → flush → fsync → os.replace → fsync(dir)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    _mutate("write", path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
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
        if not self._fh.closed:
            self._fh.close()

    def retire(self) -> None:
        """The generation was committed: the .partial is no longer needed. It holds
        no one's work (the final file has all of it), so it is removed, not backed up."""
        self.close()
        try:
            _mutate("remove-partial", self.path)
            self.path.unlink()
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------- the lock


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); it is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@dataclass(frozen=True)
class LockOwner:
    """What the holder of the lock wrote into it: only ever used in messages."""

    pid: int | None
    host: str = ""
    started: str = ""
    command: str = ""

    def describe(self) -> str:
        bits = [f"pid {self.pid}" if self.pid else "pid unknown"]
        if self.host:
            bits[0] += f" on host {self.host}"
        if self.started:
            bits.append(f"started {self.started}")
        if self.command:
            bits.append(f"`{self.command}`")
        return ", ".join(bits)


def _parse_owner(text: str) -> LockOwner:
    lines = text.splitlines()
    first = lines[0].split() if lines else []
    try:
        pid = int(first[0]) if first else None
    except ValueError:
        pid = None
    host = first[1] if len(first) > 1 else ""
    fields = dict(line.split(" ", 1) for line in lines[1:] if " " in line)
    return LockOwner(pid, host, fields.get("started", ""), fields.get("command", ""))


class Lock:
    """`output/.lock`, held with an advisory kernel lock (`flock`) for the whole of a writing
    command. The kernel releases it when the holder dies, however it dies, so
    there is no pid check, no takeover and no race: a lock file left by a dead run, or one
    naming a live process that is not a book run, blocks nothing. The pid, host, start time
    and command written into the file are only for the message a second writer gets.

    The file is never unlinked: a taker that had already opened the old file would lock an
    inode no one else will ever open. Release truncates the owner lines and unlocks.

    Within one process the lock is re-entrant (a count per path): `Book.open` takes it and
    the session, a gate decision or `resume --no-run` take it again inside. flock conflicts
    between two opens of the same file even in one process, so without the count a process
    would lock itself out."""

    # realpath -> [fd, depth]: the locks this process holds
    _held: ClassVar[dict[str, list[int]]] = {}
    # How long a taker retries a lock that is busy: a probe (`book scan`) or the watcher's
    # checkpoint refresh holds it for a few milliseconds; a run holds it for minutes.
    RETRY_S: ClassVar[float] = 0.5

    def __init__(self, path: Path, warn=lambda msg: print(msg, file=sys.stderr)):
        self.path = Path(path)
        self.warn = warn
        self.held = False

    def _key(self) -> str:
        return os.path.realpath(self.path)

    def acquire(self, wait: float | None = None) -> None:
        """Take the lock, or LockedError (exit 4) naming the holder. `wait` overrides how long
        a busy lock is retried (0: once)."""
        import fcntl

        if self.held:
            return
        key = self._key()
        mine = Lock._held.get(key)
        if mine is not None:
            mine[1] += 1
            self.held = True
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + (self.RETRY_S if wait is None else wait)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = _read_owner(fd)
                os.close(fd)
                if time.monotonic() >= deadline:
                    raise LockedError(self._message(owner)) from None
                time.sleep(0.02)
                continue
            except BaseException:
                os.close(fd)
                raise
            # A person may have deleted the file between our open and our flock, and another
            # taker created a new one: a lock on a name no one else opens protects nothing.
            try:
                st, now = os.fstat(fd), os.stat(self.path)
                same = (st.st_ino, st.st_dev) == (now.st_ino, now.st_dev)
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        _write_owner(fd)
        Lock._held[key] = [fd, 1]
        self.held = True

    def try_acquire(self) -> bool:
        """Take the lock if no one holds it; False at once (no retry) if someone does."""
        try:
            self.acquire(wait=0)
        except LockedError:
            return False
        return True

    def _message(self, owner: LockOwner | None) -> str:
        who = owner.describe() if owner else "pid unknown"
        return (f"another book run ({who}) is writing this workspace ({self.path}); "
                "wait for it to finish, or stop it first")

    def holder(self) -> LockOwner | None:
        """Who holds the lock now, or None. A non-blocking probe that creates nothing: it
        takes a shared lock for an instant (a taker retries for that long) and lets go."""
        import fcntl

        mine = Lock._held.get(self._key())
        if mine is not None:
            return _read_owner(mine[0])
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None  # no lock file (or not a file): no one can hold it
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return _read_owner(fd) or LockOwner(None)
            except OSError:
                return None
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def live_owner(self) -> int | None:
        """The pid holding the lock (0 when it wrote none yet), or None when no one holds it."""
        owner = self.holder()
        return None if owner is None else (owner.pid or 0)

    def refuse_if_held(self) -> None:
        """LockedError (exit 4) when another process holds the lock."""
        if Lock._held.get(self._key()) is not None:
            return
        owner = self.holder()
        if owner is not None:
            raise LockedError(self._message(owner))

    def owner(self) -> int | None:
        """The pid written in the lock file (whether or not anyone holds it)."""
        try:
            return _parse_owner(self.path.read_text(errors="replace")).pid
        except OSError:
            return None

    def release(self) -> None:
        import fcntl

        if not self.held:
            return
        self.held = False
        key = self._key()
        mine = Lock._held.get(key)
        if mine is None:
            return
        mine[1] -= 1
        if mine[1] > 0:
            return
        del Lock._held[key]
        fd = mine[0]
        try:
            os.ftruncate(fd, 0)  # the owner lines are only true while held
        except OSError:
            pass
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> "Lock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _read_owner(fd: int) -> LockOwner | None:
    try:
        data = os.pread(fd, 4096, 0)
    except OSError:
        return None
    return _parse_owner(data.decode("utf-8", "replace")) if data.strip() else None


def _write_owner(fd: int) -> None:
    """Best effort: a full disk leaves the file empty, and the lock is held all the same."""
    import datetime as _dt
    import socket  # only writers take the lock: keep it off `book scan`'s import path

    started = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    argv = [os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python", *sys.argv[1:]]
    command = " ".join(argv)[:200].replace("\n", " ")
    text = f"{os.getpid()} {socket.gethostname()}\nstarted {started}\ncommand {command}\n".encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text, 0)
    except OSError:
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass


# ---------------------------------------------------------------- explaining OS errors


def explain_os_error(e: OSError) -> str:
    """A file-system error as a person can act on it: the path, what is wrong, what to do.
    Used where an OSError would otherwise reach the person as a traceback."""
    import errno

    path = e.filename if e.filename is not None else None
    if isinstance(e, IsADirectoryError) and e.filename2 is not None:
        path = e.filename2  # os.replace(temp, final): the final path is the directory
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
