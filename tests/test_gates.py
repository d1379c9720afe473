"""Gates and the chapter state machine."""

from __future__ import annotations

import pytest
from conftest import make_example

from orchestrator.errors import NeedsHuman, UsageError
from orchestrator.pipeline import gates
from orchestrator.providers.offline import OfflineProvider
from orchestrator.state import statemachine
from orchestrator.state.book import Book, scan_report
from orchestrator.state.scan import StepState
from orchestrator.state.statemachine import TRANSITIONS, ChapterState, IllegalTransition
from orchestrator.steps import STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book


class Counting(OfflineProvider):
    def __init__(self):
        super().__init__()
        self.seen = []

    async def generate(self, req, sink):
        self.seen.append((req.chapter, req.step, req.context.get("instructions")))
        return await super().generate(req, sink)


def decide(ws, gate, ch, decision="approved", reason="", confirm=None):
    book = Book.open(ws)
    try:
        return gates.decide(book, gate, ch, decision, reason, confirm)
    finally:
        book.close()


def pending(ws):
    book = Book.open(ws)
    try:
        return [(c.gate, c.chapter) for c in gates.pending(book, book.scanner.chapters())]
    finally:
        book.close()


def approve_all(ws, gate):
    for g, ch in pending(ws):
        if g == gate:
            decide(ws, g, ch)


# ---------------------------------------------------------------- the transition table


def test_every_transition_of_the_table():
    for (phase, event), (nxt, guard) in TRANSITIONS.items():
        s = ChapterState(phase=phase)
        if guard is None or guard(s) is None:
            assert statemachine.apply(s, event).phase == nxt, (phase, event)


def test_illegal_transitions_are_refused():
    with pytest.raises(IllegalTransition, match="not allowed in phase pending"):
        statemachine.apply(ChapterState(phase="pending"), "start_final")
    with pytest.raises(IllegalTransition, match="waiting at a gate"):
        statemachine.apply(ChapterState(phase="writing", approval="pending"), "start_draft")
    with pytest.raises(IllegalTransition, match="review is blocked"):
        statemachine.apply(ChapterState(phase="panel", review="blocked", blocked_reason="r1.code"), "start_panel")


def test_last_stable_phase_advances_only_on_done():
    s = statemachine.apply(ChapterState(phase="researching"), "research_done")
    assert s.phase == "writing" and s.last_stable_phase == "researching"
    s2 = statemachine.apply(s, "start_draft")
    assert s2.last_stable_phase == "researching"


def test_derive_from_files():
    def row(done_upto: int):
        keys = list(STEPS)
        return {k: StepState("done" if i < done_upto else "missing", k) for i, k in enumerate(keys)}

    assert statemachine.derive(row(0)).phase == "pending"
    assert statemachine.derive(row(1)).phase == "writing"
    assert statemachine.derive(row(5)).phase == "reviewing"
    assert statemachine.derive(row(10)).phase == "done"
    assert statemachine.derive(row(10)).delivery == "passed"
    s = statemachine.derive(row(6), review_blocked="r1.code line 3")
    assert (s.phase, s.review) == ("needs_human", "blocked")


# ---------------------------------------------------------------- gates in a run


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_normal_gates_stop_and_resume(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2, batch_size=1)
    code, summary = run_book(ws)
    assert code == 3 and summary.waiting == ["output/gates/outline.md"]
    assert not (ws / "output/memory/style-guide.md").exists()
    assert pending(ws) == [("outline", None)]
    letter = (ws / "RESUME.md").read_text()
    assert "`book approve outline --workspace" in letter and "output/gates/outline.md" in letter
    assert "✋ output/gates/outline.md" in (ws / "output/memory/checkpoint.md").read_text()
    decide(ws, "outline", None)
    code, summary = run_book(ws, resume=True)
    assert code == 3 and set(pending(ws)) == {("research", "ch01")}  # ch02 depends on ch01
    decide(ws, "research", "ch01")
    run_book(ws, resume=True)
    assert ("review", "ch01") in pending(ws)
    for gate in ("review", "research", "review", "final", "final"):
        approve_all(ws, gate)
        run_book(ws, resume=True)
    code, _ = run_book(ws, resume=True)
    book = Book.open(ws)
    rep = scan_report(book)
    assert code == 0 and rep["complete"], (pending(ws), rep["needs_human"])


