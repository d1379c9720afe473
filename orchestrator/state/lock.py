"""The one-writer lock: an advisory kernel lock (`flock`) held for the whole of a writing command.

Two locks, taken in this order: the workspace directory itself, then `output/.lock`. The kernel
releases both when the holder dies, however it dies, so there is no pid check, no takeover and
no race. The directory lock is the one a person cannot take away: `output/.lock` can be deleted
or replaced while a run holds it (a second run would then lock a new file and write beside the
first), the workspace directory cannot be while the command works in it. The lock file carries
the pid, host, start time and command for the message a second writer gets, and is what older
runs and file systems without directory locks (some network ones) rely on: there, a lock file
that changed under a run (`verify_held`, before each commit) stops it."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from ..errors import LockedError
from ..steps import LOCK


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


def anchor_of(path: Path) -> Path | None:
    """The directory locked with a lock file: the workspace for `output/.lock`, else none."""
    p = Path(os.path.abspath(path))
    return p.parents[len(Path(LOCK).parts) - 1] if p.as_posix().endswith("/" + LOCK) else None


# The kernel stamps a file's mtime from its coarse clock (a tick, ~4 ms, behind time.time_ns()),
# so "saved since the command started" compares an mtime with that same clock read at the start:
# a save after the start then never looks older than it (one in the tick before looks the same
# age, and counts as during the command: kept for its author, the safe side).
_COARSE_CLOCK = getattr(time, "CLOCK_REALTIME_COARSE", 5 if sys.platform.startswith("linux") else None)
_command_start: int | None = None


def fs_clock_ns() -> int:
    """Now, on the clock file modification times are stamped from (never ahead of them)."""
    if _COARSE_CLOCK is not None:
        try:
            return time.clock_gettime_ns(_COARSE_CLOCK)
        except OSError:
            pass
    return time.time_ns() - 10_000_000  # a clock without a coarse variant: a tick's margin


def mark_command_start(when: int | None = None) -> int | None:
    """The console script's first instant (`when`; None clears it): what a command that later takes
    the workspace counts its person's saves from, not from when it took the lock. Returns the old mark."""
    global _command_start
    before, _command_start = _command_start, when
    return before


def command_start() -> int:
    """When the command began: the console script's mark, else now (a command run in-process)."""
    return _command_start if _command_start is not None else fs_clock_ns()


class _Held:
    """This process's hold of one lock: the lock file's fd, the directory's fd (None where the
    file system has no directory locks), how many takers share it."""

    def __init__(self, fd: int, dir_fd: int | None, path: Path, warn):
        self.fd, self.dir_fd, self.path, self.warn, self.depth = fd, dir_fd, path, warn, 1


