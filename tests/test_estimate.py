"""The whole book's expected bill (issue 36, item 2): `book run --dry-run` prints a range before
any call; `book cost --json` has `estimate_usd` refined from the calls made; the range narrows
as chapters are done, and every R1 request carries its sources' numbered lines."""

from __future__ import annotations

import json
import re

import pytest
from conftest import make_example
from conftest_fake_api import fake_api  # noqa: F401  (fixture)

from orchestrator.estimate import estimate, plan_of, prior
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answerer, role_of


def test_the_dry_run_prints_the_whole_books_range(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=6)
    out = run_cli("run", "--dry-run", "--workspace", str(ws))
    assert out.returncode == 0, out.stderr
    m = re.search(r"expected bill of the whole book: \$(\d+\.\d\d)–\$(\d+\.\d\d) \(spent \$0\.00; 6 chapters", out.stdout)
    assert m and 0 < float(m.group(1)) < float(m.group(2))
    batched = run_cli("run", "--dry-run", "--message-batches", "--workspace", str(ws)).stdout
    m2 = re.search(r"through Message Batches: \$(\d+\.\d\d)–\$(\d+\.\d\d)", batched)
    assert m2 and float(m2.group(2)) == pytest.approx(float(m.group(2)) / 2, abs=0.011)  # half price


def test_the_prior_follows_the_sources_and_the_prices(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=4)
    book = Book.open(ws, repair=False)
    try:
        plan = plan_of(book)
        assert len(plan.chapters) == 4 and not plan.planned
        base = prior(book, plan, batch=False)
        half = prior(book, plan, batch=True)
        assert sum(map(sum, half.values())) == pytest.approx(sum(map(sum, base.values())) / 2)
        big = plan_of(book)
        big.chapters = {ch: n * 10 for ch, n in big.chapters.items()}  # sources ten times larger
        assert sum(map(sum, prior(book, big, False).values())) > sum(map(sum, base.values()))
    finally:
        book.close()


@pytest.mark.slow  # a whole book through the fake
def test_the_estimate_narrows_and_holds_the_bill(fake_api, tmp_path):  # noqa: F811
    fake_api.answerer = answerer(800)
    ws = make_example(tmp_path / "ws", max_chapters=6, batch_size=3, budget_usd=0)
    code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01))
    assert code == 0, summary.needs_human
    r1 = [r["body"] for r in fake_api.message_requests() if role_of(r["body"]) == "r1"]
    assert r1 and all("1→" in json.dumps(b, ensure_ascii=False) for b in r1)  # numbered source lines
    book = Book.open(ws, repair=False)
    try:
        calls = book.ledger.calls()
        total = sum(c["cost_usd"] for c in calls)
        finals = [i for i, c in enumerate(calls) if c["step"] == "final" and c["stop_reason"] == "end_turn"]
        third = estimate(book, calls[:finals[1] + 1])  # two of six chapters done
        low, high = third["estimate_usd"]
        assert low <= total <= high and (high - low) <= 0.6 * (low + high) / 2, (third, total)
        done = estimate(book, calls)["estimate_usd"]
        assert done[0] == pytest.approx(total, rel=0.01) and done[1] == pytest.approx(total, rel=0.01)
    finally:
        book.close()
    rep = json.loads(run_cli("cost", "--json", "--workspace", str(ws)).stdout)
    assert rep["estimate_usd"] == pytest.approx(done) and "corrected by" in rep["estimate_basis"]


def _ledger(book, chapters, thinking, text=1500, prompt_usd=0.004):
    """Ledger rows of `chapters` done: every step's call, answer `text` tokens plus
    `thinking(chapter, step)` tokens of thinking, at the book's list prices."""
    from orchestrator.estimate import Prices
    from orchestrator.steps import STEPS

    rates = Prices(book.cfg, batch=False)
    rows = []
    for ch in chapters:
        for key, st in STEPS.items():
            if not st.model:
                continue
            think = thinking(ch, key)
            out = text + think
            rows.append({"chapter": ch, "step": key, "role": st.role, "output_tokens": out, "thinking_tokens": think,
                         "cost_usd": prompt_usd + out * rates.rates(st.role)["output"], "stop_reason": "end_turn",
                         "batch": 0})
    return rows


def test_a_few_steady_thinks_do_not_narrow_the_range_but_a_model_that_does_not_think_does(tmp_path):
    """Thinking is a lottery (a long think now and then): four chapters that happen to show none
    leave the range open for the long thinks to come; answers without thinking, as steady, give
    a narrow one. The range is even in log around the expected bill (skewed draws)."""
    ws = make_example(tmp_path / "ws", max_chapters=12)
    book = Book.open(ws, repair=False)
    try:
        done = [f"ch{i:02d}" for i in range(1, 5)]
        steady = estimate(book, _ledger(book, done, lambda ch, step: 2000))
        plain = estimate(book, _ledger(book, done, lambda ch, step: 0))
    finally:
        book.close()

    def width(e):
        low, high = e["estimate_usd"]
        return (high - low) / ((high + low) / 2)

    assert width(steady) > 0.3  # the thinking of eight chapters to come is not known from four steady ones
    assert width(plain) < 0.2  # steady text: the rest is much like what was seen
    low, high = steady["estimate_usd"]
    left = steady["expected_usd"] - steady["spent_usd"]
    assert (high - steady["spent_usd"]) / left == pytest.approx(left / (low - steady["spent_usd"]), rel=1e-3)
