"""Keeping the human views current: checkpoint.md and needs-human.md, rewritten from the files
(and what only a live run knows) whenever the state changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import BookError
from ..steps import CHECKPOINT, GATES_DIR, NEEDS_HUMAN
from . import checkpoint, checkpoint_notes
from .fsio import atomic_write, write_if_changed
from .gatecards import pending
from .human_text import language_of, words
from .scan import Snapshot

if TYPE_CHECKING:  # asyncio is imported only by a run that defers writes, never by `book scan`
    import asyncio


def write_checkpoint(book, snap: Snapshot | None = None, live: dict[tuple[str, str], str] | None = None) -> None:
    text = checkpoint_text(book, snap or book.snapshot(), live)
    atomic_write(book.ws.path(CHECKPOINT), text)
    checkpoint_notes.remember(book.ledger.path, text)  # what a person's later edit is told apart from


class CheckpointWriter:
    """checkpoint.md for a live run, coalesced: a run asks for it at every state change, and it
    is written at most once per `interval` seconds (the last request is never lost: a timer
    writes it when the interval is up), and at once when `force` is set (the end of a run, a
    signal, a gate stop). Each write renders the whole view from the runner's in-memory
    snapshot, so what is written is what `book scan --rebuild` writes for the same files."""

    def __init__(self, book, interval: float = 0.5):
        import time

        self.book = book
        self.interval = interval
        self.clock = time.monotonic
        self.last = float("-inf")
        self.pending: dict[tuple[str, str], str] | None = None
        self.timer: asyncio.TimerHandle | None = None  # the deferred write
        self.writes = 0
        self.cost = 0.0  # seconds the last write took

    def request(self, live: dict[tuple[str, str], str], force: bool = False) -> None:
        self.pending = dict(live)
        if force or self.clock() - self.last >= self.gap:
            self.flush()
            return
        if self.timer is None:
            import asyncio

            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous caller): write now
                self.flush()
                return
            self.timer = loop.call_later(max(0.0, self.gap - (self.clock() - self.last)), self._deferred)

    @property
    def gap(self) -> float:
        """Seconds between writes: `interval`, or longer on a book so big that one write takes
        more than a fifth of it (the view never takes more than ~20 % of the run)."""
        return max(self.interval, 5 * self.cost)

    def _deferred(self) -> None:
        self.timer = None
        try:
            self.flush()
        except (OSError, BookError):
            pass  # the next request (or the forced one at the end of the run) tries again

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.pending is None:
            return
        live, self.pending = self.pending, None
        self.last = self.clock()
        try:
            write_checkpoint(self.book, live=live)
            self.cost = self.clock() - self.last
        except BaseException:
            self.pending = self.pending if self.pending is not None else live  # not lost: the next flush retries
            raise
        self.writes += 1

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


def checkpoint_text(book, snap: Snapshot, live: dict[tuple[str, str], str] | None = None) -> str:
    """checkpoint.md as a run and `book watch` both write it (one renderer, so they never drift)."""
    title = (snap.outline.title if snap.outline and snap.outline.title else None) or book.cfg.title
    waiting = []
    if (book.root / GATES_DIR).is_dir():
        waiting = [f"{c.path} — `book approve {c.gate}{' ' + c.unit if c.unit else ''}`"
                   for c in pending(book, list(snap.chapters))]
    from .book import _in_batch  # steps waiting in a Message Batch: 📨, over "running"

    live = {**(live or {}), **{(w.chapter, w.step): "in_batch" for w in _in_batch(book) if w.chapter}}
    from .evidence_view import checkpoint_view
    from .quality_view import checkpoint_line

    evidence = checkpoint_view(book, snap)
    if evidence:  # the book's quality figures, under Phase 4 (as the audit reports them)
        evidence["quality"] = checkpoint_line(book, book.cfg.language)
    view = checkpoint.render(snap, title, book.cfg.language, live=live, needs_human=book.needs_human(), gates=waiting,
                             evidence=evidence)
    current, last = checkpoint_notes.current_and_last(book.ws.path(CHECKPOINT), book.ledger.path)
    return checkpoint_notes.keep(view, current, last, book.cfg.language, checkpoint.header_words(book.cfg.language))


def write_needs_human(book, items: dict[str, str]) -> None:
    """`- chNN: reason` lines; an empty dict leaves a file that says nothing is waiting."""
    w = words(language_of(book))  # `- chNN: reason` in every language: Book.needs_human reads them back
    lines = [f"# {w['nh_title']}", "", w["nh_intro"], ""]
    lines += [f"- {ch}: {why}" for ch, why in sorted(items.items())] or [w["nh_none"]]
    write_if_changed(book.ws.path(NEEDS_HUMAN), "\n".join(lines) + "\n")


class Reporter:
    """Progress on stderr: one line per event when stderr is not a terminal, a live table
    (rich) when it is, nothing with -q."""

    def __init__(self, quiet: bool = False, stream=None):
        import sys

        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.live = None
        self.rows: dict[str, dict[str, str]] = {}
        self.counts = {"start": 0, "done": 0, "fail": 0, "skip": 0}
        import time

        self.t0 = time.monotonic()
        if not quiet and self.stream.isatty():
            from rich.console import Console
            from rich.live import Live

            # get_renderable: redrawn 4 times a second, so the elapsed time moves between events too.
            self.live = Live(console=Console(file=self.stream), refresh_per_second=4, transient=False,
                             get_renderable=self._table)
            self.live.start()

    def __call__(self, kind: str, node: tuple[str, str], msg: str) -> None:
        if self.quiet:
            return
        if kind in self.counts:
            self.counts[kind] += 1
        if kind == "warning":
            if self.live:
                self.live.console.print(f"[yellow]{msg}[/]")
            else:
                print(msg, file=self.stream, flush=True)
            return
        ch, step = node
        sym = {"start": "⏳", "done": "✅", "fail": "❌", "skip": "⏭"}.get(kind, "·")
        self.rows.setdefault(ch, {})[step] = sym
        if not self.live:
            import time

            why = f" ({msg})" if msg else ""
            print(f"[{time.monotonic() - self.t0:6.1f}s] {sym} {ch} {step}{why}", file=self.stream, flush=True)

    def _table(self):
        import time

        from rich.table import Table

        from ..steps import ORDER

        book = self.rows.get("book", {})
        t = Table(title=f"book — {time.monotonic() - self.t0:.0f}s, {self.counts['done']} done, "
                        f"{self.counts['fail']} failed, {self.counts['skip']} skipped", expand=False,
                  caption="  ".join(f"{k} {v}" for k, v in book.items()) or None)
        t.add_column("")
        for k in ORDER:
            t.add_column(k)
        for ch in sorted(r for r in self.rows if r != "book"):
            t.add_row(ch, *[self.rows[ch].get(k, "") for k in ORDER])
        return t

    def close(self) -> None:
        if self.live:
            self.live.refresh()
            self.live.stop()
