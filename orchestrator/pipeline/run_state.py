"""The data one run shares among its parts (runner.py builds them): the book, the options,
the reporter, the outcomes so far, who waits for a person, the live matrix behind
checkpoint.md, the redos and instructions the run adds as it goes, what each step's path held
when the run started it. No part's own bookkeeping lives here: the budget's is in budget.py,
the generator's in generation.py, the decisions' in decisions.py."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import BookError
from ..state.board import CheckpointWriter, write_needs_human
from ..state.commit import Seen
from ..state.scan import StepState
from ..steps import BOOK, REVIEW, Node, spec
from .accept import how_to_fix
from .freshness import chapter_complete, step_state
from .gates import active
from .outcomes import Outcome, RunOptions, new_run_id
from .plan import is_gate
from .publishing import SiteCache
from .slots import Slots

Report = Callable[[str, Node, str], None]


class RunState:
    def __init__(self, book, opts: RunOptions, report: Report | None = None):
        self.book = book
        self.opts = opts
        self.report = report or (lambda kind, node, msg: None)
        self.run_id = new_run_id()
        self.slots = Slots(opts.concurrency or book.cfg.concurrency)  # the model calls in flight
        self.rank: dict[Node, int] = {}  # the walk's plan: model calls on each node's longest path to its end
        # A run that may stop at a gate for a person asks for 1-hour cached prompt prefixes,
        # so they outlive the wait (answers.request_for puts it on every request).
        self.cache_ttl: str | None = "1h" if active(book.cfg.gates) else None
        # The chapter's material outlives a wait only at the review gate, between its readers
        # (R1-R3 and the merger before it; the panel, memory keeper and editor after it).
        self.material_ttl: str | None = "1h" if REVIEW in active(book.cfg.gates) else None
        self.outcomes: dict[Node, Outcome] = {}
        self.generated: list[Node] = []
        self.live: dict[tuple[str, str], str] = {}
        self.needs = dict(book.needs_human())
        self.warn: Callable[[str], None] = lambda m: self.report("warning", Node("", ""), m)
        self.waiting: list[str] = []  # gate cards this run stopped at
        # The run's own copies: a rejected gate, a revision or the delivery check adds redos
        # and instructions while it runs; the options it was given stay as they were.
        self.redo: set[Node] = set(opts.redo)
        self.instructions: dict[Node, str] = dict(opts.instructions)
        self.whole: set[Node] = set()  # chapter texts whose section rewrite failed: written whole (section_redo)
        self.site = SiteCache()  # the site the pages are published from (publishing.py)
        self.board = CheckpointWriter(book)  # checkpoint.md
        self.memory_dirty = False  # a chapter's long memory committed since the aggregates were rebuilt
        self.unsettled_at_start: set[str] | None = None  # stale or half-finished when the walk began (walk.py)
        self.seen: dict[Node, Seen] = {}  # what each step's path held when this run started it (state/commit.py)
        # a marker-less file saved since the command began is a person's: our writer never makes one
        self.started_ns = book.started_ns or time.time_ns()

    # ------------------------------------------------------------ shared helpers

    @property
    def gates(self) -> tuple[str, ...]:
        return active(self.book.cfg.gates)

    def chapter_complete(self, ch: str) -> bool:
        return chapter_complete(self.book, ch)

    @staticmethod
    def _ev(n: Node) -> tuple[str | None, str]:
        return (None if n[0] == BOOK else n[0]), n[1]

    def state(self, n: Node) -> StepState:
        return step_state(self.book, n)

    def rel(self, n: Node) -> str:
        return spec(n).file(None if n[0] == BOOK else n[0])

    def marker(self, n: Node) -> str:
        return spec(n).marker

    def needs_human(self, n: Node, reason: str, hint: str | None = None) -> None:
        key = n[0] if n[0] != BOOK else f"book {n[1]}"
        if hint is None:
            hint = how_to_fix(n) if not is_gate(n) and spec(n).model and "book accept" not in reason else ""
        self.needs[key] = f"{n[1]}: {reason}" + (f" — {hint}" if hint else "")
        try:
            write_needs_human(self.book, {k: v for k, v in self.needs.items() if k.startswith("ch")})
        except OSError as e:
            self.warn(f"could not write needs-human.md: {e}")

    def sync_memory(self) -> None:
        """Rebuild the long-memory aggregates if a chapter's memory was committed since the last
        rebuild. Nothing in phase 3 reads them (prompts and checks read the per-chapter files):
        the pages and the index do, so they are rebuilt before those and at the end of the run
        (a killed run's next start rebuilds them), not once per chapter: same bytes, O(N) writes."""
        if self.memory_dirty:
            from . import derived

            self.memory_dirty = False
            derived.sync_memory(self.book)

    def checkpoint(self, force: bool = False) -> None:
        try:  # coalesced (twice a second at most); at once when forced: end of run, signal, gate stop
            self.board.request(self.live, force)
        except (OSError, BookError) as e:
            self.warn(f"could not rewrite checkpoint.md: {e}")
