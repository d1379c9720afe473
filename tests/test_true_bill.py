"""A true bill (issue 21 part 5): `book cost --json` equals, within 1 %, the bill computed here
independently from the usage the fake Messages API returned (its `billed` record: what the API
would bill) and the official prices (platform.claude.com pricing, Claude Sonnet 5.5, checked
2026-12: $2 input, $10 output, 5-minute cache writes 1.25x input, 1-hour writes 2x, reads
$0.10 after the cut of 2026-10-07, Message Batches half of every rate). Each breakpoint's
lifetime follows its expected reuse (providers/anthropic/cache_ttl.py)."""

from __future__ import annotations

import json

import pytest
from conftest import make_example
from conftest_fake_api import DUMMY_KEY

from orchestrator.providers.anthropic import AnthropicProvider, build_params, resolve_settings
from orchestrator.providers.anthropic.cache_ttl import block_ttls
from orchestrator.providers.anthropic.pricing import cost_usd, usage_of
from orchestrator.providers.base import Request
from orchestrator.testing.cli import run_cli
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer

# USD per million tokens, from the official price list, not from data/prices.yaml
SONNET_5_5 = {"input": 2.00, "output": 10.00, "write_5m": 2.50, "write_1h": 4.00, "read": 0.10}


def official_bill(billed: list[dict]) -> float:
    usd = 0.0
    for b in billed:
        assert b["model"] == "claude-sonnet-5-5", b["model"]
        u, p = b["usage"], SONNET_5_5
        one_hour = u["cache_creation"]["ephemeral_1h_input_tokens"]
        five_min = u["cache_creation"]["ephemeral_5m_input_tokens"]
        assert one_hour + five_min == u["cache_creation_input_tokens"]
        call = (u["input_tokens"] * p["input"] + u["output_tokens"] * p["output"] + five_min * p["write_5m"]
                + one_hour * p["write_1h"] + u["cache_read_input_tokens"] * p["read"]) / 1e6
        usd += call / 2 if b["batch"] else call
    return usd


@pytest.fixture
def fake(monkeypatch):
    api = FakeAPI(answerer=answer, cache_rules=True)  # the real API's cache rules: writes, then reads
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    yield api
    api.stop()


ROLE_TTLS = {"researcher": {"cache_ttl": "1h"}, "writer": {"cache_ttl": "1h"}}  # book.yaml's `models:`


def _provider() -> AnthropicProvider:
    return AnthropicProvider(concurrency=4, base_delay=0.01, max_delay=0.05, role_settings=ROLE_TTLS)


def _cost_json(ws) -> dict:
    proc = run_cli("cost", "--json", "--workspace", str(ws))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stream", "batches"])
def test_book_cost_equals_the_bill_from_the_returned_usage_and_the_official_prices(fake, tmp_path, mode):
    # streamed: the researcher (the first to write the handbook) and the writer ask for 1-hour
    # prefixes (as a gated run does), the rest 5 minutes;
    # batched: every prefix lives an hour. Both kinds of write are billed.
    models = "{researcher: {cache_ttl: 1h}, writer: {cache_ttl: 1h}}"
    ws = make_example(tmp_path / "ws", max_chapters=3, models=models)
    code, summary = run_book(ws, provider=_provider(), message_batches=(mode == "batches"))
    assert code == 0, summary.needs_human
    billed = fake.billed
    assert billed and sum(b["usage"]["cache_creation"]["ephemeral_1h_input_tokens"] for b in billed) > 0
    if mode == "stream":
        assert sum(b["usage"]["cache_creation"]["ephemeral_5m_input_tokens"] for b in billed) > 0
    else:
        assert all(b["batch"] for b in billed)
    rep = _cost_json(ws)
    truth = official_bill(billed)
    assert rep["total_usd"] == pytest.approx(truth, rel=0.01), (rep["total_usd"], truth)
    assert rep["calls"] == len(billed)


def test_a_one_hour_write_costs_two_times_input_a_five_minute_one_one_and_a_quarter():
    m = "claude-sonnet-5-5"
    split = usage_of({"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 1_000_000,
                      "cache_read_input_tokens": 0,
                      "cache_creation": {"ephemeral_5m_input_tokens": 400_000, "ephemeral_1h_input_tokens": 600_000}})
    assert split.cache_creation_1h_tokens == 600_000
    assert cost_usd(split, m) == pytest.approx(0.4 * 2.50 + 0.6 * 4.00)
    assert cost_usd(split, m, batch=True) == pytest.approx((0.4 * 2.50 + 0.6 * 4.00) / 2)
    old = usage_of({"input_tokens": 10, "cache_creation_input_tokens": 1000})  # no breakdown: the 5-minute default
    assert old.cache_creation_1h_tokens == 0


def _req(**kw) -> Request:
    base = {"role": "r2_consistency", "step": "r2", "chapter": "ch01", "shared": "book " * 2000,
            "material": "draft line " * 900, "system": "", "prompt": "Review it.", "model": "claude-sonnet-5-5"}
    return Request(**(base | kw))


def _ttls(params: dict) -> list[str | None]:
    out = [b.get("cache_control", {}).get("ttl", "5m") if "cache_control" in b else None for b in params["system"]]
    user = params["messages"][0]["content"][0]
    return out + [user["cache_control"].get("ttl", "5m") if "cache_control" in user else None]


def test_lifetimes_follow_the_expected_reuse():
    s = resolve_settings("claude-sonnet-5-5", 4000)
    # a run without gates: everything is read again within minutes; no breakpoint on the user turn
    assert _ttls(build_params(_req(), s)) == ["5m", "5m", None]
    # gates on: the book's block outlives a wait; the material only across the review gate
    gated = dict(s, cache_ttl="1h")
    assert _ttls(build_params(_req(), gated)) == ["1h", "5m", None]
    assert _ttls(build_params(_req(material_ttl="1h"), gated)) == ["1h", "1h", None]
    # a batch: every prefix an hour
    assert _ttls(build_params(_req(), dict(s, batch=True))) == ["1h", "1h", None]
    # the roles layout: the role's block after the material is this request's alone
    assert block_ttls(["book", "material", "role"], gated, "1h") == ["1h", "1h", "5m"]
    assert block_ttls(["book", "role"], gated) == ["1h", "1h"]
    # never a longer lifetime after a shorter one (the API refuses it)
    assert block_ttls(["book", "material", "role"], {"cache_ttl": "5m"}, "1h") == ["5m", "5m", "5m"]
