"""Recovery: resume after interruptions, damage and hand edits; nothing lost,
nothing trusted that should not be, only in-flight or stale work redone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    crash_points,
    from_an_earlier_session,
    killed_at,
    make_example,
    mutations_while,
    scan,
    tree,
)
from test_run import normalised

from orchestrator.providers.offline import OfflineProvider
from orchestrator.state import fsio
from orchestrator.state.book import Book
from orchestrator.steps import CHECKPOINT, MEMORY_FILES, STATE_DB, STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book

BOOK = str(Path(sys.executable).parent / "book")
CHECKPOINT_NAME = Path(CHECKPOINT).name


class Counting(OfflineProvider):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen: list[tuple[str | None, str]] = []

    async def generate(self, req, sink):
        self.seen.append((req.chapter, req.step))
        return await super().generate(req, sink)


def cut(path: Path, keep: float = 0.5) -> str:
    """Simulate an interrupted write: the file's first part, no marker."""
    from orchestrator.state.reconcile import looks_truncated

    text = path.read_text()
    body = text.rsplit("<!--", 1)[0]
    end = int(len(body) * keep)
    # a cut that happens to end where a text may end (a closed code block) reads as a person's
    # complete file, by design: cut mid-line instead, as an interrupted stream mostly is
    while end > 1 and not looks_truncated(body[:end])[0]:
        end -= 1
    path.write_text(body[:end])
    from_an_earlier_session(path)
    return text



@pytest.fixture
def baseline(built_ws):
    return normalised(built_ws)


# ---------------------------------------------------------------- the five scenarios


def test_writing_interrupted_draft_half_finished(built_ws, baseline):
    draft = built_ws / STEPS["draft"].file("ch03")
    cut(draft)
    assert scan(built_ws)["chapters"]["ch03"]["steps"]["draft"] == "half_finished"
    p = Counting()
    code, summary = run_book(built_ws, provider=p, resume=True)
    assert code == 0
    assert ("ch03", "draft") in p.seen
    assert normalised(built_ws) == baseline
    baks = list(draft.parent.glob("ch03-draft.md.bak.*"))
    assert len(baks) == 1  # the half-finished text is kept, never lost


def test_review_interrupted_only_missing_reviewer_redone(built_ws, baseline):
    for k in ("r2", "review", "panel", "memory", "final", "html"):
        (built_ws / STEPS[k].file("ch02")).unlink()
    p = Counting()
    code, _ = run_book(built_ws, provider=p, resume=True)
    assert code == 0
    assert [s for c, s in p.seen if c == "ch02"] == ["r2", "review", "panel", "memory", "final"]
    assert ("ch02", "r1") not in p.seen and ("ch02", "r3") not in p.seen
    assert normalised(built_ws) == baseline


def test_long_memory_damaged_is_rebuilt(built_ws, baseline):
    summaries = built_ws / MEMORY_FILES["summaries"]
    # cut inside the first chapter's heading: a cut inside a summary's text reads as a person's
    # shorter summary, which is kept (120 characters fell in the heading while titles listed names)
    text = summaries.read_text()
    summaries.write_text(text[: text.index("## ch01") + 10])
    glossary = built_ws / MEMORY_FILES["glossary"]
    # cut off inside the Store line (a line deleted with the marker kept is a person's removal)
    text = glossary.read_text()
    glossary.write_text(text[: text.index("**Store**") + 20])
    (built_ws / STEPS["memory"].file("ch04")).unlink()
    p = Counting()
    code, _ = run_book(built_ws, provider=p, resume=True)
    assert code == 0
    assert p.seen == [("ch04", "memory")]  # the per-chapter file is remade from the draft; the rest from files
    assert normalised(built_ws) == baseline


