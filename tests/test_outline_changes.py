"""Issue 13, item 5: a chapter deleted from the outline is retired (files moved aside, never
deleted; it leaves the site and the long memory; the book is complete again); a chapter
added is built; ids are unambiguous."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import scan

from orchestrator.errors import BookError
from orchestrator.outline import load
from orchestrator.steps import BOOK_STEPS, STEPS
from orchestrator.testing.helpers import make_example, run_book

OUTLINE = BOOK_STEPS["outline"].path


def drop_chapter(ws: Path, ch: str) -> None:
    """Delete chapter `ch`'s entry from outline.md, as a person would (then accept the plan)."""
    p = ws / OUTLINE
    text = p.read_text()
    text = re.sub(rf"(?ms)^ *- id: {ch}\n.*?(?=^ *- id: |^- title: |^```)", "", text)
    text = re.sub(r"(?m)^- title: [^\n]*\n  chapters:\n(?=- title: |```)", "", text)  # a part left empty goes too
    p.write_text(text)


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_deleted_chapter_is_retired(tmp_path: Path):
    ws = make_example(tmp_path / "ws", max_chapters=4)
    assert run_book(ws)[0] == 0
    # ch02: no other chapter depends on it in the example
    assert "ch02" not in (ws / OUTLINE).read_text().split("- id: ch02", 1)[1].split("```")[0].split("- id:", 1)[1:]
    final_text = (ws / STEPS["final"].file("ch02")).read_text()
    drop_chapter(ws, "ch02")
    from orchestrator.pipeline.accept import accept
    from orchestrator.state.book import Book

    book = Book.open(ws)
    try:
        accept(book, "book", "outline")
    finally:
        book.close()
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    assert not (ws / "output/publish/ch02.html").exists()
    assert not (ws / STEPS["final"].file("ch02")).exists()
    kept = list((ws / "output/retired").glob("ch02-*/" + STEPS["final"].file("ch02")))
    assert len(kept) == 1 and kept[0].read_text() == final_text  # moved aside whole
    for name in ("glossary.md", "chapter-summaries.md", "cross-references.md"):
        assert "(ch02)" not in (ws / "output/memory" / name).read_text() and "## ch02" not in \
            (ws / "output/memory" / name).read_text(), name
    assert "ch02.html" not in (ws / "output/publish/index.html").read_text()
    rep = scan(ws)
    assert rep["complete"] and "ch02" not in rep["chapters"]


def test_ch001_beside_ch01_is_an_error_naming_the_line(tmp_path: Path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    p = ws / OUTLINE
    text = p.read_text().replace("- id: ch02", "- id: ch001", 1)
    p.write_text(text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if "ch001" in s)
    with pytest.raises(BookError) as e:
        load(ws)
    msg = str(e.value)
    assert "ch001 is ambiguous beside ch01" in msg and f":{line}" in msg


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_renaming_a_chapter_redrafts_only_that_chapter(tmp_path: Path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    p = ws / OUTLINE
    text = p.read_text()
    old = re.search(r"(?m)^ *- id: ch01\n +title: (.+)$", text).group(1)
    p.write_text(text.replace(f"title: {old}", "title: The Renamed Chapter", 1))
    others = {ch: (ws / STEPS["draft"].file(ch)).read_text() for ch in ("ch02",)}
    assert run_book(ws)[0] == 0
    # ch02 depends on ch01 and names it: still not redrafted
    assert {ch: (ws / STEPS["draft"].file(ch)).read_text() for ch in others} == others
    index = (ws / "output/publish/index.html").read_text()
    assert "The Renamed Chapter" in index and old not in index
    # ch02's final still says the old title in its links; its page shows the new one
    assert f"[{old}](ch01.md)" in (ws / STEPS["final"].file("ch02")).read_text()
    page = (ws / "output/publish/ch02.html").read_text()
    assert '<a href="ch01.html">The Renamed Chapter</a>' in page and f">{old}</a>" not in page
    assert scan(ws)["complete"]
