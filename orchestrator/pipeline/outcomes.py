"""What a run is asked to do and what it reports: the options, one node's outcome, the
summary (with the CLI's exit code), the run id and the recovery strategies."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import UsageError
from ..state.fsio import utc_stamp
from ..steps import Node
from .plan import Scope

STRATEGIES = ("conservative", "aggressive", "ask")


@dataclass
class RunOptions:
    scope: Scope = field(default_factory=Scope)
    strategy: str = "conservative"
    concurrency: int | None = None
    dry_run: bool = False
    retry_delay: float = 1.0  # seconds before the first retry of a failed step; doubles
    redo: set[Node] = field(default_factory=set)  # nodes to regenerate even when fresh
    instructions: dict[Node, str] = field(default_factory=dict)  # extra instructions for a redo
    message_batches: bool = False  # `--message-batches`: model steps go out as Message Batches (batch_wave.py)


@dataclass
class Outcome:
    status: str  # ok | failed | skipped | needs_human | stopped (the API accepts no request: RunStopped)
    ran: bool = False
    reason: str = ""
    hint: str | None = None  # what a person can do about it; None: the step's own (accept.how_to_fix)


@dataclass
class RunSummary:
    run_id: str
    outcomes: dict[Node, Outcome]
    generated: list[Node]
    needs_human: dict[str, str]
    plan: list[tuple[Node, str]] = field(default_factory=list)  # dry run: what would run and why
    waiting: list[str] = field(default_factory=list)  # gate cards waiting for a person
    stopped: str = ""  # why the API stopped the run (a spend limit, `x-should-retry: false`): exit 5

    @property
    def ok(self) -> bool:
        return all(o.status == "ok" for o in self.outcomes.values())

    @property
    def exit_code(self) -> int:
        if self.stopped:
            return 5
        return 0 if self.ok and not self.needs_human else 3


def new_run_id() -> str:
    return f"{utc_stamp()[:13]}Z-{os.urandom(2).hex()}"


def validate_strategy(s: str) -> str:
    if s not in STRATEGIES:
        raise UsageError(f"unknown strategy {s!r}: choose one of {', '.join(STRATEGIES)}")
    return s
