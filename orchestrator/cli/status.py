"""The commands that only read: `book scan`, `book log`, `book cost`, `book replay` and `book
watch` (`book cost --lost-spend` aside, which records a figure in the ledger)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..costs import cost_report, expected, incomplete, print_cost
from ..errors import UsageError
from ..state.book import Book, require_book
from ..state.reconcile import replay_differences, replay_matrix
from .console import emit_json, err
from .options import Json, Workspace
from .scan import do_scan

# The ledger's event types (tests/test_cli_errors.py keeps the list true to the code); `book log
# --type` takes one of them, or any other type this ledger holds.
EVENT_TYPES = frozenset({
    "accepted", "answer_trimmed", "api_stop", "budget_stop", "citations_moved", "corrected", "delivery_failed", "gate_card", "gate_decision",
    "gate_decision_changed", "gate_pending", "gate_settled", "hand_edit", "illegal_transition",
    "interrupted", "ledger_healed", "ledger_rebuilt", "ledger_restored_from_journal", "lost_spend_entered", "message_batches", "quality_measured",
    "recovered", "retired",
    "revision", "rollback", "run_end", "run_start", "section_followed", "sections_one_by_one", "sections_rewritten", "smaller_ask", "step_end", "step_failed",
    "step_retry",
    "spend_unknown", "step_skipped", "step_start",
})


def scan(
    workspace: Workspace = Path("."),
    as_json: Json = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="rewrite checkpoint.md from the files")] = False,
) -> None:
    """Infer progress from the files alone. Changes nothing unless --rebuild."""
    do_scan(workspace, as_json, rebuild)


def log(
    workspace: Workspace = Path("."),
    chapter: Annotated[str | None, typer.Option(help="only this chapter")] = None,
    step: Annotated[str | None, typer.Option(help="only this step")] = None,
    type: Annotated[str | None, typer.Option("--type", help="only this event type (step_start, step_end, ...)")] = None,
    limit: Annotated[int | None, typer.Option(help="the last N events")] = None,
    skips: Annotated[bool, typer.Option("--skips", help="include step_skipped events (steps with nothing to do)")] = False,
    as_json: Json = False,
) -> None:
    """Print the ledger's events (without the steps skipped for having nothing to do, unless --skips)."""
    require_book(workspace)
    book = Book.open(workspace, require_config=False, repair=False)
    try:
        if type is not None and type not in EVENT_TYPES and type not in book.ledger.event_types():
            raise UsageError(f"unknown event type {type!r}: one of {', '.join(sorted(EVENT_TYPES))}")
        hide = not skips and type != "step_skipped"
        events = book.ledger.events(chapter, step, type, None if hide else limit)
    finally:
        book.close()
    if hide:
        hidden = sum(e["type"] == "step_skipped" for e in events)
        events = [e for e in events if e["type"] != "step_skipped"]
        events = events[-limit:] if limit else events
        if hidden and not as_json:
            err(f"({hidden} step_skipped event(s) not shown: `--skips` shows them)")
    if as_json:
        emit_json(events)
        return
    if not events:
        err("no events yet" + (" matching these filters" if chapter or step or type else
                               ": `book run` writes the ledger"))
    for e in events:
        where = " ".join(x for x in (e["chapter"], e["step"]) if x)
        detail = " ".join(f"{k}={v}" for k, v in sorted(e["detail"].items()))
        print(f"{e['seq']:>6} {e['ts']} {e['type']:<14} {where:<14} {detail}")


def cost(workspace: Workspace = Path("."), as_json: Json = False,
         lost_spend: Annotated[float | None, typer.Option(
             "--lost-spend", min=0, help="enter the spend a damaged ledger held (US dollars), so the budget cap counts it")] = None,
         ) -> None:
    """Spend per chapter, step and model, and the prompt-cache hit ratio."""
    require_book(workspace)
    if lost_spend is not None:  # a writer: it takes the lock
        book = Book.open(workspace, require_config=False)
        try:
            book.ledger.record_lost_spend(lost_spend)
        finally:
            book.close()
        err(f"recorded ${lost_spend:.2f} of spend lost with the old ledger; the budget cap counts it")
    book = Book.open(workspace, require_config=False, repair=False)
    try:
        calls = book.ledger.calls()
        extra, notes = incomplete(book, calls)  # what the ledger lacks, and says so
        rep = cost_report(calls + extra)
        rep["complete"], rep["incomplete"] = not notes, notes
        rep |= expected(book, calls + extra)
    finally:
        book.close()
    emit_json(rep) if as_json else print_cost(rep)
    for note in notes:
        err(f"incomplete: {note}")


def replay(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """Rebuild the status matrix from the ledger's events alone; show where it differs from the files."""
    require_book(workspace)
    book = Book.open(workspace, require_config=False, repair=False)
    try:
        matrix = replay_matrix(book.ledger.events())
        diffs = replay_differences(matrix, book.snapshot())
    finally:
        book.close()
    if as_json:
        emit_json({"matrix": {f"{c} {s}": v for (c, s), v in sorted(matrix.items())}, "differences": diffs})
        return
    print(f"{len(matrix)} steps in the ledger; {len(diffs)} differ from the files (the files win):")
    for d in diffs:
        print(f"  {d['chapter']} {d['step']}: ledger says {d['ledger']}, files say {d['files']}")


def watch(
    workspace: Workspace = Path("."),
    as_json: Json = False,
    debounce_ms: Annotated[int, typer.Option(help="wait this long for changes to settle")] = 300,
) -> None:
    """Live status while files change (hand edits, other runs); Ctrl-C to stop."""
    from ..watch import watch_workspace

    require_book(workspace)
    raise typer.Exit(watch_workspace(workspace, as_json=as_json, debounce_ms=debounce_ms))
