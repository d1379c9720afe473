"""Issue 13, item 3: text after a valid marker is a person's addition. The file is `edited`,
kept, used (its body is everything but the marker line) and published; a note appended to
outline.md does not replan the book."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from orchestrator.main import main
from orchestrator.state.markers import body_of, compose, find_marker, read_marker
from orchestrator.state.memory import read_body
from orchestrator.steps import BOOK_STEPS, STEPS
from orchestrator.testing.helpers import make_example, run_book

PARAGRAPH = "A person's closing paragraph: the write-ahead log is replayed on start."


def scan_json(capsys, monkeypatch, ws: Path) -> dict:
    monkeypatch.setattr(sys, "argv", ["book", "scan", "--json", "--workspace", str(ws)])
    try:
        main()  # the fast path returns; the typer path exits
    except SystemExit as e:
        assert not e.code
    return json.loads(capsys.readouterr().out)


def test_marker_then_text_is_a_body_with_the_text(tmp_path: Path):
    text = compose("# Title\n\nBody.", "CHAPTER_FINAL", {"draft": "abc"}, "r1") + "\n" + PARAGRAPH + "\n"
    p = tmp_path / "f.md"
    p.write_text(text)
    mk = read_marker(p)
    assert mk is not None and mk.name == "CHAPTER_FINAL" and mk.end > mk.offset
    assert find_marker(text.encode()) == mk
    body = body_of(text.encode()).decode()
    assert body.startswith("# Title\n\nBody.") and body.rstrip().endswith(PARAGRAPH) and "CHAPTER_FINAL" not in body
    assert read_body(tmp_path, "f.md").rstrip().endswith(PARAGRAPH)
    p.write_text("# Title\n\nno marker at all\n")
    assert read_marker(p) is None  # a marker-less file stays half-finished


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_paragraph_after_the_final_marker_is_kept_edited_and_published(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    final = ws / STEPS["final"].file("ch01")
    final.write_text(final.read_text() + "\n" + PARAGRAPH + "\n")
    outline = ws / BOOK_STEPS["outline"].path
    outline.write_text(outline.read_text() + "\nNote to self: ch02 could be shorter.\n")
    drafts = {p.name: p.read_text() for p in (ws / "output/chapters/draft").glob("*.md")}
    rep = scan_json(capsys, monkeypatch, ws)
    assert rep["chapters"]["ch01"]["steps"]["final"] == "edited"
    assert STEPS["final"].file("ch01") in rep["edited"] and BOOK_STEPS["outline"].path in rep["edited"]
    assert rep["half_finished"] == []
    code, _ = run_book(ws)
    assert code == 0
    assert final.read_text().rstrip().endswith(PARAGRAPH)  # kept, not set aside
    assert not list(final.parent.glob("*.bak*"))
    assert PARAGRAPH in (ws / "output/publish/ch01.html").read_text()
    # the note did not replan: the outline and every draft are as they were
    assert outline.read_text().rstrip().endswith("ch02 could be shorter.")
    assert {p.name: p.read_text() for p in (ws / "output/chapters/draft").glob("*.md")} == drafts
    assert scan_json(capsys, monkeypatch, ws)["complete"]


def book_cli(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["book", *args])
    try:
        main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


MINE = "This sentence was written by a person, not by the writer agent."


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_accept_a_person_s_marker_less_draft(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    draft = ws / STEPS["draft"].file("ch02")
    old = read_body(ws, STEPS["draft"].file("ch02"))
    mine = old.rstrip() + "\n\n" + MINE + "\n"
    draft.write_text(mine)  # no marker: half-finished until accepted
    assert scan_json(capsys, monkeypatch, ws)["chapters"]["ch02"]["steps"]["draft"] == "half_finished"
    code, msg = book_cli(capsys, monkeypatch, "scan", "--workspace", str(ws))
    assert "book accept" in msg
    code, msg = book_cli(capsys, monkeypatch, "accept", "ch02", "draft", "--workspace", str(ws))
    assert code == 0 and "accepted output/chapters/draft/ch02-draft.md" in msg and "book run" in msg
    text = draft.read_text()
    assert text.startswith(mine.rstrip()) and "by=person" in text.splitlines()[-1]
    rep = scan_json(capsys, monkeypatch, ws)
    assert rep["chapters"]["ch02"]["steps"]["draft"] == "edited"
    assert rep["chapters"]["ch02"]["steps"]["final"] == "stale"  # what follows is rebuilt from it
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    assert draft.read_text() == text  # kept as accepted
    final = read_marker(ws / STEPS["final"].file("ch02"))
    from orchestrator.state.markers import body_hash
    assert final is not None and final.inputs["draft"] == body_hash(mine.encode())
    assert scan_json(capsys, monkeypatch, ws)["complete"]


def test_accept_mistakes_exit_2(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=1)
    assert run_book(ws)[0] == 0
    code, msg = book_cli(capsys, monkeypatch, "accept", "ch09", "draft", "--workspace", str(ws))
    assert code == 2 and "ch09 is not in the outline" in msg and "ch01" in msg
    code, msg = book_cli(capsys, monkeypatch, "accept", "ch01", "drafts", "--workspace", str(ws))
    assert code == 2 and "unknown step 'drafts'" in msg and "research, draft" in msg
    (ws / STEPS["r1"].file("ch01")).unlink()
    code, msg = book_cli(capsys, monkeypatch, "accept", "ch01", "r1", "--workspace", str(ws))
    assert code == 2 and "there is no output/reviews/ch01-r1.md to accept" in msg


def test_accept_book_outline_keeps_a_person_s_plan(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    outline = ws / BOOK_STEPS["outline"].path
    body = read_body(ws, BOOK_STEPS["outline"].path)
    outline.write_text(body.replace("title: ", "title: Revised: ", 1))  # a person's plan, no marker
    code, msg = book_cli(capsys, monkeypatch, "accept", "book", "outline", "--workspace", str(ws))
    assert code == 0, msg
    assert scan_json(capsys, monkeypatch, ws)["book"]["outline"] == "edited"


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_corrected_glossary_definition_survives_and_is_published(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    gl = ws / "output/memory/glossary.md"
    lines = gl.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("- **"))
    term = lines[i].split("**")[1]
    lines[i] = lines[i].split("):", 1)[0] + "): A definition corrected by a person."
    gl.write_text("\n".join(lines) + "\n")
    code, _ = run_book(ws)
    assert code == 0
    assert f"- **{term}**" in gl.read_text() and "A definition corrected by a person." in gl.read_text()
    assert "A definition corrected by a person." in (ws / "output/memory/corrections.md").read_text()
    assert "A definition corrected by a person." in (ws / "output/publish/glossary.html").read_text()
    from orchestrator.state.book import Book
    from orchestrator.state.memory import long_memory

    book = Book.open(ws)
    try:  # what reviewers and later chapters read
        entries = {t: d for t, d, _ in long_memory(book, ["ch01", "ch02"]).glossary_entries()}
    finally:
        book.close()
    assert entries[term] == "A definition corrected by a person."
    assert run_book(ws)[0] == 0  # and it stays
    assert "A definition corrected by a person." in gl.read_text()
    assert scan_json(capsys, monkeypatch, ws)["complete"]


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_new_title_in_book_yaml_is_published_without_a_redraft(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    drafts = {p: p.read_text() for p in (ws / "output").rglob("*.md") if "/publish/" not in str(p)
              and "memory" not in p.parts}
    cfg = ws / "book.yaml"
    cfg.write_text("\n".join('title: "A Brand New Title"' if line.startswith("title:") else line
                             for line in cfg.read_text().splitlines()) + "\n")
    code, _ = run_book(ws)
    assert code == 0
    assert {p: p.read_text() for p in drafts} == drafts  # no draft, review or final rewritten
    assert "A Brand New Title" in (ws / "output/publish/index.html").read_text()
    assert "<title>" in (page := (ws / "output/publish/ch01.html").read_text()) and "A Brand New Title" in page


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_the_final_s_title_is_shown_everywhere(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    final = ws / STEPS["final"].file("ch01")
    text = final.read_text()
    old = next(line for line in text.splitlines() if line.startswith("# "))
    final.write_text(text.replace(old, "# A Title Chosen By A Person", 1))
    code, _ = run_book(ws)
    assert code == 0
    pub = ws / "output/publish"
    assert "<title>A Title Chosen By A Person" in (pub / "ch01.html").read_text()
    for name in ("ch02.html", "index.html"):
        assert "A Title Chosen By A Person" in (pub / name).read_text(), name
