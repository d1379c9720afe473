"""A run you can watch: the run's report callback (`kind, (chapter, step), message`) drawn as a
rich progress bar on a terminal — steps done of the total, the chapter and step running, an ETA
from the steps' measured times, and on a model the money spent (and the estimate, when the
book has one) — or, when stderr is not a terminal, the same as one line per step. Warnings are
printed above the bar. The total is the dry run's plan for the run (the steps that will run,
not those waiting behind a gate); a step the plan did not foresee raises it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from ..steps import BOOK, OUTLINE

_SYMBOLS = {"start": "⏳", "done": "✅", "fail": "❌", "skip": "⏭"}


def planned_total(book, opts) -> int | None:
    """How many steps this run will do, from the dry run's plan; None when it cannot tell."""
    from ..errors import BookError
    from ..pipeline.dry_run import plan

    try:
        steps = plan(book, opts.scope)
    except (BookError, OSError):
        return None
    from .console import conditional

    return sum(1 for (_ch, step), why in steps if not step.startswith("gate:") and step != "chapters"
               and not ("waits for a decision" in why and not why.endswith(" changes")) and not conditional(why))


def for_run(book, opts, provider: str | None, quiet: bool) -> Progress:
    """The progress display of a `book run` (or of `book review --run`'s runs): the total from
    the plan; the money from the ledger when a model is paid (offline costs nothing)."""
    from ..providers import resolve_name

    paid = resolve_name(provider, book.cfg) != "offline"
    outline = book.scanner.outline is not None
    return Progress(total=None if quiet else planned_total(book, opts),
                    spent=book.ledger.spent if paid else None, quiet=quiet,
                    replan=None if quiet or outline else (lambda: planned_total(book, opts)))


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """The run's reporter (session.run_session's `reporter`): call it with each event."""

    def __init__(self, total: int | None = None, spent: Callable[[], float] | None = None,
                 estimate: Callable[[], Any] | None = None, quiet: bool = False, stream=None,
                 replan: Callable[[], int | None] | None = None):
        self.quiet, self.stream = quiet, stream or sys.stderr
        self.replan = replan  # before the outline exists the plan knows no chapters: planned again once it does
        self.total = total
        self.spent, self.estimate = spent, estimate
        self.t0 = time.monotonic()
        self.started: dict[tuple[str, str], float] = {}
        self.took: list[float] = []  # measured seconds of each finished step
        self.finished = 0
        self.counts = {"done": 0, "fail": 0, "skip": 0}
        self.bar: Any = None
        self.task: Any = None
        if not quiet and self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn

            self.bar = Bar(TextColumn("[bold]book"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                           console=Console(file=self.stream), refresh_per_second=4, transient=False)
            self.task = self.bar.add_task("", total=total)
            self.bar.start()

    # ------------------------------------------------------------------ what is shown

    def eta(self) -> float | None:
        """Seconds left: the steps left at the pace measured so far (steps finished per second of
        the run, so steps running side by side count as such), or None before the first one."""
        if not self.total or not self.finished:
            return None
        left = max(0, self.total - self.finished)
        return left * (time.monotonic() - self.t0) / self.finished

    def money(self) -> str:
        if self.spent is None:
            return ""
        try:
            spent = self.spent()
        except Exception:  # noqa: BLE001 - a ledger being rebuilt: the money waits for the next event
            return ""
        est = None
        if self.estimate is not None:
            try:
                est = self.estimate()
            except Exception:  # noqa: BLE001 - no estimate yet: the spend alone
                est = None
        if isinstance(est, (tuple, list)) and len(est) == 2:
            return f"${spent:.2f} of ~${est[0]:.2f}–{est[1]:.2f}"
        return f"${spent:.2f} spent"

    def status(self, running_too: bool = True) -> str:
        running = [f"{ch} {step}" for ch, step in self.started] if running_too else []
        parts = []
        if running:
            parts.append(", ".join(running[:3]) + (f" +{len(running) - 3}" if len(running) > 3 else ""))
        eta = self.eta()
        parts.append(f"ETA {_clock(eta)}" if eta is not None else f"{_clock(time.monotonic() - self.t0)}")
        if money := self.money():
            parts.append(money)
        if self.counts["fail"]:
            parts.append(f"{self.counts['fail']} failed")
        return " · ".join(parts)

    # ------------------------------------------------------------------ the callback

    def __call__(self, kind: str, node: tuple[str, str], msg: str) -> None:
        if self.quiet:
            return
        if kind == "warning":
            if self.bar is not None:
                self.bar.console.print(msg, markup=False, highlight=False)
            else:
                print(msg, file=self.stream, flush=True)
            return
        key = (node[0], node[1])
        gate = node[1].startswith("gate:")
        if kind == "start":
            self.started[key] = time.monotonic()
        elif kind in self.counts:
            t = self.started.pop(key, None)
            self.counts[kind] += 1
            if not gate and kind in ("done", "fail") or (kind == "skip" and t is not None):
                self.finished += 1
                if t is not None:
                    self.took.append(time.monotonic() - t)
                if kind == "done" and key == (BOOK, OUTLINE) and self.replan is not None:
                    more, self.replan = self.replan(), None
                    self.total = self.finished + more if more is not None else self.total
                if self.total is not None and self.finished > self.total:
                    self.total = self.finished  # a step the plan did not foresee (a revision, a redo)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.finished, total=self.total, description=self.status())
            return
        if kind == "start":
            return  # one line per step: when it ends
        of = f"{self.finished}/{self.total}" if self.total else f"{self.finished}"
        why = f" ({msg})" if msg else ""
        print(f"[{time.monotonic() - self.t0:6.1f}s] {_SYMBOLS.get(kind, '·')} {node[0]} {node[1]}{why} — {of}"
              + f" · {self.status(running_too=False)}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=self.finished, total=self.total or self.finished,
                            description=self.status())
            self.bar.stop()
            self.bar = None
