"""The offline provider: bounded sources in prompts, and what the offline authors leave out."""

from __future__ import annotations


def ctx(sources: dict[str, str], max_chapters: int = 12, batch_size: int = 2) -> dict:
    return {"sources": sources, "limits": {"max_chapters": max_chapters, "batch_size": batch_size},
            "book": {"title": "T", "audience": "a", "brief": "b"}, "language": "en"}


def test_a_chapters_sources_are_bounded_in_a_prompt():
    from orchestrator.agents import bounded_sources

    big = "\n".join(f"x{i} = {i}" for i in range(5000))
    out = bounded_sources({"a.py": big, "b.py": big, "c.py": "y = 1\n"}, limit=len(big) + 3000)
    assert out["a.py"] == big  # the first file fits whole
    assert 100 < out["b.py"].count("\n") < 400 and "not shown" in out["b.py"]
    assert out["c.py"] == "y = 1\n"  # short files are never cut
    assert sum(len(t) for t in out.values()) <= len(big) + 3000 + 200  # the limit holds (notes aside)


def test_past_the_limit_a_file_shows_its_best_ranked_definitions_first():
    from orchestrator.agents import bounded_sources

    big = "\n".join(f"x{i} = {i}" for i in range(5000))
    # b.py is ranked first: it is whole; a.py shows its ranked definition (lines 4000-4010) and says what is left out
    out = bounded_sources({"a.py": big, "b.py": big}, limit=len(big) + 2000,
                          ranked={"b.py": [(1, 5000)], "a.py": [(4000, 4010), (1, 4999)]})
    assert out["b.py"] == big
    assert "x3999 = 3999\nx4000 = 4000" in out["a.py"] and "lines 1-3999 not shown" in out["a.py"]
    assert list(out) == ["a.py", "b.py"]  # the caller's order is kept


def test_the_auditor_gets_a_condensed_book_when_it_is_too_long():
    from orchestrator.agents import bounded_finals

    text = "# T\n\n## A\n\nfirst line\nsecond line\n\n```python\ncode\n```\n"
    assert bounded_finals({"ch01": text}) == {"ch01": text}
    short = bounded_finals({"ch01": text, "ch02": text}, limit=10)
    assert "second line" not in short["ch01"] and "first line" in short["ch01"] and "## A" in short["ch01"]
    assert "code" not in short["ch02"]
