"""`book run` end to end on the sample source, with the offline provider."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_example, scan, tree

from orchestrator.errors import StepFailed, UsageError
from orchestrator.pipeline.plan import Scope
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state.book import Book
from orchestrator.steps import ORDER, STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book

BOOK = str(Path(sys.executable).parent / "book")
RUN_ATTR = re.compile(rb" run=\S+")
# the pages' build date is the newest final's day (pipeline.publishing.built_date): two builds either side of
# midnight UTC differ in it and nothing else
BUILT_DATE = re.compile(rb"(Built |\xe6\x9e\x84\xe5\xbb\xba\xe4\xba\x8e |<lastmod>)\d{4}-\d{2}-\d{2}")


def normalised(ws: Path) -> dict[str, bytes]:
    out = {}
    for rel, data in tree(ws / "output").items():
        if rel.startswith(".book/") or ".bak." in rel or rel == "memory/checkpoint.md":
            continue
        plain = RUN_ATTR.sub(b"", data)
        undated = BUILT_DATE.sub(rb"\1DATE", plain)
        # (and so does the hash of such a page, in its marker; the page itself is compared whole)
        out[rel] = re.sub(rb"(HTML_COMPLETE body=)\w+", rb"\1HASH", undated) if undated != plain else undated
    return out


def test_end_to_end_every_step_marked(built_ws):
    rep = scan(built_ws)
    assert rep["complete"] and rep["phase"] == 5
    assert len(rep["chapters"]) >= 5
    for ch, row in rep["chapters"].items():
        assert set(row["steps"].values()) == {"done"}, (ch, row)
        for step in ORDER:
            text = (built_ws / STEPS[step].file(ch)).read_text()
            assert text.rstrip().splitlines()[-1].startswith(f"<!-- {STEPS[step].marker} body=")
    assert rep["half_finished"] == rep["stale"] == rep["edited"] == rep["needs_human"] == []
    for f in ("memory/outline.md", "memory/source-map.md", "memory/style-guide.md", "memory/glossary.md",
              "memory/chapter-summaries.md", "memory/metaphor-registry.md", "memory/cross-references.md",
              "reviews/book-audit.md", "publish/index.html", "memory/checkpoint.md"):
        assert (built_ws / "output" / f).exists(), f
    assert (built_ws / "RESUME.md").exists()
    glossary = (built_ws / "output/memory/glossary.md").read_text()
    assert "**Store**" in glossary  # a class of the sample, defined in its chapter


def test_second_run_changes_nothing(built_ws):
    # output/.lock is bookkeeping, not content: every writer records itself in it while it holds it
    before = {rel: (p.stat().st_mtime_ns, p.read_bytes()) for rel, p in
              ((p.relative_to(built_ws).as_posix(), p) for p in built_ws.rglob("*") if p.is_file())
              if not rel.startswith("output/.book/") and rel != "output/.lock"}
    code, summary = run_book(built_ws)
    assert code == 0 and summary.generated == []
    after = {rel: (p.stat().st_mtime_ns, p.read_bytes()) for rel, p in
             ((p.relative_to(built_ws).as_posix(), p) for p in built_ws.rglob("*") if p.is_file())
             if not rel.startswith("output/.book/") and rel != "output/.lock"}
    assert after == before


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_deterministic_across_directories(built_ws, tmp_path):
    other = make_example(tmp_path / "other")
    code, _ = run_book(other)
    assert code == 0
    a, b = normalised(built_ws), normalised(other)
    assert sorted(a) == sorted(b)
    diff = [k for k in a if a[k] != b[k]]
    assert diff == []


def test_batch_2_before_batch_1_is_refused(example_ws):
    code, _ = run_book(example_ws, scope=Scope(phase=2))  # outline exists, no chapter yet
    assert code == 0
    with pytest.raises(UsageError, match="batch 2 needs the earlier batches first"):
        run_book(example_ws, scope=Scope(batch=2))
    proc = run_cli("run", "--batch", "2", "--workspace", str(example_ws))
    assert proc.returncode == 2 and "run `book run --batch 1` first" in proc.stderr
    code, _ = run_book(example_ws, scope=Scope(batch=1))
    assert code == 0
    rep = scan(example_ws)
    b1 = [c for c, r in rep["chapters"].items() if r["batch"] == 1]
    assert all(rep["chapters"][c]["steps"]["memory"] == "done" for c in b1)
    assert all(rep["chapters"][c]["steps"]["final"] == "missing" for c in b1)  # --batch is phase 3
    code, _ = run_book(example_ws, scope=Scope(batch=2))
    assert code == 0


def test_dry_run_changes_nothing(example_ws):
    before = tree(example_ws)
    proc = run_cli("run", "--dry-run", "--workspace", str(example_ws))
    assert proc.returncode == 0, proc.stderr
    assert "outline" in proc.stdout and "missing" in proc.stdout
    assert tree(example_ws) == before


def test_dry_run_on_built_book_says_why(built_ws):
    draft = built_ws / STEPS["research"].file("ch02")
    text = draft.read_text()
    draft.write_text(text.replace("\n## ", "\nA line added by hand.\n\n## ", 1))
    proc = run_cli("run", "--dry-run", "--workspace", str(built_ws))
    assert proc.returncode == 0
    assert re.search(r"ch02\s+draft\s+stale: research changed", proc.stdout), proc.stdout


def _fail_for(ch: str):
    return lambda req: "the model is down for this chapter" if req.chapter == ch else None


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_failing_chapter_needs_human_and_dependents_skipped(example_ws):
    run_book(example_ws, scope=Scope(phase=2))
    o = Book.open(example_ws).scanner.outline
    victim = next(c for c in o.chapters if any(c.id in d.depends_on for d in o.chapters))
    dependents = {d.id for d in o.chapters if victim.id in d.depends_on}
    code, summary = run_book(example_ws, provider=OfflineProvider(fail=_fail_for(victim.id)))
    assert code == 3
    assert victim.id in summary.needs_human
    rep = scan(example_ws)
    assert rep["chapters"][victim.id]["steps"]["research"] == "failed"  # the ledger's last word
    for d in dependents:
        assert rep["chapters"][d]["steps"]["research"] == "missing", d
    others = [c.id for c in o.chapters if c.id != victim.id and c.id not in dependents
              and not set(c.depends_on) & dependents]
    assert others
    for c in others:
        assert rep["chapters"][c]["steps"]["memory"] == "done", c
    needs = (example_ws / "output/memory/needs-human.md").read_text()
    assert victim.id in needs and "the model is down" in needs
    assert "NEEDS_HUMAN_REVIEW" in (example_ws / "output/memory/checkpoint.md").read_text()
    # A later run retries it and finishes the book.
    code, summary = run_book(example_ws)
    assert code == 0, summary.needs_human
    assert scan(example_ws)["complete"]
    assert victim.id not in (example_ws / "output/memory/needs-human.md").read_text()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_failures_are_retried_then_failed_in_the_ledger(example_ws):
    calls = []

    def flaky(req):
        if req.step == "research" and req.chapter == "ch01":
            calls.append(1)
            return "overloaded" if len(calls) < 2 else None
        return None

    code, _ = run_book(example_ws, provider=OfflineProvider(fail=flaky))
    assert code == 0 and len(calls) == 2
    book = Book.open(example_ws)
    kinds = [e["type"] for e in book.ledger.events(chapter="ch01", step="research")]
    assert kinds == ["step_start", "step_retry", "step_start", "step_end"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_cli_run_reports_and_exit_code(example_ws):
    proc = run_cli("run", "--workspace", str(example_ws))
    assert proc.returncode == 0, proc.stderr
    assert "the book:" in proc.stderr and "index.html" in proc.stderr
    assert "✅ ch01 research" in proc.stderr  # plain line-per-event output when not a terminal
    rep = json.loads(run_cli("scan", "--json", "--workspace", str(example_ws)).stdout)
    assert rep["complete"]


def test_redo_backs_up_and_regenerates(built_ws):
    path = built_ws / STEPS["r2"].file("ch03")
    old = path.read_text()
    proc = run_cli("redo", "ch03", "r2", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    baks = list(path.parent.glob("ch03-r2.md.bak.*"))
    assert len(baks) == 1 and baks[0].read_text() == old
    assert path.read_text().split("<!--")[0] == old.split("<!--")[0]  # deterministic: same body


def test_r1_catches_invented_code_and_paths(built_ws):
    draft = built_ws / STEPS["draft"].file("ch02")
    text = draft.read_text()
    body, marker = text.rsplit("<!--", 1)
    body += "\n```python file=minikv/store.py\ndef get_everything_at_once(self):\n    return 42\n```\n\nSee `minikv/nowhere.py`.\n"
    draft.write_text(body + "<!--" + marker)
    code, summary = run_book(built_ws)
    r1 = (built_ws / STEPS["r1"].file("ch02")).read_text()
    assert "**blocking** `r1.code`" in r1
    assert "minikv/nowhere.py" in r1
    assert code == 3 and "ch02" in summary.needs_human  # a blocked review goes to a person
    assert "blocked" in summary.needs_human["ch02"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_provider_that_returns_bad_output_is_retried_with_feedback(example_ws):
    class Sloppy(OfflineProvider):
        async def generate(self, req, sink):
            if req.step == "memory" and req.chapter == "ch01" and not req.feedback:
                from orchestrator.providers.base import Result

                sink.text("not a memory file")
                return Result("not a memory file", "end_turn")
            return await super().generate(req, sink)

    code, _ = run_book(example_ws, provider=Sloppy())
    assert code == 0
    book = Book.open(example_ws)
    ev = book.ledger.events(chapter="ch01", step="memory")
    assert any(e["type"] == "step_retry" and "## Summary" in e["detail"]["error"] for e in ev)


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_step_failed_not_retryable_fails_at_once(example_ws):
    calls = []

    class Refuses(OfflineProvider):
        async def generate(self, req, sink):
            if req.chapter == "ch01" and req.step == "research":
                calls.append(1)
                raise StepFailed("refused", retryable=False)
            return await super().generate(req, sink)

    code, summary = run_book(example_ws, provider=Refuses())
    assert code == 3 and calls == [1]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_broken_link_in_a_final_goes_back_to_the_editor(example_ws):
    class Careless(OfflineProvider):
        async def generate(self, req, sink):
            res = await super().generate(req, sink)
            if req.step == "final" and req.chapter == "ch02" and not req.context.get("instructions"):
                res.text = res.text.replace("## Summary", "See [the missing chapter](ch99.md).\n\n## Summary")
            return res

    code, summary = run_book(example_ws, provider=Careless())
    assert code == 0, summary.needs_human
    book = Book.open(example_ws)
    assert [e["chapter"] for e in book.ledger.events(type="delivery_failed")] == ["ch02"]
    assert "ch99" not in (example_ws / STEPS["final"].file("ch02")).read_text()


def test_broken_link_in_a_hand_edited_final_needs_a_person(built_ws):
    final = built_ws / STEPS["final"].file("ch03")
    text = final.read_text()
    body, marker = text.rsplit("<!--", 1)
    final.write_text(body.replace("\n## ", "\nSee [nowhere](ch42.md#nothing).\n\n## ", 1) + "<!--" + marker)
    code, summary = run_book(built_ws)
    assert code == 3
    assert "delivery check" in summary.needs_human["ch03"] and "ch03-final.md:" in summary.needs_human["ch03"]
    assert "See [nowhere]" in final.read_text()  # a person's final is never rewritten


def test_run_one_chapter(example_ws):
    run_book(example_ws, scope=Scope(phase=2))
    o = Book.open(example_ws).scanner.outline
    free = next(c for c in o.chapters if not c.depends_on)
    bound = next(c for c in o.chapters if c.depends_on)
    with pytest.raises(UsageError, match=f"{bound.id} depends on"):
        run_book(example_ws, scope=Scope(chapter=bound.id))
    code, _ = run_book(example_ws, scope=Scope(chapter=free.id))
    assert code == 0
    rep = scan(example_ws)
    assert rep["chapters"][free.id]["steps"]["final"] == "done"
    assert all(r["steps"]["research"] == "missing" for c, r in rep["chapters"].items() if c != free.id)


def test_a_broken_outline_edit_is_reported_with_its_line_and_changes_nothing(built_ws):
    outline = built_ws / "output/memory/outline.md"
    outline.write_text(outline.read_text().replace("  batch: 2\n", "  batch: two\n", 1))
    before = tree(built_ws)
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 2
    assert re.search(r"outline\.md:\d+: ch\d+: batch must be a whole number", proc.stderr), proc.stderr
    assert tree(built_ws) == before


@pytest.mark.slow
def test_scan_shows_running_steps_of_a_live_run(example_ws):
    import os
    import time

    env = dict(os.environ, BOOK_OFFLINE_LATENCY="0.3")
    proc = subprocess.Popen([BOOK, "run", "-q", "--workspace", str(example_ws)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        seen = set()
        deadline = time.time() + 30
        while time.time() < deadline and "running" not in seen:
            out = subprocess.run([BOOK, "scan", "--json", "--workspace", str(example_ws)], capture_output=True, text=True)
            if out.returncode == 0 and out.stdout:
                rep = json.loads(out.stdout)
                seen |= {v for r in rep["chapters"].values() for v in r["steps"].values()}
            time.sleep(0.1)
        assert "running" in seen
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    rep = scan(example_ws)
    assert "running" not in {v for r in rep["chapters"].values() for v in r["steps"].values()}  # no live run now
