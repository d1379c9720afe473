"""Redo at the grain of the section (issue 24 item 5): a chapter whose claims went stale when the
source moved has only the sections holding them rewritten; the files made from the draft follow
it without a model call; a person's sections are kept; a kill at any instant loses nothing."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import crash_points, killed_at, mutations_while, scan
from test_run import normalised

from orchestrator import agents
from orchestrator.errors import ValidationFailed
from orchestrator.evidence import sections as S
from orchestrator.evidence.follow import stale_sections
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state.book import Book
from orchestrator.state.markers import read_marker
from orchestrator.state.memory import read_body
from orchestrator.steps import DRAFT, FINAL, PANEL, R1, R2, R3, STEPS
from orchestrator.testing.helpers import run_book

CHAPTER = "# T\n\nThe opening.\n\n## A\n\nabout a\n\n```python\n## not a heading\n```\n\n## B\n\nabout b\n"


def test_a_chapter_splits_into_its_sections_and_splices_back_by_heading():
    secs = S.split(CHAPTER)
    assert [s.head for s in secs] == [S.OPENING, "A", "B"]  # a `## ` inside a fence is code
    assert "\n".join(s.text for s in secs) == CHAPTER
    new = S.splice(CHAPTER, "## A\n\nnew words about a")
    assert new == "# T\n\nThe opening.\n\n## A\n\nnew words about a\n\n## B\n\nabout b\n"
    assert S.edited(new, S.hashes(CHAPTER)) == ["A"] and S.edited(CHAPTER, S.hashes(CHAPTER)) == []
    assert S.edited(CHAPTER + "\n## C\n\nmore\n", S.hashes(CHAPTER)) is None  # sections added: not told
    m = S.line_map(CHAPTER, new)
    assert m[1] == 1 and m[len(CHAPTER.split("\n")) - 1] == len(new.split("\n")) - 1  # B's lines moved up
    with pytest.raises(ValueError, match="no section 'C'"):
        S.splice(CHAPTER, "## C\n\nx")


def test_a_section_answer_must_be_exactly_the_sections_asked_for():
    from orchestrator.agents.validation import clean_and_validate

    ctx = {"rewrite_sections": ["A"], "current_text": CHAPTER, "language": "en", "chapters": [],
           "chapter": {"id": "ch02"}}
    for bad, why in (("# T\n\n## A\n\nx", "no title line"), ("## B\n\nx", "exactly the sections"),
                     ("## A\n\nx\n\n## B\n\ny", "exactly the sections"), ("## A\n\n```\nopen", "line 3")):
        with pytest.raises(ValidationFailed, match=why):
            clean_and_validate(DRAFT, bad, ctx)
    whole = clean_and_validate(DRAFT, "## A\n\n" + "New words about a, a sentence long enough. " * 8, ctx)
    assert whole.startswith("# T\n\nThe opening.\n\n## A\n\nNew words") and whole.endswith("## B\n\nabout b\n")


def _moved(ws: Path) -> tuple[str, str]:
    """Change a line the book quotes (the source's next release): (the chapter, the section) that holds it."""
    store = ws / "src/minikv/store.py"
    store.write_text(store.read_text().replace("class Store:", "class Store:  # the store", 1))
    book = Book.open(ws)
    try:
        for ch in book.scanner.chapters():
            st = book.scanner.step(ch, FINAL)
            stale = stale_sections(ws, ws / "src", ch, read_body(ws, st.path), st.marker.extra.get("sections"))
            if stale is not None:
                assert not stale.whole and len(stale.rewrite) == 1
                return ch, stale.rewrite[0]
    finally:
        book.close()
    raise AssertionError("no chapter quotes `class Store:`")


def _steps_called(ws: Path, run: str) -> list[tuple[str, str]]:
    with sqlite3.connect(ws / "output/.book/state.db") as c:
        return c.execute("SELECT chapter, step FROM llm_calls WHERE run = ?", (run,)).fetchall()


def _marker_inputs_true(ws: Path, ch: str) -> None:
    """Every step file of the chapter ends with a marker whose body hash and inputs are today's."""
    book = Book.open(ws)
    try:
        for key in STEPS:
            st = book.scanner.step(ch, key)
            assert st.status in ("done", "edited") and not st.stale, (key, st.status, st.stale)
            if st.status == "done" and key != "html":
                assert st.marker.inputs == {k: v for k, v in book.scanner.input_hashes(ch, key).items()
                                            if v is not None}, key
    finally:
        book.close()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_changed_quote_rewrites_only_the_section_that_holds_it(built_ws: Path):
    ch, head = _moved(built_ws)
    draft_path = built_ws / STEPS[DRAFT].file(ch)
    before = {s.head: s.text for s in S.split(read_body(built_ws, STEPS[DRAFT].file(ch)))}
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    called = _steps_called(built_ws, summary.run_id)
    assert {s for c, s in called if c == ch} == {"research", DRAFT, "memory", FINAL}  # no review by a model
    assert {c for c, _ in called if c} == {ch}
    after = {s.head: s.text for s in S.split(read_body(built_ws, STEPS[DRAFT].file(ch)))}
    assert list(after) == list(before)
    assert after[head] != before[head] and "class Store:  # the store" in after[head]
    assert {h: t for h, t in after.items() if h != head} == {h: t for h, t in before.items() if h != head}
    mk = read_marker(draft_path)
    assert mk.extra["redone"] == str(list(after).index(head)) and mk.extra["sections"] == S.hashes(
        read_body(built_ws, STEPS[DRAFT].file(ch)))
    for key in (R1, R2, R3, PANEL):  # followed: made from the draft before, told so, not asked of a model
        assert read_marker(built_ws / STEPS[key].file(ch)).extra.get("follow"), key
    _marker_inputs_true(built_ws, ch)
    rep = scan(built_ws)
    assert rep["complete"] and rep["claim_health"]["share"] == 1.0 and rep["edited"] == []
    assert "class Store:  # the store" in read_body(built_ws, STEPS[FINAL].file(ch))
    resume = (built_ws / "RESUME.md").read_text()
    assert f"{ch}: § {head} rewritten (draft, final)" in resume and "rewrote 1 section(s)" in resume
    assert f"{ch}: § {head} rewritten" in (built_ws / "output/memory/checkpoint.md").read_text()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_person_s_section_is_kept_and_the_stale_one_rewritten(built_ws: Path):
    ch, head = _moved(built_ws)
    final = built_ws / STEPS[FINAL].file(ch)
    heads = S.heads(read_body(built_ws, STEPS[FINAL].file(ch)))
    other = next(h for h in heads[1:] if h != head)
    text = final.read_text().replace(f"## {other}\n", f"## {other}\n\nA note of mine, by hand.\n", 1)
    final.write_text(text)
    mine = next(s.text for s in S.split(read_body(built_ws, STEPS[FINAL].file(ch))) if s.head == other)
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    now = {s.head: s.text for s in S.split(read_body(built_ws, STEPS[FINAL].file(ch)))}
    assert now[other] == mine  # the person's section, byte for byte
    assert "class Store:  # the store" in now[head]
    assert any(p.read_text() == text for p in final.parent.glob(final.name + ".bak.*"))  # their file, backed up
    rep = scan(built_ws)
    assert rep["chapters"][ch]["steps"][FINAL] == "edited"  # still theirs
    assert rep["claim_health"]["share"] == 1.0
    assert "a person's sections kept: § " + other in (built_ws / "RESUME.md").read_text()
    code, summary = run_book(built_ws)  # and nothing more to do
    assert code == 0 and _steps_called(built_ws, summary.run_id) == []


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_stale_section_a_person_edited_is_kept_and_reported(built_ws: Path):
    ch, head = _moved(built_ws)
    final = built_ws / STEPS[FINAL].file(ch)
    text = final.read_text().replace(f"## {head}\n", f"## {head}\n\nMy own words on this.\n", 1)
    final.write_text(text)
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert final.read_text() == text  # nothing of it to rewrite: the stale section is the person's
    rep = scan(built_ws)
    assert rep["chapters"][ch]["steps"][FINAL] == "edited"
    assert [c["section"] for c in rep["claim_health"]["stale_claims"][ch]] == [head]  # said, not hidden


def test_the_writer_s_prompt_asks_for_the_sections_and_the_fake_model_answers_them(built_ws: Path):
    """The Claude path: the writer's request for a section rewrite, in both layouts, answered by
    the fake Messages API's model, validates and splices into the chapter."""
    from orchestrator.testing.role_answers import answer

    book = Book.open(built_ws)
    try:
        ch = book.scanner.chapters()[1]
        current = read_body(built_ws, STEPS[DRAFT].file(ch))
        head = S.heads(current)[2]
        for layout in ("handbook", "roles"):
            book.cfg = dataclasses.replace(book.cfg, prompt_layout=layout)
            g = agents.gather(book, DRAFT, ch, {"rewrite_sections": [head], "current_text": current})
            req = agents.build_request(book, DRAFT, ch, g, STEPS[DRAFT].role)
            assert f"Rewrite only the section `## {head}`" in req.prompt and "<chapter>" in req.prompt
            wire = {"system": "\n\n".join(x for x in (req.shared, req.material, req.system) if x),
                    "messages": [{"role": "user", "content": req.prompt}]}
            text = agents.clean_and_validate(DRAFT, answer(wire), g.context)
            assert S.heads(text) == S.heads(current)
            changed = [a.head for a, b in zip(S.split(current), S.split(text)) if a.text.strip() != b.text.strip()]
            assert changed == [head]
    finally:
        book.close()


class Counting(OfflineProvider):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen: list[tuple[str | None, str]] = []

    async def generate(self, req, sink):
        self.seen.append((req.chapter, req.step))
        return await super().generate(req, sink)


@pytest.mark.slow
def test_a_kill_at_any_write_of_a_section_redo_loses_nothing(built_ws: Path, tmp_path: Path):
    """A crash at every file mutation of the rebuild (the commit path's temp, backup and rename
    steps of each file, the checkpoint's rewrites): `book resume` finishes it, to the same files
    as an uninterrupted rebuild, without asking a model again for what was already committed."""
    ch, _head = _moved(built_ws)
    base = tmp_path / "moved"
    shutil.copytree(built_ws, base)
    p = Counting()
    codes: list[int] = []
    mutations = mutations_while(lambda: codes.append(run_book(built_ws, provider=p)[0]))
    assert codes == [0]
    expected = set(p.seen)
    want = normalised(built_ws)
    points = crash_points(mutations, "checkpoint.md")
    assert any(name == f"{ch}-draft.md" for (_, name), _ in points)
    for i, (key, k) in enumerate(points):
        ws = tmp_path / f"k{i}"
        shutil.copytree(base, ws)
        crashed = killed_at(key, k, lambda ws=ws: run_book(ws))
        if not crashed:
            assert key[1] == "checkpoint.md", (key, k)
            shutil.rmtree(ws)
            continue
        with sqlite3.connect(ws / "output/.book/state.db") as c:  # what the killed run committed
            committed = set(c.execute("SELECT chapter, step FROM events WHERE type = 'step_end' AND run = "
                                      "(SELECT run FROM events WHERE type = 'run_start' ORDER BY seq DESC LIMIT 1)"))
        p = Counting()
        code, _ = run_book(ws, provider=p, resume=True)
        assert code == 0, (key, k)
        assert normalised(ws) == want, (key, k)
        assert not (set(p.seen) & committed), (key, k, set(p.seen) & committed)  # never paid for twice
        assert set(p.seen) <= expected, (key, k)
        shutil.rmtree(ws)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_book_redo_of_a_draft_with_stale_claims_is_whole(built_ws: Path):
    """A person's `book redo chNN draft` asks for a fresh draft: never a section rewrite."""
    from orchestrator.steps import Node

    ch, _head = _moved(built_ws)
    code, summary = run_book(built_ws, redo={Node(ch, DRAFT)})
    assert code == 0, summary.needs_human
    mk = read_marker(built_ws / STEPS[DRAFT].file(ch))
    assert "redone" not in mk.extra and "follow" not in mk.extra and mk.extra["sections"]
    assert scan(built_ws)["claim_health"]["share"] == 1.0


BROKEN = "\n```python\ndef broken(\n"


class WholeChaptersBreak(OfflineProvider):
    """A model that cannot hold a whole chapter: each whole draft of `ch` ends in an open code
    fence (validation rejects it every time); one section at a time it answers well."""

    def __init__(self, ch: str):
        super().__init__()
        self.ch, self.asks = ch, []

    async def generate(self, req, sink):
        res = await super().generate(req, sink)
        if req.chapter == self.ch and req.step == DRAFT:
            self.asks.append(list(req.context.get("rewrite_sections") or ["(whole)"]))
            if not req.context.get("rewrite_sections"):
                res.text += BROKEN
                sink.text(BROKEN)  # streamed too: the rejected answer in the .partial is this one
        return res


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_a_chapter_whose_whole_draft_keeps_failing_is_written_one_section_at_a_time(tmp_path: Path):
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws", max_chapters=3)
    p = WholeChaptersBreak("ch02")
    code, summary = run_book(ws, provider=p)
    assert code == 0, summary.needs_human
    whole = [a for a in p.asks if a == ["(whole)"]]
    one = [a[0] for a in p.asks if a != ["(whole)"]]
    book = Book.open(ws)
    try:
        assert len(whole) == book.cfg.retries  # every whole answer was asked for, and rejected
    finally:
        book.close()
    text = read_body(ws, STEPS[DRAFT].file("ch02"))
    assert one == [h for h in S.heads(text) if h != S.OPENING]  # then each section, once, in order
    assert "def broken(" not in text
    mk = read_marker(ws / STEPS[DRAFT].file("ch02"))
    assert mk.extra["sections"] == S.hashes(text)
    rep = scan(ws)
    assert rep["complete"] and rep["chapters"]["ch02"]["steps"][DRAFT] == "done"
    kept = list((ws / STEPS[DRAFT].file("ch02")).parent.glob("ch02-draft.md.partial.bak.*"))
    assert len(kept) == 1 and "def broken(" in kept[0].read_text()  # the rejected answer, kept beside it
    assert not (ws / STEPS[DRAFT].file("ch02")).with_name("ch02-draft.md.sections.partial").exists()


# ---------------------------------------------------------------- the opening is a section too


def test_an_opening_answer_replaces_the_opening_alone_and_keeps_the_title():
    """A stale claim in the text before the first `## ` has the opening rewritten, not the chapter:
    the answer is the opening (its title line as it is) then the sections asked, nothing else."""
    from orchestrator.agents.validation import clean_and_validate

    ctx = {"rewrite_sections": [S.OPENING, "B"], "current_text": CHAPTER, "language": "en", "chapters": [],
           "chapter": {"id": "ch02"}}
    words = "New words, a sentence long enough to count as one. " * 8
    whole = clean_and_validate(DRAFT, f"# T\n\nA new opening.\n\n## B\n\n{words}", ctx)
    assert whole.startswith("# T\n\nA new opening.\n\n## A\n\nabout a\n\n```python\n## not a heading\n```\n\n## B\n\nNew")
    untitled = clean_and_validate(DRAFT, f"A new opening.\n\n## B\n\n{words}", ctx)  # the title is not the rewrite's
    assert untitled == whole
    for bad, why in ((f"# Another title\n\nx\n\n## B\n\n{words}", "title line as it is, `# T`"),
                     (f"## B\n\n{words}", "exactly the sections the opening, `## B`"),
                     (f"# T\n\nx\n\n## A\n\ny\n\n## B\n\n{words}", "exactly the sections")):
        with pytest.raises(ValidationFailed, match=why):
            clean_and_validate(DRAFT, bad, ctx)


def test_a_stale_opening_is_a_section_not_the_whole_chapter(tmp_path: Path):
    """evidence.follow: a claim of the opening that no longer holds names the opening among the
    sections to rewrite (it used to send the whole chapter back to be written again)."""
    import json

    from orchestrator.evidence import claims as claims_mod

    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("def gone_now():\n    return 1\n")
    text = "# T\n\nIt rests on `first_name` ([m.py:1-2](source:m.py#L1-L2)).\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n"
    doc = {"chapter": "ch01", "version": claims_mod.VERSION, "revision": {}, "coverage": {}, "of": "",
           "claims": [{"text": "It rests on `first_name`.", "names": ["first_name"], "evidence": ["m.py#L1-L2"],
                       "line": 3, "section": ""}],
           "evidence": {"m.py#L1-L2": {"path": "m.py", "first": 1, "last": 2, "hash": "0" * 16, "head": 0, "tail": 0,
                                       "lines": []}}}
    p = tmp_path / claims_mod.claims_path("ch01")
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(doc))
    stale = stale_sections(tmp_path, src, "ch01", text, S.hashes(text))
    assert stale is not None and not stale.whole and stale.rewrite == (S.OPENING,) and stale.kept == ()
    mine = text.replace("It rests on", "By hand: it rests on")  # a person's opening: kept, said
    stale = stale_sections(tmp_path, src, "ch01", mine, S.hashes(text))
    assert stale is not None and stale.rewrite == () and stale.kept == (S.OPENING,)


