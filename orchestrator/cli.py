"""The command line: parse, call the core, map errors to exit codes.

Data goes to stdout (`--json`: one JSON document), messages and progress to stderr.
Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 stopped for a person, 4 locked.
Heavy imports (the runner, providers, anthropic) happen inside the commands that need them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False)

Workspace = Annotated[Path, typer.Option("--workspace", "-w", help="the book's directory", show_default="current directory")]
Json = Annotated[bool, typer.Option("--json", help="print one JSON document on stdout")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")]


from .console import emit_json, err  # noqa: E402


def _version(value: bool) -> None:
    if value:
        from . import __version__

        print(f"book {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="print the version and exit")] = False) -> None:
    # one paragraph per line: rich keeps a docstring's line breaks
    """Write a technical book about a codebase with a team of LLM agents. The file system is the state: stop it any time, edit by hand, run it again.

    Phases (`book run --phase N`): 1 plan, 2 style guide, 3 chapters (research, draft, reviews, panel, memory), 4 finals and audit, 5 HTML site."""  # noqa: E501

# ---------------------------------------------------------------- init / scan


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="where to create the book")] = Path("."),
    source: Annotated[str | None, typer.Option(help="the source tree to write about, relative to DIR")] = None,
    example: Annotated[bool, typer.Option("--example", help="also write a small sample source tree (src/)")] = False,
    title: Annotated[str | None, typer.Option(help="the book's title")] = None,
    language: Annotated[str | None, typer.Option(help="en or zh")] = None,
) -> None:
    """Create book.yaml (every key with its default) and, with --example, a sample source."""
    from .errors import UsageError
    from .state.book import init_workspace

    if language is not None and language not in ("en", "zh"):
        raise UsageError(f"--language {language!r} is not supported: choose en or zh")
    if title is not None and not title.strip():
        raise UsageError("--title is empty: give the book a title")

    made = init_workspace(directory, source=source, example=example, title=title, language=language)
    err(f"created {', '.join(made)} in {directory.resolve()}")
    err(f"next: edit book.yaml, then `book run --workspace {directory}`")


@app.command()
def scan(
    workspace: Workspace = Path("."),
    as_json: Json = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="rewrite checkpoint.md from the files")] = False,
) -> None:
    """Infer progress from the files alone. Changes nothing unless --rebuild."""
    from .console import do_scan

    do_scan(workspace, as_json, rebuild)


# ---------------------------------------------------------------- run / resume / redo

Strategy = Annotated[str, typer.Option("--strategy", help="half-finished files: conservative (back up, redo), "
                                                          "aggressive (continue the partial text), ask (list them, wait)")]
Provider = Annotated[str | None, typer.Option("--provider", help="offline | anthropic | auto (book.yaml's by default)")]
Concurrency = Annotated[int | None, typer.Option("--concurrency", min=1, help="model calls in flight at once")]


def _print_summary(summary, book) -> None:
    count = lambda st: sum(1 for o in summary.outcomes.values() if o.status == st)  # noqa: E731
    index = book.root / "output/publish/index.html"
    err(f"generated {len(summary.generated)} file(s); {count('failed')} failed; {count('needs_human')} waiting "
        f"for a person; {count('skipped')} skipped")
    if summary.needs_human:
        waiting = sorted(k for k in summary.needs_human if k.startswith("ch"))
        if waiting and index.exists():
            err(f"published a partial book ({index}); not ready: {', '.join(waiting)}")
        err("needs a person (see output/memory/needs-human.md):")
        for k, v in sorted(summary.needs_human.items()):
            err(f"  {k}: NEEDS_HUMAN_REVIEW — {v}")
    if summary.waiting:
        err("waiting for your decision (`book gates`, then `book approve`/`book reject`/`book modify`):")
        for c in summary.waiting:
            err(f"  {c}")
    if summary.ok and not summary.needs_human and index.exists():
        err(f"the book: {index}")


def _print_plan(summary) -> None:
    if not summary.plan:
        print("nothing to do: every file is fresh")
    for (ch, step), why in summary.plan:
        print(f"{ch:<6} {step:<12} {why}")


@app.command()
def run(
    workspace: Workspace = Path("."),
    batch: Annotated[int | None, typer.Option(help="run phase 3 of this batch (phases 1–2 first if needed)")] = None,
    phase: Annotated[int | None, typer.Option(min=1, max=5, help="run the phases up to this one: 1 plan, "
                                              "2 style guide, 3 chapters, 4 finals and audit, 5 HTML")] = None,
    chapter: Annotated[str | None, typer.Option(help="run one chapter, e.g. ch03")] = None,
    strategy: Strategy = "conservative",
    provider: Provider = None,
    concurrency: Concurrency = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print what would run and why; change nothing")] = False,
    message_batches: Annotated[bool, typer.Option("--message-batches", help="send each wave of ready steps as one "
                                                  "Message Batch: half price, slower (anthropic)")] = False,
    quiet: Quiet = False,
) -> None:
    """Run everything that can run, in order, until done or stopped by a gate or a failure."""
    from .errors import UsageError
    from .pipeline.plan import Scope
    from .pipeline.runner import RunOptions, validate_strategy
    from .pipeline.session import run_session
    from .providers import NAMES
    from .state.book import Book
    from .steps import check_chapter_id

    if chapter:
        check_chapter_id(chapter)
    if provider is not None and provider not in NAMES:  # say so even when nothing is left to do
        raise UsageError(f"unknown provider {provider!r}: choose one of {', '.join(NAMES)}")
    opts = RunOptions(Scope(batch, phase, chapter), validate_strategy(strategy), concurrency, dry_run,
                      message_batches=message_batches)
    book = Book.open(workspace, repair=not dry_run)  # a dry run creates nothing, not even the ledger
    try:
        result = run_session(book, opts, provider, quiet)
        if dry_run:
            _print_plan(result.summary)
        else:
            _print_summary(result.summary, book)
    finally:
        book.close()
    raise typer.Exit(result.exit_code)


@app.command()
def redo(
    chapter: Annotated[str, typer.Argument(help="chNN, or `book` for a book-level step")],
    step: Annotated[str, typer.Argument(help="the step to regenerate: research, draft, r1, r2, r3, review, panel, "
                                             "memory, final, html (book: outline, source_map, style_guide, audit, index)")],
    workspace: Workspace = Path("."),
    provider: Provider = None,
    run_after: Annotated[bool, typer.Option("--run/--no-run", help="then continue with what the redo made stale")] = True,
    quiet: Quiet = False,
) -> None:
    """Regenerate one step (the old file goes to .bak), then what it makes stale.

    Chapter steps: research, draft, r1, r2, r3, review, panel, memory, final, html.
    Book steps (`book redo book STEP`): outline, source_map, style_guide, audit, index."""
    from .errors import UsageError
    from .pipeline.plan import BOOK, Scope
    from .pipeline.runner import RunOptions
    from .pipeline.session import run_session
    from .state.book import Book
    from .steps import BOOK_STEPS, STEPS, Node, check_chapter_id

    if chapter == BOOK:
        if step not in BOOK_STEPS:
            raise UsageError(f"unknown book step {step!r}: one of {', '.join(BOOK_STEPS)}")
    else:
        check_chapter_id(chapter)
        if step not in STEPS:
            raise UsageError(f"unknown step {step!r}: one of {', '.join(STEPS)}")
    book = Book.open(workspace)
    try:
        o = book.scanner.outline
        if chapter != BOOK and o is not None and chapter not in o.by_id:
            raise UsageError(f"{chapter} is not in the outline (chapters: {', '.join(c.id for c in o.chapters)})")
        scope = Scope() if run_after or chapter == BOOK else Scope(chapter=chapter)
        result = run_session(book, RunOptions(scope, redo={Node(chapter, step)}), provider, quiet)
        _print_summary(result.summary, book)
    finally:
        book.close()
    raise typer.Exit(result.exit_code)


@app.command()
def accept(
    chapter: Annotated[str, typer.Argument(help="chNN, or `book` for a book-level file")],
    step: Annotated[str, typer.Argument(help="the step whose file you wrote or fixed")],
    workspace: Workspace = Path("."),
) -> None:
    """Adopt the file of a step as it stands as your own work: it gets a marker with by=person,
    its status is `edited` (never overwritten), and what follows is built from it.

    Chapter steps: research, draft, r1, r2, r3, review, panel, memory, final.
    Book steps (`book accept book STEP`): outline, style_guide, audit."""
    from .pipeline.accept import accept as do_accept
    from .state.book import Book

    book = Book.open(workspace)
    try:
        rel = do_accept(book, chapter, step)
    finally:
        book.close()
    err(f"accepted {rel} as yours (edited: kept, never overwritten). `book run` builds what follows from it.")


# ---------------------------------------------------------------- the ledger


@app.command()
def log(
    workspace: Workspace = Path("."),
    chapter: Annotated[str | None, typer.Option(help="only this chapter")] = None,
    step: Annotated[str | None, typer.Option(help="only this step")] = None,
    type: Annotated[str | None, typer.Option("--type", help="only this event type (step_start, step_end, ...)")] = None,
    limit: Annotated[int | None, typer.Option(help="the last N events")] = None,
    as_json: Json = False,
) -> None:
    """Print the ledger's events."""
    from .state.book import Book

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


