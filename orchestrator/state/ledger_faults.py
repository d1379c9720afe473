"""What the ledger does when `state.db` is damaged or cannot be used (issue 15): classify
SQLite's error, say what to do about it, move a damaged database aside, read what can still be
read of it, and tell whether models were called before (the files' markers)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from ..errors import UsageError
from .fsio import utc_stamp


class LedgerError(UsageError):
    """state.db cannot be used by a writing command: exit 2, with the file and what to do."""


_CALL_COLS = ["ts", "run", "role", "chapter", "step", "provider", "model", "input_tokens", "output_tokens",
              "cache_creation_tokens", "cache_read_tokens", "cost_usd", "latency_ms", "stop_reason",
              "request_id", "error", "call_id", "status", "attempt", "text_hash", "batch", "thinking_tokens"]


def now_iso() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# Below this much free space SQLite's I/O errors are the disk being full (it needs room for the
# write-ahead log and its index, 32 KB and more): with 20 KB free it says "disk I/O error".
FULL_BELOW = 1 << 20


def free_bytes(path: Path) -> int | None:
    """Free space for an unprivileged writer on the file system of `path` (its nearest existing
    ancestor), or None when it cannot be told."""
    for p in (path, *path.parents):
        try:
            st = os.statvfs(p)
        except OSError:
            continue
        return st.f_bavail * st.f_frsize
    return None


def kind(e: sqlite3.DatabaseError, path: Path | None = None) -> str:
    """corrupt | locked | readonly | full | cantopen | other, from SQLite's result code (and,
    for an I/O error, from the free space where `path` is: a full disk says "disk I/O error")."""
    k = _kind(e)
    if k in ("other", "cantopen") and path is not None:
        free = free_bytes(path)
        if free is not None and free < FULL_BELOW:
            return "full"
    return k


def _kind(e: sqlite3.DatabaseError) -> str:
    code = getattr(e, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    msg = str(e).lower()
    if primary in (11, 26) or any(w in msg for w in ("not a database", "malformed", "corrupt",
                                                      "unsupported file format")):
        return "corrupt"
    if primary in (5, 6) or "locked" in msg or "busy" in msg:
        return "locked"
    if primary in (3, 8, 23) or "readonly" in msg or "read-only" in msg:
        return "readonly"
    if primary == 13 or "disk is full" in msg or "disk full" in msg:
        return "full"
    if primary == 14 or "unable to open" in msg:
        return "cantopen"
    return "other"


def advice(path: Path, e: sqlite3.DatabaseError, during_run: bool = False, busy_timeout_s: float = 10.0) -> str:
    kind_ = kind(e, path)
    what = {
        "locked": f"is locked by another program for more than {busy_timeout_s:g} s ({e}): close whatever has it "
                  "open (a sqlite3 shell, a database browser, a stuck book process), then run again",
        "readonly": f"cannot be written ({e}): make it and {path.parent} writable "
                    f"(`chmod u+w {path} {path.parent}`), then run again",
        "full": f"cannot be written: the disk is full ({_free_text(path)}; SQLite said: {e}); free some space, "
                "then `book resume` (the ledger itself is fine: leave it where it is)",
        "cantopen": f"cannot be opened ({e}): make sure {path.parent} is a writable directory, then run again",
        "corrupt": f"was damaged while the run used it ({e}): `book resume` moves it aside and rebuilds it",
    }.get(kind_, f"cannot be used ({e}): check the disk ({_free_text(path)}) and the file's permissions, then "
                 "run again; leave the file where it is: it holds the record of what the models cost")
    tail = ("; the run stopped so that no model call goes unrecorded" if during_run
            else "; no model call was made")
    return f"the ledger {path} {what}{tail}"


def _free_text(path: Path) -> str:
    free = free_bytes(path)
    return "free space unknown" if free is None else f"{free // 1024} KB free on its disk"


def move_aside(path: Path, why: str) -> Path:
    """Move a damaged database (and its -wal/-shm) to `<name>.<why>.<UTC timestamp>`."""
    dest = path.with_name(f"{path.name}.{why}.{utc_stamp()}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if os.path.lexists(src):
            os.replace(src, Path(str(dest) + suffix))
    return dest


def read_old(aside: Path, sql: str) -> list[tuple] | None:
    """Rows of a moved-aside ledger, or None when it cannot be read (not a database at all)."""
    if not aside.is_file():
        return None
    try:
        conn = sqlite3.connect(aside.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.DatabaseError:
        return None
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()


def files_were_generated(output: Path) -> bool:
    """Whether any file under output/ carries a completion marker: a model was called before."""
    from .markers import read_marker

    for d, dirs, files in os.walk(output):
        dirs[:] = [x for x in dirs if x != ".book"]
        for f in files:
            if f.endswith(".md") and ".bak." not in f and f != "checkpoint.md" and read_marker(Path(d) / f):
                return True
    return False


def identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the database file, None when it is gone."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def relink(led) -> None:
    """The writer's database was deleted during the run (or another file put in its place): the
    connection still has the whole of it open, so it is written again at its path, nothing lost."""
    import sys

    path = led.path
    aside = move_aside(path, "replaced") if os.path.lexists(path) else None
    path.parent.mkdir(parents=True, exist_ok=True)
    new = sqlite3.connect(path)
    try:
        led.conn.backup(new)
    finally:
        new.close()
    old, led.conn = led.conn, led._connect(path)
    old.close()
    led.ident = identity(path)
    msg = (f"warning: the ledger {path} was deleted during this run"
           + (f" and another file put in its place (moved to {aside.name})" if aside else "")
           + "; it is written again from the copy this run had open: no model call's record is lost")
    led.warnings.append(msg)
    print(msg, file=sys.stderr)
    led.conn.execute("INSERT INTO events (ts, run, type, detail) VALUES (?, NULL, 'ledger_relinked', ?)",
                     (now_iso(), json.dumps({"aside": aside.name if aside else None})))


def recover_from(led, aside: Path) -> None:
    """Copy what can be read of a moved-aside ledger (its calls, its events) into the new one.
    When its calls cannot be read and the files show that models were called, the spend so far
    is unknown (unless the spend journal knows it: `spend.reconcile`), so a cap stops the next call."""
    conn = led.conn
    assert conn is not None, "only a writer's ledger, which is open, recovers a moved-aside one"
    calls = read_old(aside, f"SELECT {','.join(_CALL_COLS)} FROM llm_calls ORDER BY id")
    events = read_old(aside, "SELECT ts, run, type, chapter, step, detail FROM events ORDER BY seq")
    if events:
        conn.executemany("INSERT INTO events (ts, run, type, chapter, step, detail) VALUES (?,?,?,?,?,?)", events)
    if calls is not None:
        if calls:
            conn.executemany(f"INSERT INTO llm_calls ({','.join(_CALL_COLS)}) VALUES "
                             f"({','.join('?' * len(_CALL_COLS))})", calls)
        total = sum(float(r[_CALL_COLS.index("cost_usd")] or 0) for r in calls)
        led.warnings.append(f"recovered {len(calls)} model call(s) (${total:.2f}) and {len(events or [])} "
                            f"event(s) from {aside.name}")
        led.event("ledger_rebuilt", aside=aside.name, calls=len(calls), spend_recovered=True)
        return
    generated = files_were_generated(led.path.parent.parent)
    led.event("ledger_rebuilt", aside=aside.name, calls=0, spend_recovered=not generated)
    if generated:
        led._exec("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (str(aside),))
        led.warnings.append(f"the spend recorded in {aside.name} cannot be read; with a budget cap no model call "
                            "is made until you enter it (`book cost --lost-spend USD`, from your provider's "
                            "console) or set budget_usd: 0 in book.yaml")