def _renamed(ws: Path) -> str:
    """The source's next release renames `Store.flush` to `flush_now` (its callers too): the
    chapter whose opening names it, stale there and in some of its sections, not most."""
    import re

    store = ws / "src/minikv/store.py"
    t = store.read_text().replace("    def flush(self", "    def flush_now(self", 1)
    store.write_text(re.sub(r"self\.flush\(", "self.flush_now(", t))
    for f in ("cli.py", "__init__.py"):
        p = ws / "src/minikv" / f
        p.write_text(re.sub(r"\b(store|db)\.flush\(", r"\1.flush_now(", p.read_text()))
    book = Book.open(ws)
    try:
        for ch in book.scanner.chapters():
            st = book.scanner.step(ch, FINAL)
            stale = stale_sections(ws, ws / "src", ch, read_body(ws, st.path), st.marker.extra.get("sections"))
            if stale is not None and S.OPENING in stale.rewrite:
                assert len(stale.rewrite) < len(S.heads(read_body(ws, st.path))) / 2
                return ch
    finally:
        book.close()
    raise AssertionError("no chapter's opening names `Store.flush`")


@pytest.mark.slow  # builds a whole book: the full suite runs it
def test_a_stale_opening_is_rewritten_alone_and_the_rest_kept(built_ws: Path):
    ch = _renamed(built_ws)
    before = {s.head: s.text for s in S.split(read_body(built_ws, STEPS[DRAFT].file(ch)))}
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    called = _steps_called(built_ws, summary.run_id)
    assert {s for c, s in called if c == ch} == {"research", DRAFT, "memory", FINAL}  # no review by a model
    after = {s.head: s.text for s in S.split(read_body(built_ws, STEPS[DRAFT].file(ch)))}
    assert list(after) == list(before)
    redone = [before_h for before_h in before if after[before_h] != before[before_h]]
    assert S.OPENING in redone and "flush_now" in after[S.OPENING] and "`Store.flush`" not in after[S.OPENING]
    assert after[S.OPENING].split("\n", 1)[0] == before[S.OPENING].split("\n", 1)[0]  # the title line kept
    assert len(redone) < len(before) - 2  # the rest byte for byte
    mk = read_marker(built_ws / STEPS[DRAFT].file(ch))
    assert "0" in mk.extra["redone"].split(".")
    final = read_body(built_ws, STEPS[FINAL].file(ch))
    assert "flush_now" in S.split(final)[0].text
    rep = scan(built_ws)
    assert rep["complete"] and rep["claim_health"]["share"] == 1.0 and rep["edited"] == []
    assert f"{ch}: § the opening, " in (built_ws / "RESUME.md").read_text()


