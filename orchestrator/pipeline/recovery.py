"""`book resume`: read RESUME.md, compare checkpoint.md and the ledger with the files, apply
the strategy to half-finished files, rebuild the caches of the files (checkpoint.md, todos,
long-memory aggregates), then continue as `book run` would. It reports through the caller's
`say` and returns what it did; printing is the CLI's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..providers.base import Provider
from ..state import reconcile
from ..state.board import write_checkpoint
from ..state.fsio import Lock
from ..state.resume_md import write_resume
from ..steps import LOCK, RESUME, Node
from . import derived
from .batch_wave import resumes_in_batches
from .dry_run import plan as dry_run_plan
from .plan import Scope
from .runner import RunOptions, RunSummary
from .session import run_session


def resume_summary(book) -> str:
    p = book.root / RESUME
    try:
        text = p.read_text(encoding="utf-8")
    except OSError:
        return ""
    keep, on = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            on = line[3:].strip() in ("Current progress", "Known problems")
            if on:
                keep.append(line)
            continue
        if on and line.strip():
            keep.append(line)
    return "\n".join(keep)


@dataclass
class ResumeResult:
    exit_code: int
    summary: RunSummary | None = None  # None when nothing ran
    plan: list[tuple[Node, str]] = field(default_factory=list)  # --no-run: what a run would do, and why


def resume(book, strategy: str, no_run: bool, provider: str | None, concurrency: int | None,
           say: Callable[[str], None], quiet: bool = False, provider_obj: Provider | None = None, retry_delay: float = 1.0) -> ResumeResult:
    """Recover, then run (or with `no_run`, only reconcile and plan)."""
    summary = resume_summary(book)
    say("RESUME.md:\n" + summary if summary else "no RESUME.md: working out where things stand from the files alone")
    snap = book.snapshot()
    issues = reconcile.all_discrepancies(book, snap)
    for i in issues:
        say(f"  disagreement: {i} (the files win)")
    halves = reconcile.half_finished(book, snap)
    for h in halves:
        owner = "a crash's .partial" if h.partial else "no marker"
        say(f"  half-finished: {h.path} ({h.size} bytes, {h.age_s / 60:.0f} min old, {owner}; "
            f"{'looks truncated: ' if h.truncated else ''}{h.why})")
    if strategy == "ask" and halves:
        say("strategy ask: nothing was changed. Decide, then `book resume --strategy conservative` "
            "(back up and redo) or `--strategy aggressive` (continue the partial text).")
        return ResumeResult(3)

    def reconcile_files(book) -> None:
        written = derived.sync_memory(book)
        for w in written:
            say(f"  rebuilt {w} from output/memory/chapters/")
        if issues:
            write_checkpoint(book)

    if no_run:
        with Lock(book.ws.path(LOCK)):
            reconcile_files(book)
            if issues:
                write_resume(book, strategy=strategy)
            plan = dry_run_plan(book, Scope())
        say("reconciled; nothing generated (--no-run)" if plan or issues else "nothing to do")
        return ResumeResult(0, plan=plan)

    opts = RunOptions(Scope(), strategy, concurrency, retry_delay=retry_delay,
                      message_batches=resumes_in_batches(book))
    result = run_session(book, opts, provider, quiet, provider=provider_obj, before=reconcile_files)
    return ResumeResult(result.exit_code, result.summary)

