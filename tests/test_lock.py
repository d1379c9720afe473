"""The lock (DESIGN §3, issue 15): an advisory kernel lock on `output/.lock` held for a whole
writing command. The kernel releases a dead holder's lock; a lock file's text (a stale pid,
pid 1) blocks nothing; a second writer gets exit 4 with the holder's pid, host, start time and
command, and changes nothing; many processes racing on one workspace give one writer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_example
from lockutil import held_elsewhere, wait_until_free

from orchestrator.errors import LockedError
from orchestrator.state import fsio
from orchestrator.state.fsio import Lock, atomic_write
from orchestrator.steps import LOCK

BOOK = str(Path(sys.executable).parent / "book")


def snapshot_tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


# ---------------------------------------------------------------- the primitive


def test_lock_records_its_owner_and_release_keeps_the_file(tmp_path):
    path = tmp_path / "output/.lock"
    with Lock(path) as lock:
        assert lock.held
        first, *rest = path.read_text().splitlines()
        assert first == f"{os.getpid()} {os.uname().nodename}"
        assert rest[0].startswith("started ") and rest[1].startswith("command ")
        owner = Lock(path).holder()
        assert owner is not None and owner.pid == os.getpid()
        ino = path.stat().st_ino
    # never unlinked (a taker who opened the old file would lock an orphan); only emptied
    assert path.exists() and path.read_text() == "" and path.stat().st_ino == ino
    assert Lock(path).holder() is None


def test_a_second_process_is_refused_with_the_holders_details(tmp_path):
    path = tmp_path / "output/.lock"
    with held_elsewhere(path) as holder:
        before = path.read_bytes()
        t0 = time.monotonic()
        with pytest.raises(LockedError) as e:
            Lock(path).acquire()
        assert time.monotonic() - t0 < 3  # a short retry, then a clear refusal
        msg = str(e.value)
        assert e.value.exit_code == 4
        assert f"another book run (pid {holder.pid} on host {os.uname().nodename}, started " in msg
        assert str(path) in msg and "`" in msg  # the command that holds it
        assert path.read_bytes() == before
        assert Lock(path).live_owner() == holder.pid
        assert not Lock(path).try_acquire()
    assert wait_until_free(path)
    lock = Lock(path)
    assert lock.try_acquire()
    lock.release()


@pytest.mark.parametrize("content", ["999999 vm\n", "1 host\n", "{me} host\n", "", "garbage\n", "-5\n"])
def test_a_lock_files_text_blocks_nothing(tmp_path, content):
    """A stale pid, pid 1 (alive, not a book run), even our own pid written by hand: only the
    kernel's lock counts."""
    path = tmp_path / "output/.lock"
    path.parent.mkdir()
    path.write_text(content.format(me=os.getpid()))
    assert Lock(path).holder() is None
    warnings: list[str] = []
    lock = Lock(path, warn=warnings.append)
    lock.acquire()
    assert lock.held and warnings == []
    assert Lock(path).owner() == os.getpid()
    lock.release()
    assert sorted(p.name for p in path.parent.iterdir()) == [".lock"]  # no stale leftovers


def test_the_kernel_releases_a_killed_holders_lock(tmp_path):
    path = tmp_path / "output/.lock"
    with held_elsewhere(path) as holder:
        assert Lock(path).holder() is not None
        holder.kill()
        holder.wait()
        t0 = time.monotonic()
        lock = Lock(path)
        lock.acquire()  # at once: no pid check, no takeover
        assert time.monotonic() - t0 < 1
        lock.release()


@pytest.mark.slow
def test_the_lock_is_reentrant_within_a_process(tmp_path):
    path = tmp_path / "output/.lock"
    outer, inner = Lock(path), Lock(path)
    outer.acquire()
    inner.acquire()
    inner.release()
    probe = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from orchestrator.state.fsio import Lock; "
                            "sys.exit(0 if Lock(Path(sys.argv[1])).try_acquire() else 4)", str(path)])
    assert probe.returncode == 4  # the outer hold is still there
    outer.release()
    assert Lock(path).holder() is None


def test_probing_creates_nothing(tmp_path):
    assert Lock(tmp_path / "output/.lock").holder() is None
    assert Lock(tmp_path / "output/.lock").live_owner() is None
    assert list(tmp_path.iterdir()) == []


