"""`book run --provider anthropic` end to end: the real SDK against the fake Messages API on
127.0.0.1, with faults, a kill mid-stream, the budget cap, and the key never leaking."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_example, scan

from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.steps import STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer, role_of

BOOK = str(Path(sys.executable).parent / "book")
KEY = "sk-ant-test-SECRET-do-not-leak-123"


@pytest.fixture
def fake(monkeypatch):
    api = FakeAPI(answerer=answer)
    url = api.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    yield api
    api.stop()


def provider(**kw) -> AnthropicProvider:
    return AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05, **kw)


def small(tmp_path: Path, name: str = "ws", **kw) -> Path:
    return make_example(tmp_path / name, **kw)


def assert_no_truncated_marked_files(ws: Path) -> None:
    """Every file with a marker is whole: its marker's body hash matches (done, not edited)."""
    rep = scan(ws)
    assert rep["edited"] == [] and rep["half_finished"] == []


@pytest.mark.slow
def test_claude_run_end_to_end(fake, tmp_path):
    ws = small(tmp_path)
    code, summary = run_book(ws, provider=provider())
    assert code == 0, summary.needs_human
    rep = scan(ws)
    assert rep["complete"], rep
    book = Book.open(ws)
    calls = book.ledger.calls()
    requests = fake.message_requests()
    assert len(calls) == len(requests) > 10
    assert all(c["request_id"] and c["model"] and c["stop_reason"] == "end_turn" for c in calls)
    assert sum(c["cache_read_tokens"] for c in calls) > 0  # the stable prefix is served from the cache
    from orchestrator.costs import cost_report

    rep = cost_report(calls)
    assert rep["calls"] == len(requests) and rep["cost_usd"] > 0
    assert 0 < rep["cache_hit_ratio"] < 1
    roles = {role_of(r["body"]) for r in requests}
    assert {"planner", "researcher", "writer", "r1", "r2", "r3", "merger", "panel", "memory", "editor", "auditor"} <= roles
    proc = run_cli("cost", "--json", "--workspace", str(ws))
    assert proc.returncode == 0 and '"cost_usd"' in proc.stdout


FAULTS = [
    ("status429", lambda f, m: f.status(429, retry_after=0.01, match=m)),
    ("status529", lambda f, m: f.status(529, match=m)),
    ("status500", lambda f, m: f.status(500, match=m)),
    ("drop", lambda f, m: f.drop_mid_stream(match=m)),
    ("error_event", lambda f, m: f.error_event(match=m)),
    ("no_message_stop", lambda f, m: f.no_message_stop(match=m)),
    ("max_tokens", lambda f, m: f.max_tokens(match=m)),
    ("marker_text", lambda f, m: f.marker_text(match=m)),
    ("empty", lambda f, m: f.empty(match=m)),
    ("malformed", lambda f, m: f.malformed("no title, no sections", match=m)),
    ("refusal", lambda f, m: f.refusal(match=m)),  # asked once more: it passes
    ("refusals", lambda f, m: f.refusal(match=m, times=3)),  # once more, the fallback model, then a person
]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.parametrize("name,inject", FAULTS, ids=[f[0] for f in FAULTS])
def test_each_fault_gives_correct_files_or_one_failed_step(fake, tmp_path, name, inject):
    ws = small(tmp_path, max_chapters=1 if name == "refusals" else 2)  # thrice the one chapter's writer
    inject(fake, "You are the writer:")
    code, summary = run_book(ws, provider=provider())
    assert_no_truncated_marked_files(ws)
    draft = (ws / STEPS["draft"].file("ch01"))
    if name == "refusals":  # the next writer request is refused thrice: whichever chapter's it is
        assert code == 3 and len(summary.needs_human) == 1
        (ch, why), = summary.needs_human.items()
        assert "refused" in why and "a refusal, not an error" in why and not (ws / STEPS["draft"].file(ch)).exists()
    else:
        assert code == 0, summary.needs_human
        assert scan(ws)["complete"]
        text = draft.read_text()
        assert "<!-- DRAFT_COMPLETE" in text.splitlines()[-1]
        assert text.count("DRAFT_COMPLETE") == 1 + ("(quoted) DRAFT_COMPLETE" in text)


