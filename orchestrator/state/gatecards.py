"""Reading human approval gate cards (`output/gates/<gate>[-chNN].md`): where a card lives,
what it approves, and the decision written into it. Below pipeline/ so that the status
board, the scan document and RESUME.md can show waiting gates without importing the
pipeline; making and deciding cards stays in `pipeline/gates.py`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..steps import GATE_MODES, GATES as GATE_STEPS, GATES_DIR
from .markers import short_hash
from .memory import read_body

# gate -> (the step whose file is approved, the step redone when it is rejected)
GATES = {k: (k, s.gate_redo or k) for k, s in GATE_STEPS.items()}
MARKER = "GATE_CARD_COMPLETE"
DECISIONS = ("approved", "rejected", "modified")


def active(mode: str) -> tuple[str, ...]:
    return GATE_MODES.get(mode, ())


def units(gate: str, chapters: list[str]) -> list[str | None]:
    """The cards a gate can have: one per chapter, or one for the book."""
    return list(chapters) if GATE_STEPS[gate].chapter else [None]


def card_path(gate: str, ch: str | None) -> str:
    return f"{GATES_DIR}/{gate}{'-' + ch if ch else ''}.md"


def artifact_path(gate: str, ch: str | None) -> str:
    s = GATE_STEPS[gate]
    return s.file(ch) if s.chapter else s.path


@dataclass
class Card:
    gate: str
    chapter: str | None
    artifact: str
    artifact_hash: str
    confirmation: str
    decision: str = "pending"  # pending | approved | rejected | modified
    reason: str = ""
    path: str = ""


_FIELD = re.compile(r"^- (gate|chapter|artifact|artifact_hash|confirmation|decision|reason): (.*)$", re.M)


def read_card(book, gate: str, ch: str | None) -> Card | None:
    rel = card_path(gate, ch)
    text = read_body(book.root, rel)
    if not text.strip():
        return None
    # The header fields come before the preview, the confirmation and decision after the
    # alternatives: an artifact quoted in the preview cannot forge them.
    head, _, rest = text.partition("## Preview")
    _, _, tail = rest.partition("## Alternatives")
    f = dict(_FIELD.findall(head)) | dict(_FIELD.findall(tail))
    if "artifact_hash" not in f or "confirmation" not in f:
        return None
    return Card(f.get("gate", gate), None if f.get("chapter", "-") == "-" else f["chapter"], f.get("artifact", ""),
                f["artifact_hash"], f["confirmation"], f.get("decision", "pending"),
                "" if f.get("reason", "-") == "-" else f["reason"], rel)


def current_hash(book, gate: str, ch: str | None) -> str | None:
    art = artifact_path(gate, ch)
    if not (book.root / art).exists():
        return None
    return short_hash(read_body(book.root, art).rstrip())


def pending(book, chapters: list[str]) -> list[Card]:
    out = []
    for gate in active(book.cfg.gates):
        for ch in units(gate, chapters):
            card = read_card(book, gate, ch)
            if card and card.decision == "pending":
                out.append(card)
    return out
