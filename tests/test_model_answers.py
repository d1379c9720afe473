"""What a real model does inside an answer, and how the Claude path survives it: thinking that
uses the budget, a cut JSON answer, a restated line on continuation, text around the answer,
refusals, and the errors that must stop a run (issue 21). Through the real SDK and the fake
Messages API's model-like behaviours (testing/fake_model.py)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from conftest_fake_api import DUMMY_KEY, fake_api  # noqa: F401  (fixture)
from test_anthropic_provider import MODEL, Partial, expected, generate, message_bodies, provider, request

from orchestrator.agents.surround import around
from orchestrator.agents.validation import clean_and_validate
from orchestrator.errors import RunStopped, ValidationFailed
from orchestrator.providers.anthropic.continuation import join_continuation, misaligned
from orchestrator.providers.anthropic.settings import default_fallback, larger_budget, resolve_settings
from orchestrator.steps import ALL_STEPS, THINKING_ROOM
from orchestrator.testing.fake_api import cache_creation
from orchestrator.testing.fake_model import ModelLike

SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}, "items": {"type": "array", "items": {
    "type": "string"}}}, "required": ["title", "items"], "additionalProperties": False}


def post(fake, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(fake.base_url + "/v1/messages", json.dumps(body).encode(), method="POST",
                                 headers={"x-api-key": DUMMY_KEY, "content-type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


# ---------------------------------------------------------------------------- budgets

def test_every_role_has_an_effort_and_room_to_think():
    """max_tokens is the answer's size plus the thinking room of the role's effort."""
    expect = {"planner": "high", "writer": "high", "editor": "high", "researcher": "medium", "r1_code": "medium",
              "r2_consistency": "medium", "r3_content": "medium", "auditor": "medium", "merger": "low",
              "reader_panel": "low", "memory_keeper": "low"}
    got = {s.role: s.effort for s in ALL_STEPS.values() if s.model}
    assert got == expect
    for s in ALL_STEPS.values():
        if s.model:
            assert s.max_tokens - THINKING_ROOM[s.effort] >= 4000, s.key  # the answer keeps its own room
            assert s.max_tokens <= 64000  # within every current model's max_output


def test_effort_is_sent_and_a_role_entry_overrides_it():
    s = resolve_settings(MODEL, 10000, None, "low")
    assert s["effort"] == "low" and s["max_tokens"] == 10000
    assert resolve_settings(MODEL, 10000, {"effort": "high"}, "low")["effort"] == "high"
    assert "effort" not in resolve_settings("claude-sonnet-4-5", 10000, None, "low")  # a model without effort
    # Sonnet 5.5 writes at most 128k tokens (the models overview)
    assert larger_budget({"model": MODEL, "max_tokens": 80000, "effort": "high"})["max_tokens"] == 128000
    assert larger_budget({"model": MODEL, "max_tokens": 128000, "effort": "high"})["effort"] == "medium"
    assert larger_budget({"model": MODEL, "max_tokens": 128000, "effort": "low"}) is None


def test_thinking_that_uses_the_whole_budget_is_asked_again_with_more(fake_api):
    fake_api.model_like = ModelLike(1.0, seed=1, quirks=("thinking",))
    rows: list[dict] = []
    res = generate(provider(rows), request(max_tokens=1500, effort="low"))  # a low think takes 1500+
    assert res.text == expected() and res.stop_reason == "end_turn"
    bodies = message_bodies(fake_api)
    assert bodies[0]["output_config"]["effort"] == "low" and bodies[0]["max_tokens"] == 1500
    assert [b["max_tokens"] for b in bodies][:2] == [1500, 3000]  # twice the room, asked afresh
    assert len(bodies[1]["messages"]) == 1  # (a prose answer cut after that is continued as before)
    assert rows[0]["stop_reason"] == "max_tokens" and rows[0]["thinking_tokens"] == 1500
    assert res.usage.thinking_tokens == sum(r["thinking_tokens"] for r in rows) > 1500


def test_a_budget_that_cannot_grow_fails_with_the_fix(fake_api):
    from orchestrator.errors import StepFailed

    fake_api.max_tokens(at=0.5, times=10)
    with pytest.raises(StepFailed, match="raise max_tokens or lower effort") as info:
        generate(provider(), request(output_schema=SCHEMA, max_tokens=128000, effort="low"))  # at the model's limit
    assert info.value.retryable is False and len(message_bodies(fake_api)) == 1


# ---------------------------------------------------------------------------- cut answers

def test_a_cut_structured_answer_is_asked_again_never_continued(fake_api):
    fake_api.max_tokens(at=0.5)
    rows: list[dict] = []
    res = generate(provider(rows), request(role="r1_code", step="r1", output_schema=SCHEMA, max_tokens=3000))
    json.loads(res.text)  # the whole object, not a join of two
    bodies = message_bodies(fake_api)
    assert len(bodies) == 2 and all(len(b["messages"]) == 1 for b in bodies)
    assert bodies[1]["max_tokens"] == 6000 and fake_api.structured_continuations == 0


def test_a_structured_prefix_is_not_continued_either(fake_api):
    resets: list[bool] = []
    part = Partial()
    sink = part.sink()
    from dataclasses import replace

    sink = replace(sink, reset=resets.append)
    p = provider()
    import asyncio

    async def go():
        try:
            return await p.generate(request(output_schema=SCHEMA, prefix='{"title": "x", "it'), sink)
        finally:
            await p.aclose()

    res = asyncio.run(go())
    json.loads(res.text)
    assert resets == [False] and len(message_bodies(fake_api)[0]["messages"]) == 1


def test_the_fake_restarts_a_schema_continuation_and_refuses_a_prefill_with_a_schema(fake_api):
    fmt = {"format": {"type": "json_schema", "schema": SCHEMA}}
    body = {"model": MODEL, "max_tokens": 500, "output_config": fmt,
            "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": '{"title": "a'},
                         {"role": "user", "content": "continue"}]}
    status, msg = post(fake_api, body)
    assert status == 200 and msg["content"][-1]["text"].startswith("{")
    assert fake_api.structured_continuations == 1
    body["messages"] = body["messages"][:2]
    status, msg = post(fake_api, dict(body, model="claude-sonnet-4-5"))  # takes a prefill, but not with a schema
    assert status == 400 and "structured outputs" in msg["error"]["message"]


def test_a_restated_line_is_dropped_and_the_join_is_exact(fake_api):
    fake_api.model_like = ModelLike(1.0, seed=3, quirks=("restate",))
    for at in (0.31, 0.5, 0.77):
        fake_api.max_tokens(at=at)
        res = generate(provider(), request())
        assert res.text == expected(), at
    assert fake_api.model_like.counts["restate"] == 3 and fake_api.diverged == 0


def test_a_continuation_out_of_line_is_recognised():
    text = "# The store\n\nIt keeps every key in memory and writes each change to the log first.\nThen it"
    assert misaligned(text, " flushes.") is None
    assert misaligned(text, "# The store\n\nIt keeps") == "the continuation started the answer over"
    assert misaligned(text, "\nIt keeps every key in memory and writes each change to the log first.\n") \
        == "the continuation repeats a line the answer already has"
    assert join_continuation("a\n- item one\n- it", "- item one\n- item two") == "a\n- item one\n- item two"


# ---------------------------------------------------------------------------- around the answer

def test_preamble_and_closing_remarks_are_stripped_with_a_note():
    ctx = {"language": "en"}
    body = "# Chapter\n\n" + ("This chapter explains the store, one piece at a time. " * 8).strip() + "\n"
    trimmed: list[str] = []
    text = clean_and_validate("draft", "Here is the chapter:\n\n" + body + "\n---\n\nLet me know if you'd like "
                                       "any changes.\n", ctx, trimmed)
    assert text == body and trimmed == ["preamble: Here is the chapter:",
                                         "closing remark: Let me know if you'd like any changes."]
    assert around("```markdown\n" + body + "```\n", True)[0].strip() == body.strip()
    # the book's own last paragraph stays
    kept = body + "\nIf you want to go further, the next chapter reads the log.\n"
    assert around(kept, True) == (kept, [])


def test_a_long_text_before_the_title_is_re_asked_not_cut():
    with pytest.raises(ValidationFailed, match="before its `# ` title line"):
        clean_and_validate("research", "Some notes.\n" * 6 + "# Research: x\n\nbody " * 20, {"language": "en"})


# ---------------------------------------------------------------------------- refusals and stops

def test_the_default_fallback_is_another_model_of_the_family():
    assert default_fallback("claude-sonnet-5-5") == "claude-sonnet-5"
    assert default_fallback("claude-opus-5-5") == "claude-opus-5"
    assert default_fallback("no-such-model") == ""


@pytest.mark.parametrize("how", ["spend_limit", "should_retry_false"])
def test_a_spend_limit_or_x_should_retry_false_stops_at_once(fake_api, how):
    if how == "spend_limit":
        fake_api.spend_limit(times=5)
    else:
        fake_api.status(529, times=5).faults[-1].args["should_retry"] = False
    with pytest.raises(RunStopped) as info:
        generate(provider(), request())
    assert len(message_bodies(fake_api)) == 1  # never retried
    assert info.value.exit_code == 5 and info.value.retryable is False
    assert ("spend limit" in str(info.value)) == (how == "spend_limit")


@pytest.mark.slow  # builds a whole book
def test_a_spend_limit_stops_the_run_without_failing_a_chapter(fake_api, tmp_path):
    from orchestrator.state.book import Book
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer

    fake_api.answerer = answer
    ws = make_example(tmp_path / "ws")
    code, _ = run_book(ws, provider=provider())  # the book, whole
    assert code == 0
    (ws / "output/chapters/final/ch01-final.md").unlink()
    fake_api.spend_limit(times=100)
    before = len(fake_api.message_requests())
    code, summary = run_book(ws, provider=provider())
    assert code == 5 and "spend limit" in summary.stopped
    assert len(fake_api.message_requests()) == before + 1  # one request, then none
    assert all(o.status != "failed" for o in summary.outcomes.values())
    book = Book.open(ws)
    assert [e["type"] for e in book.ledger.events(type="api_stop")] == ["api_stop"]
    assert "ch01" not in (ws / "output/memory/needs-human.md").read_text() if \
        (ws / "output/memory/needs-human.md").exists() else True
    book.close()


# ---------------------------------------------------------------------------- the fake's usage

def test_cache_writes_are_split_by_ttl():
    body = {"system": [{"type": "text", "text": "a" * 4000, "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "b" * 400,
                                                       "cache_control": {"type": "ephemeral"}}]}]}
    assert cache_creation(body, 1100) == {"ephemeral_1h_input_tokens": 1000, "ephemeral_5m_input_tokens": 100}
    assert cache_creation(body, 100) == {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 100}


@pytest.mark.slow  # builds a whole book
def test_a_spend_limit_on_a_batch_create_stops_the_run_too(fake_api, tmp_path):
    from orchestrator.testing import fake_batches
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer

    fake_api.answerer = answer
    fake_api.spend_limit(times=100)
    code, summary = run_book(make_example(tmp_path / "ws", max_chapters=2), provider=provider(),
                             message_batches=True)
    assert code == 5 and "spend limit" in summary.stopped
    assert fake_batches.store(fake_api).calls == [("POST", "/v1/messages/batches", 429)]  # not created again
    assert len(fake_api.message_requests()) == 2  # the create, then one streamed request: nothing more


def test_a_continuation_out_of_line_is_asked_again_then_the_whole_answer(fake_api):
    fake_api.max_tokens(at=0.5)
    fake_api.restart(times=2)  # the next two continuations start the answer over
    part = Partial()
    res = generate(provider(), request(), part)
    assert res.text == expected() and part.text == res.text  # nothing of the misfits was kept
    bodies = message_bodies(fake_api)
    assert [len(b["messages"]) for b in bodies] == [1, 3, 3, 1]  # cut, two continuations out of line, afresh
    assert bodies[-1]["max_tokens"] == 2 * bodies[0]["max_tokens"]