_RACER = """
import os, sys, time
from pathlib import Path
from orchestrator.errors import LockedError
from orchestrator.state.fsio import Lock
path, record, start = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
while time.time() < start:
    time.sleep(0.001)
try:
    Lock(path).acquire()
except LockedError:
    sys.exit(4)
with open(record, "a") as fh:  # O_APPEND: each winner records itself
    fh.write(f"{os.getpid()}\\n")
sys.stdin.read()  # hold the lock until every racer has decided (the test closes our stdin)
sys.exit(0)
"""


@pytest.mark.slow
def test_eight_processes_racing_on_a_stale_lock_give_one_writer_twelve_times(tmp_path):
    """Each winner holds the lock until all eight have decided, so two winners would be two
    writers at once, never one after the other."""
    for trial in range(12):
        ws = tmp_path / f"t{trial}"
        path = ws / "output/.lock"
        path.parent.mkdir(parents=True)
        path.write_text("999999 vm\n")  # a stale lock file, as a killed run leaves
        record = ws / "winners"
        start = time.time() + 0.8
        procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(path), str(record), str(start)],
                                  stdin=subprocess.PIPE) for _ in range(8)]
        deadline = time.monotonic() + 60
        while sum(p.poll() is not None for p in procs) < 7 and time.monotonic() < deadline:
            time.sleep(0.05)
        winners = record.read_text().split() if record.exists() else []
        for p in procs:
            p.stdin.close()
        codes = sorted(p.wait(timeout=60) for p in procs)
        assert len(winners) == 1, (trial, winners, codes)
        assert codes == [0] + [4] * 7, (trial, codes)


# ---------------------------------------------------------------- the commands


@pytest.fixture
def ws(tmp_path) -> Path:
    w = make_example(tmp_path / "ws")
    (w / "output").mkdir()
    return w


@pytest.mark.slow
def test_book_run_under_another_holder_exits_4_and_changes_nothing(ws):
    from orchestrator.state.ledger import Ledger

    Ledger.open(ws / "output/.book/state.db").close()
    with held_elsewhere(ws / LOCK) as holder:
        before = snapshot_tree(ws)
        for verb in ("run", "resume", "redo ch01 draft"):
            proc = subprocess.run([BOOK, *verb.split(), "--workspace", str(ws)], capture_output=True, text=True,
                                  env=env(), timeout=60)
            assert proc.returncode == 4, (verb, proc.stderr)
            assert f"another book run (pid {holder.pid}" in proc.stderr and proc.stdout == ""
        assert snapshot_tree(ws) == before


def test_book_run_in_process_under_another_holder_creates_nothing(ws, monkeypatch, capsys):
    from test_config import run_main

    with held_elsewhere(ws / LOCK):
        before = snapshot_tree(ws)
        code, _, err = run_main(monkeypatch, capsys, "run", "--workspace", str(ws))
        assert code == 4 and "another book run" in err
        assert snapshot_tree(ws) == before


@pytest.mark.slow
def test_scan_rebuild_under_another_holder_exits_4_and_changes_no_file(ws):
    from orchestrator.testing.helpers import run_book

    assert run_book(ws)[0] == 0
    (ws / "output/memory/checkpoint.md").unlink()  # something --rebuild would rewrite
    with held_elsewhere(ws / LOCK) as holder:
        before = snapshot_tree(ws)
        proc = subprocess.run([BOOK, "scan", "--rebuild", "--workspace", str(ws)], capture_output=True, text=True,
                              env=env(), timeout=60)
        assert proc.returncode == 4, proc.stderr
        assert f"pid {holder.pid}" in proc.stderr
        assert snapshot_tree(ws) == before
        plain = subprocess.run([BOOK, "scan", "--json", "--workspace", str(ws)], capture_output=True, text=True,
                               env=env(), timeout=60)
        assert plain.returncode == 0  # reading needs no lock
    proc = subprocess.run([BOOK, "scan", "--rebuild", "--workspace", str(ws)], capture_output=True, text=True,
                          env=env(), timeout=60)
    assert proc.returncode == 0 and (ws / "output/memory/checkpoint.md").exists()