@pytest.mark.slow  # builds a whole book: the full suite runs it
def test_a_stale_opening_a_person_edited_is_kept_and_the_stale_sections_rewritten(built_ws: Path):
    ch = _renamed(built_ws)
    final = built_ws / STEPS[FINAL].file(ch)
    secs = S.split(read_body(built_ws, STEPS[FINAL].file(ch)))
    title = secs[0].text.split("\n", 1)[0]
    text = final.read_text().replace(title + "\n", title + "\n\nMy own first words, by hand.\n", 1)
    final.write_text(text)
    mine = S.split(read_body(built_ws, STEPS[FINAL].file(ch)))[0].text
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    now = S.split(read_body(built_ws, STEPS[FINAL].file(ch)))
    assert now[0].text == mine  # the person's opening, byte for byte, never overwritten
    assert [s.head for s in now] == [s.head for s in secs]
    assert any(a.text != b.text for a, b in zip(now[1:], secs[1:]))  # the other stale sections were rewritten
    assert any(p.read_text() == text for p in final.parent.glob(final.name + ".bak.*"))  # their file, backed up
    rep = scan(built_ws)
    assert rep["chapters"][ch]["steps"][FINAL] == "edited"  # still theirs
    assert "a person's sections kept: § the opening" in (built_ws / "RESUME.md").read_text()