def test_everything_but_the_files_lost(built_ws, baseline):
    for rel in (CHECKPOINT, STATE_DB, "RESUME.md"):
        (built_ws / rel).unlink()
    for extra in (built_ws / "output/.book").glob("state.db-*"):
        extra.unlink()
    p = Counting()
    code, _ = run_book(built_ws, provider=p, resume=True)
    assert code == 0 and p.seen == []
    assert (built_ws / CHECKPOINT).exists() and (built_ws / "RESUME.md").exists()
    assert scan(built_ws)["discrepancies"] == []
    assert normalised(built_ws) == baseline


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_dependency_chain_broken(example_ws):
    run_book(example_ws)
    o = Book.open(example_ws).scanner.outline
    victim = next(c for c in o.chapters if any(c.id in d.depends_on for d in o.chapters))
    dependents = {d.id for d in o.chapters if victim.id in d.depends_on}
    for k in ("research", "draft", "r1", "r2", "r3", "review", "panel", "memory", "final", "html"):
        (example_ws / STEPS[k].file(victim.id)).unlink()
    failing = OfflineProvider(fail=lambda req: "still broken" if req.chapter == victim.id else None)
    code, summary = run_book(example_ws, provider=failing, resume=True)
    assert code == 3
    assert victim.id in summary.needs_human
    skipped = {n[0] for n, o in summary.outcomes.items() if o.status == "skipped"}
    assert dependents <= skipped
    rep = scan(example_ws)
    assert rep["chapters"][victim.id]["phase"] == "needs_human"
    resume_md = (example_ws / "RESUME.md").read_text()
    assert victim.id in resume_md and "NEEDS_HUMAN_REVIEW" in resume_md


# ---------------------------------------------------------------- strategies


def test_aggressive_continues_the_partial_text(built_ws, baseline):
    draft = built_ws / STEPS["draft"].file("ch05")
    full = draft.read_text()
    draft.unlink()
    partial = fsio.partial_path(draft)
    partial.write_text(full[: len(full) // 2])
    code, _ = run_book(built_ws, resume=True, strategy="aggressive")
    assert code == 0
    assert normalised(built_ws) == baseline
    book = Book.open(built_ws)
    assert any(e["detail"].get("action") == "continue" for e in book.ledger.events(type="recovered"))


def test_ask_lists_and_changes_nothing(built_ws):
    cut(built_ws / STEPS["review"].file("ch01"))
    before = tree(built_ws)
    proc = run_cli("resume", "--strategy", "ask", "--workspace", str(built_ws))
    assert proc.returncode == 3
    assert "ch01-review.md" in proc.stderr and "bytes" in proc.stderr and "truncated" in proc.stderr
    assert tree(built_ws) == before


def test_resume_twice_second_changes_nothing(built_ws):
    cut(built_ws / STEPS["panel"].file("ch02"))
    assert run_book(built_ws, resume=True)[0] == 0
    # output/.lock is bookkeeping, not content: every writer records itself in it while it holds it
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in built_ws.rglob("*")
              if p.is_file() and ".book" not in p.parts and p.name != ".lock"}
    proc = run_cli("resume", "--workspace", str(built_ws))
    assert proc.returncode == 0 and "nothing to do" in proc.stderr
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in built_ws.rglob("*")
             if p.is_file() and ".book" not in p.parts and p.name != ".lock"}
    assert after == before


# ---------------------------------------------------------------- hand edits


def _edit(path: Path, new_text: str) -> None:
    text = path.read_text()
    body, marker = text.rsplit("<!--", 1)
    path.write_text(body.replace("\n## ", f"\n{new_text}\n\n## ", 1) + "<!--" + marker)


def test_hand_edit_content_is_kept_and_downstream_redone(built_ws):
    draft = built_ws / STEPS["draft"].file("ch03")
    _edit(draft, "A paragraph written by a person.")
    edited = draft.read_text()
    rep = scan(built_ws)
    assert rep["chapters"]["ch03"]["steps"]["draft"] == "edited"
    assert rep["chapters"]["ch03"]["steps"]["r1"] == "stale"
    p = Counting()
    code, _ = run_book(built_ws, provider=p)
    assert code == 0
    assert draft.read_text() == edited  # never overwritten
    redone = {s for c, s in p.seen if c == "ch03"}
    assert redone == {"r1", "r2", "r3", "review", "panel", "memory", "final"}
    assert "A paragraph written by a person." in (built_ws / STEPS["final"].file("ch03")).read_text()
    rep = scan(built_ws)
    assert rep["stale"] == [] and rep["chapters"]["ch03"]["steps"]["draft"] == "edited"


