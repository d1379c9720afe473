"""The spend record cannot be lost by deleting a file (issue 22, item 3), and the messages around
it tell the truth (item 7): the spend journal `output/.spend.jsonl` keeps every paid call outside
`output/.book/`; a deleted ledger is rebuilt from it, so the budget cap holds across any number of
`book run` + `rm -rf output/.book`; a ledger deleted during a run is noticed at the next write and
written again; `book cost` says when it is incomplete; a full disk is called a full disk."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import make_example
from test_ledger_faults import PRICE, Priced, tiny_mount

from orchestrator.state import ledger_faults, spend
from orchestrator.state.ledger import Ledger
from orchestrator.steps import STATE_DB
from orchestrator.testing.helpers import run_book

BOOK = str(Path(sys.executable).parent / "book")


def journal(ws: Path) -> Path:
    return ws / "output" / spend.NAME


def ledger_spent(ws: Path) -> float:
    conn = sqlite3.connect(ws / STATE_DB)
    try:
        return round(conn.execute("SELECT coalesce(sum(cost_usd),0) FROM llm_calls").fetchone()[0], 4)
    finally:
        conn.close()


def cost_json(ws: Path, monkeypatch, capsys) -> tuple[dict, str]:
    from test_config import run_main

    code, out, err = run_main(monkeypatch, capsys, "cost", "--json", "--workspace", str(ws))
    assert code == 0, err
    return json.loads(out), err


def test_the_cap_holds_across_runs_that_each_lose_the_ledger(tmp_path, monkeypatch, capsys):
    """The issue's case: `book run; rm -rf output/.book`, seven times, against a $0.35 cap."""
    ws = make_example(tmp_path / "ws", budget_usd=0.35)
    calls = 0
    for _ in range(7):
        p = Priced()
        code, summary = run_book(ws, provider=p)
        calls += p.calls
        assert code == 3 and "budget" in summary.needs_human
        shutil.rmtree(ws / "output/.book")
    assert calls == 3  # $0.30 by the first run, and no call after: $0.40 would cross the cap
    rep, err = cost_json(ws, monkeypatch, capsys)  # no ledger at all now: the journal's calls, said so
    assert rep["total_usd"] == pytest.approx(3 * PRICE) and rep["complete"] is False
    assert "incomplete:" in err and spend.NAME in err


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_ledger_deleted_during_a_run_is_written_again_at_the_next_write(tmp_path, capsys):
    ws = make_example(tmp_path / "ws", budget_usd=100)
    db = ws / STATE_DB

    def delete_it(n: int) -> None:
        if n == 3:  # between two calls, while the run has the database open
            for suffix in ("", "-wal", "-shm"):
                Path(str(db) + suffix).unlink(missing_ok=True)

    p = Priced(on_call=delete_it)
    code, _ = run_book(ws, provider=p)
    assert code == 0
    assert "was deleted during this run" in capsys.readouterr().err
    assert ledger_spent(ws) == round(p.calls * PRICE, 4)  # every call, also those before the deletion
    led = Ledger.open(db, repair=False)
    try:
        assert led.events(type="run_start") and led.events(type="ledger_relinked")
    finally:
        led.close()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_journal_deleted_during_a_run_is_written_again_from_the_ledger(tmp_path):
    ws = make_example(tmp_path / "ws", budget_usd=100)
    p = Priced(on_call=lambda n: journal(ws).unlink() if n == 2 else None)
    assert run_book(ws, provider=p)[0] == 0
    j = spend.Journal.read(journal(ws))
    assert len(j.calls) == p.calls and j.total == pytest.approx(p.calls * PRICE)


