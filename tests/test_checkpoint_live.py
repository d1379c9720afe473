"""checkpoint.md during and after a run: coalesced (a few writes a second at most, not two per
step), written at once at the end of a run and at a gate stop, and always exactly what
`book scan --rebuild` writes for the same files (apart from its "Last updated" time)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.state import fsio
from orchestrator.state.board import CheckpointWriter
from orchestrator.testing.helpers import make_example, run_book

CHECKPOINT = "output/memory/checkpoint.md"
TIME_LINE = re.compile(r"^(Last updated|最后更新): .*$", re.M)


def _rebuilt(ws: Path) -> str:
    """What `book scan --rebuild` writes, run as a person would run it."""
    proc = subprocess.run([str(Path(sys.executable).parent / "book"), "scan", "--rebuild", "--workspace", str(ws)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return (ws / CHECKPOINT).read_text(encoding="utf-8")


def _same_but_time(a: str, b: str) -> None:
    assert TIME_LINE.search(a) and TIME_LINE.search(b)
    assert TIME_LINE.sub("", a) == TIME_LINE.sub("", b)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_after_a_run_checkpoint_is_what_scan_rebuild_writes(tmp_path, monkeypatch):
    ws = make_example(tmp_path / "ws")
    writes: list[Path] = []
    monkeypatch.setattr(fsio, "mutation_hook", lambda kind, p: writes.append(Path(p)) if kind == "write" else None)
    code, summary = run_book(ws)
    assert code == 0
    after_run = (ws / CHECKPOINT).read_text(encoding="utf-8")
    steps = len(summary.outcomes)
    ckpt_writes = sum(1 for p in writes if p.name == "checkpoint.md")
    # before: two full rewrites per step that ran; now coalesced into a few per second
    assert 1 <= ckpt_writes < steps, (ckpt_writes, steps)
    _same_but_time(after_run, _rebuilt(ws))


def test_a_gate_stop_leaves_the_checkpoint_current(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal")
    code, summary = run_book(ws)
    assert code == 3 and summary.waiting  # stopped at the outline gate
    text = (ws / CHECKPOINT).read_text(encoding="utf-8")
    assert "✋ " in text and "需人工" not in text and summary.waiting[0] in text  # the card, named where a person looks
    _same_but_time(text, _rebuilt(ws))


class _Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_writer_coalesces_requests_and_keeps_the_last(tmp_path, monkeypatch):
    written: list[dict] = []
    monkeypatch.setattr("orchestrator.state.board.write_checkpoint", lambda book, live=None: written.append(live))

    async def scenario() -> None:
        w = CheckpointWriter(object(), interval=0.05)
        clock = _Clock()
        w.clock = clock
        w.request({("ch01", "draft"): "running"})  # the first is written at once
        assert len(written) == 1
        for i in range(20):  # a burst within the interval: none written yet, one deferred write pending
            w.request({("ch01", "draft"): "running", ("ch02", "draft"): f"r{i}"})
        assert len(written) == 1 and w.timer is not None
        clock.t += 1.0
        await asyncio.sleep(0.1)  # the timer fires: the last request, not a stale one, is written
        assert len(written) == 2 and written[-1][("ch02", "draft")] == "r19"
        w.request({}, force=True)  # forced (end of run, signal, gate): at once, even within the interval
        assert len(written) == 3 and written[-1] == {}
        w.close()

    asyncio.run(scenario())


def test_a_failed_write_is_retried_by_the_next_flush(monkeypatch):
    calls: list[dict] = []

    def flaky(book, live=None):
        calls.append(live)
        if len(calls) == 1:
            raise OSError("disk full")

    monkeypatch.setattr("orchestrator.state.board.write_checkpoint", flaky)
    w = CheckpointWriter(object())
    try:
        w.request({("ch01", "draft"): "running"}, force=True)
    except OSError:
        pass
    w.flush()
    assert calls == [{("ch01", "draft"): "running"}] * 2
