"""The gate commands: `book gates` lists the cards waiting for a person; `book approve`,
`book reject` and `book modify` record a decision on one (the pipeline acts on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..state.book import Book
from ..state.fsio import Lock
from ..state.gatecards import Card as GateCard
from ..state.human_text import TABLES, words
from ..steps import GATES, LOCK, check_chapter_id
from .console import emit_json, err
from .options import Json, Provider, Quiet, Workspace

KEY_PROMPTS = {t["w_keys"] for t in TABLES.values()}
Card = Annotated[str | None, typer.Option("--card", help="the card's confirmation hash (from `book gates`)")]
GateArg = Annotated[str, typer.Argument(help="the gate: outline, research, review or final")]
ChapterArg = Annotated[str | None, typer.Argument(help="the chapter (not for the outline gate), or the group of a "
                                                       "group card (b3, all: gate_grain in book.yaml)")]


def _words(workspace: Path) -> dict[str, str]:
    """The book's phrases for a message said before the book is opened (English without one)."""
    from .. import config
    from ..errors import BookError

    try:
        return words(config.load(workspace, require=False, check_source=False).language)
    except BookError:
        return words("en")


def gates(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """List the gate cards waiting for a decision."""
    from ..pipeline import gates as g

    book = Book.open(workspace, repair=False)
    try:
        cards = g.pending(book, book.scanner.chapters())
        w = words(book.cfg.language)
    finally:
        book.close()
    if as_json:
        emit_json([{"gate": c.gate, "chapter": c.chapter, "card": c.path, "artifact": c.artifact,
                    "artifact_hash": c.artifact_hash, "confirmation": c.confirmation,
                    **({"group": c.group, "chapters": {m: {"artifact": a, "artifact_hash": h,
                                                           "decision": c.decision_of(m)[0]}
                                                       for m, (a, h) in c.members.items()}} if c.group else {})}
                   for c in cards])
        return
    if not cards:
        print(w["c_none"])
    for c in cards:
        what = f"chapters {' '.join(c.waiting())}" if c.group else f"artifact {c.artifact}"
        print(f"{c.gate:<9} {c.unit or '-':<6} {c.path}  (confirmation {c.confirmation}; {what})")
    by_gate: dict[str, list[GateCard]] = {}
    for c in cards:
        by_gate.setdefault(c.gate, []).append(c)
    for gate, cs in by_gate.items():  # the summary: what waits, and the one command for all of it
        who = [c.unit or w["c_the_book"] for c in cs]
        cmd = f"book approve {gate}{' --all' if len(cs) > 1 else ' ' + cs[0].unit if cs[0].unit else ''}"
        err(w["c_summary"].format(gate=gate, n=len(who), who=", ".join(who), cmd=cmd))


def _decide(workspace: Path, gate: str, chapter: str | None, decision: str, reason: str, card: str | None) -> None:
    from ..pipeline import gates as g

    if chapter and not g.GROUP_RE.match(chapter):  # a chapter, or a group card's group (b3, all)
        check_chapter_id(chapter)
    book = Book.open(workspace)
    try:
        w = words(book.cfg.language)
        with Lock(book.ws.path(LOCK)):
            result, c = g.decide(book, gate, chapter, decision, reason, card)
    finally:
        book.close()
    said = w.get(decision, decision)
    if result == "duplicate":
        err(w["c_duplicate"].format(gate=gate, who=" " + chapter if chapter else "", decision=said))
        return
    if decision == "approved":
        err(w["c_decided_go"].format(decision=said, card=c.path))
    else:
        err(w["c_decided_redo"].format(decision=said, card=c.path, step=g.GATES[gate][1],
                                       words=w["c_words_modify" if decision == "modified" else "c_words_reject"]))
        if note := g.offline_note(book, reason):
            err(note)


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
            raise UsageError(_words(workspace)["u_name_gate"])
        _decide(workspace, gate, chapter, "approved", "", card)
        return
    from ..pipeline import gates as g

    if gate is not None and gate not in GATES:
        raise UsageError(_words(workspace)["u_gate"].format(gate=gate, gates=", ".join(GATES)))
    if chapter or card:
        raise UsageError(_words(workspace)["u_all"])
    book = Book.open(workspace, repair=False)
    try:
        cards = [c for c in g.pending(book, book.scanner.chapters()) if gate is None or c.gate == gate]
        w = words(book.cfg.language)
    finally:
        book.close()
    what = f"{gate} card" if gate else "card"
    if book.cfg.language == "zh":
        what = f"{gate} 卡片" if gate else "卡片"
    if not cards:
        err(w["c_none_of"].format(what=what))
        return
    err(w["c_approving"].format(n=len(cards), what=what))
    for c in cards:  # what it approves, before it does
        art = " ".join(c.waiting()) if c.group else c.artifact
        err(w["c_listing"].format(unit=c.unit or "-", what=art, card=c.path, confirmation=c.confirmation))
    for c in cards:
        _decide(workspace, c.gate, c.unit, "approved", "", c.confirmation)


def review(workspace: Workspace = Path("."),
           run_after: Annotated[bool, typer.Option("--run", help="after the decisions, run the book on to the next "
                                                                 "cards, and walk those too, until nothing waits")] = False,
           provider: Provider = None, quiet: Quiet = False) -> None:
    """Walk through the waiting gate cards: preview and diff, then one key each —
    \\[a]pprove (Enter), \\[r]eject with a reason, \\[m]odify with instructions, \\[s]kip, \\[q]uit."""
    import sys

    from ..pipeline import gates as g
    from ..pipeline.review_walk import walk

    def ask(prompt: str) -> str:
        if sys.stdin.isatty() and prompt in KEY_PROMPTS:  # the choice takes one key; a reason takes a line
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
        w = words(book.cfg.language)
        try:
            with Lock(book.ws.path(LOCK)):
                cards = g.pending(book, book.scanner.chapters())
                if not cards:
                    err(w["c_none"])
                    break
                result = walk(book, cards, ask, err)
        finally:
            book.close()
        err(w["c_walked"].format(decided=len(result.decided), skipped=len(result.skipped)))
        if not run_after or result.quit or not result.decided:
            if result.decided:
                err(w["c_next"])
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
    from .progress import for_run

    book = Book.open(workspace)
    try:
        opts = RunOptions(Scope(None, None, None), "conservative", None, False)
        result = run_session(book, opts, provider, quiet, reporter=for_run(book, opts, provider, quiet))
        print_summary(result.summary, book)
    finally:
        book.close()
    return result.exit_code


def reject(gate: GateArg, chapter: ChapterArg = None,
           reason: Annotated[str, typer.Option("--reason", help="why; the redo gets it as instructions")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Reject a gate's card: its rollback step is redone with the reason as instructions."""
    if not reason.strip():
        raise UsageError(_words(workspace)["u_reason"])
    _decide(workspace, gate, chapter, "rejected", reason, card)


def modify(gate: GateArg, chapter: ChapterArg = None,
           instructions: Annotated[str, typer.Option("--instructions", help="what to change")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Ask for changes at a gate: its rollback step is redone following the instructions."""
    if not instructions.strip():
        raise UsageError(_words(workspace)["u_instructions"])
    _decide(workspace, gate, chapter, "modified", instructions, card)
