"""Issue 27: a compatible server's limits from its own model listing (providers/anthropic/listing.py):
llama.cpp's /v1/models and /props, Ollama's /api/show and /api/ps, vLLM's /v1/models, the
Models API's /v1/models/{id}; the smaller of the model's and the server's window; book.yaml wins."""

from __future__ import annotations

import json
import socket
import time

import pytest

from orchestrator import config as config_mod
from orchestrator.providers.anthropic.listing import OLLAMA_DEFAULT_WINDOW, Limits, fetcher, read
from orchestrator.providers.anthropic.models import UNKNOWN
from orchestrator.providers.anthropic.server import (
    CACHE_FILE,
    PLACEHOLDER_KEY,
    ServerProfile,
    cached_limits,
    features_for,
    limits,
    resolved,
)
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_compatible import Compatible
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answer

MODEL = "qwen3-coder"


def _server(monkeypatch, **kw) -> tuple[FakeAPI, Compatible]:
    compat = Compatible(**({"window": 8192} | kw))
    api = FakeAPI(answerer=answer, compatible=compat)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return api, compat


def _probed(api: FakeAPI, root, window: int = 0, max_output: int = 0) -> ServerProfile:
    profile = ServerProfile("compatible", api.base_url, MODEL, window, max_output)
    features_for(profile, root, PLACEHOLDER_KEY)
    return resolved(profile, root)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.parametrize("shape, kw, window, source, model_window", [
    ("llama.cpp", {"model_window": 32768}, 8192, "llama.cpp /props", 32768),
    ("llama.cpp", {"window": 16384, "model_window": 4096}, 4096, "llama.cpp /v1/models (n_ctx_train)", 4096),
    ("ollama", {"model_window": 262144}, 8192, "Ollama /api/ps", 262144),
    ("ollama", {"window": 6144, "modelfile_num_ctx": True}, 6144, "Ollama /api/", 4 * 6144),
    ("vllm", {"window": 12288}, 12288, "vLLM /v1/models (max_model_len)", 0),
    ("anthropic", {"window": 20000, "max_tokens": 3000}, 20000, "/v1/models/{id} (max_input_tokens)", 20000),
])
def test_each_servers_listing_gives_the_window_it_runs_with(monkeypatch, tmp_path, shape, kw, window, source,
                                                            model_window):
    api, compat = _server(monkeypatch, listing=shape, **kw)
    try:
        profile = _probed(api, tmp_path)
    finally:
        api.stop()
    found = cached_limits(profile, tmp_path)
    assert found is not None and found.model_window == model_window
    assert profile.context_window == window and profile.window_source.startswith(source), profile
    assert profile.info(UNKNOWN).context_window == window  # what requests and the token gate are built with
    if shape == "anthropic":  # the Models API also says the longest answer
        assert (profile.max_output, profile.output_source) == (3000, "/v1/models/{id} (max_tokens)")
    else:
        assert profile.max_output == 0 and profile.output == min(2048, window // 4)
    # the listing is read once, with the probe, and cached beside its features
    entry = json.loads((tmp_path / CACHE_FILE).read_text())[f"{profile.base_url} {MODEL}"]
    assert entry["limits"]["context_window"] == window and entry["features"]["structured"] is False


def test_book_yaml_wins_over_the_listing(monkeypatch, tmp_path):
    api, _ = _server(monkeypatch, listing="llama.cpp")
    try:
        profile = _probed(api, tmp_path, window=6000, max_output=1500)
    finally:
        api.stop()
    assert (profile.context_window, profile.window_source) == (6000, "book.yaml")
    assert (profile.max_output, profile.output_source) == (1500, "book.yaml")
    assert cached_limits(profile, tmp_path).context_window == 8192  # what the server said is still cached


def test_an_ollama_model_not_loaded_gets_ollamas_default_not_the_models_window():
    answers = {"/api/show": {"model_info": {"general.architecture": "llama", "llama.context_length": 131072},
                             "parameters": "temperature 0.7"},
               "/api/ps": {"models": []}}
    found = read(lambda method, path, body: answers.get(path), MODEL)
    assert found.model_window == 131072 and found.context_window == OLLAMA_DEFAULT_WINDOW
    assert "Ollama's default" in found.window_source


def test_no_listing_leaves_the_default_and_says_so(monkeypatch, tmp_path):
    api, _ = _server(monkeypatch, listing="")
    try:
        profile = _probed(api, tmp_path)
    finally:
        api.stop()
    assert cached_limits(profile, tmp_path) == Limits()
    assert profile.window == 8192 and "listing gave none" in profile.sources()[0]


def test_a_silent_server_costs_the_deadline_not_more():
    with socket.socket() as s:  # accepts connections (the kernel's backlog) and never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        t0 = time.monotonic()
        found = read(fetcher(url, PLACEHOLDER_KEY, timeout=0.3), MODEL, deadline=0.5)
        took = time.monotonic() - t0
    assert found == Limits() and took < 2.0, took  # two or three timed-out asks, then the deadline
    clock = iter(range(0, 100, 5))  # each ask "takes" 5 s: the 10 s deadline stops the fourth
    asked: list[str] = []
    read(lambda m, p, b: asked.append(p), MODEL, deadline=10, clock=lambda: next(clock))
    assert len(asked) < 4


def test_budgets_follow_the_listed_window(monkeypatch, tmp_path):
    api, _ = _server(monkeypatch, listing="vllm", window=12288)
    try:
        ws = make_example(tmp_path / "ws", server="compatible", model=MODEL, provider="anthropic")
        cfg = config_mod.load(ws)
        assert limits(cfg, MODEL).context_window == 8192  # not probed yet: the default
        _probed(api, cfg.root)
        assert limits(cfg, MODEL).context_window == 12288  # the probe's listing, from the workspace's cache
        assert limits(cfg, MODEL).max_output == 2048
    finally:
        api.stop()


def test_doctor_shows_where_each_limit_comes_from(monkeypatch, tmp_path):
    from orchestrator.doctor import run_checks

    api, _ = _server(monkeypatch, listing="llama.cpp", model_window=32768)
    try:
        ws = make_example(tmp_path / "ws", server="compatible", model=MODEL, provider="anthropic")
        checks = {c.name: c for c in run_checks(ws)}
    finally:
        api.stop()
    detail = checks["server"].detail
    assert "context window 8192 tokens, from llama.cpp /props" in detail, detail
    assert "the model supports 32768 (llama.cpp /v1/models (n_ctx_train))" in detail
    assert "answers up to 2048, from the default (2048, at most a quarter of the window)" in detail
    assert "context window 8192" in checks["settings: writer"].detail


@pytest.mark.slow
def test_a_book_within_the_window_the_listing_gave(monkeypatch, tmp_path):
    """No context_window in book.yaml: Ollama's /api/ps says 10240 (the model's own is 262144),
    and every prompt fits the 10240 the server runs with."""
    api, compat = _server(monkeypatch, listing="ollama", window=10240, model_window=262144)
    try:
        ws = make_example(tmp_path / "ws", server="compatible", model=MODEL, provider="anthropic")
        code, summary = run_book(ws)
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    assert compat.prompt_tokens and max(compat.prompt_tokens) <= 10240
    cfg = config_mod.load(ws)
    assert limits(cfg, MODEL).context_window == 10240  # the run budgeted with the server's window
