"""The book-wide shared block is rendered once per distinct input (it iterates every chapter):
the memoised text is the text a fresh render gives, for every role and both memory modes; a
change of what it reads renders it anew; a workspace that overrides the template is never
memoised; and a prompt's building time does not grow with the number of chapters."""

from __future__ import annotations

import copy
import time

import pytest
from test_prompts import ALL_ROLES, ctx_for

from orchestrator.agents import prompts
from orchestrator.agents.prompts import _block, _shared_block, prompt_env


def fresh(root, ctx) -> str:
    return _block(prompt_env(root), "_shared.md.j2", "shared", ctx)


@pytest.mark.parametrize("bounded", [False, True])
@pytest.mark.parametrize("role", ALL_ROLES)
def test_the_memoised_shared_block_is_the_fresh_render(role, bounded):
    ch = None if role in ("planner", "auditor") else "ch05"
    ctx = ctx_for(role, "en", ch)
    if ch is not None:
        ctx["memory_bounded"] = bounded
    prompts._shared_memo.clear()
    env = prompt_env(None)
    first = _shared_block(env, dict(ctx, role=role))
    assert first == fresh(None, dict(ctx, role=role)) == _shared_block(env, dict(ctx, role=role))
    assert len(prompts._shared_memo) == 1


def test_what_the_block_reads_changes_it_and_what_it_does_not_read_reuses_it():
    env = prompt_env(None)
    prompts._shared_memo.clear()
    ctx = dict(ctx_for("r2_consistency", "en", "ch05"), memory_bounded=True, memory_note="")
    a = _shared_block(env, ctx)
    other_chapter = dict(ctx_for("r2_consistency", "en", "ch06"), memory_bounded=True, memory_note="")
    assert _shared_block(env, other_chapter) == a and len(prompts._shared_memo) == 1  # one render a batch
    renamed = copy.deepcopy(ctx)
    renamed["chapters"][0]["title"] = "A RENAMED CHAPTER"
    b = _shared_block(env, renamed)
    assert "A RENAMED CHAPTER" in b and b == fresh(None, renamed) and len(prompts._shared_memo) == 2


def test_a_workspace_override_is_rendered_every_time(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "_shared.md.j2").write_text(
        "{% block shared %}OVERRIDE {{ chapter.id if chapter is defined else '' }}{% endblock %}\n"
        "{% block chapter_memory %}{% endblock %}\n", encoding="utf-8")
    env = prompt_env(tmp_path)
    prompts._shared_memo.clear()
    for ch in ("ch06", "ch05"):
        ctx = dict(ctx_for("r2_consistency", "en", ch), memory_bounded=True, memory_note="")
        assert _shared_block(env, ctx) == f"OVERRIDE {ch}"  # it reads a key the built-in does not
    assert not prompts._shared_memo


def test_building_a_prompt_does_not_grow_with_the_book():
    """The shared block of a 1000-chapter outline costs a render per distinct outline, then a
    lookup: per request, 1000 chapters cost about what 10 do (the bound allows for noise)."""
    def per_request(n: int) -> float:
        ctx = dict(ctx_for("r2_consistency", "en", "ch05"), memory_bounded=True, memory_note="")
        ctx["chapters"] = [{"id": f"ch{i:03d}", "title": f"Chapter {i}", "batch": 1 + i // 25, "summary": "s"}
                           for i in range(1, n + 1)]
        prompts._shared_memo.clear()
        prompts.render_layout(None, "r2_consistency", ctx)  # the one render of this outline
        t = time.perf_counter()
        for _ in range(20):
            prompts.render_layout(None, "r2_consistency", ctx)
        return (time.perf_counter() - t) / 20

    small, big = min(per_request(10) for _ in range(3)), min(per_request(1000) for _ in range(3))
    assert big < 2.0 * small, (small, big)
