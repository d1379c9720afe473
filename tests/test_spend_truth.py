"""The spend cannot be forgotten, and the ledger heals (issue 39, items 1-3): a journal that exists
but cannot be read over a lost ledger stops paid calls until a person enters the spend; a row
left "started" (a full disk, a kill) is resolved on the next open instead of wedging every later
run; calls cut off mid-stream are counted at what the journal knows, never $0; `book cost`
tells calls restored from the journal from failed ones."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_example
from test_ledger_faults import PRICE, Priced

from orchestrator.state import spend
from orchestrator.state.ledger import Ledger
from orchestrator.steps import STATE_DB
from orchestrator.testing.helpers import run_book

BOOK = str(Path(sys.executable).parent / "book")


def journal(ws: Path) -> Path:
    return ws / "output" / spend.NAME


def cost_json(ws: Path, monkeypatch, capsys) -> tuple[dict, str]:
    from test_config import run_main

    code, out, err = run_main(monkeypatch, capsys, "cost", "--json", "--workspace", str(ws))
    assert code == 0, err
    return json.loads(out), err


def rows(ws: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(ws / STATE_DB)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# ---------------------------------------------------------------- a damaged journal over a lost ledger


@pytest.mark.parametrize("damage", ["emptied", "garbled", "garbled_inside"])
def test_a_damaged_journal_with_the_ledger_lost_stops_paid_calls_until_a_person_enters_the_spend(
        tmp_path, monkeypatch, capsys, damage):
    from test_config import run_main

    ws = make_example(tmp_path / "ws", budget_usd=0.35)
    assert run_book(ws, provider=Priced())[0] == 3  # $0.30 spent, the next call would cross the cap
    shutil.rmtree(ws / "output/.book")
    data = journal(ws).read_bytes()
    if damage == "emptied":
        journal(ws).write_bytes(b"")
    elif damage == "garbled":
        journal(ws).write_bytes(bytes(b ^ 0x5A for b in data))
    else:  # the header stands, one call's line is overwritten
        lines = data.splitlines(keepends=True)
        lines[1] = b"\x00\x13garbage that is no JSON\n"
        journal(ws).write_bytes(b"".join(lines))
    again = Priced()
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0 and code == 3 and "unknown" in summary.needs_human["budget"]
    asides = [p.name for p in (ws / "output").iterdir() if p.name.startswith(spend.NAME + ".damaged.")]
    assert len(asides) == 1  # kept for the person, never deleted
    # deleting the new ledger again does not lift it: the new journal carries the flag
    shutil.rmtree(ws / "output/.book")
    assert run_book(ws, provider=again)[0] == 3 and again.calls == 0
    readable = 2 * PRICE if damage == "garbled_inside" else 0.0  # what could be read is counted already
    code, _, err = run_main(monkeypatch, capsys, "cost", "--lost-spend", f"{0.30 - readable:.2f}", "--workspace", str(ws))
    assert code == 0, err
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0 and "spent $0.30 of $0.35" in summary.needs_human["budget"]


def test_a_damaged_journal_beside_a_sound_ledger_is_written_again_from_the_ledger(tmp_path):
    ws = make_example(tmp_path / "ws", budget_usd=0.35)
    assert run_book(ws, provider=Priced())[0] == 3
    journal(ws).write_bytes(b"")
    led = Ledger.open(ws / STATE_DB)
    try:
        assert led.spend_unknown() is None and led.spent() == pytest.approx(3 * PRICE)
        assert any("moved to" in w and "written again from the ledger" in w for w in led.warnings)
    finally:
        led.close()
    j = spend.Journal.read(journal(ws))
    assert j.damaged is None and j.total == pytest.approx(3 * PRICE)


# ---------------------------------------------------------------- rows left "started" heal


def started_row(ws: Path, call_id: str, worst: float | None) -> None:
    conn = sqlite3.connect(ws / STATE_DB)
    try:
        conn.execute("INSERT INTO llm_calls (ts, run, role, chapter, step, provider, model, cost_usd, status, call_id, "
                     "worst_usd) VALUES ('2026-01-01T00:00:00Z','r0','writer','ch01','draft','anthropic','m',0,"
                     "'started',?,?)", (call_id, worst))
        conn.commit()
    finally:
        conn.close()


def test_a_started_row_whose_end_is_in_the_journal_no_longer_wedges_the_next_run(tmp_path, monkeypatch, capsys):
    """The disk-full state of the issue, made by hand: the journal holds the call's end, the
    ledger row is still "started". It used to fail every later run on UNIQUE(call_id)."""
    ws = make_example(tmp_path / "ws", budget_usd=100, max_chapters=2)
    p = Priced()
    assert run_book(ws, provider=p)[0] == 0
    started_row(ws, "c-ended", 0.5)
    spend.Journal(journal(ws)).append([{"id": "c-ended", "worst": 0.5}, {"id": "c-ended", "usd": 0.2}])
    started_row(ws, "c-cut", 0.5)  # killed mid-stream: its intent and its start, no end
    spend.Journal(journal(ws)).append([{"id": "c-cut", "worst": 0.5}, {"id": "c-cut", "floor": 0.03}])
    started_row(ws, "c-unsent", 0.5)  # stopped before its intent was written: never sent
    (ws / "output/chapters/final/ch02-final.md").unlink()
    code, _ = run_book(ws, provider=Priced())
    assert code == 0
    by_id = {c: (s, u) for c, s, u in rows(ws, "SELECT call_id, status, cost_usd FROM llm_calls "
                                              "WHERE call_id LIKE 'c-%'")}
    assert by_id == {"c-ended": ("restored", 0.2), "c-cut": ("interrupted", 0.03), "c-unsent": ("not_sent", 0.0)}
    assert rows(ws, "SELECT count(*) FROM llm_calls WHERE status='started'")[0][0] == 0
    rep, _ = cost_json(ws, monkeypatch, capsys)
    assert rep["errors"] == 0 and rep["restored"] == 1 and rep["interrupted"] == 1
    assert rep["total_usd"] == pytest.approx((p.calls + 2) * PRICE + 0.2 + 0.03)  # ch02's final redone: 2 calls


@pytest.mark.slow  # starts a process
def test_a_rebuilt_ledger_counts_its_calls_as_restored_not_failed(tmp_path, monkeypatch, capsys):
    ws = make_example(tmp_path / "ws", budget_usd=100, max_chapters=2)
    p = Priced()
    assert run_book(ws, provider=p)[0] == 0
    shutil.rmtree(ws / "output/.book")
    proc = subprocess.run([BOOK, "run", "--workspace", str(ws)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "rebuilt from the spend journal" in proc.stderr  # `run` says it rebuilt the ledger, and from what
    rep, _ = cost_json(ws, monkeypatch, capsys)
    assert rep["calls"] == p.calls and rep["errors"] == 0 and rep["restored"] == p.calls
    proc = subprocess.run([BOOK, "cost", "--workspace", str(ws)], capture_output=True, text=True, timeout=60)
    assert f"{p.calls} calls (0 failed, {p.calls} restored from the spend journal)" in proc.stdout


def test_a_failed_started_write_says_no_request_was_sent(tmp_path):
    """A full disk at the start of a call: the message says nothing was sent (not "the model call
    just made")."""
    led = Ledger.open(tmp_path / "output/.book/state.db")
    real = led.conn

    class Full:
        def execute(self, sql, args=()):
            if sql.lstrip().upper().startswith("INSERT INTO LLM_CALLS"):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, args)

        def __getattr__(self, name):
            return getattr(real, name)

    led.conn = Full()
    try:
        with pytest.raises(spend.LedgerError) as e:
            led.log_call(run="r", role="writer", chapter="ch01", step="draft", call_id="x", status="started",
                         cost_usd=0.0, worst_usd=0.4)
    finally:
        led.conn = real
        led.close()
    assert "no request was sent" in str(e.value) and "just made" not in str(e.value)


