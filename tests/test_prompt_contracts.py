"""One output contract per role (issue 21 part 4): every role's prompt, rendered in both layouts
(the handbook and the roles layout) in both languages with a realistic context, contains no
instruction that the role's JSON Schema or its validator contradicts.

- A role whose request carries a schema (planner, R1-R3, merger, panel, memory keeper,
  auditor) is told the JSON answer only: every field the schema requires is named, no field of
  another contract is asked for, no Markdown output format is described (no `Verdict:` line,
  no `## Findings`, no title line to start with, no bullet forms), "no verdict field" only
  where the schema has none.
- A Markdown role (researcher, writer, editor) is never told about JSON.
- Each role's exemplary answer passes the validator its real answers pass."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from test_prompts import ctx_for

from orchestrator import agents, checks
from orchestrator.agents import handbook as hb
from orchestrator.agents.validation import clean_and_validate
from orchestrator.contracts import marker_problems
from orchestrator.contracts.examples import EXAMPLES
from orchestrator.contracts.schemas import SCHEMAS
from orchestrator.steps import ALL_STEPS

ROLES = ["planner", "researcher", "writer", "r1_code", "r2_consistency", "r3_content", "merger", "reader_panel",
         "memory_keeper", "editor", "auditor"]
STEP_OF = {s.role: key for key, s in ALL_STEPS.items() if s.model}
SCHEMA_ROLES = [r for r in ROLES if STEP_OF[r] in SCHEMAS]
MARKDOWN_ROLES = [r for r in ROLES if r not in SCHEMA_ROLES]

# What describes a Markdown answer: none of it may reach a role that answers JSON.
MARKDOWN_FORMAT = [
    "## Output format", "Verdict:", "`## Findings`", "## Notes", "Start with the line", "Answer with the review only",
    "Answer with the outline document only", "```yaml", "(none)`", "- **term**", "- **phrase**", "`- none`",
    "One item a line", "- **severity**", "the memory file only", "one `## ` section per reader",
]


def _props(schema: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(every property name, the required ones), through nested objects and arrays."""
    props, required = set(), set()
    stack = [schema]
    while stack:
        s = stack.pop()
        if s.get("type") == "object":
            props |= set(s.get("properties", {}))
            required |= set(s.get("required", []))
            stack += list(s.get("properties", {}).values())
        if s.get("type") == "array":
            stack.append(s.get("items", {}))
    return props, required


ALL_FIELDS = set().union(*(_props(s)[0] for s in SCHEMAS.values()))


def instructions(role: str, layout: str, language: str) -> str:
    """What the role is told: its own section of the handbook (or its system part) and its turn."""
    ch = None if role in ("planner", "auditor") else "ch05"
    ctx = dict(ctx_for(role, language, ch), example=EXAMPLES[role])
    p = agents.render_layout(None, role, ctx, layout=layout)
    if layout == "handbook" and role in hb.roles():
        title = hb.title(role)
        m = re.search(rf'<role_section role="{re.escape(title)}">\n(.*?)\n</role_section>', p.shared, re.S)
        assert m, f"{role}: no section in the handbook"
        own = m.group(1)
    else:
        own = p.system
    return _without_inputs(own + "\n\n" + p.prompt)


def _without_inputs(text: str) -> str:
    """The instructions without the documents they hand over (the draft, the reviews, the
    research, the finals: each inside its own tag), whose Markdown is data, not a format asked for."""
    return re.sub(r"<(review_r\d|review|draft|panel|research|chapter|instructions|style_guide)\b[^>]*>.*?</\1>",
                  "", text, flags=re.S)


CASES = [(r, layout, lang) for r in ROLES for layout in ("handbook", "roles") for lang in ("en", "zh")]