@app.command()
def cost(workspace: Workspace = Path("."), as_json: Json = False,
         lost_spend: Annotated[float | None, typer.Option(
             "--lost-spend", min=0, help="enter the spend a damaged ledger held (US dollars), so the budget cap counts it")] = None,
         ) -> None:
    """Spend per chapter, step and model, and the prompt-cache hit ratio."""
    from .costs import cost_report, print_cost
    from .state.book import Book

    if lost_spend is not None:  # a writer: it takes the lock
        book = Book.open(workspace, require_config=False)
        try:
            book.ledger.record_lost_spend(lost_spend)
        finally:
            book.close()
        err(f"recorded ${lost_spend:.2f} of spend lost with the old ledger; the budget cap counts it")
    book = Book.open(workspace, require_config=False, repair=False)
    try:
        rep = cost_report(book.ledger.calls())
    finally:
        book.close()
    emit_json(rep) if as_json else print_cost(rep)


@app.command()
def resume(
    workspace: Workspace = Path("."),
    strategy: Strategy = "conservative",
    no_run: Annotated[bool, typer.Option("--no-run", help="only reconcile and rebuild; generate nothing")] = False,
    provider: Provider = None,
    concurrency: Concurrency = None,
    quiet: Quiet = False,
) -> None:
    """Read RESUME.md, reconcile checkpoint.md and the ledger with the files, recover, continue."""
    from .pipeline.recovery import resume as do_resume
    from .pipeline.runner import validate_strategy
    from .state.book import Book

    strategy = validate_strategy(strategy)
    book = Book.open(workspace)
    try:
        res = do_resume(book, strategy, no_run, provider, concurrency, (lambda m: None) if quiet else err, quiet)
        for (ch, step), why in res.plan:
            print(f"{ch:<6} {step:<12} {why}")
        if res.summary and res.summary.run_id:
            _print_summary(res.summary, book)
    finally:
        book.close()
    raise typer.Exit(res.exit_code)


