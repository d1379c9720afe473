"""The commands that only read: `book scan`, `book log`, `book cost`, `book replay` and `book
watch` (`book cost --lost-spend` aside, which records a figure in the ledger)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..costs import cost_report, incomplete, print_cost
from ..state.book import Book
from ..state.reconcile import replay_differences, replay_matrix
from .console import emit_json, err
from .options import Json, Workspace
from .scan import do_scan


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
    as_json: Json = False,
) -> None:
    """Print the ledger's events."""
    book = Book.open(workspace, require_config=False, repair=False)
    try:
        events = book.ledger.events(chapter, step, type, limit)
    finally:
        book.close()
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
    finally:
        book.close()
    emit_json(rep) if as_json else print_cost(rep)
    for note in notes:
        err(f"incomplete: {note}")


def replay(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """Rebuild the status matrix from the ledger's events alone; show where it differs from the files."""
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

    raise typer.Exit(watch_workspace(workspace, as_json=as_json, debounce_ms=debounce_ms))
