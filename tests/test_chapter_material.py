"""The chapter's material (its entry and numbered draft) as a cached block before the role's
instructions: the same bytes for every role that reads the draft, placed first only when it pays,
with its own breakpoint when the prefix reaches the model's minimum, the same layout in streaming
and in Message Batches, and the cache gate letting the first role write it and the others read it
under the fake's real cache rules."""

from __future__ import annotations

import asyncio

import pytest
from conftest_fake_api import DUMMY_KEY
from test_prompts import ctx_for

from orchestrator import agents
from orchestrator.agents.prompts import MATERIAL_FIRST_TOKENS
from orchestrator.batches.types import default_params
from orchestrator.providers.anthropic import AnthropicProvider, build_params, resolve_settings
from orchestrator.providers.anthropic.params import prefix_keys
from orchestrator.providers.base import Request, Sink
from orchestrator.testing.fake_api import FakeAPI

DRAFT_READERS = ["r1_code", "r2_consistency", "r3_content", "merger", "reader_panel", "memory_keeper", "editor"]


def long_draft() -> str:
    para = "The store keeps each key in a sorted table and explains why, one function at a time. " * 6
    sections = "".join(f"## Part {i}\n\nLONG-DRAFT-MARK {i}. {para}\n\n" for i in range(1, 16))
    return f"# Sorted string tables\n\nOpening.\n\n{sections}## Summary\n\nDone.\n"


def layouts(draft: str | None) -> dict[str, agents.Parts]:
    out = {}
    for role in DRAFT_READERS:
        ctx = ctx_for(role, "en", "ch05")
        if draft is not None:
            ctx["draft"] = draft
        out[role] = agents.render_layout(None, role, ctx)
    return out


def test_a_long_draft_goes_first_the_same_for_every_role_then_each_role_s_instructions():
    assert len(long_draft()) / 4 >= MATERIAL_FIRST_TOKENS
    parts = layouts(long_draft())
    materials = {p.material for p in parts.values()}
    assert len(materials) == 1 and "LONG-DRAFT-MARK 15" in materials.pop()  # byte for byte the same
    for role, p in parts.items():
        assert "LONG-DRAFT-MARK" not in p.system and "LONG-DRAFT-MARK" not in p.prompt, role  # sent once
        assert "## This chapter: ch05" in p.prompt  # the task still names the chapter
        assert "## This chapter: ch05" in p.material and "  1 | # Sorted string tables" in p.material
    # what follows the material really varies by role (nothing shared is left after it) ...
    assert len({p.system for p in parts.values()}) == len(DRAFT_READERS)
    # ... and does not depend on the chapter: it is the same text as with a short draft inline
    short = layouts(None)
    assert all(short[r].system == parts[r].system for r in DRAFT_READERS)


def test_a_short_draft_stays_in_the_prompt_after_the_cached_instructions():
    parts = layouts(None)
    for role, p in parts.items():
        assert p.material == "", role
        assert "DRAFT-MARK-ch05" in p.prompt and "DRAFT-MARK" not in p.system
    # roles that do not read the draft have no material, whatever its length
    ctx = ctx_for("writer", "en", "ch05")
    ctx["draft"] = long_draft()
    assert agents.render_layout(None, "writer", ctx).material == ""


def req(role: str, material: str, shared: str = "book " * 100, prompt: str = "Review it.") -> Request:
    return Request(role=role, step="r1", chapter="ch05", shared=shared, material=material,
                   system=f"You are {role}. " + "instructions " * 600, prompt=prompt,
                   model="claude-sonnet-5-5", max_tokens=4000)


def test_breakpoints_book_material_instructions_user_turn_within_the_minimum():
    s = resolve_settings("claude-sonnet-5-5", 4000)  # minimum cacheable length 1024 tokens
    material = "draft line " * 800  # ~2200 tokens
    p = build_params(req("r2", material), s)
    texts = [b["text"] for b in p["system"]]
    assert texts[1] == material and texts[2].startswith("You are r2")  # the material before the role
    # the book alone (~125 tokens) is under the minimum: no breakpoint; book+material is over it
    assert [("cache_control" in b) for b in p["system"]] == [False, True, True]
    assert "cache_control" not in p["messages"][0]["content"][-1]
    # a material too short to reach the minimum with the book gets no breakpoint of its own
    small = build_params(req("r2", "draft line " * 50), s)
    assert [("cache_control" in b) for b in small["system"]] == [False, False, True]
    # a long book block: four breakpoints, the API's limit, never a fifth
    full = build_params(req("r2", material, shared="book " * 1200), s)
    assert [("cache_control" in b) for b in full["system"]] == [True, True, True]
    # the gate keys: one per cached prefix; two roles of a chapter share the material's key
    k2, k3 = prefix_keys(p), prefix_keys(build_params(req("r3", material), s))
    assert len(k2) == 2 and k2[0] == k3[0] and k2[1] != k3[1]


def test_message_batches_use_the_same_layout():
    r = req("r2", "draft line " * 800)
    assert default_params(r)["system"] == build_params(r, resolve_settings("claude-sonnet-5-5", 4000))["system"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_the_first_role_writes_the_material_and_its_siblings_read_it_under_real_cache_rules(monkeypatch):
    """R1, R2, R3 and the panel of one chapter sent together: with the gate, the first writes the
    chapter's material and the three others wait for its answer to start, then read it although
    their instructions differ; without the gate all four write it (the real API's rule)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    material = "draft line " * 800
    material_tokens = len("book " * 100 + material) // 4
    written = {}
    for gate in (False, True):
        with FakeAPI(latency=0.2, cache_rules=True) as fake:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
            p = AnthropicProvider(concurrency=4, cache_gate=gate)

            async def go(p: AnthropicProvider = p):
                try:
                    return await asyncio.gather(*(p.generate(req(role, material), Sink())
                                                  for role in ("r1", "r2", "r3", "panel")))
                finally:
                    await p.aclose()

            res = asyncio.run(go())
            reads = sorted(r.usage.cache_read_tokens for r in res)
            written[gate] = sum(r.usage.cache_creation_tokens for r in res)
            if gate:
                assert reads[0] == 0 and all(abs(n - material_tokens) <= 2 for n in reads[1:]), reads
            else:
                assert reads == [0, 0, 0, 0], reads
    assert abs(written[False] - written[True] - 3 * material_tokens) <= 8  # written once, not four times
