"""Each part of a run (pipeline/runner.py builds them) on its own, built with fakes of what it is
handed: the budget with a fake ledger and provider, the walk with fake decisions, the decisions
with a fake generator and deriver, the batch wave with a fake engine, and the generator, the
deriver and the end of a run with a real workspace's book but no run around them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from orchestrator.batches.types import BatchItem, Report
from orchestrator.pipeline import batch_wave
from orchestrator.pipeline.budget import Budget
from orchestrator.pipeline.decisions import Decisions
from orchestrator.pipeline.derived_steps import Deriver
from orchestrator.pipeline.finish import finish
from orchestrator.pipeline.generation import Generator
from orchestrator.pipeline.outcomes import Outcome, RunOptions
from orchestrator.pipeline.plan import NodeSpec
from orchestrator.pipeline.run_state import RunState
from orchestrator.pipeline.walk import Walk
from orchestrator.providers.base import Capabilities, Request, Result, Sink
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state.book import Book
from orchestrator.state.fsio import PartialWriter
from orchestrator.state.markers import read_marker
from orchestrator.steps import BOOK, DRAFT, OUTLINE, R1, RESEARCH, STYLE_GUIDE, Node
from orchestrator.testing.helpers import make_example

# ------------------------------------------------------------------ fakes


class FakeLedger:
    def __init__(self, spent: float = 0.0, unknown: str | None = None):
        self._spent, self._unknown = spent, unknown
        self.rows: list[dict[str, Any]] = []
        self.events_: list[tuple[str, tuple, dict]] = []
        self.todos: dict[tuple, tuple[str, str]] = {}

    def spent(self) -> float:
        return self._spent

    def spend_unknown(self) -> str | None:
        return self._unknown

    def calls(self) -> list[dict[str, Any]]:  # the answers seen so far: none (calls are sized by default)
        return []

    def event(self, type: str, *args: Any, **detail: Any) -> None:
        self.events_.append((type, args, detail))

    def log_call(self, **row: Any) -> None:
        self.rows.append(row)

    def set_todos(self, todos: dict, deps: dict) -> None:
        self.todos = {(n[0], n[1]): v for n, v in todos.items()}

    def set_todo(self, ch: str | None, step: str, status: str, reason: str = "") -> None:
        self.todos[(ch or BOOK, step)] = (status, reason)

    def types(self) -> list[str]:
        return [t for t, _, _ in self.events_]


class PricedProvider:
    name = "fake"

    def __init__(self, estimate: float = 0.1, reports_attempts: bool = False):
        self.estimate = estimate
        self.capabilities = Capabilities(reports_attempts=reports_attempts)

    def estimate_cost(self, req: Any) -> float:
        return self.estimate


class FakeBudget:
    """Admits every call and records what the generator asked of it."""

    def __init__(self) -> None:
        self.budget_stop: str | None = None
        self.api_stop: str | None = None
        self.admitted: list[Any] = []
        self.released: list[Any] = []
        self.logged: list[tuple[Any, Any, str | None]] = []

    def over_budget(self, req: Any, batch: bool = False) -> str | None:
        self.admitted.append(req)
        return self.budget_stop

    def release(self, req: Any) -> None:
        self.released.append(req)

    def sink(self, pw: PartialWriter) -> Sink:
        return Sink(text=pw.write, reset=pw.reset)

    def log_call(self, req: Any, result: Any, t0: float, error: str | None = None) -> None:
        self.logged.append((req, result, error))


def req(step: str = DRAFT, chapter: str | None = "ch01") -> Request:
    return Request(role="writer", step=step, chapter=chapter, system="", prompt="")


@pytest.fixture
def book(tmp_path):
    b = Book.open(make_example(tmp_path / "ws", max_chapters=2))
    yield b
    b.close()


def reports(rs: RunState) -> list[tuple[str, Node, str]]:
    got: list[tuple[str, Node, str]] = []
    rs.report = lambda kind, n, msg: got.append((kind, n, msg))
    return got


# ------------------------------------------------------------------ the budget


def test_the_budget_admits_a_call_under_the_cap_and_holds_its_estimate_until_released():
    led = FakeLedger(spent=0.5)
    b = Budget(SimpleNamespace(cfg=SimpleNamespace(budget_usd=1.0), ledger=led), PricedProvider(0.2), "r1", {}, print)
    r = req()
    assert b.over_budget(r) is None
    assert b.in_flight_usd == pytest.approx(0.2)
    b.release(r)
    assert b.in_flight_usd == 0.0
    b.release(r)  # twice is harmless: the estimate is held once
    assert b.in_flight_usd == 0.0


def test_the_budget_counts_calls_in_flight_and_stops_for_good():
    led, needs, warned = FakeLedger(spent=0.5), {}, []
    b = Budget(SimpleNamespace(cfg=SimpleNamespace(budget_usd=1.0), ledger=led), PricedProvider(0.2), "r1", needs,
               warned.append)
    assert b.over_budget(req()) is None and b.over_budget(req()) is None  # 0.5 + 0.2 + 0.2
    why = b.over_budget(req())  # a third in flight could cross the cap
    assert why and "spent $0.50 of $1.00" in why and "$0.40 more is reserved" in why
    assert needs["budget"] == why and warned == ["stopping: " + why]
    assert led.types() == ["budget_stop"]
    assert b.over_budget(req(chapter="ch02")) == why  # no further call starts in this run
    assert led.types() == ["budget_stop"]


def test_the_budget_stops_when_the_spend_before_a_rebuilt_ledger_is_unknown():
    led = FakeLedger(unknown="2 runs")
    b = Budget(SimpleNamespace(cfg=SimpleNamespace(budget_usd=5.0), ledger=led), PricedProvider(0.01), "r1", {}, print)
    why = b.over_budget(req())
    assert why and "unknown (2 runs)" in why and "book cost --lost-spend" in why


def test_without_a_cap_the_budget_admits_everything_and_logs_each_call():
    led = FakeLedger(spent=100.0)
    b = Budget(SimpleNamespace(cfg=SimpleNamespace(budget_usd=0), ledger=led), PricedProvider(50.0), "r9", {}, print)
    assert b.over_budget(req()) is None
    b.log_call(req(), Result("text", "end_turn", cost_usd=0.25, model="m"), 0.0)
    b.log_call(req(), None, 0.0, error="overloaded")
    assert [(r["run"], r["cost_usd"], r["error"]) for r in led.rows] == [("r9", 0.25, None), ("r9", 0.0, "overloaded")]


def test_a_provider_that_reports_its_attempts_logs_them_through_the_sink(tmp_path):
    led = FakeLedger()
    b = Budget(SimpleNamespace(cfg=SimpleNamespace(budget_usd=0), ledger=led), PricedProvider(reports_attempts=True),
               "r2", {}, print)
    pw = PartialWriter(tmp_path / "x.md")
    sink = b.sink(pw)
    sink.attempt({"role": "writer", "cost_usd": 0.1})
    pw.close()
    b.log_call(req(), Result("t", "end_turn"), 0.0)  # already reported: not logged twice
    assert led.rows == [{"run": "r2", "role": "writer", "cost_usd": 0.1}]


# ------------------------------------------------------------------ the walk


class FakeDecisions:
    def __init__(self, outcomes: dict[Node, Outcome | Exception]):
        self.outcomes = outcomes
        self.order: list[Node] = []

    async def node(self, n: Node) -> Outcome:
        self.order.append(n)
        await asyncio.sleep(0)
        got = self.outcomes.get(n, Outcome("ok"))
        if isinstance(got, Exception):
            raise got
        return got


def walk_state(ledger: FakeLedger) -> Any:
    got: list[tuple[str, Node, str]] = []
    failed: dict[Node, str] = {}
    return SimpleNamespace(book=SimpleNamespace(ledger=ledger), run_id="r1", outcomes={}, rank={}, live={},
                           _ev=RunState._ev, report=lambda k, n, m: got.append((k, n, m)), reported=got,
                           needs_human=lambda n, reason, hint=None: failed.__setitem__(n, reason), failed=failed)


def test_the_walk_hands_each_node_to_the_decisions_after_its_dependencies():
    a, b, c, d = Node("ch01", RESEARCH), Node("ch01", DRAFT), Node("ch01", R1), Node("ch02", RESEARCH)
    graph = {a: NodeSpec(), b: NodeSpec([a]), c: NodeSpec([b]), d: NodeSpec([], [a])}
    led = FakeLedger()
    rs, dec = walk_state(led), FakeDecisions({})
    asyncio.run(Walk(rs, dec, None, PricedProvider()).walk(graph))  # type: ignore[arg-type]
    assert dec.order.index(a) < dec.order.index(b) < dec.order.index(c) and dec.order.index(a) < dec.order.index(d)
    assert rs.outcomes == {n: Outcome("ok") for n in graph}
    assert rs.rank[a] == 3 and rs.rank[c] == 1  # the model calls on each node's longest path, for the slots
    assert led.todos[("ch01", R1)] == ("ok", "")


def test_a_failed_node_skips_what_needs_it_and_a_bug_fails_only_its_node():
    a, b, c, d = Node("ch01", RESEARCH), Node("ch01", DRAFT), Node("ch01", R1), Node("ch02", RESEARCH)
    graph = {a: NodeSpec(), b: NodeSpec([a]), c: NodeSpec([b]), d: NodeSpec()}
    led = FakeLedger()
    rs = walk_state(led)
    dec = FakeDecisions({a: Outcome("failed", reason="no"), d: OSError("disk")})
    asyncio.run(Walk(rs, dec, None, PricedProvider()).walk(graph))  # type: ignore[arg-type]
    assert set(dec.order) == {a, d}
    assert rs.outcomes[b].status == rs.outcomes[c].status == "skipped"
    assert rs.outcomes[b].reason == "ch01 research did not complete"
    assert rs.outcomes[d] == Outcome("failed", reason="OSError: disk")
    assert rs.failed == {d: "OSError: disk"} and rs.live == {("ch02", RESEARCH): "failed"}
    # the skip behind a failure is said; the skip behind that skip is not
    assert sorted((k, n) for k, n, _ in rs.reported) == [("fail", d), ("skip", b)]
    assert "step_skipped" in led.types() and "step_failed" in led.types()


# ------------------------------------------------------------------ the decisions


class FakeGenerator:
    def __init__(self, out: Outcome):
        self.out = out
        self.asked: list[tuple[Node, str]] = []
        self.tidied: list[Node] = []

    async def generate(self, n: Node, why: str) -> Outcome:
        self.asked.append((n, why))
        return self.out

    def tidy_partial(self, n: Node) -> None:
        self.tidied.append(n)


class FakeDeriver:
    def __init__(self) -> None:
        self.derived: list[Node] = []

    async def derive(self, n: Node) -> Outcome:
        self.derived.append(n)
        return Outcome("ok", ran=True)


def decisions(book, out: Outcome | None = None) -> tuple[Decisions, RunState, FakeGenerator, FakeDeriver, FakeBudget]:
    rs, budget, der = RunState(book, RunOptions()), FakeBudget(), FakeDeriver()
    gen = FakeGenerator(out or Outcome("ok", ran=True))
    return Decisions(rs, budget, gen, der, OfflineProvider()), rs, gen, der, budget  # type: ignore[arg-type]


def test_a_missing_derived_file_goes_to_the_deriver_and_a_model_step_to_the_generator(book):
    dec, rs, gen, der, _ = decisions(book)
    said = reports(rs)
    assert asyncio.run(dec.node(Node(BOOK, STYLE_GUIDE))).status == "ok"
    assert asyncio.run(dec.node(Node(BOOK, OUTLINE))).status == "ok"
    assert der.derived == [Node(BOOK, STYLE_GUIDE)] and gen.asked == [(Node(BOOK, OUTLINE), "missing")]
    assert [(k, n[1], m) for k, n, m in said] == [("start", STYLE_GUIDE, "missing"), ("done", STYLE_GUIDE, ""),
                                                   ("start", OUTLINE, "missing"), ("done", OUTLINE, "")]
    assert rs.live == {}  # nothing running once decided


def test_a_fresh_file_is_left_alone_and_a_redo_is_asked_for(book):
    dec, rs, gen, der, _ = decisions(book)
    n = Node(BOOK, STYLE_GUIDE)
    asyncio.run(Deriver(rs).derive(n))  # the file, written for real
    assert dec.why(n) is None
    assert asyncio.run(dec.node(n)) == Outcome("ok")
    assert der.derived == [] and gen.tidied == [n]  # only a stray .partial is looked for
    rs.redo.add(n)
    assert dec.why(n) == "asked to redo it"


def test_a_failed_step_waits_for_a_person_and_a_budget_stop_is_no_failure(book):
    dec, rs, gen, _, budget = decisions(book, Outcome("failed", reason="the model said no"))
    said = reports(rs)
    out = asyncio.run(dec.node(Node(BOOK, OUTLINE)))
    assert out.status == "failed" and rs.needs["book outline"].startswith("outline: the model said no")
    assert rs.live == {(BOOK, OUTLINE): "failed"} and said[-1][0] == "fail"
    budget.budget_stop = "budget: spent it all"
    gen.out = Outcome("needs_human", reason=budget.budget_stop)
    asyncio.run(dec.node(Node(BOOK, OUTLINE)))
    assert said[-1] == ("skip", Node(BOOK, OUTLINE), "budget reached")


def test_the_state_machine_refuses_a_chapter_step_out_of_order(book):
    dec, *_ = decisions(book)
    assert dec.refused(Node("ch01", DRAFT)) is not None  # no research yet
    assert dec.refused(Node("ch01", RESEARCH)) is None
    assert dec.refused(Node(BOOK, OUTLINE)) is None  # a book step is not the chapter's machine's


# ------------------------------------------------------------------ the generator and the deriver


class Recording(OfflineProvider):
    """The offline provider, counting what it was asked and answering with `answer` if given."""

    def __init__(self, answer: str | None = None):
        super().__init__()
        self.answer = answer
        self.asked: list[Request] = []

    async def generate(self, req: Request, sink: Sink) -> Result:
        self.asked.append(req)
        if self.answer is None:
            return await super().generate(req, sink)
        sink.text(self.answer)
        return Result(self.answer, "end_turn")


def test_the_deriver_writes_the_files_the_orchestrator_makes_itself_and_keeps_a_persons(book):
    rs = RunState(book, RunOptions())
    d, n = Deriver(rs), Node(BOOK, STYLE_GUIDE)
    assert asyncio.run(d.derive(n)) == Outcome("ok", ran=True)
    path = book.root / rs.rel(n)
    m = read_marker(path)
    assert m is not None and m.name == rs.marker(n)
    assert rs.generated == [n]
    path.write_text(path.read_text(encoding="utf-8").replace("\n", "\nA person's rule.\n", 1), encoding="utf-8")
    book.scanner.invalidate(rs.rel(n))
    assert asyncio.run(d.derive(n)) == Outcome("ok")  # edited: kept as it is, nothing written
    assert "A person's rule." in path.read_text(encoding="utf-8") and rs.generated == [n]


def test_the_generator_commits_an_answer_through_the_budget_with_its_marker(book):
    rs = RunState(book, RunOptions(retry_delay=0))
    budget, provider = FakeBudget(), Recording()
    gen = Generator(rs, budget, provider)  # type: ignore[arg-type]
    n = Node(BOOK, OUTLINE)
    assert asyncio.run(gen.generate(n, "missing")) == Outcome("ok", ran=True)
    path = book.root / rs.rel(n)
    m = read_marker(path)
    assert m is not None and m.name == rs.marker(n) and m.run == rs.run_id
    assert not path.with_name(path.name + ".partial").exists()  # the stream's .partial is gone once committed
    assert len(provider.asked) == 1 and budget.admitted == provider.asked == budget.released
    assert [e for _, _, e in budget.logged] == [None]
    assert rs.generated[-1] == n
    kinds = [e["type"] for e in book.ledger.events(step=OUTLINE)]
    assert "step_start" in kinds and "step_end" in kinds


def test_the_generator_retries_an_answer_that_fails_validation_then_fails_keeping_it(book):
    rs = RunState(book, RunOptions(retry_delay=0))
    budget, provider = FakeBudget(), Recording(answer="not an outline at all")
    n = Node(BOOK, OUTLINE)
    out = asyncio.run(Generator(rs, budget, provider).generate(n, "missing"))  # type: ignore[arg-type]
    assert out.status == "failed" and out.reason.startswith("the answer did not pass validation")
    assert len(provider.asked) == max(1, book.cfg.retries)
    assert provider.asked[-1].feedback.startswith("Your previous answer was rejected")  # the re-ask says why
    path = book.root / rs.rel(n)
    assert not path.exists() and path.with_name(path.name + ".partial").read_text() == "not an outline at all"
    assert len(budget.released) == len(budget.admitted) == len(provider.asked)


def test_the_generator_sends_nothing_once_the_budget_says_stop(book):
    rs = RunState(book, RunOptions(retry_delay=0))
    budget, provider = FakeBudget(), Recording()
    budget.budget_stop = "budget: spent"
    out = asyncio.run(Generator(rs, budget, provider).generate(Node(BOOK, OUTLINE), "missing"))  # type: ignore[arg-type]
    assert out == Outcome("needs_human", reason="budget: spent") and provider.asked == []


def test_the_generator_sets_aside_what_an_interrupted_generation_left(book):
    rs = RunState(book, RunOptions())
    gen = Generator(rs, FakeBudget(), Recording())  # type: ignore[arg-type]
    n = Node(BOOK, STYLE_GUIDE)
    asyncio.run(Deriver(rs).derive(n))
    part = book.root / (rs.rel(n) + ".partial")
    part.write_text("a stray half answer", encoding="utf-8")
    gen.tidy_partial(n)  # not all of it is in the final file: kept beside it, never deleted
    assert not part.exists() and [p.read_text() for p in part.parent.glob(part.name + ".bak.*")] == [
        "a stray half answer"]
    body = (book.root / rs.rel(n)).read_text(encoding="utf-8").split("\n")[0]
    part.write_text(body, encoding="utf-8")  # all of it is in the final file: a crash after the commit
    gen.tidy_partial(n)
    assert not part.exists() and len(list(part.parent.glob(part.name + ".bak.*"))) == 1


# ------------------------------------------------------------------ the batch wave


@dataclass
class FakeEngine:
    """One engine per wave, as the real one: each item comes back as `result` says."""

    wave: Any
    result: Any = "committed"
    waves: list[list[BatchItem]] = field(default_factory=list)

    async def __aenter__(self) -> FakeEngine:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    async def run_wave(self, items: list[BatchItem]) -> Report:
        self.waves.append(items)
        rep = Report()
        for it in items:
            got = self.result(it) if callable(self.result) else self.result
            if got == "discarded":
                rep.discarded.append(it)  # type: ignore[arg-type]  # the wave reads .chapter and .step
            else:
                self.wave._resolve(it.chapter, it.step, got)
        return rep


class Wave(batch_wave.BatchWave):
    """The wave with its request builder and engine faked (the parts it is handed are real)."""

    engine: FakeEngine

    def _request(self, n: Node, feedback: str) -> tuple[Any, Request]:
        return SimpleNamespace(inputs={"n": f"{n[0]}/{n[1]}"}), req(n[1], None if n[0] == BOOK else n[0])

    def _item(self, r: Request, n: Node, input_hash: str) -> BatchItem:
        return BatchItem(r.chapter, r.step, f"{n[0]}-{n[1]}.md", input_hash, {})

    def _engine(self) -> Any:
        return self.engine


def wave_for(result: Any) -> tuple[Wave, Any, FakeBudget]:
    rs = SimpleNamespace(book=SimpleNamespace(ledger=FakeLedger()), run_id="r1", generated=[], warn=print)
    budget = FakeBudget()
    w = Wave(rs, budget, SimpleNamespace(prices=None, batch_params=None), window=0.01)  # type: ignore[arg-type]
    w.engine = FakeEngine(w, result)
    return w, rs, budget


def test_the_steps_ready_together_go_out_in_one_wave():
    w, rs, budget = wave_for("committed")
    a, b = Node("ch01", RESEARCH), Node("ch02", RESEARCH)

    async def both() -> list[Any]:
        return list(await asyncio.gather(w.generate(a, "missing"), w.generate(b, "missing")))

    assert asyncio.run(both()) == [("ok", ""), ("ok", "")]
    assert len(w.engine.waves) == 1 and {it.chapter for it in w.engine.waves[0]} == {"ch01", "ch02"}
    assert rs.generated == [a, b] and len(budget.released) == len(budget.admitted) == 2
    assert w.stats.waves == 1 and w.stats.sent == 2


def test_a_result_whose_inputs_changed_is_asked_again_and_a_handoff_is_streamed():
    seen: list[str] = []

    def once_discarded(it: BatchItem) -> Any:
        seen.append(it.step)
        return "discarded" if len(seen) == 1 else ("stream", "expired", "fix the links")

    w, rs, _ = wave_for(once_discarded)
    got = asyncio.run(w.generate(Node("ch01", DRAFT), "missing"))
    assert got == "fix the links"  # the feedback the stream must carry
    assert len(w.engine.waves) == 2 and w.stats.discarded == 1 and w.stats.streamed == 1
    assert rs.generated == []


def test_a_budget_stop_keeps_a_step_out_of_the_batch():
    w, _, budget = wave_for("committed")
    budget.budget_stop = "budget: spent"
    assert asyncio.run(w.generate(Node("ch01", DRAFT), "missing")) == ("needs_human", "budget: spent")
    assert w.engine.waves == []


def test_batch_mode_is_chosen_from_the_options_the_book_and_the_provider():
    book = SimpleNamespace(cfg=SimpleNamespace(message_batches=False), root=SimpleNamespace())
    no_batches = SimpleNamespace(batches=lambda: None)
    assert not batch_wave.wanted(book, no_batches, RunOptions(message_batches=True))  # type: ignore[arg-type]
    batches = SimpleNamespace(batches=lambda: object())
    assert batch_wave.wanted(book, batches, RunOptions(message_batches=True))  # type: ignore[arg-type]


# ------------------------------------------------------------------ the end of a run and the shared state


def test_the_end_of_a_run_writes_resume_and_says_why_the_api_stopped_it(book):
    rs = RunState(book, RunOptions())
    rs.outcomes[Node(BOOK, OUTLINE)] = Outcome("stopped", reason="spend limit")
    summary = finish(rs, "the API's spend limit is reached")
    assert summary.stopped and summary.exit_code == 5 and summary.needs_human["api"].startswith("the API's")
    assert (book.root / "RESUME.md").exists()
    assert book.ledger.events(type="run_end")[-1]["detail"]["status"] == "stopped"


def test_the_shared_state_writes_needs_human_for_chapters(book):
    rs = RunState(book, RunOptions())
    rs.needs_human(Node("ch01", DRAFT), "it broke", hint="fix it")
    assert rs.needs["ch01"] == "draft: it broke — fix it"
    assert "it broke" in (book.root / "output/memory/needs-human.md").read_text(encoding="utf-8")
