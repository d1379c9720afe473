"""How many tokens a model call may write, and what the budget can pay for (issue 36).

A call's `max_tokens` is what the budget cap must hold for it: the API may bill every token
of it. Reserving each call at the step's ceiling (48k for a chapter, 20k for a review) stopped
books whose whole bill was a fraction of `budget_usd`. So a call is sized in two steps:

1. What the role needs: the largest answer this book has seen from the role (the ledger's
   `llm_calls`, thinking included), with a margin; before any, a safe default (the step's answer
   size plus a quarter of its thinking room). An answer cut at that size is continued, and a
   continuation is a call like any other.
2. What is left: `cap - spent - reserved` pays the prompt first; the rest buys output tokens.
   A call that can still write MIN_GRANT tokens goes out with fewer; below that the run stops.

The reservations of the calls in flight (the runner's `in_flight_usd`) count as spent, so calls
running together cannot cross the cap together.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

MARGIN = 1.5  # the largest answer seen, times this, plus SLACK: room for a longer one
SLACK = 1024
MIN_GRANT = 1024  # fewer output tokens than this: the call is not worth its prompt
MIN_SIZE = 2048  # never size a role's calls below this (a short first answer proves little)


def default_size(max_tokens: int, effort: str) -> int:
    """The size before the book has seen the role answer: the step's answer without most of
    its thinking room (steps.THINKING_ROOM); a model that thinks longer is continued."""
    from .steps import THINKING_ROOM

    room = THINKING_ROOM.get(effort, 0)
    answer = max(MIN_SIZE, max_tokens - room)
    return min(max_tokens, answer + room // 4)


class AnswerSizes:
    """The largest answer (output tokens, thinking included) each role has written in this book,
    from the ledger's rows and the rows logged since. An answer cut at `max_tokens` counts
    twice its size: it was longer than what it was given."""

    def __init__(self, rows: Iterable[dict[str, Any]] = ()):
        self.largest: dict[str, int] = {}
        for r in rows:
            self.note(r)

    def note(self, row: dict[str, Any]) -> None:
        role, out = row.get("role"), int(row.get("output_tokens") or 0)
        if not role or out <= 0 or row.get("error") or row.get("status") in ("started", "error", "cancelled"):
            return
        if row.get("stop_reason") == "max_tokens":
            out *= 2
        self.largest[role] = max(self.largest.get(role, 0), out)

    def size(self, role: str, ceiling: int, default: int) -> int:
        """max_tokens for the role's next call: within [MIN_SIZE, ceiling]."""
        seen = self.largest.get(role)
        want = int(seen * MARGIN + SLACK) if seen else default
        return max(1, min(ceiling, max(MIN_SIZE, want)))


def rates(estimate: Callable[[Any], float], req: Any) -> tuple[float, float]:
    """(the prompt's cost, the cost of one output token) of `req`, read off the provider's upper
    estimate at two output caps (it is linear in max_tokens)."""
    one = estimate(dataclasses.replace(req, budget_max_tokens=1000))
    two = estimate(dataclasses.replace(req, budget_max_tokens=2000))
    per_token = max(0.0, (two - one) / 1000)
    return max(0.0, one - 1000 * per_token), per_token


def affordable(available: float, prompt_usd: float, per_token: float, wanted: int) -> int:
    """How many of `wanted` output tokens `available` dollars pay for after the prompt."""
    if per_token <= 0:
        return wanted if available >= prompt_usd else 0
    return max(0, min(wanted, int((available - prompt_usd) / per_token)))


class Release:
    """A wait for the calls in flight to release their reservations: a call the remainder
    cannot pay waits while others hold some (most answers end below what they were given)."""

    def __init__(self) -> None:
        self._event: asyncio.Event | None = None

    def notify(self) -> None:
        if self._event is not None:
            self._event.set()

    async def wait(self, most: float = 1.0) -> None:
        """Until a release, or `most` seconds (a batch's reservation ends without a notice)."""
        self._event = self._event or asyncio.Event()
        self._event.clear()
        try:
            await asyncio.wait_for(self._event.wait(), most)
        except TimeoutError:
            pass
