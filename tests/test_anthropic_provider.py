"""The Claude provider against the fake Messages API, through the real SDK (no network but
127.0.0.1). Timings use a tiny base_delay so the whole module runs in a few seconds."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest
from conftest_fake_api import DUMMY_KEY, fake_api  # noqa: F401  (fixture)

from orchestrator.errors import ConfigError, Refused, StepFailed
from orchestrator.providers.anthropic import (
    CONTINUE_PROMPT,
    AnthropicProvider,
    cost_usd,
    load_prices,
    price_for,
)
from orchestrator.providers.base import Request, Sink, Usage
from orchestrator.testing.fake_api import DEFAULT_MARKER, FakeAPI, default_answerer, tokens

ROOT = Path(__file__).resolve().parents[1]
MODEL = "claude-sonnet-5-5"
SYSTEM = "You are the writer of a technical book. Follow the style guide. " * 30
PROMPT = "Write chapter one about widgets, gadgets and sprockets."
ROW_KEYS = {"role", "chapter", "step", "provider", "model", "input_tokens", "output_tokens",
            "cache_creation_tokens", "cache_read_tokens", "cost_usd", "latency_ms", "stop_reason", "request_id",
            "error"}


def expected(prompt: str = PROMPT) -> str:
    return default_answerer({"messages": [{"role": "user", "content": prompt}]})


class Partial:
    """What the runner does with the stream: a .partial that the sink's reset truncates."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.resets = 0

    def on_text(self, s: str) -> None:
        assert isinstance(s, str) and s
        self.pieces.append(s)

    def on_reset(self, keep_prefix: bool) -> None:
        assert keep_prefix  # a retried attempt: what stood before the call stays
        self.resets += 1
        self.pieces.clear()

    def sink(self) -> Sink:
        return Sink(text=self.on_text, reset=self.on_reset)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


def request(**kw) -> Request:
    args = dict(role="writer", step="draft", chapter="ch01", system=SYSTEM, prompt=PROMPT, model=MODEL,
                max_tokens=4000)
    args.update(kw)
    return Request(**args)


class Observed(AnthropicProvider):
    """The provider, with a test watching the attempts every call reports to its sink."""

    def __init__(self, rows: list, **kw) -> None:
        super().__init__(**kw)
        self.rows = rows

    async def generate(self, req: Request, sink: Sink):
        def attempt(row: dict) -> None:
            if row.get("status") not in ("started", "streaming"):  # the rows of ended attempts (each is also
                #                                                   `started` before it is sent, `streaming` once it starts)
                self.rows.append(row)
            sink.attempt(row)

        return await super().generate(req, replace(sink, attempt=attempt))


def provider(rows: list | None = None, **kw) -> AnthropicProvider:
    kw.setdefault("concurrency", 4)
    kw.setdefault("base_delay", 0.01)
    kw.setdefault("overload_base", 0.01)
    return AnthropicProvider(**kw) if rows is None else Observed(rows, **kw)


def generate(p: AnthropicProvider, req: Request, partial: Partial | None = None):
    partial = partial or Partial()

    async def go():
        try:
            return await p.generate(req, partial.sink())
        finally:
            await p.aclose()

    return asyncio.run(go())


def message_bodies(fake: FakeAPI) -> list[dict]:
    return [r["body"] for r in fake.message_requests()]


# ---------------------------------------------------------------------------- the happy path

