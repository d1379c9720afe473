"""The book-wide shared block is rendered once per distinct input (it iterates every chapter):
the memoised text is the text a fresh render gives, for every role and both memory modes; a
change of what it reads renders it anew; a workspace that overrides the template is never
memoised; and a prompt's building time does not grow with the number of chapters."""

from __future__ import annotations

import copy

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


def test_building_a_prompt_does_not_grow_with_the_book(monkeypatch):
    """The shared block of a 1000-chapter outline is rendered by Jinja once per distinct outline
    (the render is what iterates the chapters); every other request of the batch, whatever its
    role or chapter, looks it up. What is left per request is building the key (a tuple of the
    chapters' ids, titles and batches in C), not a render."""
    renders: list[str] = []
    real = prompts._block

    def counting(env, name, block, ctx):
        if block == "shared":
            renders.append(name)
        return real(env, name, block, ctx)

    monkeypatch.setattr(prompts, "_block", counting)
    prompts._shared_memo.clear()
    chapters = [{"id": f"ch{i:03d}", "title": f"Chapter {i}", "batch": 1 + i // 25, "summary": "s"}
                for i in range(1, 1001)]
    for role in ("r1_code", "r2_consistency", "r3_content", "merger", "reader_panel", "memory_keeper", "editor"):
        for ch in ("ch05", "ch06"):
            ctx = dict(ctx_for(role, "en", ch), memory_bounded=True, memory_note="", chapters=list(chapters))
            prompts.render_layout(None, role, ctx)
    assert len(renders) == 1  # 14 requests, one render
    renamed = [dict(c) for c in chapters]
    renamed[-1]["title"] = "Renamed"
    prompts.render_layout(None, "editor", dict(ctx_for("editor", "en", "ch05"), memory_bounded=True,
                                                memory_note="", chapters=renamed))
    assert len(renders) == 2  # a changed outline: rendered anew


def test_glossary_terms_are_counted_by_lookup_as_the_whole_word_search_counts_them():
    """The long memory's term counts come from one pass over the chapter's texts (the glossary
    grows with the book); a lookup gives what the whole-word search gives."""
    from collections import Counter

    from orchestrator.agents.memory_budget import _WORD_RE, _uses

    hay = "the map-reduce mapping map, map_x map2 write-ahead log 缓存 使用缓存来 wal.py\n".lower() * 3
    words = Counter(_WORD_RE.findall(hay))
    for term in ("map", "Mapping", "map_x", "write-ahead", "write-ahead log", "log", "缓存", "map2", "wal.py", "x"):
        assert _uses(term, hay, words) == _uses(term, hay), term
    assert _uses("map", hay, words) == 6 and _uses("x", hay, words) == 0
