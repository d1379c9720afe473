"""Issue 25, item 3: a gate per batch or per phase (`gate_grain:` in book.yaml). A group card
lists every chapter it covers with its artifact's hash and a preview; one decision covers them,
or a person decides for one chapter (a rejection rolls back only the chapters it names); a
changed artifact expires the card, and the remade card keeps the decisions on what did not
change. Under `phase`, the research and review gates hold the final, so the whole book comes to
each gate in one wave."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from orchestrator.config import load
from orchestrator.errors import ConfigError
from orchestrator.outline import parse as parse_outline
from orchestrator.pipeline import gates
from orchestrator.pipeline.plan import Scope, chapter_graph
from orchestrator.state.book import Book
from orchestrator.testing.cli import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synthetic import make_book  # noqa: E402


def book_of(tmp_path: Path, grain: str, n: int = 4) -> Path:
    # n independent modules, two chapters per batch
    return make_book(tmp_path / "ws", n, gates='"normal"', batch_size=2, gate_grain=grain)


def waiting(ws: Path) -> list[tuple[str, str | None, list[str]]]:
    book = Book.open(ws, repair=False)
    try:
        return [(c.gate, c.unit, c.waiting() if c.group else [c.chapter or "-"])
                for c in gates.pending(book, book.scanner.chapters())]
    finally:
        book.close()


def cli(ws: Path, *args: str):
    return run_cli(*args, "--workspace", str(ws))


def test_an_unknown_grain_names_the_file_and_line(tmp_path: Path):
    ws = book_of(tmp_path, "per-chapter")
    with pytest.raises(ConfigError) as e:
        load(ws)
    line = next(i for i, t in enumerate((ws / "book.yaml").read_text().splitlines(), 1) if t.startswith("gate_grain"))
    assert f"book.yaml:{line}" in str(e.value) and "chapter, batch, phase" in str(e.value)
    proc = cli(ws, "run")
    assert proc.returncode == 2 and "gate_grain must be one of" in proc.stderr


def test_a_batch_card_decides_its_chapters_together_or_one_by_one(tmp_path: Path):
    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    assert cli(ws, "run").returncode == 3
    # independent chapters: both batches reach the research gate in the same run, a card each
    assert waiting(ws) == [("research", "b1", ["ch01", "ch02"]), ("research", "b2", ["ch03", "ch04"])]
    card = (ws / "output/gates/research-b1.md").read_text()
    for ch in ("ch01", "ch02"):  # each chapter's artifact, hash and preview
        h = gates.current_hash(Book.open(ws, repair=False), "research", ch)
        assert f"- {ch}: output/research/{ch}-report.md (artifact_hash: {h})" in card and f"### {ch} — " in card
    # one chapter rejected, the other approved: only the rejected one is rolled back
    assert cli(ws, "reject", "research", "ch02", "--reason", "name the tests").returncode == 0
    assert waiting(ws)[0] == ("research", "b1", ["ch01"])
    assert cli(ws, "approve", "research", "ch01").returncode == 0
    assert "duplicate" in cli(ws, "approve", "research", "ch01").stderr
    card = (ws / "output/gates/research-b1.md").read_text()
    assert "- decision ch02: rejected" in card and "- reason ch02: name the tests" in card
    run = cli(ws, "run")
    assert run.returncode == 3
    assert (ws / "output/chapters/draft/ch01-draft.md").exists()
    assert not (ws / "output/chapters/draft/ch02-draft.md").exists()
    assert list((ws / "output/research").glob("ch02-report.md.bak.*"))  # redone with the reason
    assert list((ws / "output/research").glob("ch01-report.md.bak.*")) == []
    # the offline redo gives the same report back: ch02 asks again, alone; ch01 keeps its approval
    assert ("research", "b1", ["ch02"]) in waiting(ws) and ("review", "b1", ["ch01"]) in waiting(ws)
    assert cli(ws, "approve", "research", "b1").returncode == 0
    assert ("research", "b1", ["ch02"]) not in waiting(ws)


def test_a_changed_artifact_expires_the_card_and_keeps_the_other_decisions(tmp_path: Path):
    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    cli(ws, "approve", "research", "ch02")
    report = ws / "output/research/ch01-report.md"
    report.write_text(report.read_text().replace("## ", "## Edited: ", 1))
    proc = cli(ws, "approve", "research", "b1")
    assert proc.returncode == 3 and "the card has expired: ch01 changed" in proc.stderr
    book = Book.open(ws, repair=False)
    try:
        card = gates.read_file_card(book, "research", "b1")
        assert card is not None and card.members["ch01"][1] == gates.current_hash(book, "research", "ch01")
        assert card.decision_of("ch02")[0] == "approved" and card.waiting() == ["ch01"]
    finally:
        book.close()
    assert list((ws / "output/gates").glob("research-b1.md.bak.*"))


def test_chapter_cards_from_before_the_grain_changed_still_count(tmp_path: Path):
    ws = book_of(tmp_path, "chapter")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    assert cli(ws, "approve", "research", "ch01").returncode == 0
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("gate_grain: chapter", "gate_grain: batch"))
    assert cli(ws, "run").returncode == 3
    assert waiting(ws)[0] == ("research", "b1", ["ch02"])


def _cycle(graph) -> bool:
    state: dict = {}

    def visit(n) -> bool:
        state[n] = 1
        for d in graph[n].hard + graph[n].settle:
            if d in graph and (state.get(d) == 1 or (d not in state and visit(d))):
                return True
        state[n] = 2
        return False

    return any(n not in state and visit(n) for n in graph)


OUTLINE = """# Outline