# ---------------------------------------------------------------- kill -9 mid-stream


@pytest.mark.slow
def test_five_kills_mid_stream_leave_five_calls_counted_above_zero(tmp_path, monkeypatch, capsys):
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer, delta_delay=0.3)  # slow deltas: the kill lands after message_start
    url = api.start()
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-test-kills", ANTHROPIC_BASE_URL=url)
    ws = make_example(tmp_path / "ws", budget_usd=5)
    try:
        for k in range(5):
            before = spend.Journal.read(journal(ws))
            proc = subprocess.Popen([BOOK, "run", "--provider", "anthropic", "-q", "--workspace", str(ws)], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # the answer started: its input usage is in the journal
                j = spend.Journal.read(journal(ws))
                if any("floor" in e and i not in before.open for i, e in j.open.items()):
                    break
                time.sleep(0.05)
            else:
                proc.kill()
                pytest.fail(f"kill {k}: no answer started")
            time.sleep(0.2)  # some text streamed, the end not yet
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(30) == -signal.SIGKILL
    finally:
        api.stop()
    rep, err = cost_json(ws, monkeypatch, capsys)  # read-only: counted from the journal already
    assert rep["interrupted"] == 5 and rep["total_usd"] > 0, err
    led = Ledger.open(ws / STATE_DB)  # a writer's open closes them in the ledger
    led.close()
    cut = rows(ws, "SELECT call_id, cost_usd FROM llm_calls WHERE status='interrupted'")
    print("calls cut off mid-stream, counted at:", [round(u, 4) for _, u in cut])
    assert len(cut) == 5 and len({c for c, _ in cut}) == 5 and all(u > 0 for _, u in cut)
    assert rows(ws, "SELECT count(*) FROM llm_calls WHERE status='started'")[0][0] == 0


def test_an_intent_with_no_ledger_row_and_no_end_is_counted_at_its_worst_case(tmp_path):
    """Killed between the journal's intent and the ledger's row (or with the ledger lost since):
    the call may have been sent, so it counts at its worst case, once, in both records."""
    db = tmp_path / "output/.book/state.db"
    Ledger.open(db).close()
    j = spend.path_for(db)
    spend.Journal(j).append([{"id": "c-intent", "worst": 0.25, "role": "writer", "chapter": "ch01", "step": "draft"}])
    led = Ledger.open(db)
    try:
        assert led.spent() == pytest.approx(0.25)
        assert any("cut off before their end was written" in w for w in led.warnings)
    finally:
        led.close()
    again = spend.Journal.read(j)
    assert again.open == {} and again.calls["c-intent"]["status"] == "interrupted"
    led = Ledger.open(db)  # healed once: a second open changes nothing
    try:
        assert led.spent() == pytest.approx(0.25) and len(led.calls()) == 1
    finally:
        led.close()