def test_touch_only_reruns_nothing(built_ws):
    draft = built_ws / STEPS["draft"].file("ch03")
    os.utime(draft, (time.time() + 10, time.time() + 10))
    p = Counting()
    assert run_book(built_ws, provider=p)[0] == 0 and p.seen == []


def test_whitespace_at_the_end_reruns_nothing(built_ws):
    draft = built_ws / STEPS["draft"].file("ch03")
    text = draft.read_text()
    body, marker = text.rsplit("<!--", 1)
    draft.write_text(body.rstrip() + "\n\n\n   \n<!--" + marker + "\n\n")
    assert scan(built_ws)["chapters"]["ch03"]["steps"]["draft"] == "done"
    p = Counting()
    assert run_book(built_ws, provider=p)[0] == 0 and p.seen == []


def test_marker_deleted_by_hand_is_kept_for_the_person(built_ws):
    draft = built_ws / STEPS["draft"].file("ch03")
    text = draft.read_text()
    body = text.rsplit("<!--", 1)[0] + "My own closing words.\n"
    draft.write_text(body)
    assert scan(built_ws)["chapters"]["ch03"]["steps"]["draft"] == "half_finished"
    code, summary = run_book(built_ws, resume=True)
    assert code == 3 and "book accept ch03 draft" in summary.needs_human["ch03"]
    assert draft.read_text() == body and not list(draft.parent.glob("ch03-draft.md.bak.*"))


# ---------------------------------------------------------------- crashes


@pytest.mark.slow
def test_kill_at_every_write(tmp_path):
    base = make_example(tmp_path / "base", max_chapters=2, batch_size=1)
    assert run_book(base)[0] == 0
    want = normalised(base)
    counted = make_example(tmp_path / "count", max_chapters=2, batch_size=1)
    codes: list[int] = []
    mutations = mutations_while(lambda: codes.append(run_book(counted)[0]))
    assert codes == [0]
    assert len(mutations) > 50
    # checkpoint.md is a view rebuilt on resume: a crash in its first, middle and last rewrite
    # stands for all of them, so the test's cost grows with the steps, not with the rewrites.
    points = crash_points(mutations, CHECKPOINT_NAME)
    for i, (key, k) in enumerate(points[:: 3 if os.environ.get("CI") else 1]):
        ws = make_example(tmp_path / f"k{i}", max_chapters=2, batch_size=1)
        crashed = killed_at(key, k, lambda ws=ws: run_book(ws))
        if not crashed:  # the number of checkpoint rewrites may differ by one between runs
            assert key[1] == CHECKPOINT_NAME, (key, k)
            continue
        n = (key, k)
        # No marked file is ever incomplete: every file with a marker has its body hash.
        rep = scan(ws)
        fresh_before = {(c, k) for c, r in rep["chapters"].items() for k, v in r["steps"].items() if v == "done"}
        p = Counting()
        code, _ = run_book(ws, provider=p, resume=True)
        assert code == 0, n
        assert normalised(ws) == want, n
        assert not (set(p.seen) & fresh_before), (n, set(p.seen) & fresh_before)  # only in-flight work redone
        import shutil

        shutil.rmtree(ws)