@pytest.mark.slow  # builds a whole book: the full suite runs it
def test_moved_citations_leave_each_section_s_hash_true(built_ws: Path):
    """Lines that only moved are pointed at without a model call; the marker's `sections=` follows
    (else, at the next release, a moved section read as a person's and its chapter was redone whole)."""
    store = built_ws / "src/minikv/store.py"
    store.write_text("# a line above everything: every citation of the file moves down one\n" + store.read_text())
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    book = Book.open(built_ws)
    try:
        moved = 0
        for ch in book.scanner.chapters():
            for key in (DRAFT, FINAL):
                st = book.scanner.step(ch, key)
                body = read_body(built_ws, st.path)
                assert st.status == "done" and S.edited(body, st.marker.extra["sections"]) == [], (ch, key)
                moved += "minikv/store.py#L" in body
        assert moved
    finally:
        book.close()


def test_a_draft_is_stale_on_another_chapter_s_file_whose_lines_changed_under_its_claim(built_ws: Path):
    """A chapter cites a file its research never read (another chapter's); a release changes the
    lines under one of its claims: its draft is stale on that file, and is followed for it."""
    import re

    for f in (built_ws / "src/minikv").glob("*.py"):
        f.write_text(re.sub(r"\binvalidate\(", "discard(", f.read_text()))
    book = Book.open(built_ws)
    try:
        sc = book.scanner
        outside = [ch for ch in sc.chapters() if "src:minikv/cache.py" not in sc.input_names(ch, "research")
                   and "src:minikv/cache.py" in sc.step(ch, DRAFT).stale]
        assert outside, "no chapter citing cache.py beyond its sources went stale"
        from orchestrator.pipeline import section_redo

        p = section_redo.plan(book, outside[0], DRAFT)
        assert p is not None and p.rewrite  # a section rewrite
        from orchestrator.steps import Node

        assert section_redo.cited_extra(book, Node(outside[0], DRAFT))["_cited"]  # its marker says for which files
    finally:
        book.close()


