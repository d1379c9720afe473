"""The offline provider: bounded sources in prompts, and what the offline authors leave out."""

from __future__ import annotations


def ctx(sources: dict[str, str], max_chapters: int = 12, batch_size: int = 2) -> dict:
    return {"sources": sources, "limits": {"max_chapters": max_chapters, "batch_size": batch_size},
            "book": {"title": "T", "audience": "a", "brief": "b"}, "language": "en"}


def test_a_chapters_sources_are_bounded_in_a_prompt():
    from orchestrator.agents import bounded_sources

    big = "\n".join(f"x{i} = {i}" for i in range(5000))
    out = bounded_sources({"a.py": big, "b.py": big, "c.py": "y = 1\n"}, limit=len(big) + 10)
    assert out["a.py"] == big  # the first file fits whole
    assert out["b.py"].count("\n") < 130 and "more lines not shown" in out["b.py"]
    assert out["c.py"] == "y = 1\n"  # short files are never cut


def test_the_auditor_gets_a_condensed_book_when_it_is_too_long():
    from orchestrator.agents import bounded_finals

    text = "# T\n\n## A\n\nfirst line\nsecond line\n\n```python\ncode\n```\n"
    assert bounded_finals({"ch01": text}) == {"ch01": text}
    short = bounded_finals({"ch01": text, "ch02": text}, limit=10)
    assert "second line" not in short["ch01"] and "first line" in short["ch01"] and "## A" in short["ch01"]
    assert "code" not in short["ch02"]
