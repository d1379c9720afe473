"""The handbook prompt layout (book.yaml `prompt_layout: handbook`, the default): one book-wide
system block holding the book and every role's instructions, byte-identical for every chapter
call, then the chapter's material, then a role turn naming the role's section; its validation;
and, under the fake's real cache rules, a higher share of input read from cache than the
`roles` layout."""

from __future__ import annotations

import hashlib

import pytest
from conftest import make_example
from conftest_fake_api import DUMMY_KEY
from test_prompts import ctx_for

from orchestrator import agents
from orchestrator.agents import handbook as hb
from orchestrator.config import load
from orchestrator.errors import ConfigError
from orchestrator.providers.anthropic import AnthropicProvider, build_params, resolve_settings
from orchestrator.providers.base import Request
from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer

CHAPTER_ROLES = ["researcher", "writer", "r1_code", "r2_consistency", "r3_content", "merger", "reader_panel",
                 "memory_keeper", "editor"]


def test_the_first_block_is_the_same_for_every_role_and_chapter_and_holds_every_role_s_instructions():
    parts = {(role, ch): agents.render_layout(None, role, ctx_for(role, "en", ch), layout="handbook")
             for role in CHAPTER_ROLES for ch in ("ch04", "ch05")}
    assert len({p.shared for p in parts.values()}) == 1  # byte for byte
    book = next(iter(parts.values())).shared
    for role in hb.roles():
        # each role's instructions, word for word as in the roles layout, under its own heading
        ctx = ctx_for(role, "en", "ch05")
        from orchestrator.contracts.examples import EXAMPLES

        own = agents.render_layout(None, role, dict(ctx, example=EXAMPLES.get(role, "")), layout="roles").system
        assert f"# {hb.title(role)}\n\n<role_section role=\"{hb.title(role)}\">\n{own}\n</role_section>" in book, role
    for (_role, ch), p in parts.items():
        assert p.system == "" and "## This chapter" not in p.shared and "DRAFT-MARK" not in p.shared  # nothing of a chapter
        assert f"## This chapter: {ch}" in p.prompt or f"## This chapter: {ch}" in p.material
    # the draft readers share the chapter's material, always placed first (cached) in this layout
    mats = {p.material for (role, ch), p in parts.items() if ch == "ch05" and role not in ("researcher", "writer")}
    assert len(mats) == 1 and "DRAFT-MARK-ch05" in mats.pop()


def test_the_role_turn_names_the_role_s_section():
    for role in CHAPTER_ROLES:
        p = agents.render_layout(None, role, ctx_for(role, "en", "ch05"), layout="handbook")
        first = p.prompt.split("\n", 1)[0]
        assert first == hb.role_turn(role) and f"follow the section '{hb.title(role)}'" in first
        assert f"\n# {hb.title(role)}\n" in p.shared
    for role in ("planner", "auditor"):  # book-level roles keep their own instructions (handbook.roles)
        p = agents.render_layout(None, role, ctx_for(role, "en", None), layout="handbook")
        assert p.system and "# The handbook" not in p.shared and not p.prompt.startswith("You are")
    assert hb.role_turn("r1_code").startswith("You are the code reviewer (R1): follow the section "
                                              "'The code reviewer (R1)' of the handbook")


def test_the_handbook_is_cached_and_keeps_within_four_breakpoints():
    s = resolve_settings("claude-sonnet-5-5", 4000)
    for role in ("r1_code", "writer"):
        p = agents.render_layout(None, role, dict(ctx_for(role, "en", "ch05"), draft="line\n" * 3000),
                                 layout="handbook")
        r = Request(role=role, step="x", chapter="ch05", shared=p.shared, material=p.material, system=p.system,
                    prompt=p.prompt, model="claude-sonnet-5-5")
        params = build_params(r, s)
        assert params["system"][0]["text"] == p.shared and "cache_control" in params["system"][0]
        assert len(p.shared) / 4 > s["min_cache_tokens"]  # well over the minimum cacheable length
        marks = sum("cache_control" in b for b in params["system"]) + 1
        assert marks == (3 if p.material else 2) <= 4


def test_a_workspace_override_of_a_role_template_changes_the_handbook(tmp_path):
    from orchestrator.resources import builtin

    own = tmp_path / "prompts"
    own.mkdir()
    text = (builtin("prompts") / "editor.md.j2").read_text(encoding="utf-8")
    (own / "editor.md.j2").write_text(text.replace("{% block system %}", "{% block system %}\nHOUSE-RULE-42\n", 1),
                                      encoding="utf-8")
    base = agents.render_layout(None, "r1_code", ctx_for("r1_code"), layout="handbook").shared
    mine = agents.render_layout(tmp_path, "r1_code", ctx_for("r1_code"), layout="handbook").shared
    assert "HOUSE-RULE-42" in mine and "HOUSE-RULE-42" not in base
    assert mine.index("HOUSE-RULE-42") > mine.index("# The editor")


@pytest.mark.parametrize("value", ["handbook", "roles"])
def test_prompt_layout_is_read_from_book_yaml(tmp_path, value):
    ws = make_example(tmp_path / "ws", prompt_layout=f'"{value}"')
    assert load(ws).prompt_layout == value


def test_a_wrong_prompt_layout_names_book_yaml_and_the_choices(tmp_path):
    ws = make_example(tmp_path / "ws", prompt_layout='"chapters"')
    with pytest.raises(ConfigError) as e:
        load(ws)
    msg = str(e.value)
    assert "book.yaml" in msg and "prompt_layout" in msg and "handbook" in msg and "roles" in msg
    assert load(make_example(tmp_path / "d")).prompt_layout == "handbook"  # the default


def _run(tmp_path, monkeypatch, layout: str) -> tuple[float, list[dict]]:
    """A 2-chapter book through the fake with the real cache rules: the share of input tokens
    read from cache, and the requests the fake received."""
    ws = make_example(tmp_path / layout, max_chapters=2, batch_size=2, prompt_layout=f'"{layout}"')
    with FakeAPI(answerer=answer, latency=0.05, cache_rules=True) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01, max_delay=0.05))
        assert code == 0, summary.needs_human
        requests = fake.message_requests()
    book = Book.open(ws)
    calls = book.ledger.calls()
    book.close()
    read = sum(c["cache_read_tokens"] or 0 for c in calls)
    total = sum((c["input_tokens"] or 0) + (c["cache_read_tokens"] or 0) + (c["cache_creation_tokens"] or 0)
                for c in calls)
    return read / total, requests


@pytest.mark.slow
def test_under_real_cache_rules_the_handbook_reads_more_from_cache_and_its_block_never_changes(tmp_path, monkeypatch):
    share = {}
    share["roles"], _ = _run(tmp_path, monkeypatch, "roles")
    share["handbook"], requests = _run(tmp_path, monkeypatch, "handbook")
    assert share["handbook"] > share["roles"] + 0.1, share
    first, n = {}, 0
    for r in requests:
        body = r["body"]
        prompt = "".join(b.get("text", "") for b in body["messages"][0]["content"])
        if "## This chapter: ch" in prompt + "".join(b["text"] for b in body["system"]):
            first[hashlib.sha256(body["system"][0]["text"].encode()).hexdigest()] = prompt[:80]
            n += 1
    # every chapter call of the run sends the same handbook (the planner's, before the outline and
    # the style guide exist, and the auditor's, with the whole memory, are book-level calls)
    assert len(first) == 1 and n == len(requests) - 2 >= 18, (first, n, len(requests))