@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_streaming_end_turn_logs_usage_and_cost(fake_api):
    rows: list[dict] = []
    part = Partial()
    res = generate(provider(rows), request(), part)
    assert res.text == expected() and res.stop_reason == "end_turn"
    assert part.text == res.text and len(part.pieces) > 5  # it streamed, in pieces
    assert res.calls == 1 and res.model == MODEL and res.request_id.startswith("req_fake")
    assert len(rows) == 1
    row = rows[0]
    assert ROW_KEYS <= set(row)
    assert row["role"] == "writer" and row["chapter"] == "ch01" and row["step"] == "draft"
    assert row["provider"] == "anthropic" and row["model"] == MODEL and row["error"] is None
    assert row["stop_reason"] == "end_turn" and row["request_id"] == res.request_id
    assert row["cache_creation_tokens"] > 0 and row["cache_read_tokens"] == 0
    assert row["output_tokens"] == res.usage.output_tokens > 0
    assert row["cost_usd"] == pytest.approx(res.cost_usd) and res.cost_usd > 0
    assert res.cost_usd == pytest.approx(cost_usd(res.usage, MODEL))
    assert row["latency_ms"] >= 0
    body = message_bodies(fake_api)[0]
    assert body["stream"] is True and body["model"] == MODEL and body["max_tokens"] == 4000
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    # no breakpoint on the user turn: only a re-send would read it, which rarely pays (cache_ttl.py)
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": PROMPT}]}]


def test_cache_read_on_second_call_with_the_same_prefix(fake_api):
    rows: list[dict] = []
    p = provider(rows)

    async def go():
        try:
            a = await p.generate(request(), Sink())
            b = await p.generate(request(prompt="Write chapter two about levers."), Sink())
            c = await p.generate(request(system="A different role. " * 40), Sink())
            return a, b, c
        finally:
            await p.aclose()

    a, b, c = asyncio.run(go())
    assert a.usage.cache_creation_tokens > 0 and a.usage.cache_read_tokens == 0
    # b reads the role's prefix and writes nothing (its own prompt has no breakpoint)
    assert b.usage.cache_read_tokens == tokens(SYSTEM) and b.usage.cache_creation_tokens == 0
    assert c.usage.cache_creation_tokens > 0 and c.usage.cache_read_tokens == 0
    assert [r["cache_read_tokens"] > 0 for r in rows] == [False, True, False]
    # the cached prefix is cheaper the second time
    assert cost_usd(Usage(cache_read_tokens=1000), MODEL) < cost_usd(Usage(input_tokens=1000), MODEL)


def test_feedback_is_appended_to_the_prompt(fake_api):
    res = generate(provider(), request(feedback="the answer had no `## Summary` section"))
    content = message_bodies(fake_api)[0]["messages"][0]["content"]
    assert content[0]["text"] == PROMPT and "cache_control" not in content[0]  # the prompt, unchanged
    assert "no `## Summary` section" in content[1]["text"] and "cache_control" not in content[1]
    assert res.text == expected(PROMPT + content[1]["text"])


# ---------------------------------------------------------------------------- retries

@pytest.mark.parametrize("code", [429, 529, 500, 502, 503, 504])
def test_retryable_status_is_retried(fake_api, code):
    rows: list[dict] = []
    fake_api.status(code)
    res = generate(provider(rows), request())
    assert res.text == expected() and res.calls == 2
    assert len(rows) == 2 and str(code) in rows[0]["error"] and rows[0]["request_id"]
    assert rows[1]["error"] is None and rows[1]["stop_reason"] == "end_turn"


@pytest.mark.parametrize("code", [400, 401, 403, 404])
def test_client_errors_fail_at_once(fake_api, code):
    rows: list[dict] = []
    fake_api.status(code)
    with pytest.raises(StepFailed) as info:
        generate(provider(rows), request())
    assert info.value.retryable is False
    assert f"HTTP {code}" in str(info.value)
    assert len(fake_api.message_requests()) == 1 and len(rows) == 1 and rows[0]["error"]


def test_retry_after_is_honoured(fake_api):
    fake_api.status(429, retry_after=0.6)
    res = generate(provider(base_delay=0.01), request())
    assert res.text == expected()
    t = [r["time"] for r in fake_api.message_requests()]
    assert len(t) == 2 and t[1] - t[0] >= 0.55


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_backoff_grows_between_attempts(fake_api):
    fake_api.status(500, times=3)
    generate(provider(base_delay=0.1), request())
    t = [r["time"] for r in fake_api.message_requests()]
    gaps = [b - a for a, b in zip(t, t[1:])]
    assert len(gaps) == 3 and gaps[0] >= 0.07 and gaps[1] >= 0.14 and gaps[2] >= 0.29


