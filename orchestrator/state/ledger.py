"""`output/.book/state.db`: the second witness (the files are the first, and win).

An append-only `events` ledger, `todos`/`todo_deps`, `llm_calls`, and the
`(path, size, mtime_ns) -> hash` cache. Schema changes are named, append-only migrations.

It is a cache of the files, but it is also the only record of what the models cost, so a
writing command never runs without it (`Ledger.open(path, repair=True)`):

- a damaged database (corrupt, or not a file at all: a directory in its place) is moved aside
  to `state.db.corrupt.<ts>` / `state.db.broken.<ts>` and a new one is started. What can still
  be read of the old one (its model calls, its events) is copied into the new one, so the spend
  so far, and with it the budget cap, survive the rebuild;
- when the old spend cannot be read and the files show that models were called before, the new
  ledger records that the spend is unknown (`spend_unknown()`): a run with a budget cap then
  makes no model call until a person enters the lost spend (`book cost --lost-spend USD`) or
  sets `budget_usd: 0`. The files' markers say which steps ran, not what they cost, so no
  number is guessed;
- a database that cannot be written (read-only file or directory, locked by another program
  beyond the busy timeout, a full disk) stops the command with LedgerError (exit 2) naming
  the file and what to do, before any model call; a write that fails later stops the run the
  same way (the failure is sticky: every later write raises too), so no model call is ever
  made without being recorded.

Read-only commands (`repair=False`: scan, log, cost) never move or create anything: a damaged
ledger is reported in their warnings and read as empty."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterable

from ..errors import UsageError
from . import ledger_faults as faults, spend
from .fsio import explain_os_error as explain
from .ledger_faults import _CALL_COLS, LedgerError, advice, kind, move_aside, now_iso
from .ledger_schema import MIGRATIONS

# How long a writer waits for another program's transaction before it gives up (seconds).
BUSY_TIMEOUT_S = 10.0


_ROW_COLS = [*_CALL_COLS, "worst_usd"]  # a row as log_call writes it



class Ledger:
    """Open with `Ledger.open(path)`. A writer's ledger (`repair=True`) is strict: it is
    rebuilt when damaged, and any failure to write it raises LedgerError. A reader's
    (`repair=False`) is lenient: a damaged database is reported and read as empty."""

    def __init__(self, conn: sqlite3.Connection | None, path: Path, warnings: list[str], strict: bool = False):
        self.conn = conn
        self.path = path
        self.warnings = warnings
        self.strict = strict
        self.failed: str | None = None  # a writer's first write failure: every later write raises it
        self.ident: tuple[int, int] | None = None  # a writer's database file (dev, inode): deleted under it?
        self.created = False  # a reader found no ledger and made an empty one (for the hash cache)
        self.intents: set[str] = set()  # calls whose intent is in the spend journal and whose end is not yet

    @classmethod
    def open(cls, path: Path, repair: bool = True) -> "Ledger":
        warnings: list[str] = []
        if not repair:
            # a reader of a book with no ledger yet makes one for the hash cache alone (what keeps
            # the next scan of an unchanged tree to a stat per file); it records no call or event,
            # and says it found none (`created`: the spend it shows is not a record's)
            created = not os.path.lexists(path)
            try:
                led = cls(cls._open_checked(path, probe=False), path, warnings)
                led.created = created
                return led
            except sqlite3.DatabaseError as e:
                what = "unreadable" if kind(e) == "corrupt" else "not available"
                warnings.append(f"{path} is {what} ({e}); the files are the truth, and `book resume` rebuilds it")
                return cls(None, path, warnings)
        aside = None
        existed = os.path.lexists(path)
        if os.path.lexists(path) and not path.is_file():
            aside = move_aside(path, "broken")
            warnings.append(f"{path} was not a file (a directory or something else is in its place); "
                            f"moved it to {aside.name} and started a new ledger")
        try:
            try:
                conn = cls._open_checked(path, probe=True)
            except sqlite3.DatabaseError as e:
                if kind(e) != "corrupt":
                    raise
                aside = move_aside(path, "corrupt")
                warnings.append(f"{path} was damaged ({e}); moved it to {aside.name} and started a new one")
                conn = cls._open_checked(path, probe=True)
        except sqlite3.DatabaseError as e:
            raise LedgerError(advice(path, e, busy_timeout_s=BUSY_TIMEOUT_S)) from None
        except OSError as e:  # output/.book is a file, or cannot be created, or the disk is full
            import errno

            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise LedgerError(f"the ledger {path} cannot be written: {explain(e)}; no model call was made") from None
            raise LedgerError(f"the ledger {path} cannot be created ({e.strerror or e}): make sure "
                              f"{path.parent} is a writable directory, then run again; "
                              "no model call was made") from None
        led = cls(conn, path, warnings, strict=True)
        try:
            if aside is not None:
                faults.recover_from(led, aside)
            led.ident = faults.identity(path)
            fresh = not existed or aside is not None or conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None
            led.warnings += spend.reconcile(led, fresh=fresh,
                                            generated=lambda: faults.files_were_generated(path.parent.parent))
        except (OSError, sqlite3.DatabaseError) as e:
            conn.close()
            why = explain(e) if isinstance(e, OSError) else str(e)
            raise LedgerError(f"the spend record beside the ledger cannot be written: {why}; "
                              "no model call was made") from None
        return led

    @classmethod
    def _open_checked(cls, path: Path, probe: bool) -> sqlite3.Connection:
        """Connect, migrate, and (a writer) prove that the database takes a write now."""
        conn = cls._connect(path)
        try:
            cls._migrate(conn)
            if probe:
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)", (now_iso(),))
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)")
        done = {r[0] for r in conn.execute("SELECT name FROM migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Re-check inside the transaction: another process may have migrated meanwhile.
                if conn.execute("SELECT 1 FROM migrations WHERE name=?", (name,)).fetchone():
                    conn.execute("COMMIT")
                    continue
                for stmt in sql.split(";"):
                    if stmt.strip():
                        conn.execute(stmt)
                conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, now_iso()))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    # ------------------------------------------------------------ writes

    def _fail(self, e: sqlite3.DatabaseError) -> "LedgerError":
        """A writer's ledger failed: remember it (later writes raise the same) and say what to do."""
        if self.failed is None:
            self.failed = advice(self.path, e, during_run=True, busy_timeout_s=BUSY_TIMEOUT_S)
        return LedgerError(self.failed)

    def check(self) -> None:
        """LedgerError if a write has failed: called before each model call."""
        if self.failed is not None:
            raise LedgerError(self.failed)

    def _exec(self, sql: str, args: Iterable[Any] = ()) -> int:
        """Run one write; the number of rows it changed (0 without a ledger or on a refusal)."""
        if self.failed is not None:
            raise LedgerError(self.failed)
        if self.conn is None:
            return 0
        if self.ident is not None and faults.identity(self.path) != self.ident:
            try:  # deleted (or replaced) during the run: written again from the copy still open
                faults.relink(self)
            except (OSError, sqlite3.DatabaseError) as e:
                self.failed = (f"the ledger {self.path} was deleted during this run and cannot be written again "
                               f"({explain(e) if isinstance(e, OSError) else e}); the run stopped so that no model "
                               "call goes unrecorded (the spend so far is in the spend journal beside output/.book/)")
                raise LedgerError(self.failed) from None
        try:
            return self.conn.execute(sql, tuple(args)).rowcount
        except sqlite3.IntegrityError as e:  # a row our own code got wrong, not an unusable ledger
            self.warnings.append(f"ledger write refused: {e}")
        except sqlite3.DatabaseError as e:
            if self.strict:  # a run never goes on without its record
                raise self._fail(e) from None
            self.warnings.append(f"ledger write failed: {e}")
        return 0

    def event(self, type: str, run: str | None = None, chapter: str | None = None, step: str | None = None,
              **detail: Any) -> None:
        self._exec(
            "INSERT INTO events (ts, run, type, chapter, step, detail) VALUES (?,?,?,?,?,?)",
            (now_iso(), run, type, chapter, step, json.dumps(detail, sort_keys=True, ensure_ascii=False) if detail else None),
        )

    def event_types(self) -> set[str]:
        """The types of the events this ledger holds."""
        if self.conn is None:
            return set()
        try:
            return {t for (t,) in self.conn.execute("SELECT DISTINCT type FROM events")}
        except sqlite3.DatabaseError:
            return set()

    def events(self, chapter: str | None = None, step: str | None = None, type: str | None = None,
               limit: int | None = None) -> list[dict[str, Any]]:
        if self.conn is None:
            return []
        where, args = [], []
        for col, val in (("chapter", chapter), ("step", step), ("type", type)):
            if val:
                where.append(f"{col}=?")
                args.append(val)
        sql = "SELECT seq, ts, run, type, chapter, step, detail FROM events"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY seq"
        out = []
        try:
            rows = self.conn.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            if self.strict:
                raise self._fail(e) from None
            self.warnings.append(f"ledger unreadable in part: {e}")
            return []
        for seq, ts, run, typ, ch, st, detail in rows:
            try:
                d = json.loads(detail) if detail else {}
            except ValueError:
                d = {"raw": detail}
            out.append({"seq": seq, "ts": ts, "run": run, "type": typ, "chapter": ch, "step": st, "detail": d})
        return out[-limit:] if limit else out

    def set_todos(self, todos: dict[tuple[str, str], tuple[str, str]], deps: dict[tuple[str, str], list[tuple[str, str]]]) -> None:
        """Replace the todo table with the plan: (chapter, step) -> (status, reason)."""
        if self.failed is not None:
            raise LedgerError(self.failed)
        if self.conn is None:
            return
        ts = now_iso()
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("DELETE FROM todos")
            self.conn.execute("DELETE FROM todo_deps")
            self.conn.executemany("INSERT INTO todos VALUES (?,?,?,?,?)",
                                  [(c, s, st, r, ts) for (c, s), (st, r) in todos.items()])
            self.conn.executemany("INSERT INTO todo_deps VALUES (?,?,?,?)",
                                  [(c, s, dc, ds) for (c, s), ds_ in deps.items() for dc, ds in ds_])
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass
            if self.strict:
                raise self._fail(e) from None
            self.warnings.append(f"ledger todos not written: {e}")

    def set_todo(self, chapter: str, step: str, status: str, reason: str = "") -> None:
        self._exec("INSERT OR REPLACE INTO todos VALUES (?,?,?,?,?)", (chapter, step, status, reason, now_iso()))

    def todos(self) -> dict[tuple[str, str], str]:
        if self.conn is None:
            return {}
        try:
            return {(c, s): st for c, s, st in self.conn.execute("SELECT chapter, step, status FROM todos")}
        except sqlite3.DatabaseError:
            return {}

    def retry_counts(self) -> dict[str, int]:
        """chapter -> how many step retries the ledger has seen for it."""
        if self.conn is None:
            return {}
        try:
            return dict(self.conn.execute(
                "SELECT chapter, count(*) FROM events WHERE type='step_retry' AND chapter IS NOT NULL GROUP BY chapter"))
        except sqlite3.DatabaseError:
            return {}

    def last_step_events(self) -> dict[tuple[str, str], tuple[str, str | None]]:
        """(chapter, step) -> (the type of its latest start/end/failed event, that event's run)."""
        if self.conn is None:
            return {}
        try:
            rows = self.conn.execute(
                "SELECT chapter, step, type, run FROM events WHERE seq IN (SELECT max(seq) FROM events "
                "WHERE chapter IS NOT NULL AND type IN ('step_start','step_end','step_failed') GROUP BY chapter, step)")
            return {(c, st): (t, r) for c, st, t, r in rows}
        except sqlite3.DatabaseError:
            return {}

    def log_call(self, **row: Any) -> None:
        """One HTTP attempt: "started" before its request is sent (the ledger row, then its intent
        in the spend journal: a request goes out only once both are on disk), "streaming" when
        its answer starts (the journal alone), then its end (the journal, then the ledger)."""
        if row.get("status") == "streaming":
            return spend.journal_floor(self, row)  # never raises: the worst case is already on disk
        row.setdefault("ts", now_iso())
        row["batch"] = 1 if row.get("batch") else 0
        started = row.get("status") == "started"
        paid = (row.get("cost_usd") or 0) > 0 and not started
        if paid and not row.get("call_id"):
            row["call_id"] = "j-" + os.urandom(8).hex()  # its id in the spend journal
        journaled = False
        try:
            if not started and self.ident is not None and (paid or row.get("call_id") in self.intents):
                spend.journal_call(self, row)  # the ground truth first (state/spend.py)
                journaled = True
            if row.get("call_id") and not started:  # the end of a call logged as started
                sets = [c for c in _ROW_COLS if c not in ("ts", "run", "call_id") and c in row]
                if self._exec(f"UPDATE llm_calls SET {','.join(c + '=?' for c in sets)} WHERE call_id=?",
                              [row[c] for c in sets] + [row["call_id"]]):
                    return
            self._exec(f"INSERT INTO llm_calls ({','.join(_ROW_COLS)}) VALUES ({','.join('?' * len(_ROW_COLS))})",
                       [row.get(c) for c in _ROW_COLS])
            if started and row.get("worst_usd") and row.get("call_id") and self.ident is not None:
                spend.journal_intent(self, row)
        except LedgerError as e:
            # the failure is sticky: whatever write raises it next carries what was (not) recorded
            self.failed = spend.failure_message(e, row, journaled, spend.path_for(self.path))
            raise LedgerError(self.failed) from None

    def completed_partial(self, chapter: str | None, step: str, text_hash: str) -> bool:
        """Whether a `.partial` with this text (sha256 of its UTF-8, as the provider hashes the
        answer) is the complete answer of a call the ledger saw end normally (`end_turn`): a
        resume may then validate and commit it without a new call."""
        if self.conn is None or not text_hash:
            return False
        try:
            return self.conn.execute(
                "SELECT 1 FROM llm_calls WHERE chapter IS ? AND step=? AND stop_reason='end_turn' AND text_hash=? "
                "AND (status IS NULL OR status='ok') LIMIT 1", (chapter, step, text_hash)).fetchone() is not None
        except sqlite3.DatabaseError:
            return False

    def calls(self) -> list[dict[str, Any]]:
        if self.conn is None:
            return []
        try:
            cur = self.conn.execute("SELECT * FROM llm_calls ORDER BY id")
        except sqlite3.DatabaseError:
            return []
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def spent(self) -> float:
        if self.conn is None:
            return 0.0
        try:
            return float(self.conn.execute("SELECT coalesce(sum(cost_usd),0) FROM llm_calls").fetchone()[0])
        except sqlite3.DatabaseError as e:
            if self.strict:  # a spend read as $0 would lift the budget cap
                raise self._fail(e) from None
            return 0.0

    # ------------------------------------------------------------ spend lost with a damaged ledger

    def spend_unknown(self) -> str | None:
        """Why the spend before a rebuild is unknown (the moved-aside file), or None."""
        if self.conn is None:
            return None
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key='spend_unknown'").fetchone()
        except sqlite3.DatabaseError as e:
            if self.strict:
                raise self._fail(e) from None
            return None
        return row[0] if row else None

    def record_lost_spend(self, usd: float, note: str = "") -> None:
        """A person enters the spend the damaged ledger held: one `llm_calls` row (so `book cost`
        and the budget cap count it), and the spend is no longer unknown."""
        if usd < 0:
            raise UsageError(f"the lost spend must be a positive number of US dollars, not {usd}")
        lost = self.spend_unknown()
        self.log_call(role="lost_spend", provider="person", cost_usd=float(usd), input_tokens=0, output_tokens=0,
                      error=f"spend lost with {lost or 'a damaged ledger'}, entered by a person" + (f": {note}" if note else ""))
        self._exec("DELETE FROM meta WHERE key='spend_unknown'")
        if self.ident is not None:
            spend.journal_known(self)
        self.event("lost_spend_entered", usd=float(usd), was=lost)

    # ------------------------------------------------------------ the hash cache

    def load_hashes(self) -> dict[str, tuple[int, int, str]]:
        if self.conn is None:
            return {}
        try:
            return {p: (s, m, h) for p, s, m, h in self.conn.execute("SELECT path, size, mtime_ns, hash FROM file_hashes")}
        except sqlite3.DatabaseError:
            return {}

    def store_hashes(self, rows: dict[str, tuple[int, int, str]]) -> None:
        if self.conn is None or not rows:
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany("INSERT OR REPLACE INTO file_hashes VALUES (?,?,?,?)",
                                  [(p, s, m, h) for p, (s, m, h) in rows.items()])
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass
            print(f"warning: hash cache not saved: {e}", file=sys.stderr)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
