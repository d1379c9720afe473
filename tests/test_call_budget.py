"""The budget that spends what it may (issue 36, item 1): each call sized from the answers its
role has written, lowered to what the rest of `budget_usd` pays, every HTTP attempt (a
continuation too) paid for first; and the cap never crossed, through the real SDK and the fake."""

from __future__ import annotations

import asyncio
import shutil

import pytest
from conftest import make_example
from conftest_fake_api import fake_api  # noqa: F401  (fixture)
from test_true_bill import official_bill

from orchestrator import sizing
from orchestrator.errors import BudgetSpent
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.providers.base import Request, Sink
from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_model import ModelLike
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answerer


def test_a_role_is_sized_by_its_largest_answer_with_a_margin():
    sizes = sizing.AnswerSizes([
        {"role": "writer", "output_tokens": 3000, "status": "ok", "stop_reason": "end_turn"},
        {"role": "writer", "output_tokens": 9000, "status": "error", "error": "overloaded"},  # not an answer
        {"role": "merger", "output_tokens": 2000, "status": "ok", "stop_reason": "max_tokens"},  # cut: longer
    ])
    assert sizes.size("writer", 48000, 24000) == int(3000 * sizing.MARGIN + sizing.SLACK)
    assert sizes.size("merger", 10000, 7000) == int(4000 * sizing.MARGIN + sizing.SLACK)
    assert sizes.size("editor", 48000, 24000) == 24000  # nothing seen yet: the default
    assert sizes.size("writer", 4000, 24000) == 4000  # never above the step's (or book.yaml's) ceiling
    assert sizing.default_size(48000, "high") == 16000 + 8000
    assert sizing.default_size(8000, "low") == 4000 + 1000


def test_what_is_left_buys_output_after_the_prompt():
    assert sizing.affordable(1.0, 0.2, 0.0001, 20000) == 8000
    assert sizing.affordable(0.1, 0.2, 0.0001, 20000) == 0
    assert sizing.affordable(5.0, 0.2, 0.0001, 20000) == 20000


def _request(**kw) -> Request:
    args = dict(role="writer", step="draft", chapter="ch01", system="You are the writer.", prompt="Write it.",
                model="claude-sonnet-5-5", max_tokens=40000)
    return Request(**(args | kw))


def test_the_budgets_ceiling_lowers_max_tokens_over_book_yaml():
    p = AnthropicProvider(concurrency=1, role_settings={"writer": {"max_tokens": 30000}})
    assert p.settings_for(_request())["max_tokens"] == 30000
    assert p.settings_for(_request(budget_max_tokens=5000))["max_tokens"] == 5000
    # a fixed thinking budget shrinks with it (it must stay below max_tokens)
    p = AnthropicProvider(concurrency=1, role_settings={"writer": {"model": "claude-opus-4-5",
                                                                   "thinking": {"budget_tokens": 8000}}})
    s = p.settings_for(_request(budget_max_tokens=5000, model="claude-opus-4-5"))
    assert s["max_tokens"] == 5000 and s["thinking"]["budget_tokens"] == 2500
    prompt_usd, per_token = p.rates(_request(), "")
    assert prompt_usd > 0 and per_token == pytest.approx(10.0 / 1e6)  # sonnet 5.5's output rate


@pytest.mark.slow  # streams a long answer
def test_every_attempt_is_paid_for_and_sent_with_what_the_budget_grants(fake_api):  # noqa: F811
    """The first request and each continuation ask the budget first; the request carries the
    granted max_tokens; a budget with nothing left stops the call (BudgetSpent)."""
    asks: list[int] = []
    released: list[int] = []

    async def afford(req, prompt_usd, per_token, wanted):
        asks.append(wanted)
        return (600 if len(asks) < 3 else 0), lambda: released.append(1)

    fake_api.answerer = lambda body: "word " * 2000  # ~2500 tokens: cut at 600
    p = AnthropicProvider(concurrency=1, base_delay=0.01)

    async def go():
        try:
            return await p.generate(_request(max_tokens=8000), Sink(afford=afford))
        finally:
            await p.aclose()

    with pytest.raises(BudgetSpent):
        asyncio.run(go())
    bodies = [r["body"] for r in fake_api.message_requests()]
    assert [b["max_tokens"] for b in bodies] == [600, 600]  # the first request and one continuation
    assert asks == [8000, 8000, 8000] and len(released) == 2


@pytest.mark.slow  # whole books through the fake
@pytest.mark.parametrize("cap,low,finishes", [(1.00, 0.0, True), (0.30, 0.20, False)])
def test_a_book_spends_what_its_budget_allows_and_never_more(fake_api, tmp_path, cap, low, finishes):  # noqa: F811
    fake_api.answerer = answerer(0)
    ws = make_example(tmp_path / "ws", budget_usd=cap, max_chapters=8, batch_size=4)
    code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01))
    book = Book.open(ws)
    try:
        spent = book.ledger.spent()
    finally:
        book.close()
    assert (code == 0) is finishes, summary.needs_human
    assert low <= spent <= cap


@pytest.mark.slow
def test_cut_answers_are_continued_within_the_cap(tmp_path, monkeypatch):
    """A model-like upstream (thinking, restated lines) that cuts 40 % of answers at max_tokens:
    each continuation and re-ask is a call the cap counts, and the run spends up to it."""
    fake = FakeAPI(answerer=answerer(600), cut_share=0.4, cut_seed=3, model_like=ModelLike(0.3, seed=7))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.start())
    try:
        ws = make_example(tmp_path / "ws", budget_usd=0.25, max_chapters=4, batch_size=4)
        run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01))
        billed = official_bill(fake.billed)
    finally:
        fake.stop()
    book = Book.open(ws)
    try:
        assert 0.15 <= book.ledger.spent() <= 0.25
        assert billed == pytest.approx(book.ledger.spent(), rel=1e-6)  # what the API billed, all of it
    finally:
        book.close()


@pytest.mark.slow  # three runs of a book through the fake
def test_runs_that_each_delete_the_state_never_bill_past_the_cap(fake_api, tmp_path):  # noqa: F811
    """`book run; rm -rf output/.book`, three times against $0.30: what the fake API billed over
    all of them (not what a ledger says) stays within the cap, and the first run spends most of it."""
    fake_api.answerer = answerer(0)
    ws = make_example(tmp_path / "ws", budget_usd=0.30, max_chapters=8, batch_size=4)
    billed = []
    for _ in range(3):
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01))
        assert code == 3 and "budget" in summary.needs_human
        shutil.rmtree(ws / "output/.book")
        billed.append(official_bill(fake_api.billed))
    assert 0.20 <= billed[0] and billed[-1] <= 0.30, billed
