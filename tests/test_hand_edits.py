"""Everyday edits a person makes to a built book between runs, and what the next scan and
run do with them: the person's bytes are kept, only what the edit invalidates is redone,
and what cannot be used is said, naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import from_an_earlier_session, scan

from orchestrator.steps import STEPS
from orchestrator.testing.helpers import run_book

BOM = b"\xef\xbb\xbf"


def _saved_by_windows_notepad(p: Path) -> bytes:
    """The same text saved with CRLF line endings and a byte-order mark."""
    data = BOM + p.read_bytes().replace(b"\n", b"\r\n")
    p.write_bytes(data)
    return data


def test_a_crlf_and_bom_save_of_an_unchanged_draft_is_not_an_edit(built_ws: Path):
    draft = built_ws / STEPS["draft"].file("ch02")
    data = _saved_by_windows_notepad(draft)
    rep = scan(built_ws)
    assert rep["chapters"]["ch02"]["steps"]["draft"] == "done"
    assert rep["stale"] == [] and rep["edited"] == []
    code, summary = run_book(built_ws)
    assert code == 0 and summary.generated == []  # nothing to redo: the words are the same
    assert draft.read_bytes() == data  # and the person's bytes are left alone


def test_an_edited_draft_saved_with_a_bom_gets_its_final(built_ws: Path):
    draft = built_ws / STEPS["draft"].file("ch02")
    text = draft.read_text()
    edited = text.replace("\n## ", "\nA sentence a person added.\n\n## ", 1)
    assert edited != text
    draft.write_bytes(BOM + edited.replace("\n", "\r\n").encode())
    mine = draft.read_bytes()
    assert scan(built_ws)["chapters"]["ch02"]["steps"]["draft"] == "edited"
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human  # the final's `# ` title is found behind the BOM
    assert draft.read_bytes() == mine
    final = (built_ws / STEPS["final"].file("ch02")).read_text()
    assert final.startswith("# ") and "A sentence a person added." in final and "\r" not in final
    page = (built_ws / STEPS["html"].file("ch02")).read_text()
    assert "A sentence a person added." in page


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_final_saved_with_a_bom_keeps_its_title_on_the_page(built_ws: Path):
    final = built_ws / STEPS["final"].file("ch03")
    title = "Reading and writing files, by hand"  # a new title too: the page shows the final's `# ` line
    lines = final.read_text().split("\n")
    lines[0] = f"# {title}"
    final.write_bytes(BOM + "\n".join(lines).replace("\n\n<!--", "\n\nA closing line by hand.\n\n<!--").encode())
    assert scan(built_ws)["chapters"]["ch03"]["steps"]["final"] == "edited"
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    page = (built_ws / STEPS["html"].file("ch03")).read_text()
    assert f"<title>{title}" in page and "A closing line by hand." in page
    assert "\ufeff" not in page


def test_a_title_with_a_colon_breaks_the_outline_and_the_scan_says_only_that(built_ws: Path):
    from orchestrator.steps import BOOK_STEPS
    from orchestrator.testing.cli import run_cli

    outline = built_ws / BOOK_STEPS["outline"].path
    text = outline.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("    title: "))  # a chapter's (under its part)
    outline.write_text(text.replace(line, "    title: The store: how a key finds its value", 1))
    lineno = 1 + outline.read_text().splitlines().index("    title: The store: how a key finds its value")
    rep = scan(built_ws)
    err = rep["outline_error"]
    assert f"outline.md:{lineno}:" in err and "quotes" in err  # where, and how to write it
    # an outline that cannot be read makes nothing stale: the book waits for the fix
    assert rep["stale"] == [] and rep["discrepancies"] == []
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 2 and f"outline.md:{lineno}:" in proc.stderr
    assert "disagreement" not in proc.stderr and "stale" not in proc.stderr
    proc = run_cli("run", "--dry-run", "--workspace", str(built_ws))
    assert proc.returncode == 2 and f"outline.md:{lineno}:" in proc.stderr and "planned once" not in proc.stdout


def _glossary_terms(ws: Path) -> dict[str, str]:
    from orchestrator.state.book import Book
    from orchestrator.state.memory import long_memory

    book = Book.open(ws)
    try:  # what reviewers and later chapters read
        return {t: d for t, d, _ in long_memory(book, book.scanner.chapters()).glossary_entries()}
    finally:
        book.close()


ADDED = "- **Write-ahead log**: the file every change is appended to before it is applied."


def test_a_term_a_person_adds_to_or_removes_from_the_glossary_stays_so(built_ws: Path):
    gl = built_ws / "output/memory/glossary.md"
    text = gl.read_text()
    gone = next(ln for ln in text.splitlines() if ln.startswith("- **LRUCache**"))
    mine = text.replace(gone + "\n", "").replace("\n\n<!--", "\n" + ADDED + "\n\n<!--")
    gl.write_text(mine)
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert [b.read_text() for b in gl.parent.glob("glossary.md.bak.*")] == [mine]  # the person's bytes
    corrections = (built_ws / "output/memory/corrections.md").read_text()
    assert ADDED in corrections and "- ~~**LRUCache**~~" in corrections
    rebuilt = gl.read_text()
    assert "**Write-ahead log**" in rebuilt and "**LRUCache**" not in rebuilt
    terms = _glossary_terms(built_ws)
    assert "LRUCache" not in terms and terms["Write-ahead log"].startswith("the file every change")
    page = (built_ws / "output/publish/glossary.html").read_text()
    assert "Write-ahead log" in page and 'id="lrucache"' not in page
    code, summary = run_book(built_ws)  # and it stays so
    assert code == 0 and summary.generated == [] and gl.read_text() == rebuilt


def test_a_glossary_edited_without_its_marker_still_gives_up_its_corrections(built_ws: Path):
    gl = built_ws / "output/memory/glossary.md"
    body = gl.read_text().rsplit("\n<!--", 1)[0]
    line = next(ln for ln in body.splitlines() if ln.startswith("- **Store**"))
    mine = body.replace(line, "- **Store** (ch07): the one object a program opens.") + "\n" + ADDED + "\n"
    gl.write_text(mine)  # a whole-file paste: no marker line
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    corrections = (built_ws / "output/memory/corrections.md").read_text()
    assert "- **Store**: the one object a program opens." in corrections and ADDED in corrections
    terms = _glossary_terms(built_ws)
    assert terms["Store"] == "the one object a program opens." and "Write-ahead log" in terms
    assert "Record" in terms  # a marker-less file removes nothing: it may have been cut short


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_final_rewritten_without_its_marker_is_kept_and_waits_for_the_person(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    final = built_ws / STEPS["final"].file("ch03")
    mine = final.read_text().rsplit("\n<!--", 1)[0].rstrip() + "\n\n## A closing word\n\nWritten by hand.\n"
    final.write_text(mine)  # pasted over the whole file: the marker line is gone
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 3, proc.stderr
    assert final.read_text() == mine and not list(final.parent.glob("ch03-final.md.bak.*"))
    rel = STEPS["final"].file("ch03")
    assert rel in proc.stderr and "book accept ch03 final" in proc.stderr and "book redo ch03 final" in proc.stderr
    needs = (built_ws / "output/memory/needs-human.md").read_text()
    assert rel in needs and "book accept ch03 final" in needs
    assert f"- {rel}: half-finished, looks complete: kept for you" in (built_ws / "RESUME.md").read_text()
    view = run_cli("scan", "--workspace", str(built_ws)).stdout
    assert f"{rel} (looks complete: kept for you" in view
    # the person adopts it: it is published as written, and kept from then on
    assert run_cli("accept", "ch03", "final", "--workspace", str(built_ws)).returncode == 0
    assert run_cli("run", "--workspace", str(built_ws)).returncode == 0
    assert final.read_text().startswith(mine.rstrip()) and "Written by hand." in (
        built_ws / STEPS["html"].file("ch03")).read_text()


def test_a_marker_less_draft_cut_short_is_still_backed_up_and_redone(built_ws: Path):
    draft = built_ws / STEPS["draft"].file("ch03")
    body = draft.read_text().rsplit("\n<!--", 1)[0]
    cut = body[: body.index("\n## ", 200) + 30].rstrip(" .")  # ends mid-sentence
    draft.write_text(cut)
    from_an_earlier_session(draft)  # before this run: a crash's leftover by the rules (one saved during it is kept)
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert [b.read_text() for b in draft.parent.glob("ch03-draft.md.bak.*")] == [cut]
    assert scan(built_ws)["complete"]


def test_chapters_listed_out_of_order_in_the_outline_are_named_by_the_scan(built_ws: Path):
    from orchestrator.steps import BOOK_STEPS

    outline = built_ws / BOOK_STEPS["outline"].path
    text = outline.read_text()
    a, b, end = text.index("- id: ch02"), text.index("- id: ch03"), text.index("- id: ch04")
    outline.write_text(text[:a] + text[b:end] + text[a:b] + text[end:])
    rep = scan(built_ws)
    assert any("outline.md lists ch03 before ch02" in w and "swap the ids" in w for w in rep["warnings"])
    assert rep["stale"] == ["output/memory/source-map.md"]  # nothing of the chapters is redone


def test_a_draft_saved_as_latin_1_is_named_with_its_line(built_ws: Path):
    draft = built_ws / STEPS["draft"].file("ch02")
    lines = draft.read_bytes().split(b"\n")
    lines[2] = lines[2] + " Caf\u00e9 au lait.".encode("latin-1")
    draft.write_bytes(b"\n".join(lines))
    rep = scan(built_ws)
    assert rep["chapters"]["ch02"]["steps"]["draft"] == "edited"
    assert [w for w in rep["warnings"] if "UTF-8" in w] == [
        f"{STEPS['draft'].file('ch02')}:3: not UTF-8 (byte 0xe9); the book reads \ufffd in its place: save the file as UTF-8"]
    from orchestrator.testing.cli import run_cli

    before = {p: p.read_bytes() for p in (built_ws / "output").rglob("*") if p.is_file() and ".book" not in p.parts}
    proc = run_cli("run", "--workspace", str(built_ws))
    # refused (issue 25): a mis-decoded text is never published; the file and line are named
    assert proc.returncode == 2 and f"{STEPS['draft'].file('ch02')}:3: not UTF-8" in proc.stderr
    assert "save the file(s) as UTF-8" in proc.stderr
    after = {p: p.read_bytes() for p in (built_ws / "output").rglob("*") if p.is_file() and ".book" not in p.parts}
    assert after == before  # nothing ran


def test_a_review_edited_while_the_run_regenerates_it_is_kept(built_ws: Path, capsys):
    from orchestrator.providers.offline import OfflineProvider

    review = built_ws / STEPS["r1"].file("ch03")
    edited: list[str] = []

    class PersonAtTheKeyboard(OfflineProvider):
        async def generate(self, req, sink):
            if (req.chapter, req.step) == ("ch03", "r1"):  # the person saves while the model writes
                text = review.read_text()
                head, marker = text.rsplit("\n<!--", 1)
                edited.append(head.rstrip() + "\n\nA note by hand, saved during the run.\n\n<!--" + marker)
                review.write_text(edited[0])
            return await super().generate(req, sink)

    draft = built_ws / STEPS["draft"].file("ch03")
    draft.write_text(draft.read_text().replace("\n## ", "\nA sentence a person added.\n\n## ", 1))
    code, summary = run_book(built_ws, provider=PersonAtTheKeyboard(), quiet=False)
    assert code == 0, summary.needs_human
    assert review.read_text() == edited[0]  # the person's save wins over the answer in flight
    rel = STEPS["r1"].file("ch03")
    err = capsys.readouterr().err
    assert f"{rel} was edited while this run rewrote it" in err and f"{rel}.partial" in err
    assert "R1_CODE_REVIEW_COMPLETE" in (built_ws / (rel + ".partial")).read_text()  # the new answer, beside it
    rep = scan(built_ws)
    assert rep["chapters"]["ch03"]["steps"]["r1"] == "edited"


def test_a_draft_edited_during_the_run_stops_its_chapter_with_a_word(built_ws: Path, capsys):
    from orchestrator.providers.offline import OfflineProvider
    from orchestrator.steps import CHECKPOINT

    draft = built_ws / STEPS["draft"].file("ch03")

    class PersonAtTheKeyboard(OfflineProvider):
        async def generate(self, req, sink):
            if (req.chapter, req.step) == ("ch03", "r1") and "second edit" not in draft.read_text():
                draft.write_text(draft.read_text().replace("\n## ", "\nA second edit, during the run.\n\n## ", 1))
            return await super().generate(req, sink)

    draft.write_text(draft.read_text().replace("\n## ", "\nA first edit, before the run.\n\n## ", 1))
    code, summary = run_book(built_ws, provider=PersonAtTheKeyboard(), quiet=False)
    # the reviews were made from the first edit: the chapter cannot go on in this run, and says so
    assert code == 3 and "changed during this run" in summary.needs_human["ch03"]
    err = capsys.readouterr().err
    assert "ch03" in err and "changed during this run" in err and "book run" in err
    assert "A second edit, during the run." in draft.read_text()
    rep = scan(built_ws)
    assert rep["chapters"]["ch03"]["steps"]["r1"] == "stale"  # made from the first edit
    assert rep["discrepancies"] == []  # the last checkpoint.md says so too
    row = next(ln for ln in (built_ws / CHECKPOINT).read_text().splitlines() if ln.startswith("| ch03 |"))
    assert "🔄" in row
    code, summary = run_book(built_ws)  # the next run brings it up to date
    assert code == 0, summary.needs_human
    assert "A second edit, during the run." in (built_ws / STEPS["final"].file("ch03")).read_text()


def test_a_memory_file_a_run_cannot_read_is_named_by_the_scan_first(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    mem = built_ws / STEPS["memory"].file("ch02")
    head, marker = mem.read_text().rsplit("\n<!--", 1)
    mem.write_text(head.rstrip() + "\n\n## My notes\n\nMention the eviction order.\n\n<!--" + marker)
    line = 1 + mem.read_text().splitlines().index("## My notes")
    rep = scan(built_ws)
    want = f"{STEPS['memory'].file('ch02')}:{line}: unknown section `## My notes`"
    assert any(w.startswith(want) for w in rep["warnings"]), rep["warnings"]
    proc = run_cli("run", "--workspace", str(built_ws))
    # the steps that read it fail, naming the same line; the rest of the book goes on (exit 3: a person's turn)
    assert proc.returncode == 3 and want in proc.stderr


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_draft_copied_over_the_final_is_kept_and_named_as_a_copy(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    final = built_ws / STEPS["final"].file("ch02")
    draft = (built_ws / STEPS["draft"].file("ch02")).read_bytes()
    final.write_bytes(draft)  # "my draft is good enough as the final"
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 3 and final.read_bytes() == draft
    assert "has no CHAPTER_FINAL marker but looks complete (its marker is DRAFT_COMPLETE" in proc.stderr
    assert run_cli("accept", "ch02", "final", "--workspace", str(built_ws)).returncode == 0
    assert run_cli("run", "--workspace", str(built_ws)).returncode == 0
    text = final.read_text()
    assert "DRAFT_COMPLETE" not in text and "by=person" in text.splitlines()[-1]
    assert scan(built_ws)["complete"]


def test_a_person_s_notes_in_resume_md_are_carried_over(built_ws: Path):
    resume = built_ws / "RESUME.md"
    notes = "## My notes\n\nRemember: chapter 4 needs a diagram.\n\n### And\n\n- ask Ana about the WAL\n"
    resume.write_text(resume.read_text() + "\n" + notes)
    draft = built_ws / STEPS["draft"].file("ch03")
    draft.write_text(draft.read_text().replace("\n## ", "\nA sentence a person added.\n\n## ", 1))
    for _ in range(2):  # every rewrite of the letter keeps them, once
        code, summary = run_book(built_ws)
        assert code == 0, summary.needs_human
        text = resume.read_text()
        assert text.count(notes) == 1 and text.startswith("# RESUME") and "## Next steps" in text


def test_an_edited_metaphor_registry_says_where_to_edit_instead(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    reg = built_ws / "output/memory/metaphor-registry.md"
    head, rest = reg.read_text().split("\n", 1)  # the demo's chapters draw no image: a person adds one
    mine = f"{head}\n- **(mine) a lighthouse**: it stands still and shows the way\n{rest}"
    reg.write_text(mine)
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 0
    assert "output/memory/metaphor-registry.md was changed by hand" in proc.stderr
    assert "edit the chapter's own output/memory/chapters/chNN.md" in proc.stderr
    assert [b.read_text() for b in reg.parent.glob("metaphor-registry.md.bak.*")] == [mine]


def test_a_style_guide_pasted_without_its_marker_is_kept(built_ws: Path):
    from orchestrator.steps import BOOK_STEPS
    from orchestrator.testing.cli import run_cli

    guide = built_ws / BOOK_STEPS["style_guide"].path
    mine = ("# Style guide\n\n- Short sentences, in the present tense.\n"
            "- Every code block is followed by a sentence on what it shows and why it matters.\n")
    guide.write_text(mine)
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 3 and guide.read_text() == mine
    assert "book accept book style_guide" in proc.stderr
    assert run_cli("accept", "book", "style_guide", "--workspace", str(built_ws)).returncode == 0
    assert guide.read_text().startswith(mine.rstrip())
    rep = scan(built_ws)
    assert rep["book"]["style_guide"] == "edited"
    assert "output/chapters/draft/ch01-draft.md" in rep["stale"]  # the drafts are written to it now


def test_a_new_chapter_started_by_hand_is_not_retired(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    mine = built_ws / STEPS["draft"].file("ch09")
    text = ("# Compaction\n\nA chapter a person started by hand, before adding it to the outline. "
            "It explains how the store merges its tables.\n")
    mine.write_text(text)
    view = run_cli("scan", "--workspace", str(built_ws)).stdout
    assert "ch09 is not in the outline: add an entry for it to output/memory/outline.md" in view
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    assert mine.read_text() == text and not (built_ws / "output/retired").exists()
    assert "ch09 is not in the outline, but output/chapters/draft/ch09-draft.md is there" in proc.stderr
    assert "no longer in the outline" not in proc.stderr


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_run_names_what_a_person_changed_while_it_went(built_ws: Path, capsys):
    from orchestrator.providers.offline import OfflineProvider

    other = built_ws / STEPS["draft"].file("ch04")

    class PersonAtTheKeyboard(OfflineProvider):
        async def generate(self, req, sink):
            if req.step == "audit" and "during the audit" not in other.read_text():  # after every chapter step
                other.write_text(other.read_text().replace("\n## ", "\nSaved during the audit.\n\n## ", 1))
            return await super().generate(req, sink)

    final = built_ws / STEPS["final"].file("ch02")
    final.write_text(final.read_text().replace("\n## ", "\nA line by hand.\n\n## ", 1))  # work for the run
    code, summary = run_book(built_ws, provider=PersonAtTheKeyboard(), quiet=False)
    assert code == 0, summary.needs_human
    err = capsys.readouterr().err
    assert f"changed while this run went: {STEPS['r1'].file('ch04')}" in err and "`book run` again" in err
    assert "ch02" not in err.split("changed while this run went")[1]  # only what the person changed meanwhile
    assert run_book(built_ws)[0] == 0 and scan(built_ws)["stale"] == []


def test_corrections_written_by_hand_in_everyday_forms_are_read_or_named(built_ws: Path):
    from orchestrator.testing.cli import run_cli

    corr = built_ws / "output/memory/corrections.md"
    corr.write_text("# Corrections\n\n## Glossary\n\n"
                    "- Store: the one object a program opens.\n"
                    "* **MemTable**: the in-memory table of recent writes.\n"
                    "- **SSTable** - a sorted file on disk.\n"
                    "- **Record:** one key and its value.\n"
                    "- ~~LRUCache~~\n"
                    "Some words that are no entry at all.\n"
                    "\n## Summaries\n\n### ch2\n\nA summary under a heading that names no chapter.\n")
    terms = _glossary_terms(built_ws)
    assert terms["Store"] == "the one object a program opens."
    assert terms["MemTable"] == "the in-memory table of recent writes."
    assert terms["SSTable"] == "a sorted file on disk." and terms["Record"] == "one key and its value."
    assert "LRUCache" not in terms
    warnings = scan(built_ws)["warnings"]
    lines = corr.read_text().splitlines()
    for bad in ("Some words that are no entry at all.", "### ch2"):
        at = f"output/memory/corrections.md:{lines.index(bad) + 1}:"
        assert any(w.startswith(at) for w in warnings), (at, warnings)
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 0 and "output/memory/corrections.md:" in proc.stderr
    assert "the one object a program opens." in (built_ws / "output/memory/glossary.md").read_text()
