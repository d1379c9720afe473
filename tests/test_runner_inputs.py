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
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state.book import Book
from orchestrator.steps import BOOK, OUTLINE, Node
from orchestrator.testing.helpers import run_book


class Hooked(OfflineProvider):
    """An offline provider with the hook and the cache setting the anthropic provider has."""

    def __init__(self):
        super().__init__()
        self.on_call = None
        self.default_cache_ttl = None  # as anthropic's: "1h" while a run may wait at a gate
        self.seen: list[tuple[str, str | None, bool, str | None]] = []

    async def generate(self, req, on_text):
        self.seen.append((req.step, req.context.get("instructions"), self.on_call is not None, self.default_cache_ttl))
        return await super().generate(req, on_text)


def test_a_rejected_gate_is_redone_without_touching_the_options_or_the_provider(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=1)
    assert run_book(ws)[0] == 3  # stopped at the outline gate
    book = Book.open(ws)
    try:
        gates.decide(book, "outline", None, "rejected", "fewer chapters, please")
        opts = RunOptions(Scope(), retry_delay=0.0)
        p = Hooked()
        run_session(book, opts, quiet=True, provider=p)
        rollbacks = book.ledger.events(type="rollback")
    finally:
        book.close()
    redone = [x for x in p.seen if x[0] == OUTLINE]
    assert redone and redone[0][1].startswith("the outline gate was rejected: fewer chapters, please")
    assert all(hooked and ttl == "1h" for _, _, hooked, ttl in p.seen)  # during the run: hooked, a gate's TTL
    assert [e["step"] for e in rollbacks] == [OUTLINE]
    assert opts.redo == set() and opts.instructions == {}  # the redo was the run's own
    assert p.on_call is None and p.default_cache_ttl is None  # the provider as it was given


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
