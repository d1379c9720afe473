"""The gate commands: `book gates` lists the cards waiting for a person; `book approve`,
`book reject` and `book modify` record a decision on one (the pipeline acts on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..state.book import Book
from ..state.fsio import Lock
from ..steps import GATES, LOCK, check_chapter_id
from .console import emit_json, err
from .options import Json, Provider, Quiet, Workspace

Card = Annotated[str | None, typer.Option("--card", help="the card's confirmation hash (from `book gates`)")]
GateArg = Annotated[str, typer.Argument(help="the gate: outline, research, review or final")]
ChapterArg = Annotated[str | None, typer.Argument(help="the chapter (not for the outline gate)")]


def gates(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """List the gate cards waiting for a decision."""
    from ..pipeline import gates as g

    book = Book.open(workspace, repair=False)
    try:
        cards = g.pending(book, book.scanner.chapters())
    finally:
        book.close()
    if as_json:
        emit_json([{"gate": c.gate, "chapter": c.chapter, "card": c.path, "artifact": c.artifact,
                    "artifact_hash": c.artifact_hash, "confirmation": c.confirmation} for c in cards])
        return
    if not cards:
        print("no card is waiting for a decision")
    for c in cards:
        print(f"{c.gate:<9} {c.chapter or '-':<6} {c.path}  (confirmation {c.confirmation}; artifact {c.artifact})")
    by_gate: dict[str, list[str]] = {}
    for c in cards:
        by_gate.setdefault(c.gate, []).append(c.chapter or "the book")
    for gate, who in by_gate.items():  # the summary: what waits, and the one command for all of it
        err(f"{gate}: {len(who)} waiting ({', '.join(who)}) — `book approve {gate}{' --all' if len(who) > 1 else ''}`")


def _decide(workspace: Path, gate: str, chapter: str | None, decision: str, reason: str, card: str | None) -> None:
    from ..pipeline import gates as g

    if chapter:
        check_chapter_id(chapter)
    book = Book.open(workspace)
    try:
        with Lock(book.ws.path(LOCK)):
            result, c = g.decide(book, gate, chapter, decision, reason, card)
    finally:
        book.close()
    if result == "duplicate":
        err(f"duplicate: the {gate} card{' of ' + chapter if chapter else ''} is already {decision}; nothing changed")
        return
    follow = "continue" if decision == "approved" else f"redo {g.GATES[gate][1]} with your {'instructions' if decision == 'modified' else 'reason'}"
    err(f"{decision}: {c.path}. `book run` will {follow}.")


def approve(gate: Annotated[str | None, typer.Argument(help="the gate: outline, research, review or final "
                                                                "(with --all and no gate: every gate)")] = None,
            chapter: ChapterArg = None, workspace: Workspace = Path("."), card: Card = None,
            all_: Annotated[bool, typer.Option("--all", help="every waiting card of this gate, or of every gate "
                                                             "(listed first)")] = False,
            ) -> None:
    """Approve the pending card of a gate: the chapter moves on.

    Gates: outline (the plan, no chapter), research, review, final (each with a chapter)."""
    if not all_:
        if gate is None:
            raise UsageError("name the gate (outline, research, review, final), or approve every waiting card "
                             "with `book approve --all`")
        _decide(workspace, gate, chapter, "approved", "", card)
        return
    from ..pipeline import gates as g

    if gate is not None and gate not in GATES:
        raise UsageError(f"unknown gate {gate!r}: one of {', '.join(GATES)}")
    if chapter or card:
        raise UsageError("--all approves every waiting card: name no chapter and no --card")
    book = Book.open(workspace, repair=False)
    try:
        cards = [c for c in g.pending(book, book.scanner.chapters()) if gate is None or c.gate == gate]
    finally:
        book.close()
    what = f"{gate} card" if gate else "card"
    if not cards:
        err(f"no {what} is waiting; `book gates` lists what waits")
        return
    err(f"approving {len(cards)} {what}(s):")
    for c in cards:  # what it approves, before it does
        err(f"  {c.chapter or '-'}: {c.artifact} (card {c.path}, confirmation {c.confirmation})")
    for c in cards:
        _decide(workspace, c.gate, c.chapter, "approved", "", c.confirmation)


def review(workspace: Workspace = Path("."),
           run_after: Annotated[bool, typer.Option("--run", help="after the decisions, run the book on to the next "
                                                                 "cards, and walk those too, until nothing waits")] = False,
           provider: Provider = None, quiet: Quiet = False) -> None:
    """Walk through the waiting gate cards: preview and diff, then one key each —
    [a]pprove (Enter), [r]eject with a reason, [m]odify with instructions, [s]kip, [q]uit."""
    import sys

    from ..pipeline import gates as g
    from ..pipeline.review_walk import walk

    def ask(prompt: str) -> str:
        if sys.stdin.isatty() and "?" not in prompt and "change" not in prompt:
            err(prompt)
            return typer.getchar()  # one key, no Enter
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:  # the input ended: stop here, having lost nothing
            return "q"
        return line.rstrip("\n")

    code = 0
    while True:
        book = Book.open(workspace)
        try:
            with Lock(book.ws.path(LOCK)):
                cards = g.pending(book, book.scanner.chapters())
                if not cards:
                    err("no card is waiting for a decision")
                    break
                result = walk(book, cards, ask, err)
        finally:
            book.close()
        err(f"{len(result.decided)} decided, {len(result.skipped)} skipped")
        if not run_after or result.quit or not result.decided:
            if result.decided:
                err("`book run` continues from these decisions (or `book review --run` next time)")
            break
        code = _run(workspace, provider, quiet)
        if code != 3:
            break
    raise typer.Exit(code)


def _run(workspace: Path, provider: str | None, quiet: bool) -> int:
    from ..pipeline.outcomes import RunOptions
    from ..pipeline.plan import Scope
    from ..pipeline.session import run_session
    from .console import print_summary

    book = Book.open(workspace)
    try:
        result = run_session(book, RunOptions(Scope(None, None, None), "conservative", None, False), provider, quiet)
        print_summary(result.summary, book)
    finally:
        book.close()
    return result.exit_code


def reject(gate: GateArg, chapter: ChapterArg = None,
           reason: Annotated[str, typer.Option("--reason", help="why; the redo gets it as instructions")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Reject a gate's card: its rollback step is redone with the reason as instructions."""
    if not reason.strip():
        raise UsageError("say why with --reason: the redo is given it as instructions")
    _decide(workspace, gate, chapter, "rejected", reason, card)


def modify(gate: GateArg, chapter: ChapterArg = None,
           instructions: Annotated[str, typer.Option("--instructions", help="what to change")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Ask for changes at a gate: its rollback step is redone following the instructions."""
    if not instructions.strip():
        raise UsageError("say what to change with --instructions")
    _decide(workspace, gate, chapter, "modified", instructions, card)