@pytest.mark.parametrize(("role", "layout", "language"), CASES)
def test_no_instruction_contradicts_the_schema_or_the_validator(role, layout, language):
    text = instructions(role, layout, language)
    schema = SCHEMAS.get(STEP_OF[role])
    if schema is None:
        assert "JSON" not in text.replace("```json", ""), f"{role}: a Markdown role is told about JSON"
        assert "Answer with the document only" in text or role == "researcher" and "first line" in text
        return
    props, required = _props(schema)
    for field in sorted(required):
        assert f"`{field}`" in text, f"{role}/{layout}: the required field `{field}` is never named"
    asked = set(re.findall(r"`([a-z][a-z_]*)`", text)) & ALL_FIELDS
    assert asked <= props, f"{role}/{layout}: asks for fields outside its schema: {sorted(asked - props)}"
    for phrase in MARKDOWN_FORMAT:
        assert phrase not in text, f"{role}/{layout}: a Markdown format instruction in a JSON role: {phrase!r}"
    no_verdict = "no verdict field" in text
    assert no_verdict == ("verdict" not in props and "findings" in props), f"{role}: the verdict sentence is wrong"
    assert "one JSON object that matches the JSON Schema" in text


def _example_json(role: str) -> str:
    m = re.search(r"```json\n(.*?)\n```", EXAMPLES[role], re.S)
    assert m, role
    return m.group(1)


@pytest.mark.parametrize("role", SCHEMA_ROLES)
def test_each_json_example_passes_the_validator_of_its_step(role, tmp_path):
    """The example answers exactly as a model must: through the same reading, rendering and
    validation as a real answer (agents.validation)."""
    step = STEP_OF[role]
    ch = None if role in ("planner", "auditor") else "ch05"
    ctx = ctx_for(role, "en", ch)
    if role == "reader_panel":  # the example's readers
        ctx["personas"] = ["newcomer: new", "maintainer: knows it", "architect: designs"]
    if role == "memory_keeper":
        ctx["chapter"]["id"] = "ch03"
    if role == "planner":
        from orchestrator.contracts.examples import OUTLINE

        ctx["sources"] = sorted({s for c in OUTLINE.chapters for s in c.sources})
        for rel in ctx["sources"]:
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text("x = 1\n")
        ctx["_source_dir"] = tmp_path
    body = clean_and_validate(step, _example_json(role), ctx)
    assert body.strip() and marker_problems(body) == []


def test_the_writer_example_follows_the_writer_s_rules():
    """Bold is the term markup (`**term**: definition`), the metaphor is in italics: the
    example shows both the way the conventions ask (it once put the metaphor in bold)."""
    text = EXAMPLES["writer"]
    bold = re.findall(r"\*\*([^*]+)\*\*(.?)", text)
    assert bold and all(after == ":" for _, after in bold), bold
    assert "*a water tank with a dripping tap*" in text
    memory = json.loads(_example_json("memory_keeper"))
    assert {m["phrase"] for m in memory["metaphors"]} == {"a water tank with a dripping tap"}


def test_the_researcher_example_has_the_format_s_sections_in_its_order():
    """The report starts with its title line and then the central use case (once told both
    "before anything else" and "start with `# Research:`")."""
    text = instructions("researcher", "roles", "en")
    fmt = re.search(r"## Output format\n\n```\n(.*?)\n```", text, re.S).group(1)
    order = re.findall(r"^## (.+)$", fmt, re.M)
    assert order[0] == "Central use case" and fmt.startswith("# Research: chNN")
    shown = re.findall(r"^## (.+)$", EXAMPLES["researcher"], re.M)
    assert shown and [h for h in order if h in shown] == shown, (shown, order)
    assert "before anything else" not in text


@pytest.mark.parametrize("role", MARKDOWN_ROLES)
def test_each_markdown_example_has_no_marker_and_closes_its_fences(role):
    text = EXAMPLES[role]
    assert marker_problems(text) == []
    assert not [f for f in checks.check_structure(text, language="en", min_words=0, max_words=10_000)
                if f.check == "r3.fence"]
