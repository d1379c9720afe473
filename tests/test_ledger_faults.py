"""The ledger under faults (issue 15): a writing command never runs without `state.db`. A
damaged one is moved aside and rebuilt with what can be read of it; one that cannot be
written (read-only, locked, a full disk) stops the command with exit 2 naming the file before
any model call; a write that fails mid-run stops the run; and the budget cap holds in every
case, also when the spend before a rebuild is lost."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import make_example

from orchestrator.providers.offline import OfflineProvider
from orchestrator.state import ledger as ledger_mod
from orchestrator.state.book import Book
from orchestrator.state.ledger import Ledger, LedgerError
from orchestrator.state.ledger_faults import recover_from
from orchestrator.steps import STATE_DB
from orchestrator.testing.helpers import run_book

BOOK = str(Path(sys.executable).parent / "book")
PRICE = 0.10


class Priced(OfflineProvider):
    """The offline provider with a price: each call costs $0.10, and says so beforehand."""

    def __init__(self, on_call=None, **kw):
        super().__init__(**kw)
        self.on_call_hook = on_call

    async def generate(self, req, sink):
        result = await super().generate(req, sink)
        result.cost_usd = PRICE
        if self.on_call_hook is not None:
            self.on_call_hook(self.calls)
        return result

    def estimate_cost(self, req) -> float:
        return PRICE


def ledger_rows(ws: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(ws / STATE_DB)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def spent(ws: Path) -> float:
    return round(ledger_rows(ws, "SELECT coalesce(sum(cost_usd),0) FROM llm_calls")[0][0], 4)


def replace_db_with_a_directory(ws: Path) -> None:
    db = ws / STATE_DB
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.mkdir()
    (db / "something").write_text("not a database")


@contextmanager
def tiny_mount(where: Path, size: str = "1m", ro: bool = False) -> Iterator[Path]:
    """A small tmpfs at `where` (root only): a real full disk, or a real read-only file system."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(mount: Path) -> None:
    """Write until the file system is full."""
    with open(mount / "filler", "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass


# ---------------------------------------------------------------- a damaged ledger is rebuilt


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_directory_in_place_of_state_db_is_moved_aside_and_rebuilt(tmp_path):
    ws = make_example(tmp_path / "ws", budget_usd=100)
    (ws / "output/.book").mkdir(parents=True)
    replace_db_with_a_directory(ws)
    p = Priced()
    code, _ = run_book(ws, provider=p)
    assert code == 0
    aside = [x for x in (ws / "output/.book").iterdir() if x.name.startswith("state.db.broken.")]
    assert len(aside) == 1 and (aside[0] / "something").read_text() == "not a database"  # nothing deleted
    # every call recorded; nothing had been generated before, so the spend before was $0
    assert ledger_rows(ws, "SELECT count(*) FROM llm_calls")[0][0] == p.calls > 0
    assert spent(ws) == round(p.calls * PRICE, 4)
    assert ledger_rows(ws, "SELECT value FROM meta WHERE key='spend_unknown'") == []


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_capped_run_whose_ledger_became_a_directory_makes_no_call(tmp_path, monkeypatch, capsys):
    """The issue's case: the run before stopped at its cap; state.db is made a directory; the
    next run must not spend past the cap it cannot check."""
    from test_config import run_main

    ws = make_example(tmp_path / "ws", budget_usd=0.35)
    first = Priced()
    code, summary = run_book(ws, provider=first)
    assert code == 3 and "budget" in summary.needs_human
    assert first.calls == 3 and spent(ws) == 0.3
    replace_db_with_a_directory(ws)
    (ws / "output/.spend.jsonl").unlink()  # and the spend journal lost too (with it, the spend is known)

    again = Priced()
    code, summary = run_book(ws, provider=again)
    assert again.calls == 0  # no call without a cap it can check
    assert code == 3 and "unknown" in summary.needs_human["budget"]
    assert "--lost-spend" in summary.needs_human["budget"]
    assert ledger_rows(ws, "SELECT count(*) FROM events WHERE type='budget_stop'")[0][0] == 1

    # a person enters the lost spend; the cap then counts it, and still holds
    code, _, err = run_main(monkeypatch, capsys, "cost", "--lost-spend", "0.30", "--workspace", str(ws))
    assert code == 0 and "0.30" in err
    assert spent(ws) == 0.3
    third = Priced()
    code, summary = run_book(ws, provider=third)
    assert third.calls == 0 and code == 3 and "spent $0.30 of $0.35" in summary.needs_human["budget"]

    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("budget_usd: 0.35", "budget_usd: 100"))
    last = Priced()
    code, _ = run_book(ws, provider=last, resume=True)
    assert code == 0 and last.calls > 0
    assert spent(ws) == round(0.3 + last.calls * PRICE, 4)


