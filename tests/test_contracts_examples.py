"""The exemplary answers that go into the roles' cached instructions are correct answers:
the JSON ones satisfy their contract, none contains marker text, the Markdown ones have
closed fences and quote code with its path, and each is 300-600 words."""

from __future__ import annotations

import json
import re

import pytest

from orchestrator import checks
from orchestrator.contracts import (
    MemoryUpdate,
    MergedReview,
    OutlinePlan,
    PanelFeedback,
    Review,
    marker_problems,
)
from orchestrator.contracts.examples import EXAMPLES, example

JSON_ROLES = {"planner": OutlinePlan, "r1_code": Review, "r2_consistency": Review, "r3_content": Review,
              "merger": MergedReview, "reader_panel": PanelFeedback, "memory_keeper": MemoryUpdate, "auditor": Review}
ROLES = ["planner", "researcher", "writer", "r1_code", "r2_consistency", "r3_content", "merger", "reader_panel",
         "memory_keeper", "editor", "auditor"]


def test_every_role_has_an_example():
    assert sorted(EXAMPLES) == sorted(ROLES)
    import pathlib

    prompts = {p.name.removesuffix(".md.j2") for p in (pathlib.Path(__file__).resolve().parents[1] / "prompts").glob("*.md.j2")}
    assert set(ROLES) <= prompts  # keyed by the roles' template names


@pytest.mark.parametrize("role", ROLES)
def test_example_is_a_correct_answer(role):
    text = example(role)
    assert 300 <= len(text.split()) <= 600, len(text.split())
    assert marker_problems(text) == []
    if role in JSON_ROLES:
        block = re.search(r"```json\n(.*?)\n```", text, re.S).group(1)
        obj = JSON_ROLES[role].from_json(json.loads(block))
        assert obj.to_json() == json.loads(block)
        if role != "planner" and role != "memory_keeper":
            findings = getattr(obj, "findings", None)
            if role == "merger":  # the tool keeps the collected findings: the example adds none
                assert findings == () and obj.actions and all(a.checks for a in obj.actions)
            elif findings is not None:
                assert any(f.quote for f in findings) and any(f.end_line for f in findings) or role == "auditor"
    else:
        fs = checks.check_structure(text, language="en", min_words=0, max_words=10_000)
        assert not [f for f in fs if f.check == "r3.fence"]
        quoted = [b for b in checks.code_blocks(text) if b.lang == "python"]
        assert quoted and all(b.file and b.lines for b in quoted)


def test_the_writer_example_shows_what_the_writer_must_do():
    text = example("writer")
    assert re.search(r"\*\*`?Throttled`?\*\*", text)  # a term defined in bold where it first appears
    assert re.search(r"\]\(ch\d{2}\.md(#[\w-]+)?\)", text)  # links to the chapters it builds on
