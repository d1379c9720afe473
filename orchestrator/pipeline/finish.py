"""The end of a run: needs-human.md, the last checkpoint.md, RESUME.md, the ledger's
run_end, and the summary the CLI turns into an exit code. A function of the run's shared
state and of why the API stopped the run, if it did (the budget's `api_stop`)."""

from __future__ import annotations

from ..errors import BookError
from ..state.board import write_needs_human
from ..state.resume_md import write_resume
from .outcomes import RunSummary
from .plan import Scope
from .run_state import RunState


def finish(rs: RunState, api_stop: str | None, interrupted: bool = False) -> RunSummary:
    book = rs.book
    led = book.ledger
    chapter_needs = {k: v for k, v in rs.needs.items() if k.startswith("ch")}
    try:
        write_needs_human(book, chapter_needs)
    except OSError as e:
        rs.warn(f"could not write needs-human.md: {e}")
    try:
        rs.sync_memory()  # the long-memory aggregates of the chapters committed since the last rebuild
    except (OSError, BookError) as e:
        rs.warn(f"could not rebuild the long-memory aggregates: {e}")
    rs.live = {k: v for k, v in rs.live.items() if v != "running"}
    book.scanner.invalidate()  # the last checkpoint.md and RESUME.md read the files as they are now
    before = rs.unsettled_at_start
    if before is not None and not interrupted and not rs.needs and rs.opts.scope == Scope():
        snap = book.snapshot()
        moved = [p for p in snap.half_finished + snap.stale if p not in before]
        if moved:  # a person saved a file while the run went: what it feeds is out of date again
            rs.warn(f"changed while this run went: {', '.join(moved[:3])}{' …' if len(moved) > 3 else ''} "
                    "is out of date now; `book run` again brings it up to date")
    rs.checkpoint(force=True)  # also cancels a deferred write
    if api_stop:
        rs.needs["api"] = api_stop  # RESUME.md and the run's summary say why it stopped
    summary = RunSummary(rs.run_id, rs.outcomes, rs.generated, dict(rs.needs), waiting=sorted(set(rs.waiting)),
                         stopped=api_stop or "")
    try:
        write_resume(book, summary, strategy=rs.opts.strategy, interrupted=interrupted)
    except (OSError, BookError) as e:
        rs.warn(f"could not write RESUME.md: {e}")
    led.event("run_end", rs.run_id, status="interrupted" if interrupted else
              ("stopped" if api_stop else "ok" if summary.ok else "needs_human"),
              generated=len(rs.generated), failed=sorted(f"{n[0]} {n[1]}" for n, o in rs.outcomes.items()
                                                         if o.status == "failed"))
    return summary
