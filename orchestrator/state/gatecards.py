"""Reading human approval gate cards (`output/gates/<gate>[-chNN].md`): where a card lives,
what it approves, and the decision written into it. Below pipeline/ so that the status
board, the scan document and RESUME.md can show waiting gates without importing the
pipeline; making and deciding cards stays in `pipeline/gates.py`.

`gate_grain: batch | phase` in book.yaml groups a chapter gate's cards: one card per gate and
batch (`<gate>-b3.md`) or per gate for the whole book (`<gate>-all.md`), listing every chapter
it covers with its artifact's hash. The card's decision is every chapter's, unless a line names
one (`- decision ch05: rejected`): a person may reject one chapter of a batch and approve the
rest. Everything that asks about one chapter (the state machine, the runner, the ready pages)
reads the chapter's view of its group card (`read_card`), as it reads a chapter's own card."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from ..steps import CHAPTER_GATES, FINAL, GATE_MODES, GATES as GATE_STEPS, GATES_DIR, STEPS
from .markers import short_hash
from .memory import read_body

# gate -> (the step whose file is approved, the step redone when it is rejected)
GATES = {k: (k, s.gate_redo or k) for k, s in GATE_STEPS.items()}
MARKER = "GATE_CARD_COMPLETE"
DECISIONS = ("approved", "rejected", "modified")
GRAINS = ("chapter", "batch", "phase")
WHOLE_BOOK = "all"  # the group of a phase-grained card
GROUP_RE = re.compile(rf"^(b\d+|{WHOLE_BOOK})$")


def active(mode: str) -> tuple[str, ...]:
    return GATE_MODES.get(mode, ())


def units(gate: str, chapters: list[str]) -> list[str | None]:
    """What a gate decides about: each chapter, or the book (whatever the cards' grain)."""
    return list(chapters) if GATE_STEPS[gate].chapter else [None]


def grain_of(x) -> str:
    """The gate grain of a Book or a Scanner (book.yaml's `gate_grain`)."""
    return getattr(getattr(x, "scanner", x), "gate_grain", None) or "chapter"


def grouped(x, gate: str) -> bool:
    return GATE_STEPS[gate].chapter and grain_of(x) != "chapter"


def holds(gate: str, grain: str) -> str:
    """The step a chapter gate holds until a person approves. A phase-grained gate of phase 3
    (research, review) holds the chapter's final instead of its next step: every chapter runs on
    through phase 3 (at the risk of redoing it after a rejection), so one card per gate can
    show the whole book at once; nothing reaches a reader unapproved."""
    if grain == "phase" and STEPS[gate].phase == 3:
        return FINAL
    return CHAPTER_GATES[gate]


def group_of(x, gate: str, ch: str | None) -> str | None:
    """The group card that covers chapter `ch` at `gate` (None: the chapter has a card of its own)."""
    if not ch or not grouped(x, gate):
        return None
    if grain_of(x) == "phase":
        return WHOLE_BOOK
    o = getattr(x, "scanner", x).outline
    c = o.by_id.get(ch) if o is not None else None
    return f"b{c.batch}" if c is not None else None


def group_members(x, group: str) -> list[str]:
    """The outline's chapters that a group card covers, in book order."""
    o = getattr(x, "scanner", x).outline
    if o is None:
        return []
    return [c.id for c in o.chapters if group == WHOLE_BOOK or f"b{c.batch}" == group]


def card_units(x, gate: str, chapters: list[str]) -> list[str | None]:
    """The cards a gate can have: one per chapter or per group, or one for the book."""
    if not GATE_STEPS[gate].chapter:
        return [None]
    if not grouped(x, gate):
        return list(chapters)
    return list(dict.fromkeys(g for g in (group_of(x, gate, ch) for ch in chapters) if g))


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
    group: str = ""  # a group card's group (b3, all); a chapter's view of one names it too
    members: dict[str, tuple[str, str]] = field(default_factory=dict)  # chapter -> (artifact, hash)
    own: dict[str, tuple[str, str]] = field(default_factory=dict)  # chapter -> (decision, reason) named for it

    @property
    def unit(self) -> str | None:
        """What `book approve GATE UNIT` names for this card: its chapter or its group."""
        return self.chapter or self.group or None

    def decision_of(self, ch: str) -> tuple[str, str]:
        return self.own.get(ch, (self.decision, self.reason))

    def waiting(self) -> list[str]:
        """A group card's chapters still waiting for a decision."""
        return [m for m in self.members if self.decision_of(m)[0] == "pending"]

    def view(self, ch: str) -> Card:
        """Chapter `ch`'s card within this group card."""
        art, h = self.members[ch]
        d, r = self.decision_of(ch)
        return Card(self.gate, ch, art, h, self.confirmation, d, r, self.path, self.group)


_FIELD = re.compile(r"^- (gate|chapter|group|artifact|artifact_hash|confirmation|decision|reason): (.*)$", re.M)
_MEMBER = re.compile(r"^- (ch\d{2,}): (\S+) \(artifact_hash: ([0-9a-f]+)\)$", re.M)
_OWN = re.compile(r"^- (decision|reason) (ch\d{2,}): (.*)$", re.M)


def _sections(text: str) -> tuple[str, str]:
    """(head, tail) of a card: the header fields come before the preview, the confirmation and
    decision after the alternatives, so an artifact quoted in the preview cannot forge them.
    The headings are read in every language a card is written in (state/human_text)."""
    from .human_text import heading_re

    parts = heading_re("preview").split(text, maxsplit=1)
    head, rest = (parts[0], parts[1]) if len(parts) == 2 else (text, "")
    found = list(heading_re("alternatives").finditer(rest))  # the card's own is the last one
    return head, rest[found[-1].end():] if found else ""


def parse_card(rel: str, text: str, gate: str) -> Card | None:
    """A card's text (a backup's too) as a Card; None when it is not one."""
    head, tail = _sections(text)
    f = dict(_FIELD.findall(head)) | dict(_FIELD.findall(tail))
    if "confirmation" not in f:
        return None
    reason = "" if f.get("reason", "-") == "-" else f["reason"]
    if "group" in f:
        members = {ch: (art, h) for ch, art, h in _MEMBER.findall(head)}
        said: dict[str, dict[str, str]] = {}
        for kind, ch, v in _OWN.findall(tail):
            said.setdefault(ch, {})[kind] = v.strip()
        own = {ch: (d["decision"], "" if d.get("reason", "-") == "-" else d["reason"])
               for ch, d in said.items() if "decision" in d}
        return Card(f.get("gate", gate), None, "", short_hash(" ".join(f"{m}={h}" for m, (_, h) in members.items())),
                    f["confirmation"], f.get("decision", "pending"), reason, rel, f["group"], members, own)
    if "artifact_hash" not in f:
        return None
    return Card(f.get("gate", gate), None if f.get("chapter", "-") == "-" else f["chapter"], f.get("artifact", ""),
                f["artifact_hash"], f["confirmation"], f.get("decision", "pending"), reason, rel)


# path -> (inode, size, mtime_ns, card): a group card is read once per version, not once per
# chapter that asks about it (a phase card of a big book lists every chapter)
_READ: dict[str, tuple[tuple[int, int, int], Card | None]] = {}


def read_file_card(x, gate: str, unit: str | None) -> Card | None:
    """The card in the file of `unit` (a chapter, a group or None for the book), as written."""
    rel = card_path(gate, unit)
    path = f"{x.root}/{rel}"
    try:
        st = os.stat(path)
    except OSError:
        return None
    version = (st.st_ino, st.st_size, st.st_mtime_ns)
    seen = _READ.get(path)
    if seen is None or seen[0] != version:
        text = read_body(x.root, rel)
        seen = (version, parse_card(rel, text, gate) if text.strip() else None)
        _READ[path] = seen
    card = seen[1]
    # a copy: a decision changes the card it is handed before the file is rewritten
    return replace(card, members=dict(card.members), own=dict(card.own)) if card is not None else None


def read_card(book, gate: str, ch: str | None) -> Card | None:
    """The card that decides `gate` for chapter `ch` (None: the book): its own, or its view of
    the group card that covers it (None when the group card does not list it yet)."""
    group = group_of(book, gate, ch)
    if group is None or ch is None:
        return read_file_card(book, gate, ch)
    card = read_file_card(book, gate, group)
    if card is None or ch not in card.members:
        return None
    return card.view(ch)


def group_hashes(book, gate: str, group: str) -> dict[str, str]:
    """The group's chapters whose artifact exists, with its hash now: what its card must list."""
    out = {}
    for ch in group_members(book, group):
        h = current_hash(book, gate, ch)
        if h is not None:
            out[ch] = h
    return out


_HASHED: dict[str, tuple[tuple[int, int, int], str]] = {}  # path -> (version, hash), as _READ


def current_hash(book, gate: str, ch: str | None) -> str | None:
    """The hash of the artifact as it is now (None when there is none): what a card approves."""
    art = artifact_path(gate, ch)
    path = f"{book.root}/{art}"
    try:
        st = os.stat(path)
    except OSError:
        return None
    version = (st.st_ino, st.st_size, st.st_mtime_ns)
    seen = _HASHED.get(path)
    if seen is None or seen[0] != version:
        seen = (version, short_hash(read_body(book.root, art).rstrip()))
        _HASHED[path] = seen
    return seen[1]


def pending(book, chapters: list[str]) -> list[Card]:
    """The cards waiting for a decision: a chapter's, the book's, or a group card that still has
    a chapter waiting."""
    out = []
    for gate in active(book.cfg.gates):
        for unit in card_units(book, gate, chapters):
            card = read_file_card(book, gate, unit)
            if card and (card.waiting() if card.group else card.decision == "pending"):
                out.append(card)
    return out


def gates_held(x, phase: str, before: str | None, mode: str) -> list[str]:
    """The gates a chapter in state-machine `phase` must have passed: the last one before it
    (`before`, statemachine.GATE_BEFORE), or under a phase grain every gate that holds a step
    at or before that phase (the research and review gates hold the final)."""
    on = GATE_MODES.get(mode, ())
    if grain_of(x) != "phase":
        return [before] if before and before in on else []
    order = list(STEPS)
    at = next((i for i, s in enumerate(STEPS.values()) if s.state == phase), len(order) if phase == "done" else -1)
    return [g for g in CHAPTER_GATES if g in on and order.index(holds(g, "phase")) <= at]