@pytest.mark.parametrize("fault", ["drop_mid_stream", "error_event", "no_message_stop", "empty"])
def test_stream_faults_are_retried_and_the_partial_text_discarded(fake_api, fault):
    rows: list[dict] = []
    getattr(fake_api, fault)()
    part = Partial()
    res = generate(provider(rows), request(), part)
    assert res.text == expected() and res.stop_reason == "end_turn" and res.calls == 2
    assert part.text == res.text  # what the runner streamed to .partial matches the answer
    if fault != "empty":
        assert part.resets == 1  # text had been delivered before the failure
    assert rows[0]["error"] and rows[1]["error"] is None
    assert rows[0]["stop_reason"] is None or fault == "empty"


@pytest.mark.parametrize("fault", ["drop_mid_stream", "error_event", "no_message_stop", "empty"])
def test_a_fault_that_persists_fails_the_step_never_returns_a_truncated_text(fake_api, fault):
    getattr(fake_api, fault)(times=10)
    part = Partial()
    with pytest.raises(StepFailed) as info:
        # overload (the error event) is bounded by time, not attempts: a budget that allows 3
        generate(provider(max_attempts=3, overload_budget=0.05), request(), part)
    assert info.value.retryable is True and "3 attempts" in str(info.value)
    assert len(fake_api.message_requests()) == 3