def test_the_spend_of_a_readable_moved_aside_ledger_is_carried_over(tmp_path):
    old = tmp_path / "old/state.db"
    led = Ledger.open(old)
    led.log_call(role="writer", chapter="ch01", step="draft", cost_usd=1.25)
    led.log_call(role="reviewer", chapter="ch01", step="r1", cost_usd=0.5)
    led.event("run_start", "r1")
    led.close()
    new = Ledger.open(tmp_path / "output/.book/state.db")
    recover_from(new, old)
    try:
        assert new.spent() == 1.75
        assert new.spend_unknown() is None
        assert [e["type"] for e in new.events()] == ["run_start", "ledger_rebuilt"]
        assert "recovered 2 model call(s) ($1.75)" in new.warnings[-1]
    finally:
        new.close()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_an_unreadable_moved_aside_ledger_after_generation_makes_the_spend_unknown(tmp_path):
    ws = make_example(tmp_path / "ws")
    assert run_book(ws)[0] == 0
    db = ws / STATE_DB
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"\x00garbage, not sqlite" * 300)
    journal = ws / "output/.spend.jsonl"
    kept = journal.read_bytes()
    journal.unlink()  # the spend journal lost as well: nothing says what was spent
    led = Ledger.open(db)
    try:
        lost = led.spend_unknown()
        assert lost is not None and "state.db.corrupt." in lost
        assert any("--lost-spend" in w for w in led.warnings)
    finally:
        led.close()
    # with the journal beside it, the same damage loses nothing: the journal knows the spend ($0 here)
    for p in db.parent.iterdir():
        p.unlink() if p.is_file() else None
    db.write_bytes(b"\x00garbage, not sqlite" * 300)
    journal.write_bytes(kept)
    led = Ledger.open(db)
    try:
        assert led.spend_unknown() is None and led.spent() == 0
        assert not any("--lost-spend" in w for w in led.warnings)
    finally:
        led.close()


# ---------------------------------------------------------------- a ledger that cannot be written: exit 2


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_read_only_ledger_stops_before_any_call(tmp_path, monkeypatch):
    ws = make_example(tmp_path / "ws")
    Ledger.open(ws / STATE_DB).close()
    real = Ledger._connect

    def read_only(path):  # what SQLite does with a file it may not write (root ignores chmod)
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False)
        return conn

    monkeypatch.setattr(Ledger, "_connect", staticmethod(read_only))
    p = Priced()
    with pytest.raises(LedgerError) as e:
        run_book(ws, provider=p)
    assert p.calls == 0 and e.value.exit_code == 2
    msg = str(e.value)
    assert str(ws / STATE_DB) in msg and "cannot be written" in msg and "chmod" in msg
    monkeypatch.setattr(Ledger, "_connect", staticmethod(real))
    assert run_book(ws)[0] == 0  # writable again: the run goes on