class SectionsFail(OfflineProvider):
    """A writer that cannot keep to the sections asked (their subject left the code, say): every
    section rewrite of the draft comes back under another heading; a whole chapter it writes well."""

    async def generate(self, req, sink):
        res = await super().generate(req, sink)
        if req.step == DRAFT and req.context.get("rewrite_sections"):
            res.text = "## Something else\n\nWords about something else entirely.\n"
        return res


@pytest.mark.slow  # builds a whole book: the full suite runs it
def test_a_section_rewrite_that_keeps_failing_writes_the_chapter_whole(built_ws: Path):
    """Never a chapter assembled from a section answer's shape (it would lose the kept sections):
    the chapter is written whole once, and reviewed as a new draft is."""
    ch, _head = _moved(built_ws)
    heads = S.heads(read_body(built_ws, STEPS[DRAFT].file(ch)))
    code, summary = run_book(built_ws, provider=SectionsFail())
    assert code == 0, summary.needs_human
    assert S.heads(read_body(built_ws, STEPS[DRAFT].file(ch))) == heads  # the whole chapter, every section
    called = {s for c, s in _steps_called(built_ws, summary.run_id) if c == ch}
    assert {R1, R2, R3} <= called  # a new draft: reviewed by the models
    with sqlite3.connect(built_ws / "output/.book/state.db") as c:
        kinds = {t for (t,) in c.execute("SELECT type FROM events WHERE run = ?", (summary.run_id,))}
    assert "sections_one_by_one" not in kinds and "sections_rewritten" not in kinds
    assert scan(built_ws)["claim_health"]["share"] == 1.0


def test_the_offline_writer_rewrites_a_section_its_chapter_would_no_longer_have(built_ws: Path):
    """Its walk follows the code: a release that reshapes a chain leaves a heading of the chapter
    as it stands that the writer no longer makes. Asked for it, the writer answers it about the
    symbol it names (as a model keeps the same subject under the same heading), so the chapter
    is followed section by section rather than written whole."""
    from orchestrator.providers.offline import author

    book = Book.open(built_ws)
    try:
        ch = "ch01"
        current = read_body(built_ws, STEPS[DRAFT].file(ch))
        old = next(h for h in S.heads(current) if "`Store`" in h)
        head = "Inside `Store`, once more"
        current = current.replace(f"## {old}\n", f"## {head}\n", 1)
        g = agents.gather(book, DRAFT, ch, {"rewrite_sections": [head], "current_text": current,
                                            "_source_dir": book.cfg.source_dir})
        req = agents.build_request(book, DRAFT, ch, g, STEPS[DRAFT].role)
        answer = author(req)
        assert answer.startswith(f"## {head}\n") and "file=minikv/store.py" in answer
        text = agents.clean_and_validate(DRAFT, answer, g.context)
        assert S.heads(text) == S.heads(current)
    finally:
        book.close()
