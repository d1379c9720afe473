"""Stops within a second in every phase, with a message that says what really comes next, and
derived files that are the same between identical runs (issue 39, item 6).

SIGINT, SIGTERM and SIGHUP sent to a real `book` process during `book run` (chapters being
written), `book resume`, the publish phase (pages being rendered: the rendering runs off the
loop's thread, so a signal is not held up by it) and `book export`: the process exits within a
second, the lock is free, and the message is true (`book resume` continues a run; an export is
built again by `book export`, never by `book resume`), which the test then checks by doing it."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_example, scan

BOOK = str(Path(sys.executable).parent / "book")
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    ws = make_example(tmp_path_factory.mktemp("built") / "ws")
    proc = subprocess.run([BOOK, "run", "-q", "--workspace", str(ws)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return ws


def lock_free(ws: Path) -> bool:
    fd = os.open(ws / "output/.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def partial_exists(ws: Path) -> bool:
    return any((ws / "output").rglob("*.partial"))


def prepare(phase: str, built: Path, ws: Path) -> tuple[list[str], object]:
    """Copy the built book into `ws` and make the work `phase` does; (argv, the condition that
    says the phase is under way)."""
    shutil.copytree(built, ws, symlinks=True)
    if phase == "run":
        shutil.rmtree(ws / "output")
        return ["run"], partial_exists
    if phase == "resume":
        for f in (ws / "output/chapters/final").glob("ch0[3-8]-final.md"):
            f.unlink()
        return ["resume"], partial_exists
    if phase == "publish":
        shutil.rmtree(ws / "output/publish")
        return ["run"], lambda w: (w / "output/publish").is_dir()
    return ["export", "--epub", "--pdf"], lambda w: (w / "output/export/book.epub").exists()


@pytest.mark.slow
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
@pytest.mark.parametrize("phase", ["run", "resume", "publish", "export"])
def test_a_signal_in_any_phase_stops_within_a_second_with_a_true_message(built, tmp_path, phase, sig):
    ws = tmp_path / "ws"
    argv, under_way = prepare(phase, built, ws)
    env = dict(os.environ, BOOK_OFFLINE_LATENCY="0.3")  # model steps take a while: the signal lands in one
    proc = subprocess.Popen([BOOK, *argv, "--workspace", str(ws)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not under_way(ws) and proc.poll() is None and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.005)
    assert proc.poll() is None, f"{phase} ended before the signal: {proc.stderr.read() if proc.stderr else ''}"
    t0 = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    took = time.monotonic() - t0
    assert took < 1.0, (phase, sig.name, took, err)
    assert proc.returncode in (130, 128 + sig), err
    assert lock_free(ws)
    assert "Traceback" not in err and "interrupted" in err, err
    if phase == "export":
        assert "book resume" not in err and "`book export`" in err, err
        again = subprocess.run([BOOK, *argv, "--workspace", str(ws)], capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, again.stderr  # what the message said: `book export` builds it
        assert (ws / "output/export/book.pdf").exists() and (ws / "output/export/book.epub").exists()
    else:
        assert "`book resume` continues" in err, err
        again = subprocess.run([BOOK, "resume", "-q", "--workspace", str(ws)], capture_output=True, text=True,
                               timeout=600)
        assert again.returncode == 0, again.stderr  # and it does
        assert scan(ws)["complete"]


@pytest.mark.slow
def test_two_identical_runs_publish_the_same_bytes(built, tmp_path):
    other = make_example(tmp_path / "other")
    proc = subprocess.run([BOOK, "run", "-q", "--workspace", str(other)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    a, b = built / "output/publish", other / "output/publish"
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    differ = [str(n) for n in names if (a / n).read_bytes() != (b / n).read_bytes()]
    assert differ == []