def test_connection_refused_is_retried_then_fails(monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    rows: list[dict] = []
    with pytest.raises(StepFailed) as info:
        generate(provider(rows, max_attempts=2), request())
    assert info.value.retryable and "connection" in str(info.value).lower()
    assert len(rows) == 2 and all(r["error"] for r in rows)


def test_on_text_errors_propagate_untouched(fake_api):
    def on_text(s):
        raise OSError(28, "No space left on device")

    p = provider()

    async def go():
        try:
            await p.generate(request(), Sink(text=on_text))
        finally:
            await p.aclose()

    with pytest.raises(OSError, match="No space left"):
        asyncio.run(go())
    assert len(fake_api.message_requests()) == 1


# ---------------------------------------------------------------------------- rate limits

def test_concurrency_limit(fake_api):
    fake_api.latency = 0.15
    p = provider(concurrency=1)

    async def go():
        try:
            return await asyncio.gather(*(p.generate(request(prompt=f"Topic {i} widgets"), Sink())
                                          for i in range(3)))
        finally:
            await p.aclose()

    asyncio.run(go())
    t = sorted(r["time"] for r in fake_api.message_requests())
    assert len(t) == 3 and all(b - a >= 0.14 for a, b in zip(t, t[1:]))


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_429_slows_down_every_task(fake_api):
    fake_api.status(429, retry_after=0.8, match="TASK-A")
    p = provider(concurrency=4)

    async def task_b():
        while not fake_api.message_requests():  # start after A got its 429
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        return await p.generate(request(prompt="TASK-B: write about levers"), Sink())

    async def go():
        try:
            a = p.generate(request(prompt="TASK-A: write about gears"), Sink())
            return await asyncio.gather(a, task_b())
        finally:
            await p.aclose()

    started = time.time()
    a, b = asyncio.run(go())
    assert "gears" in a.text and "levers" in b.text
    reqs = fake_api.message_requests()
    first_a = min(r["time"] for r in reqs if "TASK-A" in json.dumps(r["body"]))
    b_times = [r["time"] for r in reqs if "TASK-B" in json.dumps(r["body"])]
    assert len(b_times) == 1 and b_times[0] - first_a >= 0.75  # B waited for A's retry-after
    assert time.time() - started < 3


# ---------------------------------------------------------------------------- stop reasons

def test_max_tokens_continues_and_joins(fake_api):
    rows: list[dict] = []
    fake_api.max_tokens(at=0.4)
    part = Partial()
    res = generate(provider(rows), request(), part)
    assert res.text == expected() and res.calls == 2 and part.text == res.text
    second = message_bodies(fake_api)[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]  # claude-sonnet-5-5: no prefill
    assert second[2]["content"] == CONTINUE_PROMPT
    so_far = second[1]["content"]
    assert so_far == so_far.rstrip() and expected().startswith(so_far)
    assert fake_api.diverged == 0
    assert [r["stop_reason"] for r in rows] == ["max_tokens", "end_turn"]
    assert res.usage.output_tokens == sum(r["output_tokens"] for r in rows)
    assert res.cost_usd == pytest.approx(sum(r["cost_usd"] for r in rows))


def test_many_continuations_then_give_up(fake_api):
    answer = expected()
    res = generate(provider(max_continuations=4), request(max_tokens=len(answer) // 4 // 3 + 1))
    assert res.text == answer and res.calls >= 3
    fake_api.clear()
    with pytest.raises(StepFailed, match="still incomplete after 1 continuations") as info:
        generate(provider(max_continuations=1), request(max_tokens=len(answer) // 4 // 3 + 1))
    assert info.value.retryable is False and len(fake_api.message_requests()) == 2


@pytest.mark.parametrize("cut", [301, "blank"])
def test_prefix_is_continued_exactly(fake_api, cut):
    answer = expected()
    at = cut if isinstance(cut, int) else answer.index("\n\n", 200) + 2  # a prefix ending in a blank line
    prefix = answer[:at]
    part = Partial()
    res = generate(provider(), request(prefix=prefix), part)
    assert res.text == answer and prefix + part.text == answer  # on_text got only the new text
    msgs = message_bodies(fake_api)[0]["messages"]
    assert msgs[-1]["role"] == "user"  # never a trailing assistant prefill on 4.6+ models (a 400)
    assert msgs[1] == {"role": "assistant", "content": prefix.rstrip()}


def test_a_refusal_is_asked_once_more_then_the_fallback_then_a_person(fake_api):
    fake_api.refusal(times=3)
    with pytest.raises(Refused, match="refused to write this.*fallback") as info:
        generate(provider(), request())
    assert info.value.retryable is False
    # the same model once more, then another of its family (data/models.yaml), then a person
    assert [b["model"] for b in message_bodies(fake_api)] == [MODEL, MODEL, "claude-sonnet-5"]
    assert all(len(b["messages"]) == 1 for b in message_bodies(fake_api))  # each afresh, no refused text


def test_refusal_fails_without_fallback(fake_api):
    fake_api.refusal(times=2)
    with pytest.raises(Refused, match="refused"):
        generate(provider(fallback_model="none"), request())
    assert len(message_bodies(fake_api)) == 2


def test_a_refusal_asked_once_more_may_pass(fake_api):
    fake_api.refusal()
    part = Partial()
    res = generate(provider(), request(), part)
    assert res.model == MODEL and res.text == expected() and part.text == res.text


def test_refusal_uses_the_fallback_model(fake_api):
    rows: list[dict] = []
    fake_api.refusal(times=2)
    part = Partial()
    res = generate(provider(rows, fallback_model="claude-opus-5-5"), request(), part)
    assert res.model == "claude-opus-5-5" and res.text == expected() and part.text == res.text
    assert part.resets == 2
    assert [r["model"] for r in rows] == [MODEL, MODEL, "claude-opus-5-5"]
    assert [b["model"] for b in message_bodies(fake_api)] == [MODEL, MODEL, "claude-opus-5-5"]


def test_marker_like_text_and_malformed_answers_pass_through(fake_api):
    fake_api.marker_text()
    res = generate(provider(), request())
    assert DEFAULT_MARKER in res.text and res.stop_reason == "end_turn"  # the runner neutralises it
    fake_api.malformed("not a chapter at all")
    res = generate(provider(), request())
    assert res.text == "not a chapter at all"


# ---------------------------------------------------------------------------- secrets, config, import cost

def test_the_key_never_leaks(fake_api, caplog):
    caplog.set_level(logging.DEBUG)
    rows: list[dict] = []
    errors: list[str] = []
    fake_api.status(429)
    fake_api.drop_mid_stream()
    generate(provider(rows), request())
    fake_api.status(401, message=f"invalid x-api-key: {DUMMY_KEY}")
    with pytest.raises(StepFailed) as info:
        generate(provider(rows), request())
    errors.append(str(info.value))
    errors.append(repr(info.value))
    fake_api.status(400, message=f"bad request from {DUMMY_KEY}")
    with pytest.raises(StepFailed) as info:
        generate(provider(rows), request())
    errors.append(str(info.value))
    assert "HTTP 401" in errors[0] and "***" in errors[0]
    # no SDK error chained to it (it holds the request and its headers)
    assert info.value.__cause__ is None and info.value.__context__ is None
    for text in (json.dumps(rows, default=str), "\n".join(errors), fake_api.dump(), caplog.text):
        assert DUMMY_KEY not in text and "SECRET123" not in text
    assert all(r["headers"].get("authorization", "***") == "***" for r in fake_api.requests)


def test_a_deprecated_model_warns_once_in_the_log_and_works(fake_api, caplog):
    rows: list[dict] = []
    res = generate(provider(rows), request(model="claude-sonnet-4-5"))  # the SDK warns: deprecated
    assert res.text == expected() and rows[0]["model"] == "claude-sonnet-4-5"
    assert "deprecated" in caplog.text


def test_cancelled_call_is_still_logged(fake_api):
    rows: list[dict] = []
    fake_api.delta_delay = 0.05
    p = provider(rows)

    async def go():
        task = asyncio.create_task(p.generate(request(), Sink()))
        while not fake_api.message_requests():
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # in the middle of the stream
        task.cancel()
        try:
            await task
        finally:
            await p.aclose()

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(go())
    assert len(rows) == 1 and rows[0]["error"] == "cancelled" and rows[0]["status"] == "cancelled"
    assert rows[0]["input_tokens"] + rows[0]["cache_creation_tokens"] > 0


def test_missing_key_is_a_clear_config_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY") as info:
        generate(provider(), request())
    assert "export ANTHROPIC_API_KEY" in str(info.value)


@pytest.mark.slow
def test_importing_the_provider_does_not_import_anthropic():
    code = ("import sys, orchestrator.providers.anthropic as a\n"
            "from orchestrator.providers.base import Request\n"
            "p = a.AnthropicProvider(concurrency=2)\n"
            "r = Request(role='writer', step='draft', chapter='ch01', system='s', prompt='p',"
            " model='claude-sonnet-5-5')\n"
            "assert p.estimate_cost(r) > 0\n"
            "print('anthropic' in sys.modules, any(m.startswith('httpx') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------------------- prices

def test_prices_match_dated_ids_and_families():
    prices = load_prices()
    assert price_for("claude-sonnet-5-5", prices)["output"] == 10.0
    assert price_for("claude-haiku-4-5-20251001", prices) == prices["claude-haiku-4-5"]
    assert price_for("claude-opus-4-1-20250805", prices) == prices["claude-opus-4-1"]
    assert price_for("claude-opus-4-5", prices) == prices["claude-opus-4-5"]
    assert price_for("us.anthropic.claude-sonnet-4-6", prices) == prices["claude-sonnet-4-6"]
    # a new version: the most expensive rate of its family (a cap must not under-count)
    assert price_for("claude-sonnet-7", prices)["output"] == max(p["output"] for k, p in prices.items()
                                                                 if "sonnet" in k)
    assert price_for("claude-opus-9", prices)["output"] == 75.0
    assert price_for("gpt-5", prices) == prices["default"]
    for name, p in prices.items():
        assert {"input", "output", "cache_write", "cache_read"} <= set(p), name


def test_cost_and_estimate():
    prices = load_prices()
    u = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_creation_tokens=1_000_000,
              cache_read_tokens=1_000_000)
    assert cost_usd(u, "claude-sonnet-5-5", prices) == pytest.approx(2 + 10 + 2.5 + 0.1)
    # Haiku 5.5: past 100k prompt tokens every token is billed at the higher rates
    assert cost_usd(Usage(input_tokens=50_000, output_tokens=1000), "claude-haiku-5-5", prices) == \
        pytest.approx((50_000 * 0.10 + 1000 * 0.50) / 1e6)
    assert cost_usd(Usage(input_tokens=200_000, output_tokens=1000), "claude-haiku-5-5", prices) == \
        pytest.approx((200_000 * 0.50 + 1000 * 2.50) / 1e6)
    p = AnthropicProvider(concurrency=1)
    req = request(max_tokens=1000)
    est = p.estimate_cost(req)
    assert est == pytest.approx((len(SYSTEM) / 3.5 * 2.5 + len(PROMPT) / 3.5 * 2.5 + 1000 * 10) / 1e6)
    assert p.estimate_cost(request(max_tokens=2000)) > est


def test_a_bad_prices_file_is_a_config_error(tmp_path):
    bad = tmp_path / "prices.yaml"
    bad.write_text("claude-x: {input: cheap}\n")
    with pytest.raises(ConfigError, match="input"):
        load_prices(bad)
    ok = tmp_path / "ok.yaml"
    ok.write_text("default: {input: 1, output: 2}\n")
    assert load_prices(ok)["default"]["cache_write"] == 1.25


# ---------------------------------------------------------------------------- the fake itself

def _post(url: str, body: dict, key: str | None = DUMMY_KEY):
    headers = {"content-type": "application/json", **({"x-api-key": key} if key else {})}
    req = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode(), method="POST",
                                 headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, dict(e.headers), e.read().decode()


def test_fake_non_streaming_and_validation():
    with FakeAPI() as fake:
        body = {"model": MODEL, "max_tokens": 1000, "messages": [{"role": "user", "content": PROMPT}]}
        status, headers, text = _post(fake.base_url, body)
        msg = json.loads(text)
        assert status == 200 and headers["request-id"].startswith("req_")
        assert msg["type"] == "message" and msg["stop_reason"] == "end_turn"
        assert msg["content"][0]["text"] == expected() and msg["usage"]["output_tokens"] > 0
        status, _, text = _post(fake.base_url, body, key=None)
        assert status == 401 and json.loads(text)["error"]["type"] == "authentication_error"
        prefill = {**body, "messages": body["messages"] + [{"role": "assistant", "content": "# Wid"}]}
        status, _, text = _post(fake.base_url, prefill)
        assert status == 400 and "prefill" in text
        fake.status(529, retry_after=2)
        status, headers, text = _post(fake.base_url, body)
        assert status == 529 and headers["retry-after"] == "2"
        assert json.loads(text)["error"]["type"] == "overloaded_error"
        assert DUMMY_KEY not in fake.dump()
        assert fake.requests[0]["headers"]["x-api-key"] == "***"


@pytest.mark.slow
def test_fake_runs_standalone():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "orchestrator.testing.fake_api", "--port", str(port)],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 10
        while True:
            try:
                status, _, text = _post(url, {"model": MODEL, "max_tokens": 100,
                                              "messages": [{"role": "user", "content": "hello widgets"}]})
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.time() < deadline, "the fake did not start"
                time.sleep(0.05)
        assert status == 200 and json.loads(text)["content"][0]["text"].startswith("# hello widgets")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stderr.close()
