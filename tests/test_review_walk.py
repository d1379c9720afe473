"""Issue 25, item 3: few, informed decisions. `book review` walks the waiting cards (preview or
diff, one key each); `--run` runs the book on to the next cards and walks those, so a gated book
is finished by one command; `book approve --all` approves every gate's cards."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from orchestrator.pipeline import gates
from orchestrator.pipeline.review_walk import walk
from orchestrator.state.book import Book
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import make_example


def pending(ws: Path) -> list[tuple[str, str | None]]:
    book = Book.open(ws, repair=False)
    try:
        return [(c.gate, c.chapter) for c in gates.pending(book, book.scanner.chapters())]
    finally:
        book.close()


def walk_with(ws: Path, answers: list[str]) -> tuple[object, list[str]]:
    said: list[str] = []
    book = Book.open(ws)
    try:
        cards = gates.pending(book, book.scanner.chapters())
        feed = iter(answers)
        return walk(book, cards, lambda prompt: next(feed), said.append), said
    finally:
        book.close()


@pytest.mark.slow
def test_review_run_finishes_a_gated_book_in_one_command(tmp_path: Path, monkeypatch):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=4)
    assert run_cli("run", "--workspace", str(ws)).returncode == 3
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 200))  # Enter approves
    proc = run_cli("review", "--run", "--quiet", "--workspace", str(ws))
    assert proc.returncode == 0, proc.stderr[-2000:]
    decided = sum(int(n) for n in re.findall(r"^(\d+) decided", proc.stderr, re.M))
    runs = proc.stderr.count("generated ")
    chapters = len(list((ws / "output/chapters/final").glob("ch*-final.md")))
    # one card for the outline and three per chapter (research, review, final), each decided once
    assert decided == 1 + 3 * chapters and runs <= 1 + 3 * chapters
    assert pending(ws) == []
    index = (ws / "output/publish/index.html").read_text()
    assert len(set(re.findall(r'href="(ch\d+)\.html"', index))) == chapters


def test_walk_rejects_skips_and_quits(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=3)
    run_cli("run", "--workspace", str(ws))
    run_cli("approve", "outline", "--workspace", str(ws))
    run_cli("run", "--workspace", str(ws))
    cards = pending(ws)
    assert len(cards) >= 2
    # a key that means nothing is asked again; a reject asks why until it is told
    result, said = walk_with(ws, ["s", "x", "r", "", "too thin"])
    assert any("one of a, r, m, s, q" in s for s in said)
    assert list(result.decided.values()) == ["rejected"] and len(result.skipped) == 1 and not result.quit
    card = (ws / f"output/gates/final-{cards[1][1]}.md").read_text()
    assert "- decision: rejected" in card and "- reason: too thin" in card
    assert any("## " in s or "# " in s for s in said)  # the preview of what is decided
    result, _ = walk_with(ws, ["q"])
    assert result.quit and not result.decided and (ws / f"output/gates/final-{cards[0][1]}.md").exists()


def test_a_redone_artifact_is_shown_as_a_diff(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_cli("run", "--workspace", str(ws))
    run_cli("approve", "outline", "--workspace", str(ws))
    run_cli("run", "--workspace", str(ws))
    run_cli("reject", "final", "ch01", "--reason", "make it funnier", "--workspace", str(ws))
    run_cli("run", "--workspace", str(ws))  # words the offline writer cannot follow: the same final, a new card
    assert ("final", "ch01") in pending(ws)
    _, said = walk_with(ws, ["q"])
    assert any("the same text as the version before" in s for s in said)


def test_approve_all_without_a_gate_approves_every_gate(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2)
    run_cli("run", "--workspace", str(ws))
    run_cli("approve", "outline", "--workspace", str(ws))
    run_cli("run", "--workspace", str(ws))
    waiting = pending(ws)
    assert waiting and {g for g, _ in waiting} == {"research"}
    proc = run_cli("approve", "--all", "--workspace", str(ws))
    assert proc.returncode == 0 and proc.stderr.count("approved: ") == len(waiting)
    assert pending(ws) == []
    proc = run_cli("approve", "--workspace", str(ws))
    assert proc.returncode == 2 and "name the gate" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["offline", "anthropic"])
def test_modify_on_a_review_settles_within_one_run(tmp_path: Path, monkeypatch, provider: str):
    """`book modify review chNN --instructions`: the next run redoes the draft with them and the
    chapter's review gate asks again, once; a second run redoes nothing (issue 25: it looped)."""
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer

    api = None
    if provider == "anthropic":
        api = FakeAPI(answerer=answer)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws", gates="normal", max_chapters=1, provider=provider)
        w = ("--workspace", str(ws))
        for _ in range(2):  # the outline gate, then the research gate
            run_cli("run", *w)
            run_cli("approve", "--all", *w)
        run_cli("run", *w)  # on to the review gate
        assert ("review", "ch01") in pending(ws)
        assert run_cli("modify", "review", "ch01", "--instructions", "explain the log first", *w).returncode == 0
        drafts = lambda: sorted(p.name for p in (ws / "output/chapters/draft").glob("ch01-draft.md*"))  # noqa: E731
        first = run_cli("run", *w)
        assert first.returncode == 3 and ("review", "ch01") in pending(ws), first.stderr[-1500:]
        after = drafts()
        calls = len(api.requests) if api else 0
        second = run_cli("run", *w)
        assert second.returncode == 3 and drafts() == after  # nothing redone: no new .bak, no new draft
        assert (len(api.requests) if api else 0) == calls  # and no model call paid for it
        assert "the rollback runs on the next" not in first.stderr + second.stderr
    finally:
        if api:
            api.stop()
