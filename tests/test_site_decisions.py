"""Issue 25, item 1: a decision is an input of everything that shows its chapter. A book is
walked through every kind of final-gate decision (approve one, reject one, approve the rest,
a person's edit after approval, its re-approval); after each decision and run, the published
site equals a fresh publish of the same files (the site of a copy with `output/publish/`
removed), and a chapter shows on the index exactly when its final is approved as it stands."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import make_example

pytestmark = pytest.mark.slow


def book(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    proc = run_cli(*args)
    return proc.returncode, proc.stdout + proc.stderr


def site(ws: Path) -> dict[str, bytes]:
    pub = ws / "output/publish"
    if not pub.is_dir():
        return {}
    # dot files are the publisher's memory (titles a chapter had), not pages; a page's marker
    # names the run that wrote it, which a fresh publish cannot share
    return {p.name: re.sub(rb" run=\S+", b"", p.read_bytes())
            for p in sorted(pub.iterdir()) if p.is_file() and not p.name.startswith(".")}


def fresh_site(capsys, monkeypatch, ws: Path, tmp: Path) -> dict[str, bytes]:
    copy = tmp / "fresh"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ws, copy, symlinks=True)
    shutil.rmtree(copy / "output/publish", ignore_errors=True)
    book(capsys, monkeypatch, "run", "--workspace", str(copy))
    return site(copy)


def listed_ready(ws: Path) -> set[str]:
    """The chapters the index links to (a chapter that is not ready has no link)."""
    index = ws / "output/publish/index.html"
    return set(re.findall(r'href="(ch\d+)\.html"', index.read_text())) if index.exists() else set()


def test_every_final_decision_reaches_the_site(tmp_path: Path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=4)
    w = ("--workspace", str(ws))

    def run_and_compare() -> None:
        code, msg = book(capsys, monkeypatch, "run", *w)
        assert code in (0, 3), msg
        assert site(ws) == fresh_site(capsys, monkeypatch, ws, tmp_path)

    book(capsys, monkeypatch, "run", *w)
    assert book(capsys, monkeypatch, "approve", "outline", *w)[0] == 0
    run_and_compare()
    chapters = sorted(p.name[len("final-"):-3] for p in (ws / "output/gates").glob("final-ch*.md"))
    assert len(chapters) >= 2
    assert listed_ready(ws) == set()  # every final waits for its decision

    first, second = chapters[:2]
    assert book(capsys, monkeypatch, "approve", "final", first, *w)[0] == 0
    run_and_compare()
    assert listed_ready(ws) == {first}

    assert book(capsys, monkeypatch, "reject", "final", second, "--reason", "too short", *w)[0] == 0
    run_and_compare()
    assert listed_ready(ws) == {first}  # the redone final waits for a new decision

    assert book(capsys, monkeypatch, "approve", "final", "--all", *w)[0] == 0
    run_and_compare()
    book(capsys, monkeypatch, "approve", "final", "--all", *w)  # chapters whose final came only now
    run_and_compare()
    chapters = sorted(p.name[len("final-"):-3] for p in (ws / "output/gates").glob("final-ch*.md"))
    assert listed_ready(ws) == set(chapters)
    index = (ws / "output/publish/index.html").read_text()
    assert "needs_human" not in index and "book approve" not in index  # no operator text in public

    # a person's edit of an approved final is that person's decision: it stays, with the edit
    final = ws / f"output/chapters/final/{first}-final.md"
    text = final.read_text()
    final.write_text(text.replace("\n\n", "\n\nA sentence a person added.\n\n", 1))
    run_and_compare()
    assert listed_ready(ws) == set(chapters)
    assert "a person's own edit" in (ws / f"output/gates/final-{first}.md").read_text()
    for page in (f"{first}.html", "print.html", "search-index.js"):
        assert "A sentence a person added." in (ws / "output/publish" / page).read_text()

    # a rejection after the approval takes the chapter off the site until it is approved again
    assert book(capsys, monkeypatch, "reject", "final", second, "--reason", "not yet", *w)[0] == 0
    run_and_compare()
    assert listed_ready(ws) == set(chapters) - {second}
    assert not (ws / f"output/publish/{second}.html").exists()
    assert book(capsys, monkeypatch, "approve", "final", second, *w)[0] == 0
    run_and_compare()
    assert listed_ready(ws) == set(chapters)


def test_a_rejection_that_gives_back_the_same_text_settles(tmp_path: Path, capsys, monkeypatch):
    """The offline provider cannot follow a reason: the redo gives the same final, and the run
    says so and asks again, once, instead of redoing it on every run."""
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    w = ("--workspace", str(ws))
    book(capsys, monkeypatch, "run", *w)
    book(capsys, monkeypatch, "approve", "outline", *w)
    book(capsys, monkeypatch, "run", *w)
    assert book(capsys, monkeypatch, "reject", "final", "ch01", "--reason", "too short", *w)[0] == 0
    code, msg = book(capsys, monkeypatch, "run", *w)
    assert code == 3 and "the same text came back" in msg and "follows only" in msg  # "too short" is no "shorter"
    card = (ws / "output/gates/final-ch01.md").read_text()
    assert "- decision: pending" in card
    baks = sorted(p.name for p in (ws / "output/chapters/final").glob("ch01-final.md.bak.*"))
    code, msg = book(capsys, monkeypatch, "run", *w)
    assert code == 3 and "ch01 final" not in msg.replace("gate:final", "")  # nothing redone
    assert sorted(p.name for p in (ws / "output/chapters/final").glob("ch01-final.md.bak.*")) == baks
    code, msg = book(capsys, monkeypatch, "gates", *w)
    assert "final-ch01.md" in msg
