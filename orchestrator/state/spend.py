"""The spend journal, `output/.spend.jsonl`: the ground truth of what the models cost, outside
`output/.book/`, so that deleting or damaging the ledger (or the whole `.book/` directory)
cannot reset the budget cap (issues 22, 39).

One JSON line per event of a paid call, appended and fsynced; a later line of an id supersedes
an earlier one:

- `{"id", "worst", ...}` before the request is sent (its worst case: the estimate that the cap
  was checked against). A request is only sent once this line is on disk;
- `{"id", "floor"}` when the answer starts (`message_start`: the input it is billed for);
- `{"id", "usd", "status", ...}` when it ends (what it cost).

A call with no end line was cut off (a kill, a crash, a full disk): it is counted at what the
journal knows, the floor or else the worst case, never at $0. Lines `{"unknown": why}` /
`{"known": why}` carry whether the spend before a rebuild is unknown (the ledger's
`spend_unknown`), so that flag survives a deleted ledger too.

Every writer reconciles the two when it opens the ledger (`reconcile`, under the run's lock,
so no call in flight belongs to a live process): rows left "started" are resolved from the
journal (`restored` when the journal has their end, `interrupted` at what it knows, `not_sent`
when a sound journal never saw their intent), calls the journal has and the ledger lacks are put
back, calls the ledger has and the journal lacks are appended to the journal. A journal that
exists but cannot be read (emptied, garbled) is damage: it is moved aside; over a lost ledger the
spend is then unknown and a capped run makes no call until a person enters it (`book cost
--lost-spend`), as when both files are gone. Read-only commands read the journal to say when
the ledger is incomplete (`missing_from`)."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .ledger_faults import LedgerError, move_aside, now_iso

NAME = ".spend.jsonl"  # in output/, beside .book/
HEADER = {"spend_journal": 1}  # the same bytes in every book: two runs of one book give one tree
_FIELDS = ("run", "role", "chapter", "step", "provider", "model", "batch", "ts")
CUT_OFF = "interrupted"  # the status of a call whose end was never written


def path_for(ledger_path: Path) -> Path:
    """`output/.spend.jsonl` for a book's ledger (`output/.book/state.db`: a deleted `.book/`
    leaves it); beside a ledger that lives anywhere else, never in a directory it does not own."""
    return ledger_path.parent.parent / NAME if ledger_path.parent.name == ".book" else ledger_path.parent / NAME


def owed(e: dict[str, Any]) -> float:
    """What a call whose end was never written is counted at: the input billed at its start,
    else its worst case."""
    for k in ("floor", "worst"):
        if isinstance(e.get(k), (int, float)) and e[k] > 0:
            return float(e[k])
    return 0.0


@dataclass
class Journal:
    path: Path
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> its end line
    open: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> what is known of a call never ended
    unknown: str | None = None  # why the spend before a rebuild is unknown, if it is
    exists: bool = False
    header: bool = False
    cut: int = 0  # lines cut off by a crash (a JSON object's start that never ended)
    garbled: int = 0  # lines that are not this journal's at all

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
                if line.strip().startswith(b'{"'):
                    j.cut += 1
                elif line.strip():
                    j.garbled += 1
                continue
            if e == HEADER:
                j.header = True
            elif isinstance(e, dict):
                j._take(e)
            else:
                j.garbled += 1
        return j

    def _take(self, e: dict[str, Any]) -> None:
        if "id" in e:
            i = str(e["id"])
            if isinstance(e.get("usd"), (int, float)):
                self.calls[i] = e
                self.open.pop(i, None)
            elif i not in self.calls and ("worst" in e or "floor" in e):
                self.open.setdefault(i, {}).update(e)
        elif "unknown" in e:
            self.unknown = str(e["unknown"])
        elif "known" in e:
            self.unknown = None

    @property
    def torn(self) -> int:
        return self.cut + self.garbled

    @property
    def damaged(self) -> str | None:
        """Why this journal cannot be trusted as the whole record, or None (a line cut off by a
        crash is not damage: the call's earlier lines still count it)."""
        if not self.exists:
            return None
        if not self.header:
            return "is empty" if not (self.calls or self.open or self.torn) else "does not start as a spend journal"
        if self.garbled:
            return f"has {self.garbled} line(s) that are not a spend journal's (garbled)"
        return None

    @property
    def total(self) -> float:
        return sum(float(e["usd"]) for e in self.calls.values()) + sum(owed(e) for e in self.open.values())

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
        self.header = self.header or not size
        for x in lines:
            self._take(x)


def entry(row: dict[str, Any]) -> dict[str, Any]:
    """A journal end line for one ledger row of `llm_calls`."""
    out = {"id": row["call_id"], "usd": round(float(row.get("cost_usd") or 0.0), 8)}
    out.update({k: row[k] for k in _FIELDS if row.get(k) is not None})
    if row.get("status") not in (None, "ok"):
        out["status"] = row["status"]
    return out


def paid_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    cur = conn.execute("SELECT * FROM llm_calls WHERE cost_usd > 0 AND (status IS NULL OR status != 'started')")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _insert(conn: sqlite3.Connection, e: dict[str, Any], usd: float, status: str, note: str) -> None:
    """A call the journal has and the ledger lacks. A line the ledger cannot take (a hand-made or
    foreign one) is left out rather than stop every later run: the journal still has it."""
    def num(v: Any, kind: type) -> Any:
        try:
            return kind(v) if v is not None else None
        except (TypeError, ValueError):
            return None

    try:
        conn.execute(
            "INSERT INTO llm_calls (ts, run, role, chapter, step, provider, model, cost_usd, status, call_id, batch, "
            "input_tokens, output_tokens, error, worst_usd) VALUES (?,?,?,?,?,?,?,?,?,?,?,0,0,?,?)",
            (str(e.get("ts") or now_iso()), e.get("run"), e.get("role"), e.get("chapter"), e.get("step"),
             e.get("provider"), e.get("model"), usd, status, str(e["id"]), num(e.get("batch"), int) or 0, note,
             num(e.get("worst"), float)))
    except sqlite3.IntegrityError:
        pass


def _cut_note(e: dict[str, Any]) -> str:
    how = ("the input billed when its answer started" if isinstance(e.get("floor"), (int, float)) and e["floor"] > 0
           else "its worst case")
    return f"cut off before its end was written (a kill, a crash, a full disk): counted at {how}"


def heal(led: Any, j: Journal, sound: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """Resolve the ledger's rows left "started" by a process that is gone, and put back the calls
    the journal has and the ledger lacks. Returns (journal lines to append, warnings).
    `sound`: the journal was there and readable all along, so a call it never saw the intent
    of was never sent (the intent is fsynced before the request goes out)."""
    conn = led.conn
    lines: list[dict[str, Any]] = []
    counts = {"restored": [0, 0.0], CUT_OFF: [0, 0.0], "not_sent": [0, 0.0]}

    def count(status: str, usd: float) -> None:
        counts[status][0] += 1
        counts[status][1] += usd

    cur = conn.execute("SELECT * FROM llm_calls WHERE status='started'")
    names = [d[0] for d in cur.description]
    for row in [dict(zip(names, r)) for r in cur.fetchall()]:
        cid = row.get("call_id")
        end = j.calls.get(cid) if cid else None
        if end is not None:  # it ended; the ledger's update was lost (a full disk, a kill between the two)
            conn.execute("UPDATE llm_calls SET status='restored', cost_usd=?, error=NULL WHERE id=?",
                         (float(end["usd"]), row["id"]))
            count("restored", float(end["usd"]))
        elif cid and cid not in j.open and sound and row.get("worst_usd"):
            conn.execute("UPDATE llm_calls SET status='not_sent', cost_usd=0, error=? WHERE id=?",
                         ("stopped before its request was sent", row["id"]))
            count("not_sent", 0.0)
        else:
            known = {**{k: row[k] for k in _FIELDS if row.get(k) is not None}, "worst": row.get("worst_usd"),
                     **j.open.get(cid or "", {})}
            usd = owed(known)
            conn.execute("UPDATE llm_calls SET status=?, cost_usd=?, error=? WHERE id=?",
                         (CUT_OFF, usd, _cut_note(known), row["id"]))
            count(CUT_OFF, usd)
            if cid:
                lines.append({**entry({**row, "cost_usd": usd}), "status": CUT_OFF})
    have = {c for (c,) in conn.execute("SELECT call_id FROM llm_calls WHERE call_id IS NOT NULL")}
    for cid, e in j.open.items():  # intent written, no ledger row (a kill between the two) and no end
        if cid not in have:
            usd = owed(e)
            _insert(conn, {**e, "id": cid}, usd, CUT_OFF, _cut_note(e))
            lines.append({**{k: e[k] for k in _FIELDS if e.get(k) is not None}, "id": cid, "usd": round(usd, 8),
                          "status": CUT_OFF})
            count(CUT_OFF, usd)
    for cid, e in j.calls.items():
        if cid not in have:
            status = str(e["status"]) if e.get("status") in (CUT_OFF, "not_sent") else "restored"
            _insert(conn, e, float(e["usd"]), status, f"restored from {NAME} (its tokens are not recorded there)")
            count(status if status != "not_sent" else "restored", float(e["usd"]))
    warnings = []
    n, usd = counts["restored"]
    if n:
        warnings.append(f"{n} model call(s) (${usd:.4f}) that the ledger {led.path} lacked or left unfinished are "
                        f"put back from {j.path}, so the budget cap counts them")
    n, usd = counts[CUT_OFF]
    if n:
        warnings.append(f"{n} model call(s) were cut off before their end was written (a kill, a crash, a full "
                        f"disk): counted at what {NAME} knows of them, ${usd:.4f} in all")
    if counts["not_sent"][0]:
        warnings.append(f"{counts['not_sent'][0]} model call(s) stopped before their request was sent: $0")
    if any(c[0] for c in counts.values()):
        led.event("ledger_healed", **{k: v[0] for k, v in counts.items()}, usd=round(counts["restored"][1]
                                                                                    + counts[CUT_OFF][1], 6))
    return lines, warnings


def reconcile(led: Any, fresh: bool, generated: Any) -> list[str]:
    """Bring the ledger and the journal to the same calls (and the same `spend_unknown`); the
    warnings to show. `fresh`: the ledger was just created (none was there, or it was rebuilt);
    `generated()`: whether the files show that models were called before."""
    conn = led.conn
    assert conn is not None
    path = path_for(led.path)
    j = Journal.read(path)
    known = j  # what can be read of it, damaged or not
    warnings: list[str] = []
    damage = j.damaged
    if damage:  # moved aside (nothing is deleted); a new journal is written from the ledger below
        aside = move_aside(path, "damaged")
        j = Journal(path)
        warnings.append(f"the spend journal {path} {damage}: moved to {aside.name}"
                        + ("" if fresh else f"; written again from the ledger {led.path}, which has every call"))
    elif j.torn:
        warnings.append(f"{path}: {j.torn} line(s) could not be read (a write cut off?); the ledger's record is used")
    # rows of an older version of the ledger, logged without an id: give them one to match by
    conn.execute("UPDATE llm_calls SET call_id='led-' || lower(hex(randomblob(8))) "
                 "WHERE call_id IS NULL AND cost_usd > 0")
    lines, healed = heal(led, known, sound=known.exists and not damage)
    warnings += healed
    if fresh and healed:
        warnings.insert(0, f"the ledger {led.path} is new (it was missing or rebuilt): its record of the model "
                           f"calls is rebuilt from the spend journal {path}")
    unknown = led.spend_unknown()
    if damage and fresh and (known.calls or known.open or generated()):
        unknown = f"{path} {damage} (moved to {aside.name}) and the ledger was lost with it"
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (unknown,))
        led.event("spend_unknown", why=unknown)
        beyond = f" beyond the ${known.total:.4f} that could be read (and is counted)" if known.total else ""
        warnings.append(f"{unknown}: the spend so far is unknown; with a budget cap no model call is made until you "
                        f"enter what was spent{beyond} (`book cost --lost-spend USD`, from your provider's console) "
                        "or set budget_usd: 0 in book.yaml")
    elif fresh and j.exists:  # the journal, kept since the book began, knows the spend (or that it is unknown)
        if unknown and not j.unknown:
            conn.execute("DELETE FROM meta WHERE key='spend_unknown'")
            led.warnings[:] = [w for w in led.warnings if "cannot be read; with a budget cap" not in w]
            warnings.append(f"the spend before the rebuild is known from {j.path} (${j.total:.4f})")
        elif j.unknown and unknown != j.unknown:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (j.unknown,))
        unknown = j.unknown
    elif fresh and not j.exists and not unknown and generated():
        unknown = f"{led.path} and {j.path} were both missing"
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('spend_unknown', ?)", (unknown,))
        led.event("spend_unknown", why=unknown)
        warnings.append(f"{unknown}, and the files show that models were called: the spend so far is unknown; "
                        "with a budget cap no model call is made until you enter it (`book cost --lost-spend USD`, "
                        "from your provider's console) or set budget_usd: 0 in book.yaml")
    rows = paid_rows(conn)
    extra = [entry(r) for r in rows if r["call_id"] not in j.calls]
    if unknown != j.unknown:
        lines.append({"unknown": unknown} if unknown else {"known": "the lost spend was entered"})
    if extra and j.exists:
        usd = sum(e["usd"] for e in extra)
        warnings.append(f"{j.path} lacked {len(extra)} model call(s) (${usd:.4f}) that the ledger records: added")
    ids = {e["id"] for e in extra}
    lines = extra + [x for x in lines if x.get("id") not in ids]
    if lines or not j.exists:
        j.append(lines)
    return warnings