class Lock:
    """`output/.lock` (and its workspace directory), held for the whole of a writing command.

    The file is never unlinked: a taker that had already opened the old file would lock an
    inode no one else will ever open. Release truncates the owner lines and unlocks.

    Within one process the lock is re-entrant (a count per path): `Book.open` takes it and
    the session, a gate decision or `resume --no-run` take it again inside. flock conflicts
    between two opens of the same file even in one process, so without the count a process
    would lock itself out."""

    # realpath -> the hold: the locks this process holds
    _held: ClassVar[dict[str, _Held]] = {}
    # How long a taker retries a lock that is busy: a probe (`book scan`) or the watcher's
    # checkpoint refresh holds it for a few milliseconds; a run holds it for minutes.
    RETRY_S: ClassVar[float] = 0.5

    def __init__(self, path: Path, warn=lambda msg: print(msg, file=sys.stderr), anchor: Path | None = None):
        self.path = Path(path)
        self.anchor = anchor if anchor is not None else anchor_of(self.path)
        self.warn = warn
        self.held = False

    def _key(self) -> str:
        return os.path.realpath(self.path)

    def acquire(self, wait: float | None = None) -> None:
        """Take the lock, or LockedError (exit 4) naming the holder. `wait` overrides how long
        a busy lock is retried (0: once)."""
        if self.held:
            return
        key = self._key()
        mine = Lock._held.get(key)
        if mine is not None:
            mine.depth += 1
            self.held = True
            return
        deadline = time.monotonic() + (self.RETRY_S if wait is None else wait)
        dir_fd = self._lock_dir(deadline)  # first: a run refused here has created nothing
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = self._lock_file(deadline)
        except BaseException:
            if dir_fd is not None:
                os.close(dir_fd)
            raise
        _write_owner(fd)
        Lock._held[key] = _Held(fd, dir_fd, self.path, self.warn)
        self.held = True

    def _lock_dir(self, deadline: float) -> int | None:
        """flock the workspace directory; None where directories cannot be locked."""
        import fcntl

        if self.anchor is None:
            return None
        try:
            fd = os.open(self.anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockedError(self._message(self._owner_of_file())) from None
                time.sleep(0.02)
            except OSError:  # no directory locks here (a network file system): the file's alone
                os.close(fd)
                return None
            except BaseException:
                os.close(fd)
                raise

    def _lock_file(self, deadline: float) -> int:
        import fcntl

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
            if _same_file(fd, self.path):
                return fd
            os.close(fd)

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

    def _owner_of_file(self) -> LockOwner | None:
        try:
            return _parse_owner(self.path.read_text(errors="replace")) if self.path.stat().st_size else None
        except OSError:
            return None

    def holder(self) -> LockOwner | None:
        """Who holds the lock now, or None. A non-blocking probe that creates nothing: it
        takes a shared lock for an instant (a taker retries for that long) and lets go."""
        mine = Lock._held.get(self._key())
        if mine is not None:
            return _read_owner(mine.fd)
        if self.anchor is not None and _busy(str(self.anchor), os.O_RDONLY | os.O_DIRECTORY):
            return self._owner_of_file() or LockOwner(None)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None  # no lock file (or not a file): no one can hold it
        try:
            return (_read_owner(fd) or LockOwner(None)) if _busy_fd(fd) else None
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

    @staticmethod
    def verify_held() -> None:
        """Before a commit: is every lock this process holds still the lock? A lock file deleted
        or replaced meanwhile is made again while the directory lock keeps the workspace ours;
        without one (no directory locks here) another run may be writing: LockedError, exit 4."""
        for key, h in list(Lock._held.items()):
            if _same_file(h.fd, h.path):
                continue
            if h.dir_fd is None:
                raise LockedError(f"{h.path} was deleted or replaced while this run held it, and this file system "
                                  "has no directory locks: another run may be writing the workspace now, so this "
                                  "one stops; `book resume` continues once no other run is going")
            Lock._held[key] = _retake(h)


    def release(self) -> None:
        import fcntl

        if not self.held:
            return
        self.held = False
        key = self._key()
        mine = Lock._held.get(key)
        if mine is None:
            return
        mine.depth -= 1
        if mine.depth > 0:
            return
        del Lock._held[key]
        try:
            os.ftruncate(mine.fd, 0)  # the owner lines are only true while held
        except OSError:
            pass
        try:
            fcntl.flock(mine.fd, fcntl.LOCK_UN)
        finally:
            os.close(mine.fd)
            if mine.dir_fd is not None:
                os.close(mine.dir_fd)  # closing the last fd releases the flock

    def __enter__(self) -> Lock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _retake(h: _Held) -> _Held:
    """The lock file went (or another took its place) while the directory lock is ours: lock the
    file at the path again, so its owner lines name this run and an older run is refused too."""
    import fcntl

    h.path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(h.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        owner = _read_owner(fd)
        os.close(fd)
        raise LockedError(f"{h.path} was replaced while this run held it, and another process ("
                          f"{owner.describe() if owner else 'pid unknown'}) locks the new file: "
                          "this run stops so that only one writes; `book resume` continues") from None
    except BaseException:
        os.close(fd)
        raise
    _write_owner(fd)
    os.close(h.fd)
    try:
        h.warn(f"warning: {h.path} was deleted or replaced during this run; it is locked again "
               "(the workspace directory stayed locked: no other run could start)")
    except OSError:
        pass
    h.fd = fd
    return h


def _same_file(fd: int, path: Path) -> bool:
    try:
        st, now = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (st.st_ino, st.st_dev) == (now.st_ino, now.st_dev)


def _busy(path: str, flags: int) -> bool:
    try:
        fd = os.open(path, flags | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return _busy_fd(fd)
    finally:
        os.close(fd)


def _busy_fd(fd: int) -> bool:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


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

    started = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
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
