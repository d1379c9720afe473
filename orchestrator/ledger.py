"""`output/.book/state.db`: the second witness (DESIGN §4 level 2).

An append-only `events` ledger, `todos`/`todo_deps`, `llm_calls`, and the
`(path, size, mtime_ns) -> hash` cache. It is a cache of the files: a missing or corrupt
database is moved aside and rebuilt, never fatal. Schema changes are named, append-only
migrations."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterable

from .fsio import utc_stamp

MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_initial",
        """
        CREATE TABLE events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            ts TEXT NOT NULL,
            run TEXT,
            type TEXT NOT NULL,
            chapter TEXT,
            step TEXT,
            detail TEXT
        );
        CREATE INDEX events_chapter ON events(chapter, step);
        CREATE TABLE todos (
            chapter TEXT NOT NULL,
            step TEXT NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            updated TEXT NOT NULL,
            PRIMARY KEY (chapter, step)
        );
        CREATE TABLE todo_deps (
            chapter TEXT NOT NULL,
            step TEXT NOT NULL,
            dep_chapter TEXT NOT NULL,
            dep_step TEXT NOT NULL,
            PRIMARY KEY (chapter, step, dep_chapter, dep_step)
        );
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ts TEXT NOT NULL,
            run TEXT,
            role TEXT,
            chapter TEXT,
            step TEXT,
            provider TEXT,
            model TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            cache_creation_tokens INTEGER,
            cache_read_tokens INTEGER,
            cost_usd REAL,
            latency_ms INTEGER,
            stop_reason TEXT,
            request_id TEXT,
            error TEXT
        );
        CREATE TABLE file_hashes (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        """,
    ),
    # A call made through the Message Batches API (billed at half the rate): `book cost` splits on it.
    ("002_llm_calls_batch", "ALTER TABLE llm_calls ADD COLUMN batch INTEGER NOT NULL DEFAULT 0"),
]


def now_iso() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Ledger:
    """Open with `Ledger.open(path)`. A damaged database is moved aside and rebuilt, or with
    `repair=False` (a scan, which changes nothing) reported and not used."""

    def __init__(self, conn: sqlite3.Connection | None, path: Path, warnings: list[str]):
        self.conn = conn
        self.path = path
        self.warnings = warnings

    @classmethod
    def open(cls, path: Path, repair: bool = True) -> "Ledger":
        warnings: list[str] = []
        try:
            conn = cls._connect(path)
            cls._migrate(conn)
            return cls(conn, path, warnings)
        except sqlite3.DatabaseError as e:
            corrupt = any(w in str(e).lower() for w in ("not a database", "malformed", "corrupt", "unsupported file format"))
            if not repair or not corrupt:
                # Busy or locked is not damage: never move a healthy ledger aside for it.
                what = "unreadable" if corrupt else "not available"
                warnings.append(f"{path} is {what} ({e}); the files are the truth, and `book resume` rebuilds it")
                return cls(None, path, warnings)
            dest = path.with_name(f"{path.name}.corrupt.{utc_stamp()}")
            for suffix in ("", "-wal", "-shm"):
                src = Path(str(path) + suffix)
                if src.exists():
                    os.replace(src, Path(str(dest) + suffix))
            warnings.append(f"{path} was damaged ({e}); moved it to {dest.name} and started a new one")
            conn = cls._connect(path)
            cls._migrate(conn)
            return cls(conn, path, warnings)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=10000")
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

    # ------------------------------------------------------------ writes never fail a run

    def _exec(self, sql: str, args: Iterable[Any] = ()) -> None:
        if self.conn is None:
            return
        try:
            self.conn.execute(sql, tuple(args))
        except sqlite3.DatabaseError as e:  # the ledger is a witness, not the truth
            self.warnings.append(f"ledger write failed: {e}")

    def event(self, type: str, run: str | None = None, chapter: str | None = None, step: str | None = None,
              **detail: Any) -> None:
        self._exec(
            "INSERT INTO events (ts, run, type, chapter, step, detail) VALUES (?,?,?,?,?,?)",
            (now_iso(), run, type, chapter, step, json.dumps(detail, sort_keys=True, ensure_ascii=False) if detail else None),
        )

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
        cols = ["ts", "run", "role", "chapter", "step", "provider", "model", "input_tokens", "output_tokens",
                "cache_creation_tokens", "cache_read_tokens", "cost_usd", "latency_ms", "stop_reason",
                "request_id", "error", "batch"]
        row.setdefault("ts", now_iso())
        row["batch"] = 1 if row.get("batch") else 0
        self._exec(f"INSERT INTO llm_calls ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})",
                   [row.get(c) for c in cols])

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
        except sqlite3.DatabaseError:
            return 0.0

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
