"""Files -> state (orchestrator/scan.py, workspace.scan_report, `book scan`): statuses on
hand-built trees, edited+stale, what does not count as a change, bare trees, the JSON
document of `book scan --json`, the hash cache, and the shared conformance check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED

from orchestrator.state import hashcache
from orchestrator.state.book import Book, scan_report
from orchestrator.state.markers import compose, short_hash
from orchestrator.state.scan import Scanner, snapshot, status_word
from orchestrator.steps import ORDER, STATE_DB, STEPS
from orchestrator.testing.cli import Completed, run_cli

BOOK = Path(sys.executable).parent / "book"
F = {k: s.file for k, s in STEPS.items()}  # F["draft"]("ch01") -> output/chapters/draft/ch01-draft.md


def write(root: Path, rel: str, text: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def statuses(root: Path, ch: str = "ch01") -> dict[str, str]:
    snap = snapshot(Scanner(root))
    return {k: status_word(s) for k, s in snap.chapters[ch].items()}


def tree_files(root: Path, skip: str = "output/.book") -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))
            if p.is_file() and not p.relative_to(root).as_posix().startswith(skip)}


def mark(step: str, body: str, inputs: dict[str, str] | None = None) -> str:
    return compose(body, STEPS[step].marker, inputs, "test-run")


@pytest.fixture
def chain(tmp_path) -> Path:
    """ch01: research -> draft -> r1, each marked with the hash of what it was made from."""
    root = tmp_path / "ws"
    write(root, F["research"]("ch01"), mark("research", "research body"))
    write(root, F["draft"]("ch01"), mark("draft", "draft body", {"research": short_hash("research body")}))
    write(root, F["r1"]("ch01"), mark("r1", "r1 body", {"draft": short_hash("draft body")}))
    return root


# ---------------------------------------------------------------- statuses


def test_statuses_on_a_hand_built_tree(chain):
    write(chain, F["r2"]("ch01"), "a review cut off mid")
    write(chain, F["r3"]("ch01"), "")
    write(chain, F["review"]("ch01"), "merged\n\nThe R1 report ended with <!-- R1_CODE_REVIEW_COMPLETE -->\n")
    write(chain, F["panel"]("ch01"), "half\n<!-- READER_PANEL_COMPLETE -->\nthe other half")
    write(chain, F["memory"]("ch01"), "memory\n\n<!-- MEMORY_COMPLETE -->\n")  # a bare marker, by hand
    assert statuses(chain) == {"research": "done", "draft": "done", "r1": "done", "r2": "half_finished",
                               "r3": "half_finished", "review": "half_finished", "panel": "half_finished",
                               "memory": "done", "final": "missing", "html": "missing"}


def test_a_marker_of_another_step_does_not_count(chain):
    write(chain, F["final"]("ch01"), mark("draft", "a draft saved under the final's name"))
    assert statuses(chain)["final"] == "half_finished"


def test_edited_when_the_body_changed(chain):
    p = chain / F["draft"]("ch01")
    p.write_text(p.read_text().replace("draft body", "draft body, improved by hand"))
    snap = snapshot(Scanner(chain))
    st = snap.chapters["ch01"]
    assert status_word(st["draft"]) == "edited" and st["draft"].complete and st["draft"].fresh
    assert status_word(st["r1"]) == "stale" and not st["r1"].fresh  # made from the old draft
    assert status_word(st["research"]) == "done"
    assert snap.edited == [F["draft"]("ch01")]
    assert snap.stale == [F["r1"]("ch01")]


def test_edited_and_stale_is_edited_and_listed_as_stale(chain):
    r = chain / F["research"]("ch01")
    r.write_text(r.read_text().replace("research body", "research body, changed"))
    d = chain / F["draft"]("ch01")
    d.write_text(d.read_text().replace("draft body", "draft body, changed"))
    snap = snapshot(Scanner(chain))
    st = snap.chapters["ch01"]
    assert st["draft"].status == "edited" and st["draft"].stale == ["research"]
    assert status_word(st["draft"]) == "edited"  # a person's file is never reported as stale...
    assert F["draft"]("ch01") in snap.stale  # ...but it is listed under stale
    assert F["draft"]("ch01") in snap.edited
    assert status_word(st["r1"]) == "stale"


def test_stale_when_an_input_is_removed(chain):
    (chain / F["research"]("ch01")).unlink()
    st = statuses(chain)
    assert st["research"] == "missing" and st["draft"] == "stale"


def test_a_bare_marker_is_never_stale(chain):
    write(chain, F["draft"]("ch01"), "draft body\n\n<!-- DRAFT_COMPLETE -->\n")
    r = chain / F["research"]("ch01")
    r.write_text(r.read_text().replace("research body", "other"))
    assert statuses(chain)["draft"] == "done"


def test_touch_changes_nothing(chain):
    cache = hashcache.HashCache()
    before = statuses(chain)
    snapshot(Scanner(chain, cache))
    for p in chain.rglob("*.md"):
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns + 5_000_000_000, st.st_mtime_ns + 5_000_000_000))
    assert statuses(chain) == before
    snap = snapshot(Scanner(chain, cache))  # with a warm cache too
    assert {k: status_word(s) for k, s in snap.chapters["ch01"].items()} == before
    assert snap.stale == [] and snap.edited == []


@pytest.mark.parametrize("extra", ["\n", "\n\n\n", "   \n", "\t\n  \n", "\r\n"])
def test_whitespace_at_the_end_changes_nothing(chain, extra):
    before = statuses(chain)
    for step in ("research", "draft"):
        p = chain / F[step]("ch01")
        p.write_bytes(p.read_bytes() + extra.encode())
    assert statuses(chain) == before
    # whitespace between the body and its marker is trailing whitespace of the body, too
    p = chain / F["research"]("ch01")
    body, _, marker = p.read_text().rpartition("\n\n<!--")
    p.write_text(body + "  \n\n\n" + "\n\n<!--" + marker)
    assert statuses(chain) == before


def test_backups_and_partials_are_not_chapter_files(tmp_path):
    write(tmp_path, F["draft"]("ch01") + ".bak.20261129T204100000000Z", mark("draft", "old"))
    write(tmp_path, F["draft"]("ch01") + ".partial", "streaming")
    write(tmp_path, "output/research/.ch01-report.md.tmp.123", "tmp")
    snap = snapshot(Scanner(tmp_path))
    assert snap.chapters == {}


def test_chapters_sort_numerically_on_a_bare_tree(tmp_path):
    for ch in ("ch117", "ch02", "ch10"):
        write(tmp_path, F["research"](ch), mark("research", ch))
    assert list(snapshot(Scanner(tmp_path)).chapters) == ["ch02", "ch10", "ch117"]


def test_scanner_invalidate_sees_new_writes(chain):
    sc = Scanner(chain)
    assert sc.step("ch01", "r2").status == "missing"
    write(chain, F["r2"]("ch01"), mark("r2", "r2"))
    assert sc.step("ch01", "r2").status == "missing"  # memoised
    sc.invalidate(F["r2"]("ch01"))
    assert sc.step("ch01", "r2").status == "done"


# ---------------------------------------------------------------- bare trees and the report


def test_scan_of_a_bare_tree_without_book_yaml_or_outline(chain):
    before = tree_files(chain, skip="\0")
    book = Book.open(chain, require_config=False, repair=False)
    try:
        rep = scan_report(book)
    finally:
        book.close()
    assert rep["phase"] == 1 and rep["batch"] is None and rep["outline_error"] is None
    assert list(rep["chapters"]) == ["ch01"]
    ch = rep["chapters"]["ch01"]
    assert ch["batch"] is None
    assert ch["steps"]["draft"] == "done" and ch["steps"]["html"] == "missing"
    # it changes no file of the book (it may create or refresh the hash cache)
    assert tree_files(chain) == {k: v for k, v in before.items() if not k.startswith("output/.book")}


def test_scan_of_an_empty_directory_creates_nothing(tmp_path):
    book = Book.open(tmp_path, require_config=False, repair=False)
    try:
        rep = scan_report(book)
    finally:
        book.close()
    assert rep["chapters"] == {} and rep["half_finished"] == [] and rep["discrepancies"] == []
    assert list(tmp_path.iterdir()) == []


DESIGN_KEYS = {"workspace", "phase", "batch", "chapters", "half_finished", "stale", "needs_human", "discrepancies"}


def run_scan(ws: Path, *extra: str) -> Completed:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    return run_cli("scan", "--json", "--workspace", str(ws), *extra, env=env)


def test_book_scan_json_has_the_design_keys(chain):
    write(chain, F["r2"]("ch01"), "half")
    d = chain / F["draft"]("ch01")
    d.write_text(d.read_text().replace("draft body", "draft body!"))
    proc = run_scan(chain)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # exactly one JSON document on stdout
    assert DESIGN_KEYS <= set(doc)
    assert doc["workspace"] == str(chain.resolve())
    assert isinstance(doc["phase"], int)
    ch = doc["chapters"]["ch01"]
    assert {"batch", "phase", "steps"} <= set(ch)
    assert set(ch["steps"]) == set(ORDER)
    assert ch["steps"]["draft"] == "edited" and ch["steps"]["r1"] == "stale" and ch["steps"]["r2"] == "half_finished"
    assert ch["phase"] == "reviewing"
    assert doc["half_finished"] == [F["r2"]("ch01")]
    assert doc["stale"] == [F["r1"]("ch01")]
    assert doc["needs_human"] == []
    assert isinstance(doc["discrepancies"], list)


def test_book_scan_json_on_a_built_book(built_ws):
    before = tree_files(built_ws)
    proc = run_scan(built_ws)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["phase"] == 5 and doc["batch"] is None
    assert doc["half_finished"] == [] and doc["stale"] == [] and doc["discrepancies"] == []
    for ch, row in doc["chapters"].items():
        assert isinstance(row["batch"], int), ch
        assert set(row["steps"].values()) == {"done"}, ch
        assert row["phase"] == "done"
    assert tree_files(built_ws) == before  # a scan changes no file of the book


def test_outline_entry_edit_makes_only_that_chapter_stale(built_ws):
    o = built_ws / "output/memory/outline.md"
    text = o.read_text()
    # the summary is part of ch02's entry (and of the index's summaries), not of the table of contents
    start = text.index("\n    summary: ", text.index("- id: ch02"))
    line_end = text.index("\n", start + 1)
    o.write_text(text[:line_end].rstrip("'") + " Now longer." + text[line_end:])
    book = Book.open(built_ws, repair=False)
    try:
        rep = scan_report(book)
    finally:
        book.close()
    assert rep["outline_error"] is None
    chapter_stale = sorted(p for p in rep["stale"] if "ch0" in p)
    assert chapter_stale == sorted([F["research"]("ch02"), F["draft"]("ch02"), F["r3"]("ch02")])
    for ch, row in rep["chapters"].items():
        if ch != "ch02":
            assert "stale" not in row["steps"].values(), ch
    # a title is in the table of contents: every page links to every chapter, so every page is stale
    text = o.read_text()
    start = text.index("\n    title: ", text.index("- id: ch02"))
    o.write_text(text[:start + 1] + text[start + 1:].replace("\n", " (retitled)\n", 1))
    book = Book.open(built_ws, repair=False)
    try:
        rep = scan_report(book)
    finally:
        book.close()
    assert rep["outline_error"] is None
    assert {ch: row["steps"]["html"] for ch, row in rep["chapters"].items()} == {
        ch: "stale" for ch in rep["chapters"]}


def test_outline_error_is_reported_not_raised(built_ws):
    o = built_ws / "output/memory/outline.md"
    o.write_text(o.read_text().replace("batch: 1", "batch: one", 1))
    proc = run_scan(built_ws)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert "outline.md:" in doc["outline_error"] and "batch must be a whole number" in doc["outline_error"]
    assert "ch01" in doc["chapters"]  # the chapters still come from their files


def test_scan_leaves_a_corrupt_ledger_alone(built_ws):
    db = built_ws / STATE_DB
    db.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    before = sorted(p.name for p in db.parent.iterdir())  # the ledger, and what the run kept beside it
    proc = run_scan(built_ws)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert any("unreadable" in w for w in doc.get("warnings", []))
    assert db.read_bytes() == b"this is not a database" * 100
    assert sorted(p.name for p in db.parent.iterdir()) == before and "state.db" in before


# ---------------------------------------------------------------- the hash cache


def count_hashing(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = hashcache.body_hash

    def counting(body: bytes) -> str:
        calls.append(len(body))
        return real(body)

    monkeypatch.setattr(hashcache, "body_hash", counting)
    return calls


def scan_once(root: Path) -> dict:
    book = Book.open(root, repair=False)
    try:
        return scan_report(book)
    finally:
        book.close()  # saves the hash cache to the ledger


def test_the_hash_cache_avoids_rehashing_unchanged_files(built_ws, monkeypatch):
    calls = count_hashing(monkeypatch)
    first = scan_once(built_ws)
    assert len(calls) > 20  # a fresh copy: every marked file hashed once
    calls.clear()
    assert scan_once(built_ws) == first
    assert calls == []  # unchanged tree: nothing read whole
    # one changed file: only it is hashed again
    d = built_ws / F["draft"]("ch03")
    d.write_text(d.read_text() + "\n\n")  # trailing whitespace: size changes, status does not
    calls.clear()
    assert scan_once(built_ws) == first
    assert len(calls) == 1


def test_hash_cache_rows(tmp_path):
    p = write(tmp_path, "f.md", mark("draft", "body"))
    cache = hashcache.HashCache()
    h = cache.body_hash(str(p))
    assert h == short_hash("body")
    st = p.stat()
    assert cache.rows[str(p)] == (st.st_size, st.st_mtime_ns, h) == cache.dirty[str(p)]
    assert cache.body_hash(str(tmp_path / "missing.md")) is None
    unmarked = write(tmp_path, "g.md", "plain text  \n\n")
    assert cache.body_hash(str(unmarked)) == short_hash("plain text")
    cache.forget(str(p))
    assert str(p) not in cache.rows and str(p) not in cache.dirty


# ---------------------------------------------------------------- the shared conformance check


@pytest.mark.slow
def test_conformance_check_scan():
    script = SHARED / "conformance/check_scan.py"
    if not script.exists():
        pytest.skip("../shared/conformance is not present")
    if not BOOK.exists():
        pytest.skip("the `book` console script is not installed")
    proc = subprocess.run([sys.executable, str(script), "--book", str(BOOK), "--chapters", "20", "--trees", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 failed" in proc.stdout


def test_source_edit_makes_only_the_steps_that_read_it_stale(built_ws):
    cfg_src = built_ws / "src/minikv/cache.py"
    text = cfg_src.read_text()
    cfg_src.write_text(text + "\n# a comment added by hand\n")  # the chapter's claims all hold: nothing stale
    assert scan_once(built_ws)["stale"] == []
    cfg_src.write_text(text.replace("def ", "def  ") + "\n# and code the chapter quotes changed\n")
    rep = scan_once(built_ws)
    citing = [ch for ch, row in rep["chapters"].items() if "stale" in row["steps"].values()]
    assert citing  # at least the chapter about cache.py
    for ch in citing:
        stale_steps = {k for k, v in rep["chapters"][ch]["steps"].items() if v == "stale"}
        assert stale_steps <= {"research", "r1"}, (ch, stale_steps)
    from orchestrator.outline import load as load_outline

    about = next(c.id for c in load_outline(built_ws).chapters if "minikv/cache.py" in c.sources)
    assert F["research"](about) in rep["stale"] and F["r1"](about) in rep["stale"]
