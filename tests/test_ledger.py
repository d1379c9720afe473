"""The ledger (output/.book/state.db): named migrations applied once,
a damaged database moved aside and rebuilt (or left alone for a scan), events, todos,
calls and the hash cache, and truncated files that never crash `Ledger.open`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from orchestrator.state import ledger as ledger_mod
from orchestrator.state.ledger import MIGRATIONS, Ledger


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "output/.book/state.db"


def migrations(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, applied FROM migrations ORDER BY name").fetchall()
    finally:
        conn.close()


def test_open_creates_the_database_with_every_table(db):
    led = Ledger.open(db)
    try:
        assert db.exists() and led.warnings == []
        tables = {r[0] for r in led.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"events", "todos", "todo_deps", "llm_calls", "file_hashes", "migrations"} <= tables
        assert led.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        led.close()
    assert led.conn is None
    led.close()  # twice is fine


def test_migrations_are_applied_once(db):
    Ledger.open(db).close()
    first = migrations(db)
    assert [n for n, _ in first] == [n for n, _ in MIGRATIONS]
    for _ in range(3):
        Ledger.open(db).close()
    assert migrations(db) == first  # same rows, same timestamps: nothing re-applied


def test_a_new_migration_is_applied_once_on_the_next_open(db, monkeypatch):
    led = Ledger.open(db)
    led.event("before")
    led.close()
    extra = ("999_test_column", "ALTER TABLE events ADD COLUMN note TEXT; CREATE INDEX events_note ON events(note)")
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", MIGRATIONS + [extra])
    Ledger.open(db).close()
    Ledger.open(db).close()  # a second ALTER would fail with "duplicate column"
    names = [n for n, _ in migrations(db)]
    assert names == [n for n, _ in MIGRATIONS] + ["999_test_column"]
    led = Ledger.open(db)
    try:
        assert [e["type"] for e in led.events()] == ["before"]  # the data survived
        assert "note" in [r[1] for r in led.conn.execute("PRAGMA table_info(events)")]
    finally:
        led.close()


def test_a_failing_migration_is_rolled_back(db, monkeypatch):
    Ledger.open(db).close()
    bad = ("998_bad", "CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL")
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", MIGRATIONS + [bad])
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError):
            Ledger._migrate(conn)
        assert conn.execute("SELECT name FROM sqlite_master WHERE name='half_done'").fetchone() is None
        assert [r[0] for r in conn.execute("SELECT name FROM migrations")] == [n for n, _ in MIGRATIONS]
        assert not conn.in_transaction
    finally:
        conn.close()


def test_a_locked_database_is_not_mistaken_for_a_corrupt_one(db, monkeypatch):
    led = Ledger.open(db)
    led.event("precious")
    led.close()
    monkeypatch.setattr(ledger_mod, "MIGRATIONS", MIGRATIONS + [("999_new", "CREATE TABLE extra (x INTEGER)")])
    real_connect = Ledger._connect

    def quick(path):  # the real busy timeout is 10 s; the test need not wait that long
        conn = real_connect(path)
        conn.execute("PRAGMA busy_timeout=50")
        return conn

    monkeypatch.setattr(Ledger, "_connect", staticmethod(quick))
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        try:
            led = Ledger.open(db, repair=True)
            led.close()
        except (sqlite3.OperationalError, ledger_mod.LedgerError):
            pass  # refusing to open is acceptable; destroying the ledger is not
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not [p.name for p in db.parent.iterdir() if ".corrupt." in p.name]
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT type FROM events").fetchall() == [("precious",)]
    finally:
        conn.close()


# ---------------------------------------------------------------- damaged databases


def test_corrupt_database_is_moved_aside_and_rebuilt(db):
    db.parent.mkdir(parents=True)
    garbage = b"\x00\xffnot sqlite at all" * 500
    db.write_bytes(garbage)
    led = Ledger.open(db, repair=True)
    try:
        assert led.conn is not None
        assert len(led.warnings) == 1 and "damaged" in led.warnings[0]
        aside = [p for p in db.parent.iterdir() if p.name.startswith("state.db.corrupt.")]
        assert len(aside) == 1 and aside[0].read_bytes() == garbage  # nothing is deleted
        assert aside[0].name in led.warnings[0]
        led.event("after_repair")
        assert [e["type"] for e in led.events()] == ["ledger_rebuilt", "after_repair"]
    finally:
        led.close()


def test_corrupt_database_is_left_alone_without_repair(db):
    db.parent.mkdir(parents=True)
    garbage = b"garbage bytes " * 300
    db.write_bytes(garbage)
    led = Ledger.open(db, repair=False)
    assert led.conn is None
    assert len(led.warnings) == 1 and "unreadable" in led.warnings[0] and "book resume" in led.warnings[0]
    # every read is empty and every write a no-op; nothing raises
    led.event("x", chapter="ch01")
    led.set_todo("ch01", "draft", "todo")
    led.set_todos({("ch01", "draft"): ("todo", "")}, {})
    led.log_call(role="writer", cost_usd=1.0)
    led.store_hashes({"/a": (1, 2, "h")})
    assert led.events() == [] and led.todos() == {} and led.calls() == [] and led.spent() == 0.0
    assert led.load_hashes() == {}
    led.close()
    assert db.read_bytes() == garbage
    assert sorted(p.name for p in db.parent.iterdir()) == ["state.db"]


def _filled(db: Path) -> bytes:
    led = Ledger.open(db)
    for i in range(200):
        led.event("step_end", run="r1", chapter=f"ch{i % 12 + 1:02d}", step="draft", n=i, text="x" * 100)
    led.store_hashes({f"/tree/file{i}.md": (i, i * 1000, f"{i:012x}") for i in range(300)})
    led.log_call(role="writer", chapter="ch01", step="draft", cost_usd=0.5)
    led.close()
    return db.read_bytes()


_FULL: dict[str, bytes] = {}


def full_db_bytes(tmp: Path) -> bytes:
    if "b" not in _FULL:
        _FULL["b"] = _filled(tmp / "seed/state.db")
    return _FULL["b"]


def _exercise(led: Ledger) -> None:
    led.events()
    led.events(chapter="ch01", limit=3)
    led.event("probe", chapter="ch01")
    led.todos()
    led.set_todos({("ch01", "draft"): ("todo", "")}, {("ch01", "draft"): [("ch01", "research")]})
    led.set_todo("ch01", "r1", "done")
    led.load_hashes()
    led.store_hashes({"/x": (1, 1, "h")})
    led.calls()
    led.spent()
    led.retry_counts() if hasattr(led, "retry_counts") else None


@settings(max_examples=40, deadline=None)
@given(frac=st.floats(0.0, 1.0), repair=st.booleans())
def test_a_truncated_database_never_crashes_open(tmp_path_factory, frac, repair):
    tmp = tmp_path_factory.mktemp("trunc")
    data = full_db_bytes(tmp_path_factory.getbasetemp())
    db = tmp / "state.db"
    db.write_bytes(data[: int(len(data) * frac)])
    led = Ledger.open(db, repair=repair)
    try:
        _exercise(led)
        if repair:
            assert led.conn is not None
    finally:
        led.close()


@pytest.mark.parametrize("cut", [0, 1, 15, 16, 99, 100, 101, 512, 4095, 4096, 4097, 8192])
@pytest.mark.parametrize("repair", [True, False])
def test_truncated_at_page_and_header_boundaries(tmp_path, cut, repair):
    data = full_db_bytes(tmp_path.parent)
    db = tmp_path / "state.db"
    db.write_bytes(data[:cut])
    led = Ledger.open(db, repair=repair)
    try:
        _exercise(led)
        assert (led.conn is not None) or (not repair and led.warnings)
    finally:
        led.close()


def test_a_directory_in_place_of_the_database_is_reported(tmp_path):
    db = tmp_path / "state.db"
    db.mkdir()
    led = Ledger.open(db, repair=False)
    assert led.conn is None and led.warnings
    assert db.is_dir()


# ---------------------------------------------------------------- events, todos, calls, hashes


def test_events_round_trip(db):
    led = Ledger.open(db)
    try:
        led.event("run_start", run="20261129T2041Z-4f2a", provider="offline")
        led.event("step_start", run="20261129T2041Z-4f2a", chapter="ch01", step="draft")
        led.event("step_end", run="20261129T2041Z-4f2a", chapter="ch01", step="draft", tokens=1234, note="中文 ✅",
                  nested={"a": [1, 2]})
        led.event("step_end", chapter="ch02", step="research")
        evs = led.events()
        assert [e["seq"] for e in evs] == sorted(e["seq"] for e in evs) and len({e["seq"] for e in evs}) == 4
        assert [e["type"] for e in evs] == ["run_start", "step_start", "step_end", "step_end"]
        assert evs[0]["detail"] == {"provider": "offline"} and evs[0]["chapter"] is None
        assert evs[2] == {"seq": evs[2]["seq"], "ts": evs[2]["ts"], "run": "20261129T2041Z-4f2a", "type": "step_end",
                          "chapter": "ch01", "step": "draft",
                          "detail": {"tokens": 1234, "note": "中文 ✅", "nested": {"a": [1, 2]}}}
        assert evs[3]["detail"] == {} and evs[3]["run"] is None
        assert evs[0]["ts"].endswith("Z") and evs[0]["ts"] <= evs[3]["ts"]
        assert [e["type"] for e in led.events(chapter="ch01")] == ["step_start", "step_end"]
        assert [e["chapter"] for e in led.events(type="step_end")] == ["ch01", "ch02"]
        assert [e["chapter"] for e in led.events(step="research")] == ["ch02"]
        assert [e["type"] for e in led.events(limit=2)] == ["step_end", "step_end"]
    finally:
        led.close()
    # and they survive a reopen
    led = Ledger.open(db)
    try:
        assert len(led.events()) == 4
    finally:
        led.close()


def test_events_are_append_only_in_sequence(db):
    led = Ledger.open(db)
    try:
        for i in range(50):
            led.event("tick", i=i)
        assert [e["detail"]["i"] for e in led.events()] == list(range(50))
    finally:
        led.close()


def test_a_damaged_detail_is_returned_raw(db):
    led = Ledger.open(db)
    try:
        led.conn.execute("INSERT INTO events (ts, type, detail) VALUES ('t', 'odd', '{not json')")
        assert led.events()[0]["detail"] == {"raw": "{not json"}
    finally:
        led.close()


def test_todos(db):
    led = Ledger.open(db)
    try:
        led.set_todos({("ch01", "research"): ("done", ""), ("ch01", "draft"): ("todo", "missing")},
                      {("ch01", "draft"): [("ch01", "research")]})
        assert led.todos() == {("ch01", "research"): "done", ("ch01", "draft"): "todo"}
        assert led.conn.execute("SELECT * FROM todo_deps").fetchall() == [("ch01", "draft", "ch01", "research")]
        led.set_todo("ch01", "draft", "running")
        assert led.todos()[("ch01", "draft")] == "running"
        led.set_todos({("ch02", "research"): ("todo", "")}, {})  # replaces the whole plan
        assert led.todos() == {("ch02", "research"): "todo"}
        assert led.conn.execute("SELECT count(*) FROM todo_deps").fetchone()[0] == 0
    finally:
        led.close()


def test_llm_calls_and_spend(db):
    led = Ledger.open(db)
    try:
        led.log_call(run="r", role="writer", chapter="ch01", step="draft", provider="anthropic", model="m",
                     input_tokens=100, output_tokens=50, cache_creation_tokens=10, cache_read_tokens=5,
                     cost_usd=0.25, latency_ms=900, stop_reason="end_turn", request_id="req_1")
        led.log_call(role="r1_code", cost_usd=0.5, error="overloaded")
        calls = led.calls()
        assert len(calls) == 2
        assert calls[0]["role"] == "writer" and calls[0]["input_tokens"] == 100 and calls[0]["request_id"] == "req_1"
        assert calls[1]["error"] == "overloaded" and calls[1]["ts"]
        assert led.spent() == pytest.approx(0.75)
    finally:
        led.close()


def test_hash_cache_round_trip(db):
    led = Ledger.open(db)
    try:
        assert led.load_hashes() == {}
        rows = {"/w/a.md": (10, 123456789012345, "0123456789ab"), "/w/b.md": (0, 1, "ba9876543210")}
        led.store_hashes(rows)
        led.store_hashes({})  # nothing to store: no transaction
        led.store_hashes({"/w/a.md": (11, 2, "ffffffffffff")})  # replaces
        assert led.load_hashes() == {"/w/a.md": (11, 2, "ffffffffffff"), "/w/b.md": (0, 1, "ba9876543210")}
    finally:
        led.close()


def test_two_ledgers_on_one_file(db):
    """A scan (reader) and a run (writer) may have the database open at once (WAL)."""
    a = Ledger.open(db)
    b = Ledger.open(db)
    try:
        a.event("from_a")
        b.event("from_b")
        assert [e["type"] for e in a.events()] == ["from_a", "from_b"] == [e["type"] for e in b.events()]
    finally:
        a.close()
        b.close()
