"""Issue 13, item 6: gates a person can live with. A run stopped at gates prints one line
per waiting card (not one per skipped step); `book gates` summarises; `book approve GATE
--all` shows what it approves, then approves it; the outline card's recommendation and
risks come from real checks."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from orchestrator.main import main
from orchestrator.pipeline.outline_checks import outline_risks
from orchestrator.steps import BOOK_STEPS
from orchestrator.testing.helpers import make_example


def book(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["book", *args])
    try:
        main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_gated_book_from_start_to_end(tmp_path: Path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=3)
    w = ("--workspace", str(ws))
    code, msg = book(capsys, monkeypatch, "run", *w)
    assert code == 3 and "did not complete" not in msg
    assert "waiting for your decision" in msg and "output/gates/outline.md" in msg
    code, msg = book(capsys, monkeypatch, "approve", "outline", *w)
    assert code == 0 and "`book run` will continue" in msg
    code, msg = book(capsys, monkeypatch, "run", *w)
    assert code == 3 and "did not complete" not in msg
    cards = sorted(set(re.findall(r"output/gates/final-ch\d+\.md", msg)))
    skipped = [line for line in msg.splitlines() if "⏭" in line]
    assert len(skipped) == len(cards) >= 2  # one progress line per waiting card, nothing for the steps behind it
    code, msg = book(capsys, monkeypatch, "gates", *w)
    assert code == 0 and f"final: {len(cards)} waiting" in msg and "`book approve final --all`" in msg
    code, msg = book(capsys, monkeypatch, "approve", "final", "--all", *w)
    assert code == 0 and f"approving {len(cards)} final card(s):" in msg
    assert all(c in msg for c in cards) and msg.count("approved: ") == len(cards)
    code, msg = book(capsys, monkeypatch, "run", *w)
    assert code == 0, msg
    code, msg = book(capsys, monkeypatch, "approve", "final", "--all", *w)
    assert code == 0 and "no final card is waiting" in msg
    code, msg = book(capsys, monkeypatch, "approve", "nosuch", "--all", *w)
    assert code == 2 and "unknown gate 'nosuch'" in msg and "outline" in msg


PLAN = """# Outline

```yaml
title: "{title}"
chapters:
- id: ch01
  title: Storage
  batch: 1
  summary: s
  depends_on: [ch02]
  sources: [a.py]
- id: ch02
  title: storage
  batch: 1
  summary: s
  depends_on: [ch01]
  sources: []
```
"""


def test_outline_risks_come_from_real_checks():
    risks = outline_risks(PLAN.format(title=""))
    assert "the book has no title" in risks
    assert any("ch02 has the same title as ch01" in r for r in risks)
    assert any(r.startswith("ch02") and "cites no source file" in r for r in risks)
    assert any(r.startswith("dependency cycle: ch01 → ch02 → ch01") for r in risks)
    assert outline_risks(PLAN.format(title="B").replace("title: storage", "title: Index").replace(
        "depends_on: [ch01]", "depends_on: []").replace("sources: []", "sources: [b.py]")) == []


def test_outline_card_recommends_from_the_checks(tmp_path: Path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    w = ("--workspace", str(ws))
    assert book(capsys, monkeypatch, "run", *w)[0] == 3
    card = (ws / "output/gates/outline.md").read_text()
    assert "## Recommendation\n\napprove\n" in card
    outline = ws / BOOK_STEPS["outline"].path
    text = outline.read_text()
    titles = re.findall(r"(?m)^    title: (.+)$", text)  # the chapters' (under their parts)
    outline.write_text(text.replace(f"title: {titles[1]}", f"title: {titles[0]}", 1))  # a duplicate title
    assert book(capsys, monkeypatch, "run", *w)[0] == 3
    card = (ws / "output/gates/outline.md").read_text()
    assert "## Recommendation\n\napprove\n" not in card and "has the same title as ch01" in card
