"""The runner: walks the plan with asyncio, doing each node's work through the write protocol.

A node, when its dependencies have finished, looks at its own file: fresh (done with the
same inputs, or edited by a person) → nothing to do; otherwise it is (re)generated. So a
first run, a second run, and a resume after a crash are the same code path, and only what
is missing, half-finished or stale is ever redone.

`Runner` is the run's state (run_state.py) composed with its parts, one module each: the
walk (walk.py), the per-node decisions (decisions.py), generate → commit (generation.py),
budget and call logging (budget.py), the derived steps (derived_steps.py), the dry run
(dry_run.py) and the end of a run (finish.py). The options and results live in outcomes.py
and are importable from here."""

from __future__ import annotations

from collections.abc import Callable

from ..providers.base import Provider
from ..steps import Node
from . import batch_wave
from .budget import BudgetAndCalls
from .decisions import NodeDecisions
from .derived_steps import DerivedSteps
from .dry_run import DryRun
from .finish import Finish
from .generation import Generation
from .outcomes import STRATEGIES, Outcome, RunOptions, RunSummary, new_run_id, validate_strategy
from .walk import GraphWalk

__all__ = ["STRATEGIES", "Outcome", "RunOptions", "RunSummary", "Runner", "new_run_id", "validate_strategy"]


class Runner(GraphWalk, NodeDecisions, Generation, BudgetAndCalls, DerivedSteps, DryRun, Finish):
    def __init__(self, book, provider: Provider, opts: RunOptions, report: Callable[[str, Node, str], None] | None = None):
        super().__init__(book, provider, opts, report)
        self.batch = batch_wave.setup(self)  # Message Batches (batch_wave.py); a 1-hour cache TTL before a gate
