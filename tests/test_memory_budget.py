"""Prompts bounded by tokens, not by the book: a chapter's prompt carries the long memory that
matters to it (its dependencies' summaries, the glossary terms it uses, the metaphors) within
its role's budget, after the cached prefix; the prefix carries the outline's titles only."""

from __future__ import annotations

from pathlib import Path

from conftest import make_example

from orchestrator import agents
from orchestrator.agents.memory_budget import bounded_memory, est_tokens
from orchestrator.state.book import Book
from orchestrator.state.markers import compose
from orchestrator.state.memory import ChapterMemory, LongMemory
from orchestrator.steps import MEMORY, STEPS

N = 100


def chapter_id(i: int) -> str:
    return f"ch{i:02d}" if i < 100 else f"ch{i}"


def outline_md(n: int) -> str:
    lines = ["# Outline: A big book", "", "```yaml", "title: A big book", "chapters:"]
    for i in range(1, n + 1):
        deps = [chapter_id(j) for j in (i - 2, i - 1) if j >= 1]
        lines += [f"- id: {chapter_id(i)}", f"  title: Part {i} of the store, the unit called unit{i:03d}",
                  f"  batch: {i}", f"  summary: How unit{i:03d} turns requests into entries.",
                  f"  depends_on: [{', '.join(deps)}]", "  sources:", "  - minikv/store.py"]
    return "\n".join(lines + ["```", ""])


def memory_md(i: int) -> str:
    ch = chapter_id(i)
    return (f"# Memory: {ch} — Part {i}\n\n## Summary\n\nChapter {i} explains unit{i:03d}: how it keeps its "
            f"entries, how it evicts them and what relies on it, in about three sentences of plain prose.\n\n"
            f"## Glossary\n\n- **term{i:03d}**: the thing unit{i:03d} keeps for each request, with its expiry\n"
            f"- **slot{i:03d}**: a place in the table of unit{i:03d}\n\n"
            f"## Metaphors\n\n- **a cloakroom number {i}**: a ticket that gets the coat back\n\n"
            f"## Cross references\n\n(none)\n")


def research_md(i: int, uses: list[int]) -> str:
    words = " ".join(f"term{j:03d}" for j in uses)
    return (f"# Research: {chapter_id(i)}\n\n## Purpose\n\nunit{i:03d} keeps entries. It uses {words}.\n\n"
            + "## Key code\n\n" + "The store hashes each key and keeps it in a slot. " * 60 + "\n")


def prompt_tokens(book: Book, ch: str) -> int:
    g = agents.gather(book, "draft", ch, {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source})
    req = agents.build_request(book, "draft", ch, g, "writer")
    return est_tokens(req.shared + req.system + req.prompt)


def test_the_last_chapters_draft_prompt_is_about_the_size_of_the_first(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=N)
    out = ws / "output"
    (out / "memory").mkdir(parents=True, exist_ok=True)
    (out / "memory/outline.md").write_text(compose(outline_md(N), "OUTLINE_COMPLETE", {}, "t"))
    last = chapter_id(N)
    # chapter 1's draft, when nothing else is written yet
    Path(ws / STEPS["research"].file("ch01")).parent.mkdir(parents=True, exist_ok=True)
    (ws / STEPS["research"].file("ch01")).write_text(compose(research_md(1, []), STEPS["research"].marker, {}, "t"))
    book = Book.open(ws)
    try:
        first = prompt_tokens(book, "ch01")
    finally:
        book.close()
    # chapter 100's draft, after 99 chapters of long memory; it uses terms of 3 earlier chapters
    (ws / STEPS[MEMORY].file("ch01")).parent.mkdir(parents=True, exist_ok=True)
    for i in range(1, N):
        (ws / STEPS[MEMORY].file(chapter_id(i))).write_text(compose(memory_md(i), STEPS[MEMORY].marker, {}, "t"))
    (ws / STEPS["research"].file(last)).write_text(compose(research_md(N, [98, 99, 7]), STEPS["research"].marker, {}, "t"))
    book = Book.open(ws)
    try:
        final = prompt_tokens(book, last)
        g = agents.gather(book, "draft", last, {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source})
        req = agents.build_request(book, "draft", last, g, "writer")
    finally:
        book.close()
    assert final <= 1.2 * first, (first, final)
    # what it carries: its dependencies' summaries and the terms it uses, not all 99 chapters
    assert [s[0] for s in g.context[MEMORY]["summaries"]] == ["ch99", "ch98"]
    assert sorted(t for t, _, _ in g.context[MEMORY]["glossary"]) == ["term007", "term098", "term099"]
    assert "term050" not in req.prompt and "term099" in req.prompt
    # the chapter's memory follows the cached prefix; the prefix has titles, not the outline
    assert "term099" not in req.shared and "Part 50 of the store" in req.shared and "depends_on" not in req.shared


def test_memory_that_does_not_fit_is_cut_by_rank_and_says_so():
    chap = type("C", (), {"depends_on": ["ch01", "ch02"]})()
    mem = LongMemory([ChapterMemory(f"ch{i:02d}", f"T{i}", "word " * 200, [(f"term{i}", "a definition")],
                                    [(f"metaphor {i}", "m")], []) for i in range(1, 30)])
    text = " ".join(f"term{i}" for i in range(1, 30))
    ctx, note = bounded_memory(mem, chap, [text], "writer", budget=600)
    assert [s[0] for s in ctx["summaries"]] == ["ch02", "ch01"]  # dependencies first, nearest first
    assert len(ctx["glossary"]) < 29 and "left out" in note and "glossary" in note
    full, none = bounded_memory(mem, chap, [text], "writer", budget=10**6)
    assert none == "" and len(full["glossary"]) == 29 and len(full["metaphors"]) == 20  # MAX_METAPHORS
