"""Whether a node has work to do, and why, read from the files alone: the runner's first
question at each node and the whole of a dry run (which needs no runner for it)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..evidence.sections import label
from ..state.scan import StepState
from ..steps import BOOK, STEPS, Node, spec
from . import gates, section_redo
from .accept import failed_last
from .plan import is_gate, phase3_complete


def step_state(book, n: Node) -> StepState:
    sc = book.scanner
    return sc.book_step(n[1]) if n[0] == BOOK else sc.step(n[0], n[1])


def chapter_complete(book, ch: str) -> bool:
    sc = book.scanner
    return phase3_complete({k: sc.step(ch, k) for k in STEPS})


def gate_args(n: Node) -> tuple[str, str | None]:
    """A gate node's gate and chapter (None for a book-level gate)."""
    return n[1].split(":", 1)[1], (None if n[0] == BOOK else n[0])


def gate_why(book, n: Node) -> str | None:
    gate, ch = gate_args(n)
    card = gates.read_card(book, gate, ch)
    if card and card.decision == "approved" and card.artifact_hash == gates.current_hash(book, gate, ch):
        return None
    return f"waiting for a person at the {gate} gate"


def why(book, n: Node, redo: Collection[Node] = (),
        kept_stale: Callable[[Node, StepState], None] | None = None) -> str | None:
    """Why node `n` has work to do, or None when its file is fresh. `kept_stale` hears of a
    stale file a person edited (kept, never regenerated unasked)."""
    if n in redo:
        return "asked to redo it"
    if is_gate(n):
        return gate_why(book, n)
    st = step_state(book, n)
    rel = spec(n).file(None if n[0] == BOOK else n[0])
    part = book.root / (rel + ".partial")
    if st.status == "edited":
        if st.stale and n[0] != BOOK and (p := section_redo.plan(book, n[0], n[1])) is not None:
            # claims moved under sections a person did not touch: those are rewritten, theirs kept
            return "stale sections: " + ", ".join(map(label, p.rewrite)) + (
                f" (a person's kept: {', '.join(map(label, p.kept))})" if p.kept else "")
        if st.stale and kept_stale is not None:
            kept_stale(n, st)
        return None
    if st.status == "done" and not st.stale:
        return None
    if st.status == "done":
        return "stale: " + ", ".join(st.stale) + " changed"
    if st.status == "half_finished":
        return "half-finished"
    return ("missing" if not part.exists() else f"failed last time (its last answer is kept in {rel}.partial)"
            if failed_last(book, None if n[0] == BOOK else n[0], n[1]) else "interrupted (.partial left)")


def kept_stale_warning(n: Node, st: StepState) -> str:
    return (f"{st.path} was edited by hand and is kept; it is stale ({', '.join(st.stale)} changed): "
            f"`book redo {n[0]} {n[1]}` regenerates it")
