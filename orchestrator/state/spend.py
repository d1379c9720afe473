"""The spend journal, `output/.spend.jsonl`: a second record of what the models cost, outside
`output/.book/`, so that deleting the ledger (or the whole `.book/` directory) cannot reset the
budget cap (issue 22).

One JSON line per paid model call, appended (and fsynced) when the ledger logs the call's end:
its id, cost, run, chapter, step and model; a later line with the same id supersedes an earlier
one. Lines `{"unknown": why}` / `{"known": why}` carry whether the spend before a rebuild is
unknown (the ledger's `spend_unknown`), so that flag survives a deleted ledger too.

Every writer reconciles the two when it opens the ledger (`reconcile`): calls the journal has
and the ledger lacks are put back into `llm_calls`, calls the ledger has and the journal lacks
are appended to the journal; a new ledger with no journal beside it, over files that models
made, means the spend is unknown. Deleting one file loses nothing; deleting both stops a capped
run until a person enters the spend (`book cost --lost-spend`). Read-only commands read the
journal to say when the ledger is incomplete (`missing_from`)."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .ledger_faults import LedgerError

NAME = ".spend.jsonl"  # in output/, beside .book/
HEADER = {"spend_journal": 1}  # the same bytes in every book: two runs of one book give one tree
_FIELDS = ("run", "role", "chapter", "step", "provider", "model", "batch", "ts")


def path_for(ledger_path: Path) -> Path:
    """`output/.spend.jsonl` for a book's ledger (`output/.book/state.db`: a deleted `.book/`
    leaves it); beside a ledger that lives anywhere else, never in a directory it does not own."""
    return ledger_path.parent.parent / NAME if ledger_path.parent.name == ".book" else ledger_path.parent / NAME


@dataclass
class Journal:
    path: Path
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> its last line
    unknown: str | None = None  # why the spend before a rebuild is unknown, if it is
    exists: bool = False
    torn: int = 0  # lines that could not be read (a write cut off by a crash)

    @classmethod
    def read(cls, path: Path) -> Journal:
        j = cls(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return j
        except IsADirectoryError:
            raise LedgerError(f"{path} is a directory where the spend journal belongs: move it aside "
                              f"(`mv {path} {path}.dir`), then run again") from None
        j.exists = True
        for line in data.splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                j.torn += 1
                continue
            if not isinstance(e, dict):
                j.torn += 1
            elif "id" in e and isinstance(e.get("usd"), (int, float)):
                j.calls[str(e["id"])] = e
            elif "unknown" in e:
                j.unknown = str(e["unknown"])
            elif "known" in e:
                j.unknown = None
        return j

    @property
    def total(self) -> float:
        return sum(float(e["usd"]) for e in self.calls.values())

    def append(self, lines: list[dict[str, Any]]) -> None:
        """Append and fsync (a new file starts with the header). Raises OSError."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            size = os.fstat(fd).st_size
            out = ([HEADER] if not size else []) + lines
            # a line cut off by a crash ends without a newline: the next line must not join it
            lead = b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""
            if out:
                os.write(fd, lead + b"".join(json.dumps(x, sort_keys=True, ensure_ascii=False).encode() + b"\n" for x in out))
                os.fsync(fd)
        finally:
            os.close(fd)
        self.exists = True
        for x in lines:
            if "id" in x:
                self.calls[str(x["id"])] = x
            elif "unknown" in x:
                self.unknown = str(x["unknown"])
            elif "known" in x:
                self.unknown = None


def entry(row: dict[str, Any]) -> dict[str, Any]:
    """A journal line for one ledger row of `llm_calls`."""
    out = {"id": row["call_id"], "usd": round(float(row.get("cost_usd") or 0.0), 8)}
    out.update({k: row[k] for k in _FIELDS if row.get(k) is not None})
    return out


