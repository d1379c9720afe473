"""A full disk at any point of a run wedges nothing (issue 39, item 2): the whole workspace on a
small tmpfs, filled but for a different amount of space each time, `book run` through the fake
Messages API stops where the space ends; once space is freed, `book resume` finishes the book with
the same chapters as a run that was never stopped, and no later command fails on what the stop
left (a row left "started", a journal line without its ledger row, a half-written file)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_example
from test_ledger_faults import tiny_mount

from orchestrator.state.markers import read_marker
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.role_answers import answer

BOOK = str(Path(sys.executable).parent / "book")
# KB left free: from the first ledger write to the last published page (a book's output is ~1.2 MB)
FREE_KB = [8, 24, 48, 80, 120, 160, 220, 280, 350, 430, 520, 620, 740, 880, 1050]


def finals(ws: Path) -> dict[str, str]:
    """Each final chapter's body (the text before its marker line, which names its run)."""
    out = {}
    for p in sorted((ws / "output/chapters/final").glob("ch*-final.md")):
        text = p.read_text(encoding="utf-8")
        m = read_marker(p)
        assert m is not None, f"{p} has no marker"
        out[p.name] = text[:text.rstrip().rfind("\n")]
    return out


def started_rows(ws: Path) -> int:
    db = ws / "output/.book/state.db"
    if not db.exists():
        return 0
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM llm_calls WHERE status='started'").fetchone()[0]
    except sqlite3.DatabaseError:
        return -1
    finally:
        conn.close()


def book(env: dict[str, str], ws: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([BOOK, *argv, "--provider", "anthropic", "-q", "--workspace", str(ws)], env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture
def api_env():
    api = FakeAPI(answerer=answer)
    url = api.start()
    yield dict(os.environ, ANTHROPIC_API_KEY="sk-ant-test-full", ANTHROPIC_BASE_URL=url)
    api.stop()


@pytest.mark.slow
def test_fifteen_disk_full_stops_each_resume_to_the_chapters_of_an_uninterrupted_run(tmp_path, api_env):
    ref = make_example(tmp_path / "ref", budget_usd=50)
    r = book(api_env, ref, "run")
    assert r.returncode == 0, r.stderr
    expected = finals(ref)
    assert expected
    outcomes = []
    for kb in FREE_KB:
        with tiny_mount(tmp_path / f"mnt{kb}", "6m") as mount:
            ws = make_example(mount / "ws", budget_usd=50)
            free = shutil.disk_usage(mount).free
            (mount / "filler").write_bytes(b"\0" * max(0, free - kb * 1024))
            stopped = book(api_env, ws, "run")
            left = started_rows(ws)  # what the stop left for the next open to heal
            # a call's end that the ledger could not take is in the spend journal (the next run puts
            # it back); only a call lost to both would ask a person to enter its spend by hand
            for bad in ("Traceback", "UNIQUE constraint", "is not in the ledger", "--lost-spend"):
                assert bad not in stopped.stderr, (kb, stopped.stderr)
            if "just made" in stopped.stderr:
                assert "it is in the spend journal" in stopped.stderr, (kb, stopped.stderr)
            (mount / "filler").unlink()  # space again
            resumed = book(api_env, ws, "resume")
            assert resumed.returncode == 0, (kb, stopped.stderr, resumed.stderr)
            assert finals(ws) == expected, kb
            again = book(api_env, ws, "run")  # and nothing is left that fails a later command
            assert again.returncode == 0, (kb, again.stderr)
            assert started_rows(ws) == 0
            outcomes.append((kb, stopped.returncode, left))
    print("free KB, exit code of the stopped run, rows it left started:", outcomes)
    assert sum(code != 0 for _, code, _ in outcomes) >= 12  # the disk really filled in (nearly) every case
