"""A chapter whose sources cannot fit one prompt is cut by rank in the repository map (lowest
ranked first), never overflows, and the research report says what was left out and why."""

from __future__ import annotations

import pytest

from orchestrator.agents import source_context
from orchestrator.agents.source_context import (
    CUT_HEADING,
    SOURCE_CHARS,
    bounded_sources_cut,
    source_limit,
    with_sources_cut,
)
from orchestrator.state.book import Book
from orchestrator.testing.helpers import make_example, run_book


def module(name: str, n: int) -> str:
    return "".join(f"def {name}_{i}(x):\n    return x + {i}\n\n" for i in range(n))


def test_the_budget_follows_the_model_s_window_and_never_passes_the_cap():
    assert source_limit(1_000_000, 16_000) == SOURCE_CHARS  # a 1M window: the usual cap
    small = source_limit(200_000, 64_000)  # a 200k window answering in up to 64k tokens
    assert small < SOURCE_CHARS and small / source_context.SOURCE_CHARS_PER_TOKEN + 64_000 \
        + source_context.RESERVE_TOKENS <= 200_000
    assert source_limit(0, 16_000) == SOURCE_CHARS  # an unknown window


def test_the_lowest_ranked_file_is_cut_first_and_the_cut_is_listed():
    files = {"a.py": module("a", 60), "b.py": module("b", 60), "c.py": module("c", 60)}
    size = len(files["a.py"])
    # the map ranks c best, then a, then b: b is the one left out
    ranked = {"c.py": [(1, 2)], "a.py": [(1, 2), (4, 5)], "b.py": [(1, 2)]}
    shown, cut = bounded_sources_cut(files, limit=2 * size + 300, ranked=ranked)
    assert shown["c.py"] == files["c.py"] and shown["a.py"] == files["a.py"]
    assert shown["b.py"] != files["b.py"] and "not shown" in shown["b.py"]
    assert sum(len(t) for t in shown.values()) <= 2 * size + 300 + 200  # within the limit (plus the notes)
    assert cut[0].startswith("`b.py`: ") and "best ranked definitions" in cut[0]
    assert cut[-1].startswith("why: ") and "lowest ranked" in cut[-1]
    nothing, none = bounded_sources_cut(files, limit=10 * size, ranked=ranked)
    assert nothing == files and none == []


def test_the_cut_section_is_added_once_in_the_book_s_language():
    report = "# Research: ch01 — X\n\n## Sources\n\nText.\n"
    once = with_sources_cut(report, ["`b.py`: not shown (180 lines)", "why: too long"])
    assert once.count(CUT_HEADING["en"]) == 1 and once.endswith("- why: too long\n")
    assert with_sources_cut(once, ["`b.py`: not shown"]) == once
    assert CUT_HEADING["zh"] in with_sources_cut(report, ["x"], "zh")
    assert with_sources_cut(report, []) == report


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_book_whose_sources_do_not_fit_says_so_in_the_research_report(tmp_path, monkeypatch):
    """A whole offline build with a prompt budget smaller than the example's largest module (as
    a small context window would give): the chapter is researched from what fits, by rank, and its
    committed research report lists what was left out; the others have no such section."""
    monkeypatch.setattr(source_context, "source_limit_for", lambda cfg, role, max_tokens: 4_000)
    ws = make_example(tmp_path / "ws")
    code, _ = run_book(ws)
    assert code == 0
    reports = {p.name: p.read_text(encoding="utf-8") for p in (ws / "output/research").glob("ch*-report.md")}
    cut = {name: text for name, text in reports.items() if CUT_HEADING["en"] in text}
    assert cut, "no chapter's sources were cut"
    for name, text in cut.items():
        section = text.split(CUT_HEADING["en"], 1)[1]
        assert "`minikv/" in section and "why: " in section and "lowest ranked" in section, name
    book = Book.open(ws)
    try:
        chapters = book.scanner.outline.chapters
        # what the researcher is shown: the files with their line numbers, at their cost (issue 24 item 2)
        shown = {s: source_context.size(source_context.numbered((book.cfg.source_dir / s).read_text()))
                 for c in chapters for s in c.sources}
        big = {f"{c.id}-report.md" for c in chapters if any(shown[s] > 4_000 for s in c.sources)}
        small = {f"{c.id}-report.md" for c in chapters if c.sources} - big
    finally:
        book.close()
    assert big and big <= set(cut)  # e.g. minikv/store.py (10 kB) cannot fit 4,000 characters
    assert small and not (small & set(cut))  # chapters whose sources fit say nothing
    # and the book says so to its reader: the page of a chapter written from a partial view has the
    # note (issue 36 item 5), the others none; the note is an input of the page, read from the report
    for name in reports:
        page = (ws / "output/publish" / name.replace("-report.md", ".html")).read_text(encoding="utf-8")
        assert ('class="partial-view"' in page) == (name in cut), name
    ch = sorted(cut)[0].split("-", 1)[0]
    report = ws / "output/research" / f"{ch}-report.md"
    body, marker = report.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)
    # a person removes the section (the marker kept): the page is to be published again
    report.write_text(body.split(CUT_HEADING["en"], 1)[0].rstrip() + "\n\n" + marker + "\n", encoding="utf-8")
    book = Book.open(ws)
    try:
        assert "partial" in book.scanner.step(ch, "html").stale
    finally:
        book.close()


def test_the_definitions_whose_first_line_is_not_shown_are_named_most_needed_first():
    from orchestrator.agents.source_context import left_out_by_file, numbered

    text = numbered("".join(f"line {i}\n" for i in range(1, 201)))
    defs = {"a.py": [("Store.get", 120, 140), ("Store", 10, 190), ("helper", 195, 200), ("Store.put", 20, 40)],
            "b.py": [("main", 1, 5)]}
    shown, cut = bounded_sources_cut({"a.py": text, "b.py": numbered("x\n" * 50)}, 1_800,
                                     ranked={"a.py": [(20, 40)], "b.py": []})
    lost = left_out_by_file(shown, defs)
    assert "Store.put" not in lost["a.py"]  # its code was kept
    assert lost["a.py"][:2] == ["Store.get", "Store"]  # in the order given: most needed first
    report = with_sources_cut("# R\n", cut, left_out=lost)
    assert "`a.py`: " in report and "; left out: `Store.get`, `Store`" in report
