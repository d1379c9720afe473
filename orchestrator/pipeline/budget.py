"""The run's budget and call logging: each model call sized and paid for out of `budget_usd`
before it starts (sizing.py: max_tokens from the role's answers so far, lowered to what is left;
a provider that reports its attempts pays each one, a continuation too, in `afford`), calls in
flight counted with their reservations, and each call written to the ledger with this run's id.
Built with the book (its cap and ledger), the provider (its estimates), the run's id, the
run's needs-human map (where a stop is said) and its warning line; it holds what the run has
reserved for calls in flight, and why the run stopped calling (the cap, or the API's word)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .. import sizing
from ..providers.base import CallRow, Provider, Request, Result, Sink
from ..state.fsio import PartialWriter
from ..steps import ALL_STEPS


def _nothing() -> None:
    return None


class Budget:
    def __init__(self, book, provider: Provider, run_id: str, needs: dict[str, str], warn: Callable[[str], None]):
        self.book = book
        self.provider = provider
        self.run_id = run_id
        self.needs = needs  # the run's needs-human map: a budget stop is said there
        self.warn = warn
        self.budget_stop: str | None = None
        self.api_stop: str | None = None  # the API's word that no request can succeed (a spend limit): the run stops
        self.in_flight_usd = 0.0  # estimates of the calls started and not yet logged: the cap counts them
        self._reserved: dict[int, float] = {}  # id(request) -> its estimate, while in flight
        self._sizes: sizing.AnswerSizes | None = None  # the largest answer of each role (sizing.py)
        self._released = sizing.Release()  # set when a reservation is released

    def release(self, req: Request) -> None:
        """A call admitted by `over_budget` ended (logged, or failed): its cost is in the ledger
        now, not in flight."""
        self.in_flight_usd -= self._reserved.pop(id(req), 0.0)
        self._released.notify()

    def sink(self, pw: PartialWriter) -> Sink:
        """Where one call goes: its text into the step's `.partial`; and, from a provider that
        reports each HTTP attempt itself (`Capabilities.reports_attempts`), every attempt into
        the ledger with this run's id, each paid for out of the budget first (`afford`); the
        others' calls are logged by `log_call`."""
        if not self.provider.capabilities.reports_attempts:
            return Sink(text=pw.write, reset=pw.reset)
        return Sink(text=pw.write, reset=pw.reset, attempt=self._log_attempt, afford=self.afford)

    def _log_attempt(self, row: CallRow) -> None:
        self.book.ledger.log_call(run=self.run_id, **row)
        self._answer_sizes().note(row)

    def _answer_sizes(self) -> sizing.AnswerSizes:
        if self._sizes is None:
            self._sizes = sizing.AnswerSizes(self.book.ledger.calls())
        return self._sizes

    def _stop(self, req: Request, why: str, logged: float, reserved: float, est: float, **more: Any) -> str:
        self.budget_stop = why
        self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(logged, 4),
                               reserved=round(reserved, 4), estimate=round(est, 4), cap=self.book.cfg.budget_usd,
                               **more)
        self.needs["budget"] = why
        self.warn("stopping: " + why)
        return why

    def over_budget(self, req: Request, batch: bool = False) -> str | None:
        """Before a call: size its max_tokens (sizing.py: what the role's answers have needed,
        lowered to what the rest of `budget_usd` can pay) and reserve what it may cost, or stop
        when not even MIN_GRANT tokens can be paid. Calls in flight count with their
        reservations, so concurrent calls cannot cross the cap together. Once hit, no further
        call starts in this run; what is in flight finishes. A `batch` call, and any call of a
        provider that does not report its attempts, is paid for here, whole; a streamed call of
        one that does pays each attempt in `afford` (and waits there for the calls in flight
        to release what they hold), so it is only checked here."""
        cap = self.book.cfg.budget_usd
        if self.budget_stop or cap <= 0:
            return self.budget_stop
        logged, reserved = self.book.ledger.spent(), self.in_flight_usd
        step = ALL_STEPS.get(req.step)
        ceiling = req.max_tokens
        want = self._answer_sizes().size(req.role, ceiling, sizing.default_size(ceiling, step.effort if step else ""))
        req.budget_max_tokens = want
        prompt_usd, per_token = sizing.rates(self.provider.estimate_cost, req)
        est = prompt_usd + want * per_token
        lost = self.book.ledger.spend_unknown() if est else None
        if lost:  # the ledger was rebuilt and the spend before is unknown: the cap cannot be checked
            return self._stop(req, f"budget: the spend recorded before the ledger was rebuilt is unknown ({lost}), so "
                                   f"the cap of ${cap:.2f} cannot be checked; enter it with `book cost --lost-spend USD` "
                                   "or set budget_usd: 0 in book.yaml, then `book resume`", logged, reserved, est,
                              spend_unknown=lost)
        grant = sizing.affordable(cap - logged - reserved, prompt_usd, per_token, want)
        paid_per_attempt = self.provider.capabilities.reports_attempts and not batch
        if est and grant < min(want, sizing.MIN_GRANT) and not (paid_per_attempt and self._reserved):
            # what the ledger records as spent, apart from what calls still in flight may cost
            held = f", ${reserved:.2f} more is reserved for the calls in flight," if reserved else ""
            smallest = prompt_usd + min(want, sizing.MIN_GRANT) * per_token
            return self._stop(req, f"budget: spent ${logged:.2f} of ${cap:.2f}{held} and the next call needs at least "
                                   f"${smallest:.2f} (its prompt and {min(want, sizing.MIN_GRANT)} tokens of answer); "
                                   "raise budget_usd in book.yaml, then `book resume`", logged, reserved, est)
        if est and not paid_per_attempt:  # paid for here, whole; a streamed attempt pays in `afford`
            req.budget_max_tokens = grant
            cost = prompt_usd + grant * per_token
            self._reserved[id(req)] = cost
            self.in_flight_usd += cost
        return None

    async def afford(self, req: Request, prompt_usd: float, per_token: float,
                     wanted: int) -> tuple[int, Callable[[], None]]:
        """Before each HTTP attempt of a provider that reports them: a reservation at the
        max_tokens the rest of the budget pays (0: it cannot pay MIN_GRANT tokens, and nothing
        in flight will free any), released once the attempt is logged. It holds nothing while
        it waits, so calls waiting here cannot stop those they wait for."""
        cap = self.book.cfg.budget_usd
        if cap <= 0:
            return wanted, _nothing
        while True:
            if not self._reserved:  # nothing held: no float residue of the sums and differences either
                self.in_flight_usd = 0.0
            logged, reserved = self.book.ledger.spent(), self.in_flight_usd
            grant = sizing.affordable(cap - logged - reserved, prompt_usd, per_token, wanted)
            if grant >= min(wanted, sizing.MIN_GRANT):
                break
            if not self._reserved:  # nothing in flight will free any of it
                if not self.budget_stop:
                    self._stop(req, f"budget: spent ${logged:.2f} of ${cap:.2f}; the answer so far is kept, and what "
                                    f"is left cannot pay its next part (${prompt_usd:.2f} of prompt and up to "
                                    f"{min(wanted, sizing.MIN_GRANT)} tokens); raise budget_usd in book.yaml, then "
                                    "`book resume`", logged, reserved, prompt_usd + wanted * per_token)
                return 0, _nothing
            await self._released.wait()
        cost = prompt_usd + grant * per_token
        key = object()
        self._reserved[id(key)] = cost
        self.in_flight_usd += cost

        def release() -> None:
            self.in_flight_usd -= self._reserved.pop(id(key), 0.0)
            self._released.notify()

        return grant, release

    def log_call(self, req: Request, result: Result | None, t0: float, error: str | None = None) -> None:
        if self.provider.capabilities.reports_attempts:
            return  # the provider reported each HTTP attempt itself (sink)
        u = result.usage if result else None
        self.book.ledger.log_call(run=self.run_id, role=req.role, chapter=req.chapter, step=req.step,
                                  provider=self.provider.name, model=(result.model if result else req.model),
                                  input_tokens=u.input_tokens if u else 0, output_tokens=u.output_tokens if u else 0,
                                  cache_creation_tokens=u.cache_creation_tokens if u else 0,
                                  cache_read_tokens=u.cache_read_tokens if u else 0,
                                  cost_usd=result.cost_usd if result else 0.0,
                                  latency_ms=int((time.monotonic() - t0) * 1000),
                                  stop_reason=result.stop_reason if result else None,
                                  request_id=result.request_id if result else None, error=error)