@pytest.mark.slow
def test_a_gate_decision_under_another_holder_exits_4(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal")
    from orchestrator.testing.helpers import run_book

    assert run_book(ws)[0] == 3  # waits at the outline gate
    with held_elsewhere(ws / LOCK):
        before = snapshot_tree(ws)
        proc = subprocess.run([BOOK, "approve", "outline", "--workspace", str(ws)], capture_output=True, text=True,
                              env=env(), timeout=60)
        assert proc.returncode == 4, proc.stderr
        assert snapshot_tree(ws) == before


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_watch_skips_its_checkpoint_refresh_while_another_process_holds_the_lock(ws):
    from orchestrator.testing.helpers import run_book
    from orchestrator.watch import Watcher, lock_held

    assert run_book(ws)[0] == 0
    cp = ws / "output/memory/checkpoint.md"
    cp.write_text("stale\n")
    import io

    from orchestrator.state.book import Book

    book = Book.open(ws, require_config=False, repair=False)
    w = Watcher(book, True, io.StringIO(), io.StringIO())
    try:
        with held_elsewhere(ws / LOCK):
            assert lock_held(ws)
            assert w.refresh_checkpoint() is False
            assert cp.read_text() == "stale\n"
        assert not lock_held(ws)
        assert w.refresh_checkpoint() is True
        assert cp.read_text() != "stale\n"
        assert Lock(ws / LOCK).holder() is None  # held only for the instant of the write
    finally:
        w.close()
        book.close()


@pytest.mark.slow
def test_eight_book_runs_at_once_on_a_stale_lock_give_one_writer(tmp_path):
    """The full commands: one run writes the book, the seven others exit 4 having written nothing
    (the ledger has one run_start)."""
    ws = make_example(tmp_path / "ws")
    (ws / "output").mkdir()
    (ws / LOCK).write_text("999999 vm\n")
    e = dict(env(), BOOK_OFFLINE_LATENCY="0.05")
    procs = [subprocess.Popen([BOOK, "run", "-q", "--workspace", str(ws)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=e) for _ in range(8)]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    results = [(p.returncode, err) for p, err in zip(procs, errs)]
    codes = sorted(c for c, _ in results)
    assert codes == [0] + [4] * 7, results
    from orchestrator.state.book import Book

    book = Book.open(ws, repair=False)
    try:
        assert len(book.ledger.events(type="run_start")) == 1
    finally:
        book.close()


# ---------------------------------------------------------------- signals


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
@pytest.mark.slow
def test_a_signal_stops_a_run_cleanly_and_releases_the_lock(tmp_path, sig):
    from orchestrator.state.book import Book
    from orchestrator.testing.helpers import run_book

    ws = make_example(tmp_path / "ws")
    proc = subprocess.Popen([BOOK, "run", "--workspace", str(ws)], stderr=subprocess.PIPE, text=True,
                            env=dict(env(), BOOK_OFFLINE_LATENCY="0.3"))
    deadline = time.time() + 30
    while time.time() < deadline and not list((ws / "output").rglob("*.partial")):
        time.sleep(0.05)
    t0 = time.time()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=10)
    assert time.time() - t0 < 5
    assert proc.returncode == 130 and f"interrupted by {sig.name}" in err
    assert Lock(ws / LOCK).holder() is None  # released (the kernel would have, too)
    assert "interrupted" in (ws / "RESUME.md").read_text()
    assert (ws / "output/memory/checkpoint.md").exists()
    book = Book.open(ws)
    try:
        assert book.ledger.events(type="interrupted")
    finally:
        book.close()
    assert not [p for p in ws.rglob("*") if ".tmp." in p.name or ".lock." in p.name]
    code, _ = run_book(ws, resume=True)  # a new run starts at once
    assert code == 0


@pytest.mark.slow
def test_sighup_before_the_run_starts_still_exits_cleanly(tmp_path):
    """Outside the event loop (opening the workspace, reconciling) SIGHUP raises, `finally`
    blocks run, and the exit code says which signal."""
    ws = make_example(tmp_path / "ws")
    code = ("import os, signal, sys; from orchestrator.signals import install, Terminated\n"
            "install()\n"
            "try:\n    os.kill(os.getpid(), signal.SIGHUP)\nexcept Terminated as e:\n    sys.exit(128 + e.signum)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ws, timeout=30)
    assert proc.returncode == 128 + signal.SIGHUP


# ---------------------------------------------------------------- temp files of a failed write


def test_a_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    import errno

    p = tmp_path / "d/RESUME.md"
    atomic_write(p, "old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fsio.os, "fsync", full)
    with pytest.raises(OSError):
        atomic_write(p, "new " * 1000)
    monkeypatch.undo()
    assert p.read_text() == "old"
    assert sorted(x.name for x in p.parent.iterdir()) == ["RESUME.md"]
