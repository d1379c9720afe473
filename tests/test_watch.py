"""`book watch`: the pure "changes → what to recompute" logic, and the real watcher on a built book."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from conftest import make_example
from hypothesis import given, settings, strategies as st

from orchestrator.outline import Chapter, Outline
from orchestrator.steps import CHECKPOINT, ORDER, STEPS
from orchestrator.watch import affected, diff, ignored, watch_workspace

# ch01, ch02 in batch 1; ch03 (batch 2) depends on ch01; ch04 in batch 3.
OUTLINE = Outline("t", (
    Chapter("ch01", "One", 1, sources=("pkg/a.py", "pkg/shared.py")),
    Chapter("ch02", "Two", 1, sources=("pkg/b.py",)),
    Chapter("ch03", "Three", 2, depends_on=("ch01",), sources=("pkg/shared.py",)),
    Chapter("ch04", "Four", 3),
))


def m(path: str, kind: str = "modified") -> tuple[str, str]:
    return (kind, path)


# ---------------------------------------------------------------- affected


def test_chapter_file_affects_its_chapter_only():
    a = affected([m("output/chapters/draft/ch02-draft.md")], OUTLINE, "src")
    assert a["changed"] == a["files"] == ["output/chapters/draft/ch02-draft.md"]
    assert a["chapters"] == ["ch02"]
    assert not a["all"] and a["sources"] == []


def test_source_change_affects_the_chapters_that_cite_it():
    a = affected([m("src/pkg/shared.py")], OUTLINE, "src")
    assert a["chapters"] == ["ch01", "ch03"]
    assert a["sources"] == ["pkg/shared.py"] and a["files"] == []
    assert affected([m("src/pkg/b.py")], OUTLINE, "src")["chapters"] == ["ch02"]
    # a source file no chapter cites: nothing to recompute, but still a change
    a = affected([m("src/pkg/unused.py", "added")], OUTLINE, "src")
    assert a["chapters"] == [] and a["changed"] == ["src/pkg/unused.py"]
    # a source tree outside the workspace, and one that is the workspace itself
    assert affected([m("../proj/pkg/b.py")], OUTLINE, "../proj")["chapters"] == ["ch02"]
    assert affected([m("pkg/b.py")], OUTLINE, ".")["chapters"] == ["ch02"]
    # output/ is never the source tree, even with `source: .`
    assert affected([m("output/memory/glossary.md")], OUTLINE, ".")["sources"] == []
    # no book.yaml: no source tree
    assert affected([m("src/pkg/b.py")], OUTLINE, None)["chapters"] == []


def test_outline_and_style_guide_affect_everything():
    for path in ("output/memory/outline.md", "output/memory/style-guide.md"):
        a = affected([m(path)], OUTLINE, "src")
        assert a["all"] and a["chapters"] == ["ch01", "ch02", "ch03", "ch04"] and a["files"] == [path]


def test_long_memory_change_affects_the_chapters_that_can_see_it():
    # ch01's memory is visible to ch03 (later batch, and a dependency) and ch04 (later batch)
    a = affected([m("output/memory/chapters/ch01.md")], OUTLINE, "src")
    assert a["chapters"] == ["ch01", "ch03", "ch04"]
    # ch03's memory: only ch04 (a later batch) reads it
    assert affected([m("output/memory/chapters/ch03.md")], OUTLINE, "src")["chapters"] == ["ch03", "ch04"]
    # without an outline, only the chapter itself
    assert affected([m("output/memory/chapters/ch01.md")], None, None)["chapters"] == ["ch01"]


def test_chapters_outside_the_outline_still_count():
    a = affected([m("output/reviews/ch09-r1.md", "added")], OUTLINE, "src")
    assert a["chapters"] == ["ch09"]
    assert affected([m("output/reviews/ch117-r2.md")], None, None)["chapters"] == ["ch117"]


def test_directory_events_rescan_everything():
    a = affected([m("output/reviews", "deleted")], OUTLINE, "src")
    assert a["all"] and a["chapters"] == ["ch01", "ch02", "ch03", "ch04"]


def test_ignored_paths():
    noise = ["output/chapters/draft/ch01-draft.md.partial", "output/memory/.checkpoint.md.tmp.1234",
             "output/research/.ch01-report.md.tmp.99", "output/.book/state.db", "output/.book/state.db-wal",
             "output/.book", "output/.lock", "output/.lock.stale.42", CHECKPOINT,
             "output/chapters/draft/ch01-draft.md.bak.20261129T204100Z"]
    for p in noise:
        assert ignored(p), p
    a = affected([m(p) for p in noise], OUTLINE, "src")
    assert a == {"changed": [], "files": [], "sources": [], "chapters": [], "all": False, "checkpoint": False}
    for p in ("output/memory/outline.md", "output/memory/needs-human.md", "output/reviews/ch01-r1.md", "src/x.py"):
        assert not ignored(p), p


def test_other_output_files_are_changes_that_affect_no_chapter():
    a = affected([m("output/memory/needs-human.md"), m("output/memory/glossary.md"),
                  m("output/publish/index.html")], OUTLINE, "src")
    assert a["changed"] == ["output/memory/glossary.md", "output/memory/needs-human.md", "output/publish/index.html"]
    assert a["chapters"] == [] and a["checkpoint"]
    assert a["files"] == ["output/publish/index.html"]  # a book-level step file is re-read


chapter_ids = st.sampled_from(["ch01", "ch02", "ch03", "ch04", "ch07", "ch12"])
step_keys = st.sampled_from(list(STEPS))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(chapter_ids, step_keys), max_size=8),
       st.lists(st.sampled_from(["pkg/a.py", "pkg/b.py", "pkg/shared.py", "pkg/other.py"]), max_size=4),
       st.booleans())
def test_affected_properties(step_files, srcs, with_outline):
    outline = OUTLINE if with_outline else None
    changes = [m(STEPS[k].file(ch)) for ch, k in step_files] + [m(f"src/{s}") for s in srcs]
    changes += [m(STEPS[k].file(ch) + ".partial") for ch, k in step_files]  # always ignored
    a = affected(changes, outline, "src")
    assert set(a["files"]) == {STEPS[k].file(ch) for ch, k in step_files}
    assert set(a["sources"]) == set(srcs)
    assert not any(p.endswith(".partial") for p in a["changed"])
    # every changed chapter file's chapter is recomputed, and nothing outside what could be affected
    own = {ch for ch, _ in step_files}
    assert own <= set(a["chapters"])
    known = {c.id for c in OUTLINE.chapters} if with_outline else set()
    assert set(a["chapters"]) <= own | known
    if not with_outline:
        assert set(a["chapters"]) == own
    else:
        cited = {c.id for c in OUTLINE.chapters if set(c.sources) & set(srcs)}
        assert cited <= set(a["chapters"])
    # order and determinism
    assert a == affected(list(reversed(changes)), outline, "src")


# ---------------------------------------------------------------- diff


def test_diff_describes_status_changes():
    old = {"ch01": {"draft": "done", "r1": "done"}, "ch02": {"draft": "done"}}
    new = {"ch01": {"draft": "edited", "r1": "stale"}, "ch03": {"research": "done"}}
    assert diff(old, new) == [
        "ch01 draft: done → edited",
        "ch01 r1: done → stale",
        "ch02 draft: done → missing",
        "ch03 research: missing → done",
    ]
    assert diff(new, new) == []
    # steps in pipeline order, chapters in numeric order (ch10 after ch09)
    a = {"ch10": {k: "missing" for k in ORDER}, "ch09": {k: "missing" for k in ORDER}}
    b = {ch: {k: "done" for k in ORDER} for ch in a}
    lines = diff(a, b)
    assert [x.split(":")[0] for x in lines] == [f"{ch} {k}" for ch in ("ch09", "ch10") for k in ORDER]
    assert diff({"book": {"audit": "done"}}, {"book": {"audit": "stale"}}) == ["book audit: done → stale"]


statuses = st.sampled_from(["missing", "half_finished", "done", "edited", "stale"])
matrices = st.dictionaries(chapter_ids, st.dictionaries(step_keys, statuses, max_size=4), max_size=4)


@settings(max_examples=200, deadline=None)
@given(matrices, matrices)
def test_diff_properties(a, b):
    d = diff(a, b)
    assert diff(a, a) == []
    pairs = {(ch, k) for x in (a, b) for ch in x for k in x[ch]}
    differing = {(ch, k) for ch, k in pairs if a.get(ch, {}).get(k, "missing") != b.get(ch, {}).get(k, "missing")}
    assert len(d) == len(differing)
    assert {tuple(line.split(":")[0].split(" ")) for line in d} == differing
    # the reverse diff is the same list with the arrows turned round
    flip = [f"{line.split(': ')[0]}: {' → '.join(reversed(line.split(': ')[1].split(' → ')))}" for line in d]
    assert diff(b, a) == flip


# ---------------------------------------------------------------- the real watcher


class Lines:
    """A thread-safe text sink the test can poll."""

    def __init__(self):
        self._lock = threading.Lock()
        self._buf = ""

    def write(self, s: str) -> int:
        with self._lock:
            self._buf += s
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        with self._lock:
            return self._buf

    def json_lines(self) -> list[dict]:
        return [json.loads(x) for x in self.text().splitlines() if x.strip()]


def _wait(pred, timeout: float, what: str, poke=None, every: float = 0.5):
    end = time.monotonic() + timeout
    last_poke = 0.0
    while time.monotonic() < end:
        if poke is not None and time.monotonic() - last_poke >= every:
            poke()
            last_poke = time.monotonic()
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _insert_before_marker(p: Path, text: str) -> None:
    """A hand edit, saved the way many editors save: a temp file renamed over the original."""
    lines = p.read_text(encoding="utf-8").rstrip("\n").split("\n")
    lines.insert(len(lines) - 1, text + "\n")
    tmp = p.with_name(f".{p.name}.tmp.editor")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def _touch(p: Path) -> None:
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, max(time.time_ns(), st.st_mtime_ns + 1_000_000)))


@pytest.mark.slow
def test_watch_a_built_book(tmp_path):
    from orchestrator.state.book import Book
    from orchestrator.testing.helpers import run_book

    ws = make_example(tmp_path / "ws")
    code, _ = run_book(ws)
    assert code == 0
    book = Book.open(ws)
    try:
        o = book.scanner.outline
        cite = next(c for c in o.chapters if c.id != "ch01" and c.sources)
    finally:
        book.close()

    t0 = time.monotonic()
    out, jout, stop = Lines(), Lines(), threading.Event()
    result: dict = {}

    def run():
        try:
            result["code"] = watch_workspace(ws, as_json=True, debounce_ms=100, stop=stop, out=out, jsonout=jout)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            result["error"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        draft = ws / STEPS["draft"].file("ch01")
        cp = ws / CHECKPOINT

        # 1. touch a file (new mtime, same bytes): a change, no status change. It also tells us the
        #    watcher is ready: poke until a line for it comes.
        line = _wait(lambda: next((x for x in jout.json_lines() if STEPS["draft"].file("ch01") in x["changed"]), None),
                     10, "the watcher to report a touched file", poke=lambda: _touch(draft))
        assert line["transitions"] == []
        assert all(v == "done" for v in line["chapters"]["ch01"].values()), line
        assert line["edited"] == [] and line["stale"] == []
        cp_before = cp.read_text(encoding="utf-8")
        n = len(jout.json_lines())

        # 2. a hand edit of a draft's body: edited, and what was made from it stale
        _insert_before_marker(draft, "A paragraph a person added.")
        line = _wait(lambda: next((x for x in jout.json_lines()[n:]
                                   if x["chapters"].get("ch01", {}).get("draft") == "edited"), None), 5, "the edit")
        row = line["chapters"]["ch01"]
        assert row["draft"] == "edited"
        for k in ("r1", "r2", "r3", "panel", "memory", "final"):  # they all read the draft
            assert row[k] == "stale", (k, row)
        assert row["research"] == "done" and row["review"] == "done"
        assert STEPS["draft"].file("ch01") in line["edited"]
        assert STEPS["r1"].file("ch01") in line["stale"]
        assert "ch01 draft: done → edited" in line["transitions"]
        assert line["hand_edits"] == [STEPS["draft"].file("ch01")]
        _wait(lambda: cp.read_text(encoding="utf-8") != cp_before, 5, "checkpoint.md to be rewritten")
        assert "🔄" in cp.read_text(encoding="utf-8")
        n = len(jout.json_lines())

        # 3. a source file a chapter cites, changed where the chapter quotes it (a comment appended
        # changes none of its claims: evidence.follow): its research and R1 become stale, nothing else
        src = ws / "src" / cite.sources[0]
        src.write_text(src.read_text(encoding="utf-8").replace("def ", "def  ") + "\n# a comment\n", encoding="utf-8")
        line = _wait(lambda: next((x for x in jout.json_lines()[n:] if x["transitions"]), None), 5, "the source edit")
        assert line["changed"] == [f"src/{cite.sources[0]}"]
        row = line["chapters"][cite.id]
        assert row["research"] == "stale" and row["r1"] == "stale", row
        assert sorted(line["transitions"]) == sorted([f"{cite.id} research: done → stale", f"{cite.id} r1: done → stale"])
        assert all(row[k] == "done" for k in ORDER if k not in ("research", "r1"))
        n = len(jout.json_lines())

        # 4. the same body again (touched): no second hand_edit event, checkpoint.md left alone
        cp_before = cp.read_bytes()
        _touch(draft)
        line = _wait(lambda: next((x for x in jout.json_lines()[n:]), None), 5, "the second touch")
        assert line["changed"] == [STEPS["draft"].file("ch01")]
        assert line["transitions"] == [] and line["hand_edits"] == []
        assert cp.read_bytes() == cp_before
    finally:
        stop.set()
        th.join(10)
    assert not th.is_alive(), "the watcher did not stop"
    assert "error" not in result, result.get("error")
    assert result["code"] == 0
    assert "watching" in out.text()

    book = Book.open(ws)
    try:
        events = book.ledger.events(type="hand_edit")
    finally:
        book.close()
    assert [(e["chapter"], e["step"], e["detail"]["path"]) for e in events] == [
        ("ch01", "draft", STEPS["draft"].file("ch01"))]
    assert time.monotonic() - t0 < 20


def test_watch_plain_text_and_stop(tmp_path):
    """Without --json: a table on stderr; a stop signal ends it with 0, and a workspace with no
    output/ yet waits for it instead of failing."""
    ws = tmp_path / "bare"
    ws.mkdir()
    out, stop = Lines(), threading.Event()
    result: dict = {}
    th = threading.Thread(target=lambda: result.setdefault("code", watch_workspace(ws, stop=stop, out=out)), daemon=True)
    th.start()
    _wait(lambda: "waiting for" in out.text(), 5, "the watcher to wait for output/")
    stop.set()
    th.join(5)
    assert result.get("code") == 0

    # a bare tree of files (no book.yaml): output/ only
    d = ws / "output/chapters/draft"
    d.mkdir(parents=True)
    (d / "ch01-draft.md").write_text("text\n\n<!-- DRAFT_COMPLETE -->\n", encoding="utf-8")
    out, stop = Lines(), threading.Event()
    result = {}
    th = threading.Thread(target=lambda: result.setdefault("code", watch_workspace(ws, stop=stop, out=out,
                                                                                   debounce_ms=50)), daemon=True)
    th.start()
    try:
        _wait(lambda: "watching" in out.text() and "ch01" in out.text(), 5, "the first table")
        r1 = ws / STEPS["r1"].file("ch01")
        r1.parent.mkdir(parents=True, exist_ok=True)
        _wait(lambda: "ch01 r1: missing → half_finished" in out.text(), 5, "a new half-finished review",
              poke=lambda: r1.write_text("partial review\n", encoding="utf-8"))
    finally:
        stop.set()
        th.join(5)
    assert result.get("code") == 0


# ---------------------------------------------------------------- one batch at a time, no threads


def test_lock_held(tmp_path):
    from orchestrator.steps import LOCK
    from orchestrator.watch import lock_held

    (tmp_path / "output").mkdir()
    assert not lock_held(tmp_path)
    from lockutil import held_elsewhere

    lock = tmp_path / LOCK
    lock.write_text(f"{os.getpid()} host\n")  # a pid in the file is not a lock: only the kernel's counts
    assert not lock_held(tmp_path)
    with held_elsewhere(lock):
        assert lock_held(tmp_path)
    assert not lock_held(tmp_path)  # the holder ended: released


def test_batches_lock_outline_and_restart(built_ws):
    """Drive the watcher's batch step directly: no checkpoint.md while a run holds the lock;
    an outline edit makes the chapter's outline readers stale; a restarted watcher does not
    record the same hand edit twice."""
    from watchfiles import Change

    from orchestrator.state.book import Book
    from orchestrator.steps import LOCK
    from orchestrator.watch import Watcher

    ws = built_ws
    cp = ws / CHECKPOINT
    draft = ws / STEPS["draft"].file("ch02")

    def batch(*paths: Path):
        book = Book.open(ws, require_config=False, repair=False)
        try:
            w = Watcher(book, True, Lines(), jout := Lines())
            w.start()
            doc = w.batch([(Change.modified, str(p)) for p in paths])
            w.close()
            return doc, jout.json_lines(), book.ledger.events(type="hand_edit")
        finally:
            book.close()

    from lockutil import held_elsewhere

    before = cp.read_bytes()
    with held_elsewhere(ws / LOCK):  # a live run is writing
        _insert_before_marker(draft, "Edited while a run was going.")
        doc, lines, events = batch(draft)
    assert lines == [doc] and doc["chapters"]["ch02"]["draft"] == "edited"
    assert cp.read_bytes() == before  # the run owns checkpoint.md
    assert [e["detail"]["path"] for e in events] == [STEPS["draft"].file("ch02")]

    # the run is gone: a new watcher brings checkpoint.md up to date at once
    doc, _, events = batch(draft)  # the same body: not recorded again
    assert doc["transitions"] == [] and doc["hand_edits"] == []
    assert len(events) == 1
    assert cp.read_bytes() != before and "🔄" in cp.read_text(encoding="utf-8")

    # an outline edit: ch03's entry changes, so what reads it (research, draft, r3) is stale;
    # other chapters' entries did not change
    outline = ws / "output/memory/outline.md"
    text = outline.read_text(encoding="utf-8")
    i = text.index("- id: ch03")
    j = text.index("summary:", i)
    indent = text[text.rindex("\n", 0, j) + 1:j]  # the chapter's fields' indentation (under its part)
    outline.write_text(text[:j] + "summary: A summary a person rewrote.\n" + indent + text[j:].split("\n", 1)[1].lstrip(),
                       encoding="utf-8")
    doc, _, events = batch(outline)
    assert set(doc["chapters"]) >= {"ch01", "ch03", "ch06"}  # every chapter is recomputed (the demo has six: issue 35 folds modules with no idea of their own)
    row = doc["chapters"]["ch03"]
    assert row["research"] == row["draft"] == row["r3"] == "stale", row
    assert doc["chapters"]["ch01"]["research"] == "done"
    assert "output/memory/outline.md" in doc["edited"]
    assert [e["step"] for e in events] == ["draft", "outline"]
