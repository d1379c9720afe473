"""The model table, per-role settings, build_params (breakpoints, thinking, effort, structured
outputs), the overload budget on a fake clock, started/ended call rows in the ledger, the
cache gate, --concurrency reaching the provider, and the client's timeouts."""

from __future__ import annotations

import asyncio
import json

import pytest
from conftest_fake_api import DUMMY_KEY, fake_api  # noqa: F401  (fixture)

from orchestrator.errors import ConfigError, StepFailed
from orchestrator.providers.anthropic import (
    AnthropicProvider,
    build_params,
    model_info,
    model_warnings,
    resolve_settings,
    text_hash,
)
from orchestrator.providers.anthropic.client import make_client
from orchestrator.providers.anthropic.models import sdk_model_ids
from orchestrator.providers.anthropic.retry import Clock
from orchestrator.providers.base import Request, Sink

SCHEMA = {"type": "object", "required": ["verdict", "findings"], "additionalProperties": False,
          "properties": {"verdict": {"enum": ["clean", "blocked"]},
                         "findings": {"type": "array", "minItems": 1, "items": {
                             "type": "object", "required": ["severity", "line", "message"],
                             "properties": {"severity": {"enum": ["blocking", "major", "minor"]},
                                            "line": {"type": "integer", "minimum": 1},
                                            "message": {"type": "string", "minLength": 3}}}}}}


def req(**kw) -> Request:
    args = dict(role="writer", step="draft", chapter="ch01", system="role " * 2000, shared="book " * 100,
                prompt="Write it.", model="claude-sonnet-5-5", max_tokens=16000)
    args.update(kw)
    return Request(**args)


def test_the_model_table_caps_max_tokens_and_knows_the_sdk_models():
    assert model_info("claude-haiku-4-5-20251001").key == "claude-haiku-4-5"
    assert resolve_settings("claude-haiku-4-5", 100000)["max_tokens"] == 64000  # capped by the table
    assert resolve_settings("claude-sonnet-5-5", 16000)["max_tokens"] == 16000  # the role's need
    ids = sdk_model_ids()
    assert "claude-sonnet-5-5" in ids and all(model_info(m).known for m in ids if "preview" not in m)
    assert model_warnings("claude-sonnet-5-5") == []
    w = model_warnings("claude-opus-9")
    assert any("most expensive opus rate" in x for x in w) and any("models.yaml" in x for x in w)
    assert any("SDK" in x for x in model_warnings("claude-sonet-5-5"))  # a typo


def test_build_params_breakpoints_merge_a_short_shared_prefix_and_leave_the_user_turn():
    s = resolve_settings("claude-sonnet-5-5", 16000)
    p = build_params(req(), s)
    assert [("cache_control" in b) for b in p["system"]] == [False, True]  # 100 words < 1024 tokens: merged
    assert "cache_control" not in p["messages"][0]["content"][-1]  # only a re-send would read it
    asked = build_params(req(), dict(s, cache_user_turn=True))
    assert asked["messages"][0]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # 5 minutes, never 1 hour
    long_shared = build_params(req(shared="book " * 1000), s)
    assert [("cache_control" in b) for b in long_shared["system"]] == [True, True]
    n = sum("cache_control" in b for b in long_shared["system"]) + 1
    assert n <= 4
    assert "temperature" not in p and "thinking" not in p


def test_structured_output_thinking_and_effort_use_the_sdk_parameters():
    s = resolve_settings("claude-opus-5", 16000, {"thinking": "adaptive", "effort": "high"})
    p = build_params(req(output_schema=SCHEMA, model="claude-opus-5"), s)
    assert p["thinking"] == {"type": "adaptive"}
    assert p["output_config"] == {"effort": "high", "format": {"type": "json_schema", "schema": SCHEMA}}
    # with thinking, a continuation never uses a prefill (the API refuses it)
    s45 = resolve_settings("claude-opus-4-5", 16000, {"thinking": {"budget_tokens": 4000}})
    cont = build_params(req(model="claude-opus-4-5"), s45, "half an answer ")
    assert cont["messages"][-1]["role"] == "user"
    assert build_params(req(model="claude-opus-4-5"), resolve_settings("claude-opus-4-5", 16000),
                        "half an answer ")["messages"][-1] == {"role": "assistant", "content": "half an answer"}


def test_the_fake_answers_a_schema_with_a_valid_document(fake_api):
    p = AnthropicProvider(concurrency=1)

    async def go():
        try:
            return await p.generate(req(output_schema=SCHEMA), Sink())
        finally:
            await p.aclose()

    res = asyncio.run(go())
    doc = json.loads(res.text)
    assert set(doc) == {"verdict", "findings"} and doc["verdict"] in ("clean", "blocked") and doc["findings"]
    assert all(f["severity"] in ("blocking", "major", "minor") and isinstance(f["line"], int) and f["line"] >= 1
               and len(f["message"]) >= 3 for f in doc["findings"])
    assert fake_api.message_requests()[0]["body"]["output_config"]["format"]["type"] == "json_schema"