def missing_from(calls: list[dict[str, Any]], ledger_path: Path) -> tuple[list[dict[str, Any]], Journal]:
    """Journal calls the ledger's `calls` lack, ended or cut off (a read-only look: nothing written);
    a cut-off one carries `usd` at what the journal knows of it."""
    j = Journal.read(path_for(ledger_path))
    have = {c.get("call_id") for c in calls}
    ended = [e for i, e in j.calls.items() if i not in have]
    cut = [{**e, "id": i, "usd": owed(e), "status": CUT_OFF} for i, e in j.open.items() if i not in have]
    return ended + cut, j


def _append(led: Any, lines: list[dict[str, Any]]) -> None:
    """Append to the journal (a deleted journal is first written again from the ledger)."""
    j = Journal(path_for(led.path))
    if not j.path.exists() and led.conn is not None:  # deleted during the run: the ledger has it all
        lines = [entry(r) for r in paid_rows(led.conn)] + lines
    j.append(lines)


def journal_intent(led: Any, row: dict[str, Any]) -> None:
    """Before a request is sent: its id and worst case. A journal that cannot take it stops the
    run before the request goes out."""
    line = {"id": row["call_id"], "worst": round(float(row["worst_usd"]), 8)}
    line.update({k: row[k] for k in _FIELDS if row.get(k) is not None})
    try:
        _append(led, [line])
    except OSError as e:
        _stop(led, e, "no request was sent")
    led.intents.add(row["call_id"])