def paid_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    cur = conn.execute("SELECT * FROM llm_calls WHERE cost_usd > 0 AND (status IS NULL OR status != 'started')")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def reconcile(led: Any, fresh: bool, generated) -> list[str]:
    """Bring the ledger and the journal to the same calls (and the same `spend_unknown`); the
    warnings to show. `fresh`: the ledger was just created (none was there, or it was rebuilt);
    `generated()`: whether the files show that models were called before."""
    conn = led.conn
    assert conn is not None
    j = Journal.read(path_for(led.path))
    warnings: list[str] = []
    if j.torn:
        warnings.append(f"{j.path}: {j.torn} line(s) could not be read (a write cut off?); the ledger's record is used")
    # rows of an older version of the ledger, logged without an id: give them one to match by
    conn.execute("UPDATE llm_calls SET call_id='led-' || lower(hex(randomblob(8))) "
                 "WHERE call_id IS NULL AND cost_usd > 0")
    rows = paid_rows(conn)
    have = {r["call_id"] for r in rows}
    lacking = [e for i, e in j.calls.items() if i not in have]
    if lacking:
        conn.executemany(
            "INSERT INTO llm_calls (ts, run, role, chapter, step, provider, model, cost_usd, status, call_id, batch, "
            "input_tokens, output_tokens, error) VALUES (?,?,?,?,?,?,?,?,'ok',?,?,0,0,?)",
            [(e.get("ts"), e.get("run"), e.get("role"), e.get("chapter"), e.get("step"), e.get("provider"),
              e.get("model"), float(e["usd"]), str(e["id"]), int(e.get("batch") or 0),
              f"restored from {NAME} (tokens not recorded there)") for e in lacking])
        usd = sum(float(e["usd"]) for e in lacking)
        warnings.append(f"the ledger {led.path} lacked {len(lacking)} model call(s) (${usd:.4f}) that {j.path} "
                        "records: put back, so the budget cap counts them")
        led.event("ledger_restored_from_journal", calls=len(lacking), usd=round(usd, 6))
    extra = [entry(r) for r in rows if r["call_id"] not in j.calls]
    lines: list[dict[str, Any]] = list(extra)
    unknown = led.spend_unknown()
    if fresh and j.exists:  # the journal, kept since the book began, knows the spend (or that it is unknown)
        if unknown and not j.unknown:
            conn.execute("DELETE FROM meta WHERE key='spend_unknown'")
            led.warnings[:] = [w for w in led.warnings if "cannot be read; with a budget cap" not in w]
            warnings.append(f"the spend before the rebuild is known from {j.path} (${j.total:.4f})")
        elif j.unknown and unknown != j.unknown:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (j.unknown,))
        unknown = j.unknown
    elif fresh and not unknown and generated():
        unknown = f"{led.path} and {j.path} were both missing"
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (unknown,))
        led.event("spend_unknown", why=unknown)
        warnings.append(f"{unknown}, and the files show that models were called: the spend so far is unknown; "
                        "with a budget cap no model call is made until you enter it (`book cost --lost-spend USD`, "
                        "from your provider's console) or set budget_usd: 0 in book.yaml")
    if unknown != j.unknown:
        lines.append({"unknown": unknown} if unknown else {"known": "the lost spend was entered"})
    if extra and j.exists:
        usd = sum(e["usd"] for e in extra)
        warnings.append(f"{j.path} lacked {len(extra)} model call(s) (${usd:.4f}) that the ledger records: added")
    if lines or not j.exists:
        j.append(lines)
    return warnings


def missing_from(calls: list[dict[str, Any]], ledger_path: Path) -> tuple[list[dict[str, Any]], Journal]:
    """Journal lines whose call the ledger's `calls` lack (a read-only look: nothing written)."""
    j = Journal.read(path_for(ledger_path))
    have = {c.get("call_id") for c in calls}
    return [e for i, e in j.calls.items() if i not in have], j


def journal_call(led, row: dict) -> None:
    """Append one paid call to the spend journal (a deleted journal is first written again from
    the ledger). A journal that cannot be written stops the run as a ledger write failure does."""
    j = Journal(path_for(led.path))
    try:
        lines = [entry(row)]
        if not j.path.exists() and led.conn is not None:  # deleted during the run: the ledger has it all
            lines = [entry(r) for r in paid_rows(led.conn)] + lines
        j.append(lines)
    except OSError as e:
        from .fsio import explain_os_error

        led.failed = led.failed or (f"the spend journal {j.path} cannot be written: {explain_os_error(e)}; "
                                    "the run stopped so that no model call goes unrecorded")
        raise LedgerError(led.failed) from None


def journal_known(led) -> None:
    """A person entered the lost spend: the journal says the spend is known again."""
    try:
        Journal(path_for(led.path)).append([{"known": "the lost spend was entered"}])
    except OSError:
        pass  # the ledger has it; the next writer's reconciliation writes it
