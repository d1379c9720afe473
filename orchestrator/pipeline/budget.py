"""The runner's budget and call logging: the cap checked before each model call (calls in
flight count with their estimates), and each call written to the ledger with this run's id."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from .run_state import RunState


class BudgetAndCalls(RunState):
    @contextmanager
    def calls_logged(self) -> Iterator[None]:
        """A provider that makes several HTTP attempts per step logs each one itself through
        its `on_call` hook: for this run it logs into the ledger through us, with this run's id
        (every model call logged from the core). The hook is unset again when the run ends, so
        the provider leaves the run as it came; a hook the caller set is left alone."""
        provider = self.provider
        if not hasattr(provider, "on_call") or provider.on_call is not None:
            yield
            return
        provider.on_call = lambda row: self.book.ledger.log_call(run=self.run_id, **row)
        try:
            yield
        finally:
            provider.on_call = None

    def _over_budget(self, req) -> str | None:
        """Stop before a call that could cross `budget_usd` (the estimate is an upper bound).
        Calls in flight count with their estimates, so concurrent calls cannot cross it together.
        Once hit, no further call starts in this run; what is in flight finishes."""
        cap = self.book.cfg.budget_usd
        if self.budget_stop or cap <= 0:
            return self.budget_stop
        spent = self.book.ledger.spent() + self.in_flight_usd
        est = self.provider.estimate_cost(req)
        lost = self.book.ledger.spend_unknown() if est else None
        if lost:  # the ledger was rebuilt and the spend before is unknown: the cap cannot be checked
            self.budget_stop = (f"budget: the spend recorded before the ledger was rebuilt is unknown ({lost}), so the "
                                f"cap of ${cap:.2f} cannot be checked; enter it with `book cost --lost-spend USD` or set "
                                "budget_usd: 0 in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(spent, 4),
                                   estimate=round(est, 4), cap=cap, spend_unknown=lost)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est and spent + est > cap:
            self.budget_stop = (f"budget: spent ${spent:.2f} of ${cap:.2f} and the next call may cost up to "
                                f"${est:.2f}; raise budget_usd in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(spent, 4),
                                   estimate=round(est, 4), cap=cap)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est:
            self._reserved[id(req)] = est
            self.in_flight_usd += est
        return self.budget_stop

    def _log_call(self, req, result, t0: float, error: str | None = None) -> None:
        if getattr(self.provider, "on_call", None) is not None:
            return  # the provider logs each HTTP attempt itself
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
