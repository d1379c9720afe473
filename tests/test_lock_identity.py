"""One writer even when `output/.lock` is deleted or replaced during a run (issue 22, item 2):
the workspace directory is locked too, so a second run exits 4 whatever became of the lock
file, and the run that holds it locks a new lock file before its next commit."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_example
from lockutil import held_elsewhere

from orchestrator.errors import LockedError
from orchestrator.state.lock import Lock, _Held
from orchestrator.steps import LOCK

BOOK = str(Path(sys.executable).parent / "book")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


def _lose_the_lock_file(lock: Path, how: str) -> None:
    lock.unlink()
    if how == "replaced":
        other = lock.with_name("other")
        other.write_text("12345 elsewhere\n")
        os.replace(other, lock)
    elif how == "made again":
        lock.write_text("")


@pytest.mark.parametrize("how", ["deleted", "replaced", "made again"])
def test_a_second_taker_is_refused_when_the_lock_file_is_gone(tmp_path, how):
    ws = make_example(tmp_path / "ws")
    with held_elsewhere(ws / LOCK):
        _lose_the_lock_file(ws / LOCK, how)
        with pytest.raises(LockedError):
            Lock(ws / LOCK).acquire(wait=0.1)
        assert Lock(ws / LOCK).holder() is not None  # `book scan` and the watcher see it held, too
        if how == "deleted":
            assert not (ws / LOCK).exists()  # the refused taker created nothing


@pytest.mark.slow
def test_the_holder_locks_a_new_lock_file_before_its_next_commit(tmp_path):
    ws = make_example(tmp_path / "ws")
    said: list[str] = []
    lock = Lock(ws / LOCK, warn=said.append)
    lock.acquire()
    try:
        _lose_the_lock_file(ws / LOCK, "replaced")
        Lock.verify_held()
        assert said and "locked again" in said[0]
        assert (ws / LOCK).read_text().split()[0] == str(os.getpid())  # its owner lines name this run
        out = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                              "from orchestrator.state.lock import Lock; print(Lock(Path(sys.argv[1])).holder())",
                              str(ws / LOCK)], capture_output=True, text=True, check=True)
        assert str(os.getpid()) in out.stdout
    finally:
        lock.release()
    assert Lock(ws / LOCK).holder() is None


def test_without_directory_locks_a_changed_lock_file_stops_the_run(tmp_path):
    ws = make_example(tmp_path / "ws")
    lock = Lock(ws / LOCK)
    lock.acquire()
    try:
        held = Lock._held[lock._key()]
        if held.dir_fd is not None:  # as on a file system without directory locks
            os.close(held.dir_fd)
            Lock._held[lock._key()] = _Held(held.fd, None, held.path, held.warn)
        (ws / LOCK).unlink()
        with pytest.raises(LockedError, match="another run may be writing"):
            Lock.verify_held()
    finally:
        lock.release()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["deleted", "replaced", "made again"])
def test_a_second_book_run_exits_4_with_the_lock_file_deleted_or_replaced_mid_run(tmp_path, how):
    """The issue's repro: `book run &`, the lock file removed (or replaced) while it runs, `book run`."""
    ws = make_example(tmp_path / "ws")
    e = dict(_env(), BOOK_OFFLINE_LATENCY="0.2")
    first = subprocess.Popen([BOOK, "run", "-q", "--workspace", str(ws)], env=e,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lock = ws / LOCK
    deadline = time.monotonic() + 60
    while not (lock.exists() and lock.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.7)
    assert first.poll() is None
    _lose_the_lock_file(lock, how)
    second = subprocess.run([BOOK, "run", "-q", "--workspace", str(ws)], env=e, capture_output=True, text=True)
    assert second.returncode == 4, second.stderr
    assert "another book run" in second.stderr
    assert first.poll() is None  # refused while the first still ran
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert "locked again" in err
    from orchestrator.state.book import Book

    book = Book.open(ws, repair=False)
    try:
        assert len(book.ledger.events(type="run_start")) == 1
    finally:
        book.close()
