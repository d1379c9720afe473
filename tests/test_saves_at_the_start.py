"""A person's save in the first moments of a run (issue 22, item 1): between `book run` starting
and taking the workspace's lock, or in the clock's tick after, it is kept in place like a save
at any other instant of the run, whatever the recovery strategy; a half-finished file from
before the command is still recovered as before (backed up and redone, or continued)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.state.lock import Lock, command_start, fs_clock_ns, mark_command_start
from orchestrator.steps import STEPS
from orchestrator.testing.helpers import run_book

HALF_WRITTEN = "# Chapter two, as a person writes it\n\nThe store keeps its keys in a dictionary, and the person is typing the rest of"
PASTED = "# Chapter two, pasted whole\n\nThe store keeps its keys in a dictionary. The person pasted this chapter; it ends here.\n"


def _baks_holding(path: Path, text: str) -> list[Path]:
    return [b for b in path.parent.glob(path.name + ".bak*") if b.read_text(encoding="utf-8") == text]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.parametrize("strategy", ["conservative", "aggressive"])
@pytest.mark.parametrize("when", ["before the lock", "after the lock"])
@pytest.mark.parametrize("text", [HALF_WRITTEN, PASTED], ids=["half-written", "pasted"])
def test_a_save_as_the_run_opens_the_workspace_is_kept(built_ws: Path, monkeypatch, strategy: str, when: str, text: str):
    draft = built_ws / STEPS["draft"].file("ch02")
    draft.unlink()  # the run will write this draft: the person saves theirs first
    acquire = Lock.acquire
    saved: list[str] = []

    def at_the_lock(self, wait=None):
        if when == "before the lock" and not saved:
            draft.write_text(text, encoding="utf-8")
            saved.append(text)
        acquire(self, wait)
        if when == "after the lock" and not saved:
            draft.write_text(text, encoding="utf-8")
            saved.append(text)

    monkeypatch.setattr(Lock, "acquire", at_the_lock)
    code, summary = run_book(built_ws, strategy=strategy)
    assert saved and draft.read_text(encoding="utf-8") == text
    assert _baks_holding(draft, text) == []
    assert not Path(str(draft) + ".partial").exists() or Path(str(draft) + ".partial").read_text() != text
    assert code == 3 and "ch02" in summary.needs_human  # the draft waits for its author: accept or redo
    assert "book accept ch02 draft" in summary.needs_human["ch02"]


def test_a_half_finished_file_from_before_the_command_is_still_recovered(built_ws: Path):
    """A crash's leftover (a cut-short text, no marker) saved before the command began: backed up
    and redone by the default strategy, as the design says; only saves during the command are kept."""
    draft = built_ws / STEPS["draft"].file("ch02")
    draft.write_text(HALF_WRITTEN, encoding="utf-8")
    then = fs_clock_ns() - 2_000_000_000
    os.utime(draft, ns=(then, then))  # an earlier session's file
    code, _ = run_book(built_ws)
    assert code == 0
    assert "DRAFT_COMPLETE" in draft.read_text(encoding="utf-8")
    assert len(_baks_holding(draft, HALF_WRITTEN)) == 1  # kept, never lost


def test_the_start_is_on_the_clock_that_stamps_files():
    """A file saved after the command's start never has an older mtime (the kernel stamps files
    from its coarse clock, a tick behind time.time_ns())."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for i in range(500):
            start = fs_clock_ns()
            p = Path(d) / f"f{i}"
            p.write_text("x")
            assert p.stat().st_mtime_ns >= start
            p.unlink()


def test_the_console_script_marks_its_start_and_clears_it():
    assert mark_command_start(123) is None
    try:
        assert command_start() == 123
    finally:
        assert mark_command_start(None) == 123
    assert command_start() != 123


def test_a_redo_asked_for_backs_the_person_s_file_up_and_says_so(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    draft = built_ws / STEPS["draft"].file("ch02")
    draft.write_text(PASTED, encoding="utf-8")  # the person's own draft, then they ask for a fresh one
    proc = run_cli("redo", "ch02", "draft", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    baks = _baks_holding(draft, PASTED)
    assert len(baks) == 1 and baks[0].name in proc.stderr and "redone as asked" in proc.stderr