@pytest.mark.slow
def test_sigterm_stops_cleanly_and_resume_finishes(example_ws):
    env = dict(os.environ, BOOK_OFFLINE_LATENCY="0.3")
    proc = subprocess.Popen([BOOK, "run", "--workspace", str(example_ws)], stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 20
    while time.time() < deadline and not list((example_ws / "output").rglob("*.partial")):
        time.sleep(0.05)
    time.sleep(0.1)
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    assert time.time() - t0 < 5
    assert proc.returncode != 0 and "interrupted" in err.lower()
    book = Book.open(example_ws)
    assert book.ledger.events(type="interrupted")
    book.close()
    assert "interrupted" in (example_ws / "RESUME.md").read_text()
    assert fsio.Lock(example_ws / "output/.lock").holder() is None  # released
    code, _ = run_book(example_ws, resume=True)
    assert code == 0 and scan(example_ws)["complete"]


@pytest.mark.slow
def test_a_dead_processs_lock_file_blocks_nothing(built_ws):
    dead = subprocess.Popen(["true"])
    dead.wait()
    (built_ws / "output/.lock").write_text(f"{dead.pid} host\n")
    proc = run_cli("resume", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr  # the kernel released the dead run's lock


@pytest.mark.slow
def test_live_lock_refuses_with_exit_4(built_ws):
    from lockutil import held_elsewhere

    with held_elsewhere(built_ws / "output/.lock") as holder:
        before = tree(built_ws)
        for verb in ("run", "resume"):
            proc = subprocess.run([BOOK, verb, "--workspace", str(built_ws)], capture_output=True, text=True)
            assert proc.returncode == 4, proc.stderr
            assert f"another book run (pid {holder.pid}" in proc.stderr
        assert tree(built_ws) == before


def test_only_the_glossary_damaged_is_rebuilt_without_any_generation(built_ws, baseline):
    glossary = built_ws / MEMORY_FILES["glossary"]
    glossary.write_text(glossary.read_text()[:200])  # cut, marker gone
    p = Counting()
    code, _ = run_book(built_ws, provider=p, resume=True)
    assert code == 0 and p.seen == []
    assert normalised(built_ws) == baseline


def test_renaming_a_chapter_in_the_outline_redoes_only_that_chapter(built_ws):
    book = Book.open(built_ws)
    o = book.scanner.outline
    book.close()
    target = next(c for c in o.chapters if any(c.id in d.depends_on for d in o.chapters))
    dependents = {d.id for d in o.chapters if target.id in d.depends_on}
    outline = built_ws / "output/memory/outline.md"
    text = outline.read_text()
    at = text.index(f"- id: {target.id}\n")  # the chapter's own `title:` line, however YAML quotes it
    line_start = text.index("  title: ", at)
    line_end = text.index("\n", line_start)
    outline.write_text(text[:line_start] + "  title: A new name" + text[line_end:])
    rep = scan(built_ws)
    assert rep["chapters"][target.id]["steps"]["research"] == "stale"
    for d in dependents:
        assert rep["chapters"][d]["steps"]["research"] == "done"
        # it links to the renamed chapter: the link's text is refreshed at publish, no redraft (issue 13)
        assert rep["chapters"][d]["steps"]["draft"] == "done"
    others = {c.id for c in o.chapters} - dependents - {target.id}
    assert all(rep["chapters"][c]["steps"]["draft"] == "done" for c in others)
    assert run_book(built_ws)[0] == 0
    for d in dependents:
        assert ">A new name</a>" in (built_ws / STEPS["html"].file(d)).read_text()


def test_log_and_replay_through_the_cli(built_ws):
    proc = run_cli("log", "--chapter", "ch02", "--type", "step_end", "--json", "--workspace", str(built_ws))
    import json

    events = json.loads(proc.stdout)
    assert {e["step"] for e in events} == {"research", "draft", "r1", "r2", "r3", "review", "panel", "memory", "final"}
    assert all(e["chapter"] == "ch02" and e["type"] == "step_end" for e in events)
    (built_ws / STEPS["panel"].file("ch02")).unlink()
    proc = run_cli("replay", "--workspace", str(built_ws))
    assert proc.returncode == 0
    assert "ch02 panel: ledger says done, files say missing" in proc.stdout


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_file_book_never_started_is_moved_only_with_a_word(example_ws):
    from orchestrator.pipeline.plan import Scope

    run_book(example_ws, scope=Scope(phase=2))
    mine = example_ws / STEPS["research"].file("ch01")
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("# My own notes on the cache\n\nI started these by hand and never finished")
    from_an_earlier_session(mine)
    proc = run_cli("resume", "--workspace", str(example_ws))
    assert proc.returncode == 0, proc.stderr
    assert "book never started writing it: it may be yours" in proc.stderr
    baks = list(mine.parent.glob("ch01-report.md.bak.*"))
    assert [b.read_text() for b in baks] == ["# My own notes on the cache\n\nI started these by hand and never finished"]
