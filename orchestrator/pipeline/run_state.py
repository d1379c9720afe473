"""What one run knows while it walks the plan, shared by the runner's parts: the book, the
provider, the options, the outcomes so far, who waits for a person, the live matrix behind
checkpoint.md, the budget in flight. `Runner` (runner.py) is this state plus its parts:
the walk (walk.py), the per-node decisions (decisions.py), generate → commit
(generation.py), budget and call logging (budget.py), the derived steps (derived_steps.py),
the dry run (dry_run.py) and the end of a run (finish.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import BookError
from ..providers.base import Provider, Request, Result, Sink
from ..sizing import AnswerSizes, Release
from ..state.board import CheckpointWriter, write_needs_human
from ..state.commit import Seen
from ..state.fsio import PartialWriter
from ..state.scan import StepState
from ..steps import BOOK, REVIEW, Node, spec
from .accept import how_to_fix
from .freshness import chapter_complete, step_state
from .gates import active
from .outcomes import Outcome, RunOptions, RunSummary, new_run_id
from .plan import is_gate
from .publishing import SiteCache
from .slots import Slots

if TYPE_CHECKING:
    from .batch_wave import BatchWave


class RunState:
    def __init__(self, book, provider: Provider, opts: RunOptions, report: Callable[[str, Node, str], None] | None = None):
        self.book = book
        self.provider = provider
        self.opts = opts
        self.report = report or (lambda kind, node, msg: None)
        self.run_id = new_run_id()
        self.slots = Slots(opts.concurrency or book.cfg.concurrency)  # the model calls in flight
        self.rank: dict[Node, int] = {}  # the walk's plan: model calls on each node's longest path to its end
        if opts.concurrency:
            provider.set_concurrency(opts.concurrency)  # --concurrency reaches the provider's own limit
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
        self._started_ever: set[Node] | None = None
        self._kept_noted: set[Node] = set()
        self._blocked_noted: set[Node] = set()
        self.budget_stop: str | None = None
        self.api_stop: str | None = None  # the API's word that no request can succeed (a spend limit): the run stops
        self.in_flight_usd = 0.0  # estimates of the calls started and not yet logged: the cap counts them
        self._reserved: dict[int, float] = {}  # id(request) -> its estimate, while in flight
        self._sizes: AnswerSizes | None = None  # the largest answer of each role (budget.py, sizing.py)
        self._released = Release()  # set when a reservation is released (budget.py)
        self.waiting: list[str] = []  # gate cards this run stopped at
        self.revising: dict[str, int] = {}  # chapter -> automatic revisions of a blocked draft so far
        self.redelivered: set[str] = set()  # chapters sent back to the editor by the delivery check
        # The run's own copies: a rejected gate, a revision or the delivery check adds redos
        # and instructions while it runs; the options it was given stay as they were.
        self.redo: set[Node] = set(opts.redo)
        self.instructions: dict[Node, str] = dict(opts.instructions)
        self.site = SiteCache()  # the site the pages are published from (publishing.py)
        self.board = CheckpointWriter(book)  # checkpoint.md
        self.memory_dirty = False  # a chapter's long memory committed since the aggregates were rebuilt
        self.batch: BatchWave | None = None  # Message Batches (batch_wave.py), set up by Runner
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

    # ------------------------------------------------------------ the parts' seams
    # Each is defined by the part named beside it (runner.py composes them); declared here so
    # one part can call another.

    async def node(self, n: Node) -> Outcome:  # decisions.py
        raise NotImplementedError

    def why(self, n: Node) -> str | None:  # decisions.py
        raise NotImplementedError

    def settle(self, card: Any) -> Any:  # decisions.py
        raise NotImplementedError

    async def generate(self, n: Node, why: str) -> Outcome:  # generation.py
        raise NotImplementedError

    def _tidy_partial(self, n: Node) -> None:  # generation.py
        raise NotImplementedError

    def _set_aside(self, n: Node) -> None:  # generation.py
        raise NotImplementedError

    def _over_budget(self, req: Request, batch: bool = False) -> str | None:  # budget.py
        raise NotImplementedError

    def _log_call(self, req: Request, result: Result | None, t0: float, error: str | None = None) -> None:  # budget.py
        raise NotImplementedError

    def _sink(self, pw: PartialWriter) -> Sink:  # budget.py
        raise NotImplementedError

    async def derive(self, n: Node) -> Outcome:  # derived_steps.py
        raise NotImplementedError

    def dry_run(self) -> RunSummary:  # dry_run.py
        raise NotImplementedError

    def finish(self, interrupted: bool = False) -> RunSummary:  # finish.py
        raise NotImplementedError
