"""Writing files so that a crash at any instant loses nothing (DESIGN §3).

The final path only ever holds complete content or a person's content: generations stream
into `<file>.partial`, the complete text goes to a temp file that is fsynced and renamed
over the final path, then the directory is fsynced. Nothing is deleted: a file that is
redone is first moved to `<file>.bak.<UTC timestamp>`. Every mutation goes through this
module, which is also what the kill-at-every-write test wraps."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
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


class Lock:
    """`output/.lock` holding the writer's pid. A live owner → LockedError (exit 4);
    a dead owner's lock is taken over with a warning."""

    def __init__(self, path: Path, warn=lambda msg: print(msg, file=sys.stderr)):
        self.path = path
        self.warn = warn
        self.held = False

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        import socket  # only writers take the lock: keep it off `book scan`'s import path

        me = f"{os.getpid()} {socket.gethostname()}\n".encode()
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                owner = self.owner()
                self.refuse_if_held()
                stale = self.path.with_name(f".lock.stale.{os.getpid()}")
                try:
                    os.replace(self.path, stale)  # atomic: only one taker wins
                except FileNotFoundError:
                    continue
                self.warn(f"warning: taking over the lock left by a process that is gone (pid {owner})")
                stale.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "wb") as fh:
                fh.write(me)
                fh.flush()
                os.fsync(fh.fileno())
            self.held = True
            return
        raise LockedError(f"could not take the lock {self.path}; is another run starting right now?")

    def live_owner(self) -> int | None:
        """The pid holding the lock, if that process is alive."""
        owner = self.owner()
        return owner if owner is not None and pid_alive(owner) else None

    def refuse_if_held(self) -> None:
        """LockedError (exit 4) when another live process holds the lock."""
        owner = self.live_owner()
        if owner is not None:
            raise LockedError(f"another book run (pid {owner}) is writing this workspace ({self.path}); "
                              "wait for it to finish, or stop it first")

    def owner(self) -> int | None:
        try:
            return int(self.path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def release(self) -> None:
        if self.held and self.owner() == os.getpid():
            self.path.unlink(missing_ok=True)
        self.held = False

    def __enter__(self) -> "Lock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
