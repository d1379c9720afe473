"""Prompts a model can follow (issue 36, item 3): every role's prompt, rendered in both languages
with its exemplary answer, agrees with itself. The example uses only the check names the role's
own instructions list, quotes the draft lines it cites, has only the fields the role's schema
has, keeps the role's own rules (no section per symbol, no note on what changed), and no
section of the instructions is left empty."""

from __future__ import annotations

import json
import re

import pytest
from test_prompt_contracts import ROLES, STEP_OF, _props, instructions
from test_prompts import ctx_for

from orchestrator import agents
from orchestrator.contracts.examples import _DRAFT_LINES, EXAMPLES, MERGED, R1, R2, R3
from orchestrator.contracts.schemas import SCHEMAS

LANGS = ("en", "zh")
REVIEWS = {"r1_code": R1, "r2_consistency": R2, "r3_content": R3}
CHECK_RE = re.compile(r"`((?:r[123]|audit)\.[a-z_]+)`")


def own_checks(role: str, language: str) -> set[str]:
    """The check names the role's instructions list, as `rN.name` in backticks."""
    text = instructions(role, "roles", language)
    text = text.split("The example below is about a made-up library")[0]  # not the example's own
    return set(CHECK_RE.findall(text))


def _example_json(role: str) -> dict:
    return json.loads(re.search(r"```json\n(.*?)\n```", EXAMPLES[role], re.S).group(1))


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", ROLES)
def test_the_prompt_carries_its_example_and_no_empty_section(role, language):
    ch = None if role in ("planner", "auditor") else "ch05"
    p = agents.render_layout(None, role, dict(ctx_for(role, language, ch), example=EXAMPLES[role]), layout="roles")
    text = "\n\n".join((p.shared, p.system, p.prompt))
    assert EXAMPLES[role].split("\n")[0][:80] in text  # the example goes with the instructions
    # a heading followed at once by another heading: a section with nothing in it
    empty = re.findall(r"^(## [^\n]+)\n+## ", text, re.M)
    assert not empty, (role, language, empty)


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", sorted(REVIEWS))
def test_a_reviewers_example_uses_its_own_checks_and_quotes_the_lines_it_cites(role, language):
    checks = own_checks(role, language)
    assert checks, role
    draft = {int(m.group(1)): m.group(2) for m in re.finditer(r"^(\d+) \| ?(.*)$", _DRAFT_LINES, re.M)}
    for f in REVIEWS[role].findings:
        assert f.check in checks, (role, f.check, sorted(checks))
        if f.quote:
            shown = "\n".join(draft.get(n, "") for n in range(f.line, (f.end_line or f.line) + 1))
            assert all(q.strip() in shown for q in f.quote.splitlines()), (role, f.check, f.quote)


@pytest.mark.parametrize("language", LANGS)
def test_the_mergers_example_settles_only_checks_the_reviewers_have(language):
    known = set().union(*(own_checks(r, language) for r in REVIEWS))
    for a in MERGED.actions:
        assert set(a.checks) <= known, (a.checks, sorted(known))


def test_the_auditors_example_uses_its_own_checks():
    assert {f["check"] for f in _example_json("auditor")["findings"]} <= own_checks("auditor", "en")


@pytest.mark.parametrize("role", [r for r in ROLES if STEP_OF[r] in SCHEMAS])
def test_a_json_example_has_the_fields_of_its_schema_and_no_other(role):
    props, required = _props(SCHEMAS[STEP_OF[role]])
    obj = _example_json(role)
    seen: set[str] = set()
    stack: list = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            seen |= set(x)
            stack += list(x.values())
        elif isinstance(x, list):
            stack += x
    assert seen <= props, (role, seen - props)
    assert set(SCHEMAS[STEP_OF[role]].get("required", [])) <= set(obj)


@pytest.mark.parametrize("role", ["writer", "editor"])
def test_a_chapter_example_keeps_the_chapter_rules(role):
    text = EXAMPLES[role]
    headings = re.findall(r"^#{1,3} .*$", text, re.M)
    assert headings and not [h for h in headings if "`" in h]  # no section per symbol (`## `Name``)
    # the whole chapter, not a list of changes: no note on what changed, no closing remarks
    assert not re.search(r"what changed|the changes|i changed|i revised|was rewritten", text, re.I)


@pytest.mark.parametrize("language", LANGS)
def test_a_chapter_summary_reads_in_the_task_sentence(language):
    """The outline's summary is a sentence of its own: rendered into a task, no `works. to` seam."""
    ctx = ctx_for("researcher", language, "ch05")
    ctx["chapter"] = dict(ctx["chapter"], summary="How blueprints.py works.")
    p = agents.render_layout(None, "researcher", ctx, layout="roles")
    assert "works. to" not in p.prompt and "How blueprints.py works." in p.prompt
