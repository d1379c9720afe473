"""The runner: walks the plan with asyncio, doing each node's work through the write protocol.

A node, when its dependencies have finished, looks at its own file: fresh (done with the
same inputs, or edited by a person) → nothing to do; otherwise it is (re)generated. So a
first run, a second run, and a resume after a crash are the same code path, and only what
is missing, half-finished or stale is ever redone.

`Runner` builds the run's parts, each with what it needs, and owns none of their state:
the data they share (run_state.py), the budget that admits and logs each model call
(budget.py), the batch wave when the run sends Message Batches (batch_wave.py), the
generator that turns a node into a committed file (generation.py), the deriver of the files
the orchestrator writes itself (derived_steps.py), the decisions that say what a ready node
does (decisions.py), the walk that hands each ready node to them (walk.py) and the end of a
run (finish.py). The options and results live in outcomes.py and are importable from here."""

from __future__ import annotations

import asyncio

from ..providers.base import Provider
from . import batch_wave
from .budget import Budget
from .decisions import Decisions
from .derived_steps import Deriver
from .dry_run import plan
from .finish import finish
from .generation import Generator
from .outcomes import STRATEGIES, Outcome, RunOptions, RunSummary, new_run_id, validate_strategy
from .run_state import Report, RunState
from .walk import Walk

__all__ = ["STRATEGIES", "Outcome", "RunOptions", "RunSummary", "Runner", "new_run_id", "validate_strategy"]


class Runner:
    def __init__(self, book, provider: Provider, opts: RunOptions, report: Report | None = None):
        if opts.concurrency:
            provider.set_concurrency(opts.concurrency)  # --concurrency reaches the provider's own limit
        self.rs = rs = RunState(book, opts, report)
        self.budget = Budget(book, provider, rs.run_id, rs.needs, rs.warn)
        self.batch = batch_wave.setup(rs, provider, self.budget)  # Message Batches; None: streamed calls
        self.generator = Generator(rs, self.budget, provider, self.batch)
        self.deriver = Deriver(rs)
        self.decisions = Decisions(rs, self.budget, self.generator, self.deriver, provider)
        self.walk = Walk(rs, self.decisions, self.batch, provider)

    async def run(self) -> RunSummary:
        if self.rs.opts.dry_run:
            return self.dry_run()
        try:
            await self.walk.run()
        except asyncio.CancelledError:
            self.rs.book.ledger.event("interrupted", self.rs.run_id)
            self.finish(interrupted=True)
            raise
        return self.finish()

    def dry_run(self) -> RunSummary:
        """What would run, in what order, and why; changes nothing."""
        return RunSummary(self.rs.run_id, {}, [], {}, plan(self.rs.book, self.rs.opts.scope, self.decisions.why))

    def finish(self, interrupted: bool = False) -> RunSummary:
        return finish(self.rs, self.budget.api_stop, interrupted)
