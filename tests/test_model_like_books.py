"""Whole books through a fake that behaves like a real model on 30 % of its answers (thinking
that uses the budget, preambles and closing remarks, restated lines, refusals: fake_model.py):
the example book, the example with budgets too small for its thinking, the example through
Message Batches, and a 12-chapter book of a real repository (click). Each builds with exit 0,
nothing waits for a person, no committed file carries what the model said around its answer,
and the fake's request log shows no structured answer continued (issue 21)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.config import render_default
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.state.memory import read_body
from orchestrator.steps import ALL_STEPS, STEPS
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_model import CLOSINGS, PREAMBLES, ModelLike
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answer

CLICK = Path("/work/corpus/click")
TITLED = ("headed", "chapter")


def workspace(tmp_path: Path, kind: str) -> Path:
    ws = tmp_path / kind
    if kind == "click":
        ws.mkdir()
        (ws / "book.yaml").write_text(render_default(title="Click", source=str(CLICK), gates="off", max_chapters=12))
        return ws
    extra = {"max_tokens": "{memory_keeper: 1500, merger: 2000, r1_code: 2500}"} if kind == "tight" else {}
    return make_example(ws, **extra)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["example", "tight", "batches", "click"])
def test_a_book_survives_a_model_like_fake(tmp_path, monkeypatch, kind):
    if kind == "click" and not CLICK.is_dir():
        pytest.skip("no clone of click in /work/corpus")
    ws = workspace(tmp_path, kind)
    # a refusal at a tenth of the requests (not a chance-small fifth of the share): every book meets some
    fake = FakeAPI(answerer=answer, model_like=ModelLike(0.3, seed=7, refusal_share=0.1))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.start())
    try:
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05),
                                 message_batches=kind == "batches")
    finally:
        fake.stop()
    assert code == 0 and not summary.needs_human, summary.needs_human
    book = Book.open(ws)
    try:
        chapters = [c.id for c in book.scanner.outline.chapters]
        assert len(chapters) == (12 if kind == "click" else len(chapters)) and chapters
        # what the model said around its answers was never committed
        for ch in chapters:
            for key, st in STEPS.items():
                if not st.model:
                    continue
                text = read_body(ws, st.file(ch))  # the committed body, without its marker
                if st.answer in TITLED:
                    assert text.lstrip().startswith("# "), (ch, key, text[:80])
                assert not any(p in text for p in PREAMBLES + CLOSINGS), (ch, key)
        # no request continued a structured answer, and none sent a prefill with a schema
        for r in fake.message_requests():
            b = r["body"] or {}
            if (b.get("output_config") or {}).get("format"):
                assert all(m["role"] == "user" for m in b.get("messages", [])), b["messages"][-1]
            for q in (b.get("requests") or []):  # a batch create: each request's params
                p = q["params"]
                if (p.get("output_config") or {}).get("format"):
                    assert all(m["role"] == "user" for m in p["messages"])
        assert fake.structured_continuations == 0
        # each role's effort went with its requests
        efforts = {s.role: s.effort for s in ALL_STEPS.values() if s.model}
        sent = [(b.get("system"), (b.get("output_config") or {}).get("effort"))
                for b in (r["body"] for r in fake.message_requests()) if b and "messages" in b]
        assert sent and all(e in set(efforts.values()) for _, e in sent)
        counts = fake.model_like.counts
        assert counts["thinking_long"] > 0 and counts["refusal"] > 0
        assert counts["preamble"] + counts["closing"] > 0
        assert book.ledger.events(type="answer_trimmed")  # stripped, with a note
        calls = book.ledger.calls()
        assert sum(c.get("thinking_tokens") or 0 for c in calls) > 0  # shown by `book cost`
        if kind == "tight":  # thinking used the small budgets: asked again with more, never failed
            assert any(c["stop_reason"] == "max_tokens" and c["role"] in ("memory_keeper", "merger", "r1_code")
                       for c in calls)
    finally:
        book.close()
