"""What the ledger does when `state.db` is damaged or cannot be used (issue 15): classify
SQLite's error, say what to do about it, move a damaged database aside, read what can still be
read of it, and tell whether models were called before (the files' markers)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .fsio import utc_stamp


def kind(e: sqlite3.DatabaseError) -> str:
    """corrupt | locked | readonly | full | cantopen | other, from SQLite's result code."""
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
    kind_ = kind(e)
    what = {
        "locked": f"is locked by another program for more than {busy_timeout_s:g} s ({e}): close whatever has it "
                  "open (a sqlite3 shell, a database browser, a stuck book process), then run again",
        "readonly": f"cannot be written ({e}): make it and {path.parent} writable "
                    f"(`chmod u+w {path} {path.parent}`), then run again",
        "full": f"cannot be written: the disk is full ({e}); free some space, then `book resume`",
        "cantopen": f"cannot be opened ({e}): make sure {path.parent} is a writable directory, then run again",
        "corrupt": f"was damaged while the run used it ({e}): `book resume` moves it aside and rebuilds it",
    }.get(kind_, f"cannot be used ({e}): move it aside (`book resume` then rebuilds it), then run again")
    tail = ("; the run stopped so that no model call goes unrecorded" if during_run
            else "; no model call was made")
    return f"the ledger {path} {what}{tail}"


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
