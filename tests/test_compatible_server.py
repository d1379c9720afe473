"""Issue 27: a book through any server that speaks the Messages API (Ollama, llama.cpp, vLLM).
The fake API's compatible profile (testing/fake_compatible.py) answers like those servers: no
output_config, no cache, no count_tokens, no batches, an 8k window, off-contract answers."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from orchestrator import config as config_mod
from orchestrator.agents import memory_budget, source_context
from orchestrator.errors import ConfigError
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.providers.anthropic.params import FORMAT_HEADER, build_params
from orchestrator.providers.anthropic.server import (
    ALL,
    CACHE_FILE,
    NONE,
    PLACEHOLDER_KEY,
    Features,
    ServerProfile,
    features_for,
    from_config,
)
from orchestrator.providers.base import Request, Usage
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_compatible import Compatible
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answer, role_of

WINDOW = 8192
LOCAL = {"server": "compatible", "model": "qwen3-coder", "context_window": WINDOW, "max_output": 2048,
         "provider": "anthropic"}
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


@pytest.fixture
def local(monkeypatch):
    """The fake as a local server at 20 % off-contract answers; no API key in the environment."""
    compat = Compatible(window=WINDOW, off_contract=0.2, seed=3)
    api = FakeAPI(answerer=answer, compatible=compat)
    url = api.start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    yield api, compat
    api.stop()


def _req(**kw) -> Request:
    base = dict(role="r1", step="r1", chapter="ch01", system="Review the chapter.", prompt="The draft.",
                model="qwen3-coder", max_tokens=1000, output_schema=SCHEMA)
    return Request(**(base | kw))


def _settings(**kw) -> dict:
    return {"model": "qwen3-coder", "max_tokens": 1000, "min_cache_tokens": 0, "prefill": False,
            "thinking": {"type": "adaptive"}, "effort": "high"} | kw


def test_request_degrades_to_what_the_server_accepts():
    full = build_params(_req(), _settings(), features=ALL)
    assert full["output_config"]["format"]["schema"] == SCHEMA and full["thinking"]
    assert any("cache_control" in b for b in full["system"])
    bare = build_params(_req(feedback="Your previous answer was rejected: x."), _settings(), features=NONE)
    assert "output_config" not in bare and "thinking" not in bare
    assert not any("cache_control" in b for b in bare["system"])
    content = bare["messages"][0]["content"]
    assert not any("cache_control" in b for b in content)
    # the schema goes into the prompt as words, before the re-ask's feedback
    texts = [b["text"] for b in content]
    assert FORMAT_HEADER in texts[1] and json.dumps(SCHEMA, separators=(",", ":")) in texts[1]
    assert "rejected" in texts[2]
    # caching alone absent: the format stays, the breakpoints go
    mixed = build_params(_req(), _settings(), features=Features(cache=False))
    assert mixed["output_config"]["format"] and not any("cache_control" in b for b in mixed["system"])


def test_config_keys_and_their_errors(tmp_path):
    ws = make_example(tmp_path / "ws", **LOCAL, prices="{input: 0.5, output: 2}")
    cfg = config_mod.load(ws)
    assert (cfg.server, cfg.context_window, cfg.max_output, cfg.prices) == \
        ("compatible", WINDOW, 2048, {"input": 0.5, "output": 2})
    for bad, words in (("prices: {input: -1}", "prices.input"), ("prices: {in: 1}", "unknown key"),
                       ("server: ollama", "server must be one of"), ("max_output: 9000", "below context_window")):
        text = (ws / "book.yaml").read_text()
        key = bad.split(":")[0]
        (ws / "book.yaml").write_text("\n".join(line for line in text.splitlines() if not line.startswith(key + ":"))
                                      + f"\n{bad}\n")
        with pytest.raises(ConfigError, match=words):
            config_mod.load(ws)
        (ws / "book.yaml").write_text(text)
    with pytest.raises(ConfigError, match="ANTHROPIC_BASE_URL"):
        from_config(cfg, environ={})


def test_probe_finds_what_is_missing_and_is_cached(local, tmp_path):
    api, compat = local
    profile = ServerProfile("compatible", api.base_url, "qwen3-coder", WINDOW, 2048)
    found = features_for(profile, tmp_path, PLACEHOLDER_KEY)
    assert found == NONE, found
    assert json.loads((tmp_path / CACHE_FILE).read_text())  # cached by base URL and model
    n = len(api.requests)
    assert features_for(profile, tmp_path, PLACEHOLDER_KEY) == NONE and len(api.requests) == n  # no second probe
    # a server that ignores output_config (instead of refusing it) still has no structured outputs
    compat.reject_output_config = False
    ignored = features_for(profile, tmp_path, PLACEHOLDER_KEY, refresh=True)
    assert not ignored.structured and not ignored.effort  # accepted and ignored is not support


def test_local_provider_costs_nothing_and_streams():
    p = AnthropicProvider(concurrency=1, server=ServerProfile("compatible", "http://x", "qwen3-coder", WINDOW, 2048),
                          features=NONE)
    assert p.batches() is None and p.gate is None
    assert p.cost(Usage(input_tokens=10_000, output_tokens=5_000), "qwen3-coder") == 0
    assert p.estimate_cost(_req()) == 0
    assert p.settings_for(_req(max_tokens=32_000))["max_tokens"] == 2048  # the server's cap, not a Claude's
    priced = AnthropicProvider(concurrency=1, features=NONE, server=ServerProfile(
        "compatible", "http://x", "m", WINDOW, 2048, {"input": 1.0, "output": 2.0}))
    assert priced.cost(Usage(input_tokens=1_000_000, output_tokens=1_000_000), "m") == pytest.approx(3.0)
    assert AnthropicProvider(concurrency=1).batches() is not None  # Claude's API keeps its batches


def test_budgets_follow_the_window(tmp_path):
    claude = config_mod.load(make_example(tmp_path / "claude"))
    small = config_mod.load(make_example(tmp_path / "small", **LOCAL))
    for role, mt in (("writer", 16000), ("researcher", 8000)):
        assert source_context.source_limit_for(small, role, mt) < source_context.source_limit_for(claude, role, mt)
        assert memory_budget.budget_for(small, role, mt) <= (WINDOW - 2048) // 6
        assert memory_budget.budget_for(claude, role, mt) == memory_budget.BUDGET_TOKENS[role]
    assert source_context.map_limit_for(small, "planner", 16000) < source_context.MAP_CHARS
    assert source_context.map_limit_for(claude, "planner", 16000) == source_context.MAP_CHARS


def test_a_window_too_small_for_the_minimum_says_what_to_change(local, tmp_path):
    ws = make_example(tmp_path / "ws", **(LOCAL | {"context_window": 2048, "max_output": 1024}))
    code, summary = run_book(ws)
    assert code != 0
    said = " ".join(summary.needs_human.values())
    assert "context window of 2048" in said and "context_window" in said


def _build(api: FakeAPI, compat: Compatible, ws: Path) -> dict:
    """Probe once (as `book run` would), then the run; what the server saw."""
    cfg = config_mod.load(ws)
    features_for(from_config(cfg), cfg.root, PLACEHOLDER_KEY)
    compat.violations.clear()
    compat.prompt_tokens.clear()
    compat.broken.clear()
    api.requests.clear()
    code, summary = run_book(ws)
    from orchestrator.costs import cost_report
    from orchestrator.state.book import Book

    book = Book.open(ws)
    try:
        cost = cost_report(book.ledger.calls())["cost_usd"]
    finally:
        book.close()
    reasks = Counter(role_of(r["body"]) for r in api.message_requests()
                     if r["body"] and "Your previous answer was rejected" in json.dumps(r["body"]))
    return {"code": code, "needs_human": summary.needs_human, "cost": cost, "reasks": reasks,
            "broken": Counter(compat.broken), "violations": list(compat.violations),
            "max_prompt": max(compat.prompt_tokens), "requests": len(api.message_requests())}


def _check(out: dict) -> None:
    print(json.dumps({k: v for k, v in out.items() if k != "needs_human"}, default=dict))  # the note's numbers
    assert out["code"] == 0, out["needs_human"]
    assert out["violations"] == []  # no request used what the server lacks (no probe: it was cached)
    assert out["max_prompt"] <= WINDOW and out["cost"] == 0
    assert out["broken"] and out["reasks"] == out["broken"]  # every broken answer was caught and asked again


@pytest.mark.slow
def test_example_book_through_a_local_server(local, tmp_path):
    api, compat = local
    _check(_build(api, compat, make_example(tmp_path / "ws", **LOCAL, retries=5)))


@pytest.mark.slow
def test_twelve_chapter_book_through_a_local_server(local, tmp_path):
    corpus = Path("/work/corpus/click")
    if not corpus.is_dir():
        pytest.skip("the click corpus is not on this machine")
    src = tmp_path / "click"
    shutil.copytree(corpus, src, ignore=shutil.ignore_patterns(".git"))
    api, compat = local
    ws = make_example(tmp_path / "ws", **LOCAL, retries=5, max_chapters=12, source=f'"{src}"')
    _check(_build(api, compat, ws))
    finals = sorted((ws / "output" / "chapters" / "final").glob("ch*.md"))
    assert len(finals) == 12


def test_doctor_reports_the_server_and_its_limits(local, tmp_path):
    from orchestrator.doctor import run_checks

    ws = make_example(tmp_path / "ws", **LOCAL)
    checks = {c.name: c for c in run_checks(ws)}
    assert "context window 8192" in checks["server"].detail and "cost 0" in checks["server"].detail
    feats = checks["server features"].detail
    for word in ("structured", "cache", "count_tokens", "batches", "thinking"):
        assert word in feats.split("lacks", 1)[1]
    assert checks["model"].ok, checks["model"].detail
    assert "api key" not in checks


def test_no_server_there_is_a_clear_error(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    profile = ServerProfile("compatible", f"http://127.0.0.1:{port}", "qwen3-coder", WINDOW, 2048)
    with pytest.raises(ConfigError, match="no server answers"):
        features_for(profile, tmp_path, PLACEHOLDER_KEY)
    assert not (tmp_path / CACHE_FILE).exists()  # nothing cached from a server that was not there


def test_a_cut_json_answer_gets_more_room_up_to_the_servers_cap():
    p = AnthropicProvider(concurrency=1, features=NONE,
                          server=ServerProfile("compatible", "http://x", "qwen3-coder", WINDOW, 2048))
    s = p.settings_for(_req(max_tokens=1000))
    assert "effort" not in p.settings_for(_req(effort="high"))  # the server takes no effort level
    from orchestrator.providers.anthropic.settings import larger_budget

    bigger = larger_budget(s, p._info(s))
    assert bigger is not None and bigger["max_tokens"] == 2000
    assert larger_budget(bigger | {"max_tokens": 2048}, p._info(s)) is None  # at the cap: nothing left to give