def test_fast_gates_are_outline_and_final(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_book(ws)
    decide(ws, "outline", None)
    code, summary = run_book(ws, resume=True)
    assert code == 3
    assert {g for g, _ in pending(ws)} == {"final"}


def test_off_yaml_bare_off_means_off(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace('gates: "off"', "gates: off"))
    assert run_book(ws)[0] == 0


def test_card_is_deterministic_and_survives_resume(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_book(ws)
    card = (ws / "output/gates/outline.md").read_text()
    run_book(ws, resume=True)
    assert (ws / "output/gates/outline.md").read_text() == card
    other = make_example(tmp_path / "other", gates="fast", max_chapters=2)
    run_book(other)
    assert (other / "output/gates/outline.md").read_text().split("<!--")[0] == card.split("<!--")[0]


def test_expired_card_after_artifact_edit(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_book(ws)
    outline = ws / "output/memory/outline.md"
    old = gates.read_card(Book.open(ws), "outline", None)
    outline.write_text(outline.read_text().replace("Edit the block", "Edit the YAML block"))
    with pytest.raises(NeedsHuman, match="the card has expired"):
        decide(ws, "outline", None)
    new = gates.read_card(Book.open(ws), "outline", None)
    assert new.confirmation != old.confirmation and new.decision == "pending"
    assert list((ws / "output/gates").glob("outline.md.bak.*"))


def test_card_cannot_approve_another_gate_and_duplicates_change_nothing(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2, batch_size=1)
    run_book(ws)
    decide(ws, "outline", None)
    run_book(ws, resume=True)
    research = gates.read_card(Book.open(ws, repair=False), "research", "ch01")
    with pytest.raises(UsageError, match="cannot approve another gate"):
        decide(ws, "review", "ch01", confirm=research.confirmation)
    with pytest.raises(UsageError, match="no card for the review gate"):
        decide(ws, "review", "ch01")
    assert decide(ws, "research", "ch01", confirm=research.confirmation)[0] == "recorded"
    card = (ws / "output/gates/research-ch01.md").read_bytes()
    proc = run_cli("approve", "research", "ch01", "--workspace", str(ws))
    assert proc.returncode == 0 and "duplicate" in proc.stderr
    assert (ws / "output/gates/research-ch01.md").read_bytes() == card
    book = Book.open(ws)
    assert len(book.ledger.events(type="gate_decision")) == 2


def test_reject_research_redoes_it_with_the_reason(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2, batch_size=1)
    run_book(ws)
    decide(ws, "outline", None)
    run_book(ws, resume=True)
    old = (ws / STEPS["research"].file("ch01")).read_text()
    decide(ws, "research", "ch01", "rejected", "cover the error handling too")
    p = Counting()
    code, summary = run_book(ws, provider=p, resume=True)
    redone = [x for x in p.seen if x[:2] == ("ch01", "research")]
    assert redone and redone[0][2].startswith("the research gate was rejected: cover the error handling too")
    assert list((ws / "output/research").glob("ch01-report.md.bak.*"))
    new = (ws / STEPS["research"].file("ch01")).read_text()
    assert "inputs=" in new and "instructions:" in new.splitlines()[-1]
    assert old.split("<!--")[0] == new.split("<!--")[0]  # offline: same text; the card stays valid
    book = Book.open(ws)
    assert any(e["type"] == "rollback" for e in book.ledger.events(chapter="ch01"))


def test_reject_review_redoes_the_draft_with_the_review(tmp_path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=1)
    run_book(ws)
    decide(ws, "outline", None)
    run_book(ws, resume=True)
    decide(ws, "research", "ch01")
    run_book(ws, resume=True)
    decide(ws, "review", "ch01", "modified", "shorter sentences")
    p = Counting()
    run_book(ws, provider=p, resume=True)
    drafts = [x for x in p.seen if x[:2] == ("ch01", "draft")]
    assert drafts and "shorter sentences" in drafts[0][2] and "merged review" in drafts[0][2]


def test_kill_between_decision_and_next_step(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_book(ws)
    decide(ws, "outline", None)  # the decision is in the card file before anything else happens
    (ws / "output/.book/state.db").unlink()  # even the ledger lost: the card is the truth
    code, _ = run_book(ws, resume=True)
    assert ("outline", None) not in pending(ws)
    assert (ws / "output/memory/style-guide.md").exists()


def test_pending_gates_let_other_chapters_finish(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=3)
    run_book(ws)
    decide(ws, "outline", None)
    code, summary = run_book(ws, resume=True)
    assert code == 3
    rep = scan_report(Book.open(ws))
    assert all(r["steps"]["final"] == "done" for r in rep["chapters"].values())  # every chapter got as far as it can
    assert all(r["approval"] == "pending" for r in rep["chapters"].values())
    assert len(summary.waiting) == len(rep["chapters"])


def test_final_edited_after_approval_is_reported_and_card_remade(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=1)
    run_book(ws)
    decide(ws, "outline", None)
    run_book(ws, resume=True)
    decide(ws, "final", "ch01")
    final = ws / STEPS["final"].file("ch01")
    final.write_text(final.read_text().replace("\n## ", "\nA late hand edit.\n\n## ", 1))
    proc = run_cli("resume", "--workspace", str(ws))
    # reported, and the new card is the person's own decision: approved by default (issue 25)
    assert proc.returncode == 0, proc.stderr
    assert "ch01-final.md was changed outside book since the card was approved" in proc.stderr
    assert "is your own edit: approved at the final gate by default" in proc.stderr
    assert ("final", "ch01") not in pending(ws)
    card = (ws / "output/gates/final-ch01.md").read_text()
    assert "- decision: approved" in card and "a person's own edit" in card


def test_blocked_review_is_revised_automatically(tmp_path):
    """A draft with code that is not in the source: the review blocks, the draft is rewritten
    with the review as instructions, reviewed again, and the chapter goes on."""
    ws = make_example(tmp_path / "ws", max_chapters=1, max_revisions=1)

    class Inventive(OfflineProvider):
        async def generate(self, req, sink):
            res = await super().generate(req, sink)
            if req.step == "draft" and not req.context.get("instructions"):
                res.text = res.text.replace("## Summary", "```python file=minikv/store.py\ndef invented():\n    pass\n```\n\nIt is invented.\n\n## Summary")
            return res

    code, summary = run_book(ws, provider=Inventive())
    assert code == 0, summary.needs_human
    book = Book.open(ws)
    assert [e["detail"]["round"] for e in book.ledger.events(type="revision")] == [1]
    assert "invented" not in (ws / STEPS["final"].file("ch01")).read_text()


def test_blocked_review_goes_to_a_person_after_max_revisions(tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=1, max_revisions=2)

    class Stubborn(OfflineProvider):
        async def generate(self, req, sink):
            res = await super().generate(req, sink)
            if req.step == "draft":
                res.text = res.text.replace("## Summary", "```python file=minikv/store.py\ndef invented():\n    pass\n```\n\nIt is invented.\n\n## Summary")
            return res

    code, summary = run_book(ws, provider=Stubborn())
    assert code == 3 and "review blocked" in summary.needs_human["ch01"]
    book = Book.open(ws)
    assert len(book.ledger.events(type="revision")) == 2
    rep = scan_report(book)
    assert rep["chapters"]["ch01"]["review"] == "blocked" and rep["chapters"]["ch01"]["phase"] == "needs_human"
