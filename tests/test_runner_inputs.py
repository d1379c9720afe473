"""The runner works on its own copies: the options and the provider it is given come back as
they were (a rejected gate's redo and its instructions live in the run), and a dry run is a
plain function over the plan, with no runner built for it."""

from __future__ import annotations

from conftest import make_example

from orchestrator.pipeline import dry_run, gates
from orchestrator.pipeline.plan import Scope
from orchestrator.pipeline.recovery import resume
from orchestrator.pipeline.runner import Runner, RunOptions
from orchestrator.pipeline.session import run_session
from orchestrator.providers.base import Capabilities
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state.book import Book
from orchestrator.steps import BOOK, OUTLINE, Node
from orchestrator.testing.helpers import run_book


class Hooked(OfflineProvider):
    """An offline provider that declares what the anthropic provider does: it reports each
    attempt itself (one row per call here), so the runner logs those rows and none of its own."""

    capabilities = Capabilities(reports_attempts=True)

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, str | None, str | None]] = []

    async def generate(self, req, sink):
        self.seen.append((req.step, req.context.get("instructions"), req.cache_ttl))
        row = {"call_id": f"c{len(self.seen)}", "role": req.role, "chapter": req.chapter, "step": req.step,
               "provider": self.name, "model": "offline", "attempt": 1}
        sink.attempt(row | {"status": "started"})
        res = await super().generate(req, sink)
        sink.attempt(row | {"status": "ok", "stop_reason": res.stop_reason, "cost_usd": 0.0})
        return res


def test_a_rejected_gate_is_redone_without_touching_the_options_or_the_provider(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=1)
    assert run_book(ws)[0] == 3  # stopped at the outline gate
    book = Book.open(ws)
    try:
        gates.decide(book, "outline", None, "rejected", "fewer chapters, please")
        opts = RunOptions(Scope(), retry_delay=0.0)
        p = Hooked()
        given = set(vars(p))
        run_session(book, opts, quiet=True, provider=p)
        rollbacks = book.ledger.events(type="rollback")
        run = book.ledger.events(type="run_start")[-1]["run"]
        calls = [c for c in book.ledger.calls() if c["run"] == run]
    finally:
        book.close()
    redone = [x for x in p.seen if x[0] == OUTLINE]
    assert redone and redone[0][1].startswith("the outline gate was rejected: fewer chapters, please")
    assert all(ttl == "1h" for _, _, ttl in p.seen)  # a run that may wait at a gate: 1-hour cached prefixes
    # the provider's own rows, one per call, ended, with the run's id; the runner added none
    assert len(calls) == len(p.seen) and all(c["status"] == "ok" and c["provider"] == "offline" for c in calls)
    assert [e["step"] for e in rollbacks] == [OUTLINE]
    assert opts.redo == set() and opts.instructions == {}  # the redo was the run's own
    assert set(vars(p)) == given  # nothing was set on the provider


def test_a_run_without_gates_keeps_the_default_cache_ttl_and_logs_each_call_itself(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=1)
    seen: list[str | None] = []

    class Plain(OfflineProvider):
        async def generate(self, req, sink):
            seen.append(req.cache_ttl)
            return await super().generate(req, sink)

    p = Plain()
    assert run_book(ws, provider=p)[0] == 0
    book = Book.open(ws)
    try:
        calls = book.ledger.calls()
    finally:
        book.close()
    assert seen and set(seen) == {None}
    assert len(calls) == p.calls and all(c["provider"] == "offline" and c["stop_reason"] == "end_turn" for c in calls)


def test_a_dry_run_and_resume_no_run_build_no_runner(tmp_path, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=1)
    book = Book.open(ws)
    try:
        expected = Runner(book, OfflineProvider(), RunOptions(Scope(), dry_run=True)).dry_run().plan
        assert expected[0] == (Node(BOOK, OUTLINE), "missing")

        def no_runner(*a, **k):
            raise AssertionError("a dry run builds no Runner")

        monkeypatch.setattr(Runner, "__init__", no_runner)
        assert dry_run.plan(book, Scope()) == expected
        summary = run_session(book, RunOptions(Scope(), dry_run=True), quiet=True).summary
        assert summary.plan == expected and summary.outcomes == {}
        res = resume(book, "conservative", True, None, None, lambda m: None)
        assert res.exit_code == 0 and res.plan == expected
    finally:
        book.close()
