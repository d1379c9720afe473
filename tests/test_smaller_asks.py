"""Issue 27, item 4: the repair loop of a weak model. The first re-ask carries the validation's
reasons; after a failed re-ask the ask gets smaller (agents/smaller_ask.py): fewer items and the
required fields for a JSON role, a context cut by rank for a prose role; nothing half-valid is
committed."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from orchestrator.agents import smaller_ask
from orchestrator.contracts.schemas import SCHEMAS
from orchestrator.providers.anthropic.params import FEEDBACK_HEADER, FORMAT_HEADER, api_schema
from orchestrator.providers.anthropic.server import PROMPT_SHARE, limits
from orchestrator.state.book import Book
from orchestrator.steps import DRAFT, MEMORY, OUTLINE, PANEL, R1, RESEARCH, REVIEW
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_compatible import Compatible, prompt_tokens
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answer, role_of

LOCAL = {"server": "compatible", "model": "qwen3-coder", "context_window": 8192, "max_output": 2048,
         "provider": "anthropic"}


def test_levels_after_rejections():
    # whole, whole again with the reasons, then smaller, then smaller still (and no further)
    assert [smaller_ask.level_after(R1, r) for r in range(5)] == [0, 0, 1, 2, 2]
    # a chapter's prose is never asked for smaller here: its smaller ask is a section at a time
    assert [smaller_ask.level_after(DRAFT, r) for r in range(5)] == [0] * 5


def test_a_json_roles_smaller_schema_caps_its_items_and_keeps_the_required_fields():
    full = SCHEMAS[R1]
    small = smaller_ask.shrink_schema(full, R1, 1)
    findings = small["properties"]["findings"]
    assert findings["maxItems"] == 8 and smaller_ask.shrink_schema(full, R1, 2)["properties"]["findings"]["maxItems"] == 4
    kept = set(findings["items"]["properties"])
    assert kept == set(full["properties"]["findings"]["items"]["required"]) | {"line"}  # no quote, no end_line
    assert "maxItems" not in json.dumps(full)  # the contract's own schema is untouched
    # the panel keeps one reader per persona: only each reader's lists are capped
    panel = smaller_ask.shrink_schema(SCHEMAS[PANEL], PANEL, 1)["properties"]["readers"]
    assert "maxItems" not in panel and panel["items"]["properties"]["questions"]["maxItems"] == 2
    merged = smaller_ask.shrink_schema(SCHEMAS[REVIEW], REVIEW, 2)["properties"]
    assert (merged["findings"]["maxItems"], merged["actions"]["maxItems"]) == (4, 3)
    assert smaller_ask.shrink_schema(SCHEMAS[MEMORY], MEMORY, 1)["properties"]["terms"]["maxItems"] == 8
    # the planner's chapters are never capped: its context is cut instead
    assert smaller_ask.shrink_schema(SCHEMAS[OUTLINE], OUTLINE, 2) == SCHEMAS[OUTLINE]
    # structured outputs accept no maxItems: the API's copy has none, the words say the cap
    assert "maxItems" not in json.dumps(api_schema(small)) and api_schema(full) == full
    assert "at most 8 findings" in smaller_ask.instruction(R1, 1)
    assert "per reader" in smaller_ask.instruction(PANEL, 1)


def test_a_context_roles_smaller_ask_budgets_against_a_fraction_of_the_window(tmp_path):
    from orchestrator import config as config_mod

    cfg = config_mod.load(make_example(tmp_path / "ws", **LOCAL))
    whole = limits(cfg, "qwen3-coder")
    with smaller_ask.scaled(RESEARCH, 1):
        half = limits(cfg, "qwen3-coder")
    with smaller_ask.scaled(DRAFT, 1):  # a chapter's prose keeps its context (its contract checks it)
        assert limits(cfg, "qwen3-coder") == whole
    with smaller_ask.scaled(R1, 2):  # R1's context is never cut: it would flag what it cannot see
        assert limits(cfg, "qwen3-coder") == whole
    assert PROMPT_SHARE.get() == 1.0  # only while the request is built
    assert half.max_output == whole.max_output
    assert half.context_window - half.max_output == (whole.context_window - whole.max_output) // 2


class Stubborn:
    """A weak model that breaks the first two answers of the given roles for one chapter (the
    whole ask and the first re-ask), then follows whatever it is asked."""

    def __init__(self, roles: set[str], chapter: str = "ch02", broken: int = 2):
        self.roles, self.chapter, self.broken = roles, chapter, broken
        self.seen: dict[str, int] = defaultdict(int)

    def __call__(self, request: dict) -> str:
        role = role_of(request)
        text = json.dumps(request.get("messages"))
        if role in self.roles and f"## This chapter: {self.chapter}" in text:
            self.seen[role] += 1
            if self.seen[role] <= self.broken:
                return "Sure! I am not sure what to write here."
        return answer(request)


def _texts(body: dict) -> list[str]:
    return [b.get("text", "") for b in body["messages"][0]["content"]]


@pytest.mark.slow
def test_after_a_failed_re_ask_the_ask_is_smaller_and_the_step_completes(monkeypatch, tmp_path):
    model = Stubborn({"r2", "researcher"})
    compat = Compatible(window=8192)
    api = FakeAPI(answerer=model, compatible=compat)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        ws = make_example(tmp_path / "ws", **LOCAL, retries=3)
        code, summary = run_book(ws)
        asked = [r["body"] for r in api.message_requests() if r["body"] and "## This chapter: ch02" in json.dumps(
            r["body"].get("messages"))]
    finally:
        api.stop()
    assert code == 0, summary.needs_human  # the third, smaller ask was answered and committed
    r2 = [b for b in asked if role_of(b) == "r2"]
    research = [b for b in asked if role_of(b) == "researcher"]
    assert len(r2) == 3 and len(research) == 3
    # the first re-ask: the whole ask again, with the validation's reasons
    assert "Your previous answer was rejected" in _texts(r2[1])[-1] and "smaller" not in _texts(r2[1])[-1]
    # after it failed: fewer items, required fields only, said in words after the reasons
    words = next(t for t in _texts(r2[2]) if FORMAT_HEADER in t)
    schema = json.loads(words[words.index("{"):])
    assert schema["properties"]["findings"]["maxItems"] == 8 and "quote" not in json.dumps(schema)
    feedback = _texts(r2[2])[-1]
    assert FEEDBACK_HEADER in feedback and "Your previous answer was rejected" in feedback
    assert "at most 8 findings" in feedback
    # the researcher's third ask reads less: its sources cut by rank to half the room
    sizes = [prompt_tokens(b) for b in research]
    assert sizes[2] < sizes[0], sizes
    assert "cut to what matters most" in _texts(research[2])[-1]
    book = Book.open(ws)
    try:
        events = [(e["step"], e["detail"]["level"]) for e in book.ledger.events(type="smaller_ask")]
        report = (ws / "output/research/ch02-report.md").read_text()
    finally:
        book.close()
    assert sorted(events) == [("r2", 1), ("research", 1)]
    assert re.search(r"<!-- RESEARCH_COMPLETE ", report)  # the smaller answer passed the same validation


@pytest.mark.slow
def test_nothing_half_valid_is_committed_when_every_ask_breaks(monkeypatch, tmp_path):
    model = Stubborn({"r3"}, broken=99)
    api = FakeAPI(answerer=model, compatible=Compatible(window=8192))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        ws = make_example(tmp_path / "ws", **LOCAL, retries=4)
        code, summary = run_book(ws)
    finally:
        api.stop()
    assert code == 3 and "ch02" in summary.needs_human  # to a person, with the reason
    assert "did not pass validation" in summary.needs_human["ch02"]
    assert not (ws / "output/reviews/ch02-r3.md").exists()
    assert model.seen["r3"] == 4