@pytest.mark.slow
def test_a_ledger_on_a_read_only_file_system_exits_2_naming_it(tmp_path):
    ws = make_example(tmp_path / "ws")
    book_dir = ws / "output/.book"
    with tiny_mount(book_dir, "4m"):
        Ledger.open(ws / STATE_DB).close()
        assert subprocess.run(["mount", "-o", "remount,ro", str(book_dir)]).returncode == 0
        proc = subprocess.run([BOOK, "run", "--workspace", str(ws)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert str(ws / STATE_DB) in proc.stderr and "Traceback" not in proc.stderr
        assert not (ws / "output/memory/outline.md").exists()  # no model call was made


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes: covered by the read-only mount test")
@pytest.mark.slow
def test_a_chmod_read_only_ledger_exits_2(tmp_path):
    ws = make_example(tmp_path / "ws")
    Ledger.open(ws / STATE_DB).close()
    os.chmod(ws / STATE_DB, 0o444)
    os.chmod(ws / "output/.book", 0o555)
    try:
        proc = subprocess.run([BOOK, "run", "--workspace", str(ws)], capture_output=True, text=True, timeout=120)
    finally:
        os.chmod(ws / "output/.book", 0o755)
    assert proc.returncode == 2 and "state.db" in proc.stderr


@pytest.mark.slow
def test_a_locked_ledger_stops_after_the_busy_timeout(tmp_path, monkeypatch, capsys):
    from test_config import run_main

    ws = make_example(tmp_path / "ws")
    Ledger.open(ws / STATE_DB).close()
    monkeypatch.setattr(ledger_mod, "BUSY_TIMEOUT_S", 0.3)
    other = sqlite3.connect(ws / STATE_DB, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the database
    try:
        p = Priced()
        with pytest.raises(LedgerError) as e:
            run_book(ws, provider=p)
        assert p.calls == 0
        assert "is locked by another program" in str(e.value) and str(ws / STATE_DB) in str(e.value)
        code, _, err = run_main(monkeypatch, capsys, "run", "--workspace", str(ws))
        assert code == 2 and "locked" in err and "Traceback" not in err
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert [x.name for x in (ws / "output/.book").iterdir() if ".corrupt." in x.name or ".broken." in x.name] == []
    assert run_book(ws)[0] == 0


@pytest.mark.slow
def test_a_full_disk_under_the_ledger_stops_before_any_call(tmp_path):
    ws = make_example(tmp_path / "ws")
    book_dir = ws / "output/.book"
    with tiny_mount(book_dir, "16m") as mount:
        fill(mount)
        proc = subprocess.run([BOOK, "run", "--workspace", str(ws)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "full" in proc.stderr and "state.db" in proc.stderr and "Traceback" not in proc.stderr
        assert not (ws / "output/memory/outline.md").exists()
        (mount / "filler").unlink()  # space again: the run goes on
        proc = subprocess.run([BOOK, "run", "--workspace", str(ws)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr


def test_a_ledger_write_that_fails_mid_run_stops_the_run(tmp_path):
    """The disk fills while the run goes on: the failing write stops it; no call is made that
    the ledger could not record, and the one just made is named in the message."""
    ws = make_example(tmp_path / "ws")
    book = Book.open(ws)
    real = book.ledger.conn

    class Full:
        """The connection, until the disk is full: then every write fails as SQLite's would."""

        full = False

        def execute(self, sql, args=()):
            if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "BEGIN")):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, args)

        def __getattr__(self, name):
            return getattr(real, name)

    conn = Full()
    book.ledger.conn = conn

    def on_call(n: int) -> None:
        if n >= 3:
            conn.full = True

    p = Priced(on_call=on_call)
    from orchestrator.pipeline.plan import Scope
    from orchestrator.pipeline.runner import RunOptions
    from orchestrator.pipeline.session import run_session

    try:
        with pytest.raises(LedgerError) as e:
            # one call at a time, so that "the third call" is well defined
            run_session(book, RunOptions(Scope(), concurrency=1, retry_delay=0.0), quiet=True, provider=p)
    finally:
        book.ledger.conn = real
        book.close()
    assert p.calls == 3  # nothing after the failure
    msg = str(e.value)
    # the call is in the spend journal (written first): nothing to enter by hand, the next run puts it back
    assert "disk is full" in msg and "spend journal" in msg and "nothing to enter by hand" in msg
    assert "--lost-spend" not in msg
    assert ledger_rows(ws, "SELECT count(*) FROM llm_calls")[0][0] == 2
    led = Ledger.open(ws / STATE_DB)
    try:
        assert led.spent() == pytest.approx(3 * PRICE)
    finally:
        led.close()


def test_readers_never_move_or_create_a_ledger(tmp_path):
    ws = make_example(tmp_path / "ws")
    (ws / "output/.book").mkdir(parents=True)
    replace_db_with_a_directory(ws)
    book = Book.open(ws, repair=False)
    try:
        assert book.ledger.conn is None and book.ledger.spent() == 0.0
        assert any("not available" in w for w in book.warnings)
    finally:
        book.close()
    assert sorted(x.name for x in (ws / "output/.book").iterdir()) == ["state.db"]