@app.command()
def replay(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """Rebuild the status matrix from the ledger's events alone; show where it differs from the files."""
    from .state.book import Book
    from .state.reconcile import replay_matrix
    from .state.scan import status_word

    book = Book.open(workspace, require_config=False, repair=False)
    try:
        matrix = replay_matrix(book.ledger.events())
        snap = book.snapshot()
        diffs = []
        for (ch, step), said in sorted(matrix.items()):
            row = snap.chapters.get(ch)
            have = status_word(row[step]) if row else "missing"
            same = said == have or (said == "done" and have in ("edited", "stale"))
            if not same:
                diffs.append({"chapter": ch, "step": step, "ledger": said, "files": have})
    finally:
        book.close()
    if as_json:
        emit_json({"matrix": {f"{c} {s}": v for (c, s), v in sorted(matrix.items())}, "differences": diffs})
        return
    print(f"{len(matrix)} steps in the ledger; {len(diffs)} differ from the files (the files win):")
    for d in diffs:
        print(f"  {d['chapter']} {d['step']}: ledger says {d['ledger']}, files say {d['files']}")


# ---------------------------------------------------------------- gates


@app.command()
def gates(workspace: Workspace = Path("."), as_json: Json = False) -> None:
    """List the gate cards waiting for a decision."""
    from .pipeline import gates as g
    from .state.book import Book

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
    from .pipeline import gates as g
    from .state.book import Book
    from .state.fsio import Lock
    from .steps import LOCK, check_chapter_id

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


Card = Annotated[str | None, typer.Option("--card", help="the card's confirmation hash (from `book gates`)")]
GateArg = Annotated[str, typer.Argument(help="the gate: outline, research, review or final")]
ChapterArg = Annotated[str | None, typer.Argument(help="the chapter (not for the outline gate)")]


@app.command()
def approve(gate: GateArg, chapter: ChapterArg = None, workspace: Workspace = Path("."), card: Card = None,
            all_: Annotated[bool, typer.Option("--all", help="every waiting card of this gate (listed first)")] = False,
            ) -> None:
    """Approve the pending card of a gate: the chapter moves on.

    Gates: outline (the plan, no chapter), research, review, final (each with a chapter)."""
    if not all_:
        _decide(workspace, gate, chapter, "approved", "", card)
        return
    from .errors import UsageError
    from .pipeline import gates as g
    from .state.book import Book
    from .steps import GATES

    if gate not in GATES:
        raise UsageError(f"unknown gate {gate!r}: one of {', '.join(GATES)}")
    if chapter or card:
        raise UsageError("--all approves every waiting card of the gate: name no chapter and no --card")
    book = Book.open(workspace, repair=False)
    try:
        cards = [c for c in g.pending(book, book.scanner.chapters()) if c.gate == gate]
    finally:
        book.close()
    if not cards:
        err(f"no {gate} card is waiting; `book gates` lists what waits")
        return
    err(f"approving {len(cards)} {gate} card(s):")
    for c in cards:  # what it approves, before it does
        err(f"  {c.chapter or '-'}: {c.artifact} (card {c.path}, confirmation {c.confirmation})")
    for c in cards:
        _decide(workspace, gate, c.chapter, "approved", "", c.confirmation)


@app.command()
def reject(gate: GateArg, chapter: ChapterArg = None,
           reason: Annotated[str, typer.Option("--reason", help="why; the redo gets it as instructions")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Reject a gate's card: its rollback step is redone with the reason as instructions."""
    from .errors import UsageError

    if not reason.strip():
        raise UsageError("say why with --reason: the redo is given it as instructions")
    _decide(workspace, gate, chapter, "rejected", reason, card)


@app.command()
def modify(gate: GateArg, chapter: ChapterArg = None,
           instructions: Annotated[str, typer.Option("--instructions", help="what to change")] = "",
           workspace: Workspace = Path("."), card: Card = None) -> None:
    """Ask for changes at a gate: its rollback step is redone following the instructions."""
    from .errors import UsageError

    if not instructions.strip():
        raise UsageError("say what to change with --instructions")
    _decide(workspace, gate, chapter, "modified", instructions, card)


@app.command()
def doctor(workspace: Workspace = Path("."), provider: Provider = None, as_json: Json = False) -> None:
    """Check config, source, API key, that the model answers (one tiny call), and the prompts."""
    from .doctor import run_checks

    checks = run_checks(workspace, provider)
    if as_json:
        emit_json([vars(c) for c in checks])
    else:
        for c in checks:
            print(f"{'ok ' if c.ok else 'BAD'} {c.name:<9} {c.detail}")
            if c.fix:
                print(f"    fix: {c.fix}")
    bad = [c.name for c in checks if not c.ok]
    raise typer.Exit(0 if not bad else 1 if bad == ["model"] else 2)


@app.command()
def watch(
    workspace: Workspace = Path("."),
    as_json: Json = False,
    debounce_ms: Annotated[int, typer.Option(help="wait this long for changes to settle")] = 300,
) -> None:
    """Live status while files change (hand edits, other runs); Ctrl-C to stop."""
    from .watch import watch_workspace

    raise typer.Exit(watch_workspace(workspace, as_json=as_json, debounce_ms=debounce_ms))
