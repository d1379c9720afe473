"""The run's budget and call logging: the cap checked before each model call (calls in
flight count with their estimates), and each call written to the ledger with this run's id.
Built with the book (its cap and ledger), the provider (its estimates), the run's id, the
run's needs-human map (where a stop is said) and its warning line; it holds what the run has
reserved for calls in flight, and why the run stopped calling (the cap, or the API's word)."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..providers.base import CallRow, Provider, Request, Result, Sink
from ..state.fsio import PartialWriter


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

    def release(self, req: Request) -> None:
        """A call admitted by `over_budget` ended (logged, or failed): its cost is in the ledger
        now, not in flight."""
        self.in_flight_usd -= self._reserved.pop(id(req), 0.0)

    def sink(self, pw: PartialWriter) -> Sink:
        """Where one call goes: its text into the step's `.partial`; and, from a provider that
        reports each HTTP attempt itself (`Capabilities.reports_attempts`), every attempt into
        the ledger with this run's id; the others' calls are logged by `log_call`."""
        if not self.provider.capabilities.reports_attempts:
            return Sink(text=pw.write, reset=pw.reset)
        return Sink(text=pw.write, reset=pw.reset, attempt=self._log_attempt)

    def _log_attempt(self, row: CallRow) -> None:
        self.book.ledger.log_call(run=self.run_id, **row)

    def over_budget(self, req: Request) -> str | None:
        """Stop before a call that could cross `budget_usd` (the estimate is an upper bound).
        Calls in flight count with their estimates, so concurrent calls cannot cross it together.
        Once hit, no further call starts in this run; what is in flight finishes."""
        cap = self.book.cfg.budget_usd
        if self.budget_stop or cap <= 0:
            return self.budget_stop
        logged, reserved = self.book.ledger.spent(), self.in_flight_usd
        spent = logged + reserved
        est = self.provider.estimate_cost(req)
        lost = self.book.ledger.spend_unknown() if est else None
        if lost:  # the ledger was rebuilt and the spend before is unknown: the cap cannot be checked
            self.budget_stop = (f"budget: the spend recorded before the ledger was rebuilt is unknown ({lost}), so the "
                                f"cap of ${cap:.2f} cannot be checked; enter it with `book cost --lost-spend USD` or set "
                                "budget_usd: 0 in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(logged, 4),
                                   reserved=round(reserved, 4), estimate=round(est, 4), cap=cap, spend_unknown=lost)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est and spent + est > cap:
            # what the ledger records as spent, apart from what calls still in flight may cost (their estimates)
            held = f", ${reserved:.2f} more is reserved for the calls in flight," if reserved else ""
            self.budget_stop = (f"budget: spent ${logged:.2f} of ${cap:.2f}{held} and the next call may cost up to "
                                f"${est:.2f}; raise budget_usd in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(logged, 4),
                                   reserved=round(reserved, 4), estimate=round(est, 4), cap=cap)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est:
            self._reserved[id(req)] = est
            self.in_flight_usd += est
        return self.budget_stop

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