def test_deleting_both_records_stops_a_capped_run_until_the_spend_is_entered(tmp_path, monkeypatch, capsys):
    from test_config import run_main

    ws = make_example(tmp_path / "ws", budget_usd=0.35)
    assert run_book(ws, provider=Priced())[0] == 3
    shutil.rmtree(ws / "output/.book")
    journal(ws).unlink()
    rep, err = cost_json(ws, monkeypatch, capsys)
    assert rep["complete"] is False and "both missing" in err
    again = Priced()
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0 and code == 3 and "unknown" in summary.needs_human["budget"]
    # the flag is in the journal too: deleting the new ledger does not lift it
    shutil.rmtree(ws / "output/.book")
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0 and "unknown" in summary.needs_human["budget"]
    code, _, _ = run_main(monkeypatch, capsys, "cost", "--lost-spend", "0.30", "--workspace", str(ws))
    assert code == 0
    shutil.rmtree(ws / "output/.book")  # and the entered spend survives a deleted ledger as well
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0 and "spent $0.30 of $0.35" in summary.needs_human["budget"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_torn_journal_line_is_skipped_and_the_ledger_fills_the_gap(tmp_path):
    ws = make_example(tmp_path / "ws", budget_usd=100)
    p = Priced()
    assert run_book(ws, provider=p)[0] == 0
    data = journal(ws).read_bytes()
    journal(ws).write_bytes(data[:-7])  # a write cut off by a crash
    led = Ledger.open(ws / STATE_DB)
    try:
        assert any("could not be read" in w for w in led.warnings)
        assert led.spent() == pytest.approx(p.calls * PRICE)
    finally:
        led.close()
    j = spend.Journal.read(journal(ws))
    assert j.total == pytest.approx(p.calls * PRICE)  # the torn call written again from the ledger


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_an_offline_book_has_the_same_journal_bytes_every_time(tmp_path):
    a, b = make_example(tmp_path / "a"), make_example(tmp_path / "b")
    assert run_book(a)[0] == 0 and run_book(b)[0] == 0
    assert journal(a).read_bytes() == journal(b).read_bytes() == b'{"spend_journal": 1}\n'


# ---------------------------------------------------------------- messages that tell the truth (item 7)


def test_an_io_error_on_a_nearly_full_disk_is_called_a_full_disk(tmp_path, monkeypatch):
    db = tmp_path / "output/.book/state.db"
    e = sqlite3.OperationalError("disk I/O error")
    for free in (20 * 1024, 60 * 1024, 100 * 1024):
        monkeypatch.setattr(ledger_faults, "free_bytes", lambda p, free=free: free)
        msg = ledger_faults.advice(db, e)
        assert "the disk is full" in msg and f"{free // 1024} KB free" in msg
        assert "move it aside" not in msg and "leave it where it is" in msg
    monkeypatch.setattr(ledger_faults, "free_bytes", lambda p: 50 << 30)  # a real I/O error, space to spare
    msg = ledger_faults.advice(db, e)
    assert "disk is full" not in msg and "move it aside" not in msg


@pytest.mark.slow
@pytest.mark.parametrize("free_kb", [100, 60, 20])
def test_a_run_on_a_disk_with_kilobytes_left_says_the_disk_is_full(tmp_path, free_kb):
    built = make_example(tmp_path / "built", max_chapters=2, batch_size=1)
    assert run_book(built)[0] == 0
    with tiny_mount(tmp_path / "mnt", "6m") as mount:
        ws = mount / "ws"
        shutil.copytree(built, ws)
        (ws / "output/chapters/final/ch02-final.md").unlink()
        free = shutil.disk_usage(mount).free
        (mount / "filler").write_bytes(b"\0" * max(0, free - free_kb * 1024))
        proc = subprocess.run([BOOK, "run", "-q", "--workspace", str(ws)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "disk is full" in proc.stderr and "move it aside" not in proc.stderr, proc.stderr
        (mount / "filler").unlink()
        assert run_book(ws)[0] == 0  # the data was fine: space freed, the run goes on


def test_the_budget_message_separates_spent_from_reserved(tmp_path):
    from orchestrator.pipeline.outcomes import RunOptions
    from orchestrator.pipeline.runner import Runner
    from orchestrator.state.book import Book

    ws = make_example(tmp_path / "ws", budget_usd=0.30)
    book = Book.open(ws)
    try:
        book.ledger.log_call(role="writer", chapter="ch01", step="draft", cost_usd=0.06)
        runner = Runner(book, Priced(), RunOptions())
        runner.budget.in_flight_usd = 0.18  # two calls in flight, at their estimates
        why = runner.budget.over_budget(SimpleNamespace(chapter="ch02", step="draft"))
        assert why is not None and "spent $0.06 of $0.30" in why and "$0.18 more is reserved" in why
        stop = book.ledger.events(type="budget_stop")[-1]["detail"]
        assert stop["spent"] == 0.06 and stop["reserved"] == 0.18
    finally:
        book.close()
