"""Marker words in the source are data (issue 39, item 5): a source whose docstrings, comments and
README name every completion marker ("The CHAPTER_FINAL marker ends a chapter.") makes a book
like any other, in both writers: the words are quoted as code, never read as a marker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_example

from orchestrator.contracts.markers_guard import MARKER_NAMES, marker_problems
from orchestrator.state.markers import read_marker
from orchestrator.text.markdown import code_marker_words, safe
from orchestrator.text.markup import inline

BOOK = str(Path(sys.executable).parent / "book")
NAMES = " ".join(MARKER_NAMES)
COMMENTS = " ".join(f"<!-- {n} -->" for n in MARKER_NAMES)


def name_every_marker(ws: Path) -> None:
    """Every marker, by name and as a comment, in a module docstring, a function's docstring, a
    comment, and the README."""
    files = sorted((ws / "src").rglob("*.py"))
    for f in files[:3]:
        text = f.read_text(encoding="utf-8")
        f.write_text(f'"""The CHAPTER_FINAL marker ends a chapter. Markers: {NAMES}.\n\nA file ends with\n'
                     f'{COMMENTS}\nand needs_human_review or NEEDS HUMAN REVIEW waits for a person.\n"""\n'
                     f"# the editor writes <!-- CHAPTER_FINAL --> last\n{text}\n\n"
                     f"def finish(path):\n    \"\"\"Write CHAPTER_FINAL and <!-- DRAFT_COMPLETE --> at the end.\"\"\"\n"
                     f"    return path  # NEEDS_HUMAN_REVIEW when it cannot\n", encoding="utf-8")
    readme = ws / "src/README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + f"\n\nEvery step ends with a marker ({NAMES}).\n\n"
                      f"{COMMENTS}\n", encoding="utf-8")


def test_marker_names_from_the_source_become_code_spans_the_guard_passes():
    line = f"The CHAPTER_FINAL marker ends a chapter: {NAMES}; needs human review is prose, MAX_SIZE a constant"
    out = code_marker_words(line)
    assert "`CHAPTER_FINAL`" in out and "`NEEDS_HUMAN_REVIEW`" in out and "needs human review is prose" in out
    assert "`MAX_SIZE`" not in out and marker_problems(out) == []
    for text in (inline(f"Ends with {COMMENTS} and CHAPTER_FINAL."), safe(f"{COMMENTS}\nCHAPTER FINAL\n")):
        assert marker_problems(text) == [], text
    assert code_marker_words("already `CHAPTER_FINAL` quoted") == "already `CHAPTER_FINAL` quoted"


def finals_marked(ws: Path) -> list[str]:
    finals = sorted((ws / "output/chapters/final").glob("ch*-final.md"))
    assert finals and all(read_marker(p) is not None for p in finals)
    return [p.name for p in finals]


@pytest.mark.slow
def test_a_source_naming_every_marker_makes_an_offline_book_that_exits_0(tmp_path):
    ws = make_example(tmp_path / "ws")
    name_every_marker(ws)
    proc = subprocess.run([BOOK, "run", "-q", "--workspace", str(ws)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    finals_marked(ws)


@pytest.mark.slow
def test_a_source_naming_every_marker_makes_a_book_through_the_messages_api(tmp_path):
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer)
    url = api.start()
    try:
        ws = make_example(tmp_path / "ws", budget_usd=50)
        name_every_marker(ws)
        env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-test-markers", ANTHROPIC_BASE_URL=url)
        proc = subprocess.run([BOOK, "run", "--provider", "anthropic", "-q", "--workspace", str(ws)], env=env,
                              capture_output=True, text=True, timeout=600)
    finally:
        api.stop()
    assert proc.returncode == 0, proc.stderr
    finals_marked(ws)