```yaml
title: T
chapters:
  - id: ch01
    title: One
    batch: 1
    depends_on: []
    sources: [a.py]
  - id: ch02
    title: Two
    batch: 1
    depends_on: [ch01]
    sources: [b.py]
  - id: ch03
    title: Three
    batch: 1
    depends_on: []
    sources: [c.py]
  - id: ch04
    title: Four
    batch: 2
    depends_on: [ch02]
    sources: [d.py]
```
"""


@pytest.mark.parametrize("grain", ["chapter", "batch", "phase"])
def test_the_plan_has_no_cycle_whatever_the_grain(grain: str):
    """A chapter that builds on another of its own batch waits behind that one's gates: no card
    of the batch can wait for it (the card is remade when it arrives)."""
    o = parse_outline(OUTLINE)
    g = chapter_graph(o, Scope(), ("outline", "research", "review", "final"), grain)
    assert not _cycle(g)
    settle = {d.unit for d in g[("ch01", "gate:research")].settle}
    if grain == "batch":
        assert settle == {"ch03"}  # not ch02, which reads ch01's memory
        assert {d.unit for d in g[("ch02", "gate:research")].settle} == {"ch01", "ch03"}
    if grain == "phase":
        assert settle == {"ch02", "ch03", "ch04"}
        assert ("ch01", "gate:research") in g[("ch01", "final")].hard  # held until the final
        assert ("ch01", "research") in g[("ch01", "draft")].hard


@pytest.mark.slow
def test_the_phase_grain_brings_the_whole_book_to_each_gate_at_once(tmp_path: Path, monkeypatch):
    import io
    import re

    ws = book_of(tmp_path, "phase")
    runs = walks = decided = 0
    while True:
        proc = cli(ws, "run")
        runs += 1
        if proc.returncode != 3:
            break
        if walks == 1:  # the book ran on to its finals: every draft is there, no final yet
            assert {c for _, _, cs in waiting(ws) for c in cs} == {"ch01", "ch02", "ch03", "ch04"}
            assert len(list((ws / "output/chapters/draft").glob("ch*-draft.md"))) == 4
            assert not list((ws / "output/chapters/final").glob("ch*-final.md"))
            scan = json.loads(cli(ws, "scan", "--json").stdout)
            assert {c["approval"] for c in scan["chapters"].values()} == {"pending"}
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 20))
        walk = cli(ws, "review")
        walks += 1
        decided += sum(int(n) for n in re.findall(r"^(\d+) decided", walk.stderr, re.M))
    assert proc.returncode == 0, proc.stderr[-2000:]
    # outline, then research and review together, then the finals
    assert (runs, walks, decided) == (4, 3, 4)
    names = sorted(p.name for p in (ws / "output/gates").glob("*.md"))
    assert names == ["final-all.md", "outline.md", "research-all.md", "review-all.md"]
    book = Book.open(ws, repair=False)
    try:
        assert len(book.ledger.events(step="audit", type="step_end")) == 1  # the finals changed once
    finally:
        book.close()
    index = (ws / "output/publish/index.html").read_text()
    assert len(set(re.findall(r'href="(ch\d+)\.html"', index))) == 4


def test_the_walk_takes_one_decision_per_group_card_or_names_chapters(tmp_path: Path):
    from orchestrator.pipeline.review_walk import walk

    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    said: list[str] = []
    book = Book.open(ws)
    try:
        cards = gates.pending(book, book.scanner.chapters())
        assert [c.unit for c in cards] == ["b1", "b2"]
        # b1: reject, say why, name one chapter; b2: approve (one key for both chapters)
        feed = iter(["r", "name the tests", "ch09 ch02", "a"])
        result = walk(book, cards, lambda prompt: next(feed), said.append)
    finally:
        book.close()
    assert list(result.decided.values()) == ["rejected", "approved"]
    assert any(s.startswith("── research gate — ch01") for s in said) and any("— ch02" in s for s in said), said[:5]
    assert waiting(ws) == [("research", "b1", ["ch01"])]
    card = (ws / "output/gates/research-b1.md").read_text()
    assert "- decision ch02: rejected" in card and "- decision: pending" in card
    assert "- decision: approved" in (ws / "output/gates/research-b2.md").read_text()


def test_group_names_on_the_command_line(tmp_path: Path):
    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    listed = json.loads(cli(ws, "gates", "--json").stdout)
    assert [(c["group"], sorted(c["chapters"])) for c in listed] == [("b1", ["ch01", "ch02"]), ("b2", ["ch03", "ch04"])]
    assert {c["chapters"]["ch01"]["decision"] for c in listed if c["group"] == "b1"} == {"pending"}
    assert "b9" in cli(ws, "approve", "research", "b9").stderr  # no such card: said, exit 2
    assert cli(ws, "approve", "research", "b9").returncode == 2
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("gate_grain: batch", "gate_grain: chapter"))
    proc = cli(ws, "approve", "research", "b1")
    assert proc.returncode == 2 and "gate_grain: chapter" in proc.stderr and "name the chapter" in proc.stderr
    cfg.write_text(cfg.read_text().replace("gate_grain: chapter", "gate_grain: batch"))
    proc = cli(ws, "approve", "--all")
    assert proc.returncode == 0 and proc.stderr.count("approved: output/gates/research-b") == 2
    assert waiting(ws) == []


def test_book_yaml_offers_the_grains_the_cards_know():
    from orchestrator.config import KEYS
    from orchestrator.state.gatecards import GRAINS

    assert KEYS["gate_grain"].choices == GRAINS and KEYS["gate_grain"].default == "phase"  # the coarsest: issue 38


def test_group_decisions_still_count_when_the_grain_goes_back_to_chapter(tmp_path: Path):
    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    assert cli(ws, "approve", "research", "b1").returncode == 0
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("gate_grain: batch", "gate_grain: chapter"))
    assert cli(ws, "run").returncode == 3
    left = {(g, u) for g, u, _ in waiting(ws)}
    assert ("research", "ch01") not in left and ("research", "ch02") not in left
    assert ("research", "ch03") in left and ("review", "ch01") in left
    assert "- decision: approved" in (ws / "output/gates/research-ch01.md").read_text()


def test_a_crash_while_a_group_card_is_remade_loses_no_decision(tmp_path: Path, monkeypatch):
    ws = book_of(tmp_path, "batch")
    cli(ws, "run")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    cli(ws, "approve", "research", "ch02")
    report = ws / "output/research/ch01-report.md"
    report.write_text(report.read_text().replace("## ", "## Edited: ", 1))
    real = gates.atomic_write

    def dies(path, data):
        if path.name == "research-b1.md":
            raise OSError("the disk is full")
        real(path, data)

    book = Book.open(ws)
    try:
        monkeypatch.setattr(gates, "atomic_write", dies)
        with pytest.raises(OSError):
            gates.ensure_group(book, "research", "b1")
        monkeypatch.setattr(gates, "atomic_write", real)
        assert "- decision ch02: approved" in (ws / "output/gates/research-b1.md").read_text()  # still there
        card = gates.ensure_group(book, "research", "b1")
        assert card.decision_of("ch02")[0] == "approved" and card.waiting() == ["ch01"]
    finally:
        book.close()