@pytest.mark.parametrize("models, message", [
    ("{writer: {model: claude-haiku-4-5, max_tokens: 100000}}", "writes at most 64000"),
    ("{writer: {model: claude-haiku-4-5, thinking: adaptive}}", "accepts enabled, not adaptive"),
    ("{writer: {model: claude-opus-5, temperature: 0.2}}", "temperature is not supported"),
    ("{writer: {model: claude-haiku-4-5, effort: high}}", "does not accept an effort"),
    ("{writer: {model: claude-opus-4-5, effort: max}}", "accepts low, medium, high, not max"),
    ("{writer: {model: claude-sonnet-4-6, effort: xhigh}}", "accepts low, medium, high, max, not xhigh"),
    ("{writer: {model: claude-opus-4-5, thinking: {budget_tokens: 500}}}", "at least 1024"),
])
def test_bad_role_settings_are_config_errors_naming_the_line(tmp_path, models, message):
    from orchestrator.config import load as load_config

    (tmp_path / "src").mkdir()
    (tmp_path / "book.yaml").write_text(f"title: T\nsource: ./src\nmodels:\n  writer: {models.split(': ', 1)[1][:-1]}\n")
    with pytest.raises(ConfigError, match=message) as info:
        load_config(tmp_path)
    assert info.value.line == 4


def test_effective_settings_for_doctor(tmp_path):
    from orchestrator.config import load as load_config
    from orchestrator.providers.anthropic import effective_settings

    (tmp_path / "src").mkdir()
    (tmp_path / "book.yaml").write_text("source: ./src\nmodels:\n  editor: {model: claude-opus-5, max_tokens: 32000, "
                                        "thinking: adaptive, effort: high}\n  writer: claude-haiku-4-5\n")
    cfg = load_config(tmp_path)
    e = effective_settings(cfg, "editor")
    assert e["model"] == "claude-opus-5" and e["max_tokens"] == 32000 and e["thinking"] == {"type": "adaptive"}
    assert e["effort"] == "high" and e["warnings"] == []
    assert cfg.model_for("editor") == "claude-opus-5" and cfg.model_for("writer") == "claude-haiku-4-5"
    assert effective_settings(cfg, "writer")["continuation"] == "prefill"


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_overload_backs_off_for_about_ten_minutes_on_a_fake_clock(fake_api):
    fake_api.status(529, times=1000)
    rows: list[dict] = []
    clock = Clock(scale=0.0005)  # 10 modelled minutes in ~0.3 s
    p = AnthropicProvider(concurrency=1, clock=clock, cache_gate=False)
    t0 = clock.now()

    async def go():
        try:
            return await p.generate(req(), Sink(attempt=rows.append))
        finally:
            await p.aclose()

    with pytest.raises(StepFailed, match="still overloaded") as info:
        asyncio.run(go())
    waited = clock.now() - t0
    attempts = [r for r in rows if r["status"] != "started"]
    assert info.value.retryable and 480 <= waited <= 660, waited
    assert 8 <= len(attempts) <= 30  # jittered, growing waits (5 s doubling, at most 60 s each)


def test_every_attempt_is_logged_started_then_ended_and_the_ledger_knows_a_complete_answer(fake_api, tmp_path):
    from orchestrator.state.ledger import Ledger

    led = Ledger.open(tmp_path / "state.db")
    fake_api.status(500)
    p = AnthropicProvider(concurrency=1, base_delay=0.01)

    async def go():
        try:
            return await p.generate(req(), Sink(attempt=lambda row: led.log_call(run="r1", **row)))
        finally:
            await p.aclose()

    res = asyncio.run(go())
    calls = led.calls()
    assert [c["status"] for c in calls] == ["error", "ok"] and calls[1]["stop_reason"] == "end_turn"
    assert calls[1]["text_hash"] == text_hash(res.text)
    assert led.completed_partial("ch01", "draft", text_hash(res.text))
    assert not led.completed_partial("ch01", "draft", text_hash(res.text[:-1]))
    led.log_call(run="r2", call_id="x1", status="started", role="writer", chapter="ch02", step="draft")
    assert len(led.calls()) == 3  # a call in flight at a kill is counted
    led.close()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_siblings_of_a_new_prefix_wait_for_the_first_to_start_and_then_read(monkeypatch):
    from orchestrator.testing.fake_api import FakeAPI

    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    for gate in (False, True):
        with FakeAPI(latency=0.2, cache_rules=True) as fake:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
            p = AnthropicProvider(concurrency=6, cache_gate=gate)

            async def go(p: AnthropicProvider = p):
                try:
                    return await asyncio.gather(*(p.generate(req(prompt=f"chapter {i}"), Sink())
                                                  for i in range(6)))
                finally:
                    await p.aclose()

            res = asyncio.run(go())
            readers = sum(r.usage.cache_read_tokens > 0 for r in res)
            assert readers == (5 if gate else 0), (gate, readers)


def test_concurrency_flag_reaches_the_provider_and_timeouts_are_separate(monkeypatch):
    p = AnthropicProvider(concurrency=4)
    p.set_concurrency(8)
    assert p.concurrency == 8
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    client = make_client(DUMMY_KEY)
    assert client.timeout.connect == 10.0 and client.timeout.read == 600.0
