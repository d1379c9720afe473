"""A person's note in checkpoint.md survives the runs that rewrite it (issue 39, item 4)."""

from __future__ import annotations

import shutil

import pytest
from conftest import make_example, scan

from orchestrator.state import checkpoint_notes as notes
from orchestrator.testing.helpers import run_book

VIEW = "# Book — Progress checkpoint\n\nLast updated: 2026-01-01 10:00 UTC\nCurrent phase: 3\n\n| Chapter | Write |\n|--|--|\n| ch01 | ✅ |\n"
WORDS = ("Last updated", "Current phase")


def test_a_line_added_among_the_tables_is_moved_to_the_notes_with_where_it_came_from():
    mine = VIEW.replace("| ch01 | ✅ |\n", "| ch01 | ✅ |\nAsk Dana about ch03's diagram before Friday.\n")
    fresh = VIEW.replace("10:00", "10:05")
    out = notes.keep(fresh, mine, VIEW, "en", WORDS)
    view, kept = notes.split(out)
    assert view.rstrip() == fresh.rstrip()
    assert "Ask Dana about ch03's diagram before Friday." in kept and "moved here on" in kept
    again = notes.keep(fresh.replace("10:05", "10:09"), out, out, "en", WORDS)  # the next rewrite: kept once
    assert notes.split(again)[1] == kept


def test_the_notes_section_is_carried_over_verbatim_and_an_untouched_file_gets_none():
    assert notes.keep(VIEW, VIEW, VIEW, "en", WORDS) == VIEW
    written = VIEW + "\n" + notes.HEADING["en"] + "\nmy own\n\n  indented *markdown*\n"
    out = notes.keep(VIEW.replace("10:00", "11:00"), written, written, "en", WORDS)
    assert notes.split(out)[1] == "my own\n\n  indented *markdown*\n"


def test_without_the_copy_of_what_was_written_last_a_person_s_line_is_still_kept():
    mine = VIEW + "TODO: re-read ch02 with the new glossary\n"
    fresh = VIEW.replace("10:00", "12:00").replace("Current phase: 3", "Current phase: 4")
    kept = notes.split(notes.keep(fresh, mine, None, "en", WORDS))[1]
    assert "TODO: re-read ch02 with the new glossary" in kept
    assert "Current phase" not in kept and "Last updated" not in kept and "| ch01" not in kept


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_note_in_checkpoint_md_is_still_in_the_workspace_after_a_run_that_does_work(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    cp = ws / "output/memory/checkpoint.md"
    text = cp.read_text(encoding="utf-8")
    note = "Note to self: ch02's example needs the v2 API."
    cp.write_text(text.replace("\n## Phase 4", f"\n{note}\n\n## Phase 4", 1), encoding="utf-8")
    (ws / "output/chapters/final/ch02-final.md").unlink()  # work for the next run
    assert run_book(ws)[0] == 0
    after = cp.read_text(encoding="utf-8")
    assert note in notes.split(after)[1]
    assert scan(ws)["discrepancies"] == []  # the notes are not read as the view's tables
    # a note written in the notes section itself, and a deleted `.book/` (no copy of the last write)
    cp.write_text(after + "and one more line of mine\n", encoding="utf-8")
    shutil.rmtree(ws / "output/.book")
    (ws / "output/chapters/final/ch01-final.md").unlink()
    assert run_book(ws)[0] == 0
    kept = notes.split(cp.read_text(encoding="utf-8"))[1]
    assert note in kept and "and one more line of mine" in kept
    assert kept.count(note) == 1
