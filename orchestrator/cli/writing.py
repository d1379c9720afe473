"""The commands that write the book: `book run`, `book redo`, `book accept`, `book resume`.
The run machinery (runner, providers, agents) loads inside them, off the path of the commands
that only read."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..pipeline.outcomes import RunOptions, validate_strategy
from ..pipeline.plan import Scope
from ..providers import NAMES
from ..state.book import Book
from ..steps import BOOK, Node, check_chapter_id
from .console import err, print_plan, print_summary
from .options import Concurrency, Provider, Quiet, Strategy, Workspace


def say_ledger_repairs(book: Book) -> None:
    """What opening the ledger found and did (rebuilt it, and from what; calls put back or closed
    as cut off; a damaged spend journal moved aside): a run never rebuilds its record silently."""
    for w in book.ledger.warnings:
        err(f"warning: {w}")


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
    from ..pipeline.session import run_session  # the run machinery: only for the commands that run

    if chapter:
        check_chapter_id(chapter)
    if provider is not None and provider not in NAMES:  # say so even when nothing is left to do
        raise UsageError(f"unknown provider {provider!r}: choose one of {', '.join(NAMES)}")
    opts = RunOptions(Scope(batch, phase, chapter), validate_strategy(strategy), concurrency, dry_run,
                      message_batches=message_batches)
    book = Book.open(workspace, repair=not dry_run)  # a dry run creates nothing, not even the ledger
    try:
        say_ledger_repairs(book)
        from .progress import for_run

        result = run_session(book, opts, provider, quiet,
                             reporter=None if dry_run else for_run(book, opts, provider, quiet))
        if dry_run:
            print_plan(result.summary.plan)
            from ..estimate import describe, estimate

            print(describe(estimate(book, book.ledger.calls(), batch=message_batches or None)))
        else:
            print_summary(result.summary, book)
    finally:
        book.close()
    raise typer.Exit(result.exit_code)


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
    from ..pipeline.accept import check_in_outline, check_step
    from ..pipeline.session import run_session

    check_step(chapter, step)
    book = Book.open(workspace)
    try:
        say_ledger_repairs(book)
        check_in_outline(book, chapter)
        scope = Scope() if run_after or chapter == BOOK else Scope(chapter=chapter)
        result = run_session(book, RunOptions(scope, redo={Node(chapter, step)}), provider, quiet)
        print_summary(result.summary, book)
    finally:
        book.close()
    raise typer.Exit(result.exit_code)


def accept(
    chapter: Annotated[str, typer.Argument(help="chNN, or `book` for a book-level file")],
    step: Annotated[str, typer.Argument(help="the step whose file you wrote or fixed")],
    workspace: Workspace = Path("."),
) -> None:
    """Adopt the file of a step as it stands as your own work: it gets a marker with by=person,
    its status is `edited` (never overwritten), and what follows is built from it.

    Chapter steps: research, draft, r1, r2, r3, review, panel, memory, final.
    Book steps (`book accept book STEP`): outline, style_guide, audit."""
    from ..pipeline.accept import accept as do_accept

    book = Book.open(workspace)
    try:
        rel = do_accept(book, chapter, step)
    finally:
        book.close()
    err(f"accepted {rel} as yours (edited: kept, never overwritten). `book run` builds what follows from it.")


def resume(
    workspace: Workspace = Path("."),
    strategy: Strategy = "conservative",
    no_run: Annotated[bool, typer.Option("--no-run", help="only reconcile and rebuild; generate nothing")] = False,
    provider: Provider = None,
    concurrency: Concurrency = None,
    quiet: Quiet = False,
) -> None:
    """Read RESUME.md, reconcile checkpoint.md and the ledger with the files, recover, continue."""
    from ..pipeline.recovery import resume as do_resume

    strategy = validate_strategy(strategy)
    book = Book.open(workspace)
    try:
        say_ledger_repairs(book)
        res = do_resume(book, strategy, no_run, provider, concurrency, (lambda m: None) if quiet else err, quiet)
        print_plan(res.plan, empty=None)
        if res.summary and res.summary.run_id:
            print_summary(res.summary, book)
    finally:
        book.close()
    raise typer.Exit(res.exit_code)
