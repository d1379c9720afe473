"""A writing session: `book run` and `book resume` hold the lock, run the plan under asyncio,
and turn SIGINT/SIGTERM/SIGHUP into a clean stop (in-flight generations abandoned, their .partial
files kept, an `interrupted` event, RESUME.md and checkpoint.md brought up to date)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import BookError, ConfigError, Interrupted
from ..providers import make_provider, resolve_name
from ..providers.base import Provider
from ..signals import STOP_SIGNALS, Terminated, detach_from_terminal, stopped_by, watch_stop
from ..state.board import Reporter
from ..state.book import Book, order_warning
from ..state.fsio import Lock, sweep_temp_files
from ..state.reconcile import all_discrepancies, brief, not_utf8
from ..steps import LOCK
from .derived import memory_in_sync
from .dry_run import dry_run, plan as dry_run_plan
from .retire import orphans
from .runner import Runner, RunOptions, RunSummary


@dataclass
class SessionResult:
    summary: RunSummary
    exit_code: int


def run_session(book: Book, opts: RunOptions, provider_name: str | None = None, quiet: bool = False,
                provider: Provider | None = None, before: Callable[[Book], None] | None = None,
                reporter: Any = None) -> SessionResult:
    """Run the plan with the lock held. `before(book)` runs first, under the lock (resume's
    reconciliation). A dry run takes no lock and writes nothing. `reporter` (the CLI's progress
    display) takes the run's events in place of the plain Reporter."""
    report = reporter if reporter is not None and not opts.dry_run else Reporter(quiet=quiet or opts.dry_run)
    if opts.dry_run:
        if provider is None:
            resolve_name(provider_name, book.cfg)  # an unknown provider is an error even here
        return SessionResult(dry_run(book, opts, lambda m: report("warning", ("", ""), m)), 0)
    lock = Lock(book.ws.path(LOCK), warn=lambda m: print(m, file=sys.stderr))
    lock.acquire()
    stopped = False
    try:
        sweep_temp_files(book.root / "output")

        snap = book.snapshot()
        issues = all_discrepancies(book, snap)
        if before is None:  # `book resume` reports them itself, with more
            # a hand edit or a decision makes the checkpoint and ledger lag the files: the run catches
            # up, and the person hears only of a disagreement those changes do not explain
            for i in brief(issues, [*snap.stale, *snap.edited, *snap.half_finished], None):
                report("warning", ("", ""), f"disagreement: {i}")
        from ..state.corrections import load as corrections

        mis_saved = not_utf8(book.root, snap.edited + snap.half_finished, book.cache)
        if mis_saved:  # a person's file the book would read with U+FFFD in it: refused, nothing runs
            raise ConfigError("; ".join(mis_saved) + " — nothing was run",
                              fix="save the file(s) as UTF-8 (the book never publishes a mis-decoded text), "
                                  "then `book run` again")
        for w in order_warning(snap) + corrections(book.root).problems:  # what `book scan` warns of, a run says too
            report("warning", ("", ""), w)  # an outline listed out of order, a person's file not readable as meant
        if not opts.redo and nothing_to_do(book, opts, issues):
            report("warning", ("", ""), "nothing to do: every file is fresh")
            code = 3 if book.needs_human() else 0
            return SessionResult(RunSummary("", {}, [], book.needs_human()), run_exports(book, opts, report, code))

        async def main() -> RunSummary:
            nonlocal provider
            provider = provider or make_provider(provider_name, book.cfg)
            runner = Runner(book, provider, opts, report)
            task = asyncio.current_task()
            assert task is not None  # run inside asyncio.run
            loop = asyncio.get_running_loop()
            got: list[int] = []

            def stop(signum: int) -> None:
                got.append(signum)
                if signum == signal.SIGHUP:
                    detach_from_terminal()
                task.cancel()  # first: a message to a closed terminal must not prevent the stop
                try:
                    report("warning", ("", ""), f"received {signal.Signals(signum).name}: stopping cleanly "
                                                "(in-flight work is kept as .partial files)")
                except OSError:
                    pass

            for s in STOP_SIGNALS:
                try:
                    loop.add_signal_handler(s, stop, s)
                except (NotImplementedError, RuntimeError):
                    pass
            # the loop hears a signal when it next gets control; the walk and the map, which may hold
            # it (or the interpreter) for seconds, hear it at once through the stop flag
            unwatch = watch_stop()
            try:
                if before is not None:
                    before(book)
                return await runner.run()
            except asyncio.CancelledError:
                signum = got[0] if got else stopped_by()  # a step may end at the stop flag before the loop hears it
                if signum:
                    raise Interrupted(f"interrupted by {signal.Signals(signum).name}; `book resume` continues") from None
                raise
            finally:
                unwatch()
                await provider.aclose()

        summary = asyncio.run(main())
        return SessionResult(summary, run_exports(book, opts, report, summary.exit_code))
    except (Interrupted, KeyboardInterrupt, Terminated):
        stopped = True
        raise
    finally:
        report.close()
        if stopped:  # a cache only: the next run hashes again, rather than 20,000 rows of a huge tree delay the stop
            book.cache.dirty.clear()
        book.save_cache()
        lock.release()


def run_exports(book: Book, opts: RunOptions, report: Reporter, code: int) -> int:
    """book.yaml's `exports` after a run that reached the publish phase: each is redone only
    when the published book changed. A failed export is reported and fails the run (exit 1)."""
    scope = opts.scope
    if not book.cfg.exports or scope.batch or scope.chapter or (scope.phase or 5) < 5:
        return code
    from .exporting import export_book

    book.scanner.invalidate()
    try:
        for r in export_book(book, list(book.cfg.exports)):
            if r.status == "written":
                report("warning", ("", ""), f"exported {r.path} ({r.size:,} bytes{', ' + r.detail if r.detail else ''})")
    except (BookError, OSError) as e:
        report("warning", ("", ""), f"export failed: {e}")
        return code or 1
    return code


def nothing_to_do(book: Book, opts: RunOptions, issues: list[str]) -> bool:
    """True when a run would change no file: the plan is empty and the human views agree
    with the files (so a second `book run` or `book resume` leaves the tree untouched)."""
    plan = dry_run_plan(book, opts.scope)

    if plan or orphans(book):  # a chapter deleted from the outline is retired by a run
        return False

    if book.scanner.outline is not None and not memory_in_sync(book):
        return False  # a damaged glossary or summaries file: rebuilt from the per-chapter files
    return not [i for i in issues if not i.startswith("the ledger")]