def journal_floor(led: Any, row: dict[str, Any]) -> None:
    """The answer started (`message_start`): the input it is billed for. A refinement of the
    worst case already on disk, so a failure to write it loses nothing and stops nothing."""
    if led.ident is None or row.get("call_id") not in led.intents or not (row.get("cost_usd") or 0) > 0:
        return
    try:
        _append(led, [{"id": row["call_id"], "floor": round(float(row["cost_usd"]), 8)}])
    except OSError:
        pass


def journal_call(led: Any, row: dict[str, Any]) -> None:
    """Append one call's end to the spend journal. A journal that cannot be written stops the run
    as a ledger write failure does."""
    try:
        _append(led, [entry(row)])
    except OSError as e:
        _stop(led, e, "the run stopped so that no model call goes unrecorded")
    led.intents.discard(row.get("call_id"))


def _stop(led: Any, e: OSError, then: str) -> None:
    from .fsio import explain_os_error

    led.failed = led.failed or f"the spend journal {path_for(led.path)} cannot be written: {explain_os_error(e)}; {then}"
    raise LedgerError(led.failed) from None


def failure_message(e: Exception, row: dict[str, Any], journaled: bool, journal: Path) -> str:
    """What a failed write of a call's row means, and what a person does about it."""
    what = " ".join(x for x in (row.get("role") or "a call", "for", row.get("chapter") or "the book",
                                row.get("step") or "") if x)
    if row.get("status") == "started":
        return f"{e} (no request was sent for {what}: nothing was spent on it; once there is space, `book resume`)"
    cost = float(row.get("cost_usd") or 0.0)
    if journaled or not cost:
        return (f"{e} (the model call just made, {what}, cost ${cost:.4f}"
                + (f"; it is in the spend journal {journal}, and the next run puts it back in the ledger: "
                   "nothing to enter by hand" if cost else "") + "; once there is space, `book resume`)")
    return (f"{e} (the model call just made, {what}, cost ${cost:.4f} and is not in the ledger: add it with "
            "`book cost --lost-spend USD` once the ledger works)")


def journal_known(led: Any) -> None:
    """A person entered the lost spend: the journal says the spend is known again."""
    try:
        Journal(path_for(led.path)).append([{"known": "the lost spend was entered"}])
    except OSError:
        pass  # the ledger has it; the next writer's reconciliation writes it