@pytest.mark.slow
def test_kill_mid_stream_then_resume_calls_only_unfinished(fake, tmp_path):
    ws = small(tmp_path, max_chapters=3)
    fake.delta_delay = 0.05  # slow streams, so a kill lands inside one
    env = dict(os.environ)
    proc = subprocess.Popen([BOOK, "run", "--provider", "anthropic", "--workspace", str(ws)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and not list((ws / "output/chapters/draft").glob("*.partial")):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    fake.delta_delay = 0.0
    book = Book.open(ws)
    before = scan(ws)
    done_before = {(c, k) for c, r in before["chapters"].items() for k, v in r["steps"].items() if v == "done"}
    book.close()
    n0 = len(fake.message_requests())
    code, _ = run_book(ws, provider=provider(), resume=True)
    assert code == 0
    again = fake.message_requests()[n0:]
    assert again
    remade = set()
    for r in again:
        m = __import__("re").search(r"## This chapter: (ch\d{2,})", r["body"]["messages"][0]["content"]
                                    if isinstance(r["body"]["messages"][0]["content"], str) else "")
        role = role_of(r["body"])
        step = {"researcher": "research", "writer": "draft", "merger": "review", "panel": "panel",
                "memory": "memory", "editor": "final"}.get(role, role)
        if m:
            remade.add((m.group(1), step))
    assert not (remade & done_before), remade & done_before
    assert scan(ws)["complete"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_budget_cap_stops_cleanly_and_resume_with_higher_cap_finishes(fake, tmp_path):
    ws = small(tmp_path, max_chapters=2, budget_usd=0.2)
    code, summary = run_book(ws, provider=provider())
    assert code == 3
    rep = scan(ws)
    assert not rep["complete"] and rep["half_finished"] == []
    book = Book.open(ws)
    assert book.ledger.spent() <= 0.2
    assert any(e["type"] == "budget_stop" for e in book.ledger.events())
    book.close()
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("budget_usd: 0.2", "budget_usd: 50"))
    code, _ = run_book(ws, provider=provider(), resume=True)
    assert code == 0 and scan(ws)["complete"]


@pytest.mark.slow
def test_the_key_never_leaks(fake, tmp_path):
    ws = small(tmp_path, max_chapters=2)
    fake.status(401, match="You are the writer:")  # an auth error, whose message could carry the key
    env = dict(os.environ)
    outs = []
    for args in (["run", "--provider", "anthropic"], ["resume"], ["scan", "--json"], ["log"], ["cost"], ["replay"]):
        p = run_cli(*args, "--workspace", str(ws), env=env)
        outs.append(p.stdout + p.stderr)
    assert all(KEY not in o for o in outs)
    for p in ws.rglob("*"):
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), p
    assert KEY not in fake.dump()


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_doctor_against_the_fake(fake, tmp_path):
    ws = small(tmp_path)
    proc = run_cli("doctor", "--provider", "anthropic", "--workspace", str(ws))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok  model" in proc.stdout and "ok  prompts" in proc.stdout
    assert KEY not in proc.stdout + proc.stderr


def test_doctor_says_how_to_fix(tmp_path, monkeypatch):
    ws = small(tmp_path)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (ws / "prompts").mkdir()
    (ws / "prompts/writer.md.j2").write_text("{% block system %}{{ no_such_key }}{% endblock %}{% block prompt %}x{% endblock %}")
    proc = run_cli("doctor", "--provider", "anthropic", "--workspace", str(ws))
    assert proc.returncode == 2
    assert re.search(r"BAD +prompts", proc.stdout) and "writer" in proc.stdout
    assert re.search(r"BAD +api key", proc.stdout) and "export ANTHROPIC_API_KEY" in proc.stdout


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_refusal_falls_back_to_the_configured_model(fake, tmp_path):
    ws = small(tmp_path, max_chapters=1, fallback_model='"claude-opus-5-5"')
    fake.refusal(match="You are the writer:", times=2)  # refused, and refused once more
    from orchestrator import config
    from orchestrator.providers import make_provider

    p = make_provider("anthropic", config.load(ws))
    p.base_delay = 0.01
    code, summary = run_book(ws, provider=p)
    assert code == 0, summary.needs_human
    models = [r["body"]["model"] for r in fake.message_requests() if role_of(r["body"]) == "writer"]
    assert models == ["claude-sonnet-5-5", "claude-sonnet-5-5", "claude-opus-5-5"]


@pytest.mark.slow
def test_rehearsal_with_the_standalone_fake_as_the_readme_says(tmp_path):
    """`python -m orchestrator.testing.fake_api` then `book run --provider anthropic`: no key, no spend."""
    server = subprocess.Popen([sys.executable, "-m", "orchestrator.testing.fake_api", "--port", "0"],
                              stderr=subprocess.PIPE, text=True)
    try:
        url = server.stderr.readline().split()[-1]
        assert url.startswith("http://127.0.0.1:")
        ws = small(tmp_path, max_chapters=1)
        env = dict(os.environ, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-ant-dummy")
        proc = run_cli("run", "--provider", "anthropic", "-q", "--workspace", str(ws), env=env)
        assert proc.returncode == 0, proc.stderr
        assert scan(ws)["complete"]
    finally:
        server.terminate()
        server.communicate(timeout=10)


@pytest.mark.slow
def test_doctor_shows_each_roles_effective_settings_and_model_warnings(fake, tmp_path):
    ws = small(tmp_path, models='{writer: {model: claude-opus-9-9, max_tokens: 9000}}')
    proc = subprocess.run([BOOK, "doctor", "--provider", "anthropic", "--workspace", str(ws)], capture_output=True, text=True)
    out = proc.stdout
    assert "settings: writer" in out and "claude-opus-9-9, max_tokens 9000" in out
    # gates off (small()): every prefix 5 minutes; no breakpoint on the user turn
    assert "settings: researcher" in out and "cache: book 5m, chapter material 5m, user turn none" in out
    assert re.search(r"effort \w[\w ]* \(takes low, medium, high, xhigh, max\)", out)  # the role's effort, the model's levels
    assert re.search(r"^warn model warning", out, re.M) and "claude-opus-9-9: not in data/models.yaml" in out
    assert proc.returncode == 2  # a warning is something to fix
    pings = [r for r in fake.requests if r["path"].split("?")[0] == "/v1/messages"]
    assert len(pings) == 1  # the ping makes one call, no continuation
    gated = small(tmp_path, "gated", gates="normal", models='{editor: claude-opus-4-1}')
    out = subprocess.run([BOOK, "doctor", "--provider", "anthropic", "--workspace", str(gated)], capture_output=True,
                         text=True).stdout
    assert "cache: book 1h, chapter material 1h, user turn none" in out  # runs send 1h across the gates
    assert "model end of life" in out and "claude-opus-4-1: retired on 2026-08-05" in out


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_step_that_failed_for_overload_is_tried_again_after_the_slow_down(fake, tmp_path):
    ws = small(tmp_path, max_chapters=1)
    fake.status(529, match="You are the writer:", times=3)  # more overload than the provider's budget
    p = provider(overload_budget=0.02, overload_base=0.01)
    code, summary = run_book(ws, provider=p)
    assert code == 0, summary.needs_human
    book = Book.open(ws)
    retried = [e for e in book.ledger.events(type="step_retry") if e["step"] == "draft"]
    assert retried and "overloaded" in retried[0]["detail"]["error"]
    assert not book.ledger.events(type="step_failed")


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_cache_ttl_is_one_hour_when_the_run_may_stop_at_a_gate(fake, tmp_path):
    gated = make_example(tmp_path / "gated", gates="fast", max_chapters=1)
    code, summary = run_book(gated, provider=provider())
    assert code == 3 and summary.waiting  # stopped at the outline gate for a person
    ttl = {b.get("cache_control", {}).get("ttl") for r in fake.message_requests() for b in r["body"].get("system", [])
           if b.get("cache_control")}
    assert ttl == {"1h"}
    fake.clear()
    open_ws = small(tmp_path, "open", max_chapters=1)
    assert run_book(open_ws, provider=provider())[0] == 0
    ttl = {b.get("cache_control", {}).get("ttl") for r in fake.message_requests() for b in r["body"].get("system", [])
           if b.get("cache_control")}
    assert ttl == {None}  # the default 5 minutes


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_token_counting_only_past_half_the_window_cached_and_refusing_what_cannot_fit(fake, monkeypatch):
    import asyncio
    from dataclasses import replace

    from orchestrator.errors import StepFailed
    from orchestrator.providers.anthropic import model_info, tokens
    from orchestrator.providers.base import Request, Sink

    small_window = lambda m: replace(model_info(m), context_window=4000)  # noqa: E731
    monkeypatch.setattr(tokens, "model_info", small_window)

    def req(words: int, max_tokens: int = 100) -> Request:
        return Request(role="writer", step="draft", chapter="ch01", system="You are the writer.",
                       prompt="word " * words, max_tokens=max_tokens)

    def counted() -> int:
        return sum(1 for r in fake.requests if r["path"].startswith("/v1/messages/count_tokens"))

    async def go() -> None:
        p = provider()
        try:
            await p.generate(req(100), Sink())  # far under half the window: not counted
            assert counted() == 0
            await p.generate(req(1800), Sink())  # past half: counted once...
            await p.generate(req(1800), Sink())  # ...and the same prompt not again
            assert counted() == 1 and p.tokens.calls == 1
            n = len(fake.message_requests())
            try:
                await p.generate(req(1800, max_tokens=3900), Sink())
                raise AssertionError("a prompt that cannot fit was sent")
            except StepFailed as e:
                assert not e.retryable and "context window of 4000" in str(e)
            assert len(fake.message_requests()) == n and counted() == 1  # nothing sent; the count was cached
        finally:
            await p.aclose()

    asyncio.run(go())
