"""`book run --message-batches` end to end: the runner's steps go out as Message Batches to
the fake API, come back through the marker protocol, survive faults and a resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_example, scan

from orchestrator.batches import journal as jr
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.testing import fake_batches
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer

KEY = "sk-ant-test-batch"


@pytest.fixture
def fake(monkeypatch):
    api = FakeAPI(answerer=answer)
    url = api.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("BOOK_BATCH_POLL_SECONDS", "0.05")
    yield api
    api.stop()


def provider() -> AnthropicProvider:
    return AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05)


def streamed(fake: FakeAPI) -> int:
    return sum(1 for r in fake.requests if r["path"].split("?")[0] == "/v1/messages")


@pytest.mark.slow
def test_message_batches_run_completes_through_batches(fake, tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=3)
    code, summary = run_book(ws, provider=provider(), message_batches=True)
    assert code == 0, summary.needs_human
    assert scan(ws)["complete"]
    st = fake_batches.store(fake)
    assert len(st.received) == len(set(st.received)) > 10  # no custom_id twice
    assert streamed(fake) == 0  # no fault: nothing streamed
    calls = Book.open(ws).ledger.calls()
    assert calls and all(c["batch"] == 1 for c in calls)
    from orchestrator.costs import cost_report
    from orchestrator.providers.anthropic import cost_usd
    from orchestrator.providers.base import Usage

    rep = cost_report(calls)
    assert abs(rep["total_usd"] - rep["by_mode"]["batch"]["cost_usd"]) < 1e-4 and rep["total_usd"] > 0 and rep["by_mode"]["stream"]["calls"] == 0
    c = calls[0]  # priced at half the streamed rate; a batch's cached prefixes live 1 hour
    u = Usage(c["input_tokens"], c["output_tokens"], c["cache_creation_tokens"], c["cache_read_tokens"],
              cache_creation_1h_tokens=c["cache_creation_tokens"])
    assert abs(c["cost_usd"] - cost_usd(u, c["model"], None, batch=False) / 2) < 1e-9
    journals = jr.load_all(ws / "output")
    assert journals and not any(j.open for j in journals)
    # a wave is several steps: fewer batches than requests
    assert len(journals) < len(st.received)


@pytest.mark.slow
def test_config_key_turns_batches_on(fake, tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2, message_batches="true")
    code, summary = run_book(ws, provider=provider())
    assert code == 0, summary.needs_human
    assert fake_batches.store(fake).received and streamed(fake) == 0


@pytest.mark.slow
def test_errored_and_rejected_requests_are_asked_again_then_streamed(fake, tmp_path):
    st = fake_batches.store(fake)
    st.outcome("errored", match="You are the writer:", error_type="api_error", times=1)
    st.outcome("expired", match="You are the researcher:", times=1)
    fake.malformed(" ", match="You are the writer:", times=1)  # an empty answer: validation re-asks
    ws = make_example(tmp_path / "ws", max_chapters=2)
    code, summary = run_book(ws, provider=provider(), message_batches=True)
    assert code == 0, summary.needs_human
    assert scan(ws)["complete"]
    assert len(st.received) == len(set(st.received))
    outcomes = [it.outcome for j in jr.load_all(ws / "output") for it in j.items]
    assert "requeued" in outcomes and "rejected" in outcomes
    reasks = [it for j in jr.load_all(ws / "output") for it in j.items if it.reask]
    assert reasks  # the re-ask went into a later batch, carrying its feedback


@pytest.mark.slow
def test_a_result_whose_inputs_changed_is_discarded(fake, tmp_path, monkeypatch):
    from orchestrator.pipeline import batch_wave

    ws = make_example(tmp_path / "ws", max_chapters=2)
    seen: list[str] = []
    orig = batch_wave.BatchWave._is_current

    def once_stale(self, it):  # the first research result finds its inputs changed
        if it.step == "research" and not seen:
            seen.append(it.custom_id)
            return False
        return orig(self, it)

    monkeypatch.setattr(batch_wave.BatchWave, "_is_current", once_stale)
    code, summary = run_book(ws, provider=provider(), message_batches=True)
    assert code == 0, summary.needs_human
    items = [it for j in jr.load_all(ws / "output") for it in j.items]
    assert [it.outcome for it in items if it.custom_id == seen[0]] == ["discarded"]
    assert scan(ws)["complete"]


def test_scan_json_shows_steps_waiting_in_a_batch(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    j = jr.new_journal(ws / "output", "b1", [jr.Item("b1-ch01-draft-x", "ch01", "draft", "x.md", "h", "writer", "p")])
    j.save()
    rep = scan(ws)
    assert rep.get("waiting_in_batch") == [{"chapter": "ch01", "step": "draft", "submission": "b1",
                                           "batch_id": None, "state": "submitting"}]


def _journal_states(ws: Path) -> list[str]:
    out = []
    for p in (ws / "output/.book/batches").glob("*.json"):
        try:
            out.append(json.loads(p.read_text())["state"])
        except (OSError, ValueError):
            pass
    return out


@pytest.mark.slow
def test_kill_while_a_batch_is_processing_then_resume(fake, tmp_path):
    """kill -9 while a batch waits on the server; checkpoint.md and `book scan` show its steps
    waiting; `book resume` re-attaches, collects it and finishes, never sending a custom_id twice."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from orchestrator.state.board import checkpoint_text

    book_bin = str(Path(sys.executable).parent / "book")
    st = fake_batches.store(fake)
    ws = make_example(tmp_path / "ws", max_chapters=2)
    st.delay = 0.5
    p = subprocess.Popen([book_bin, "run", "--provider", "anthropic", "--message-batches", "-q", "--workspace", str(ws)],
                         env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # a chapter-phase batch submitted and not yet ended
            if "submitted" in _journal_states(ws) and (ws / "output/.book/batches").exists() and \
                    any(w.chapter for w in jr.waiting(ws / "output").values()):
                break
            time.sleep(0.02)
        else:
            pytest.fail("no chapter batch was ever in flight")
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    waiting = jr.waiting(ws / "output")
    assert waiting
    rep = scan(ws)
    assert {(w["chapter"], w["step"]) for w in rep["waiting_in_batch"]} == set(waiting)
    ch, step = next((c, s) for (c, s) in waiting if c)
    assert rep["chapters"][ch]["steps"][step] == "in_batch"
    b = Book.open(ws)
    try:
        assert "📨" in checkpoint_text(b, b.snapshot())
    finally:
        b.close()
    n0 = len(st.received)
    st.delay = 0.0
    r = subprocess.run([book_bin, "resume", "--provider", "anthropic", "-q", "--workspace", str(ws)],
                       env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert scan(ws)["complete"]
    assert len(st.received) == len(set(st.received)) > n0
    assert not jr.waiting(ws / "output")
    assert streamed(fake) == 0
    led = Book.open(ws).ledger
    runs = [e["run"] for e in led.events(type="run_start")]
    assert [e["run"] for e in led.events(type="message_batches")] == runs and len(runs) == 2  # resume went on in batches


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_fake_message_fail_rate_fails_a_share_of_streamed_calls(tmp_path, monkeypatch):
    api = FakeAPI(answerer=answer)
    api.message_fail_rate = 0.5
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws", max_chapters=1)
        code, summary = run_book(ws, provider=provider())  # the provider's retries ride it out
        failed = [r for r in api.requests if r.get("fault") and r["path"] == "/v1/messages"]
        assert code == 0, summary.needs_human
        assert failed
    finally:
        api.stop()


def test_a_partial_whose_call_ended_normally_is_committed_without_a_new_call(tmp_path):
    from orchestrator.providers.anthropic import text_hash
    from orchestrator.providers.offline import OfflineProvider
    from orchestrator.state.fsio import partial_path
    from orchestrator.state.memory import read_body
    from orchestrator.steps import STEPS

    ws = make_example(tmp_path / "ws", max_chapters=1)
    code, summary = run_book(ws, provider=OfflineProvider())
    assert code == 0, summary.needs_human
    rel = STEPS["draft"].file("ch01")
    answer = read_body(ws, rel).rstrip() + "\n"
    (ws / rel).unlink()  # a kill came after the answer ended and before the commit
    partial_path(ws / rel).write_text(answer, encoding="utf-8")
    book = Book.open(ws)
    book.ledger.log_call(run="r0", role="writer", chapter="ch01", step="draft", provider="anthropic", model="m",
                         input_tokens=1, output_tokens=1, cost_usd=0.0, stop_reason="end_turn",
                         text_hash=text_hash(answer), status="ok")
    book.close()

    class NoDraft(OfflineProvider):
        asked: list[tuple[str | None, str]] = []

        async def generate(self, req, sink):
            NoDraft.asked.append((req.chapter, req.step))
            return await super().generate(req, sink)

    code, summary = run_book(ws, provider=NoDraft(), resume=True)
    assert code == 0, summary.needs_human
    assert ("ch01", "draft") not in NoDraft.asked
    assert read_body(ws, rel).strip() == answer.strip() and not partial_path(ws / rel).exists()
    ev = Book.open(ws).ledger.events(type="recovered")
    assert any(e["detail"].get("action") == "committed_partial" for e in ev)


def test_a_partial_the_ledger_does_not_vouch_for_is_not_committed(tmp_path):
    from orchestrator.providers.offline import OfflineProvider
    from orchestrator.state.fsio import partial_path
    from orchestrator.state.memory import read_body
    from orchestrator.steps import STEPS

    ws = make_example(tmp_path / "ws", max_chapters=1)
    assert run_book(ws, provider=OfflineProvider())[0] == 0
    rel = STEPS["draft"].file("ch01")
    answer = read_body(ws, rel)
    (ws / rel).unlink()
    partial_path(ws / rel).write_text(answer, encoding="utf-8")  # no call row ended with this text

    class Rec(OfflineProvider):
        asked: list[tuple[str | None, str]] = []

        async def generate(self, req, sink):
            Rec.asked.append((req.chapter, req.step))
            return await super().generate(req, sink)

    assert run_book(ws, provider=Rec(), resume=True)[0] == 0
    assert ("ch01", "draft") in Rec.asked


def test_book_init_writes_message_batches_and_a_wrong_value_is_named(tmp_path):
    from orchestrator import config as config_mod
    from orchestrator.errors import ConfigError
    from orchestrator.state.book import init_workspace

    init_workspace(tmp_path / "ws")
    text = (tmp_path / "ws/book.yaml").read_text()
    assert "message_batches: false" in text and "Message Batch" in text
    assert config_mod.load(tmp_path / "ws", check_source=False).message_batches is False
    (tmp_path / "ws/book.yaml").write_text(text.replace("message_batches: false", 'message_batches: "yes"'))
    with pytest.raises(ConfigError, match="message_batches must be bool"):
        config_mod.load(tmp_path / "ws", check_source=False)
