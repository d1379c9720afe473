"""The end of a run: needs-human.md, the last checkpoint.md, RESUME.md, the ledger's
run_end, and the summary the CLI turns into an exit code."""

from __future__ import annotations

from ..errors import BookError
from ..state.board import write_needs_human
from ..state.resume_md import write_resume
from .outcomes import RunSummary
from .plan import Scope
from .run_state import RunState


class Finish(RunState):
    def finish(self, interrupted: bool = False) -> RunSummary:
        book = self.book
        led = book.ledger
        chapter_needs = {k: v for k, v in self.needs.items() if k.startswith("ch")}
        try:
            write_needs_human(book, chapter_needs)
        except OSError as e:
            self.warn(f"could not write needs-human.md: {e}")
        try:
            self.sync_memory()  # the long-memory aggregates of the chapters committed since the last rebuild
        except (OSError, BookError) as e:
            self.warn(f"could not rebuild the long-memory aggregates: {e}")
        self.live = {k: v for k, v in self.live.items() if v != "running"}
        book.scanner.invalidate()  # the last checkpoint.md and RESUME.md read the files as they are now
        before = self.unsettled_at_start
        if before is not None and not interrupted and not self.needs and self.opts.scope == Scope():
            snap = book.snapshot()
            moved = [p for p in snap.half_finished + snap.stale if p not in before]
            if moved:  # a person saved a file while the run went: what it feeds is out of date again
                self.warn(f"changed while this run went: {', '.join(moved[:3])}{' …' if len(moved) > 3 else ''} "
                          "is out of date now; `book run` again brings it up to date")
        self.checkpoint(force=True)  # also cancels a deferred write
        if self.api_stop:
            self.needs["api"] = self.api_stop  # RESUME.md and the run's summary say why it stopped
        summary = RunSummary(self.run_id, self.outcomes, self.generated, dict(self.needs), waiting=sorted(set(self.waiting)),
                             stopped=self.api_stop or "")
        try:
            write_resume(book, summary, strategy=self.opts.strategy, interrupted=interrupted)
        except (OSError, BookError) as e:
            self.warn(f"could not write RESUME.md: {e}")
        led.event("run_end", self.run_id, status="interrupted" if interrupted else
                  ("stopped" if self.api_stop else "ok" if summary.ok else "needs_human"),
                  generated=len(self.generated), failed=sorted(f"{n[0]} {n[1]}" for n, o in self.outcomes.items()
                                                               if o.status == "failed"))
        return summary
