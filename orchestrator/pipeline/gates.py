"""Human approval gates. When a step that a gate follows completes, the gate
writes a confirmation card `output/gates/<gate>[-chNN].md`: what is being approved (the
artifact and its hash), a preview, the recommendation and risks, alternatives, and a
confirmation hash derived from the card's content — the same artifact always yields the same
card. A person decides with `book approve` / `book reject` / `book modify`; the decision is
written into the card (the file is the truth) and the ledger."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from ..checks.findings import findings_in
from ..errors import NeedsHuman, UsageError
from ..state.fsio import atomic_write, backup
from ..state.markers import compose, short_hash
from ..state.memory import read_body
from ..steps import GATE_MODES, GATES as GATE_STEPS, GATES_DIR

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


def _recommend(gate: str, artifact_text: str) -> tuple[str, list[str]]:
    if GATE_STEPS[gate].replans:  # the outline: the plan's own checks
        from .outline_checks import outline_risks

        risks = outline_risks(artifact_text)
        if any(r.startswith(("the plan cannot", "dependency cycle")) for r in risks):
            return "reject: the plan cannot be built as it is", risks
        return ("modify: fix what the risks list, or approve knowing them" if risks else "approve"), risks
    findings = findings_in(artifact_text) if GATE_STEPS[gate].verdict else []
    risks = [f"{f.severity} {f.check} line {f.line}: {f.message}" for f in findings if f.severity in ("blocking", "major")]
    if any(f.severity == "blocking" for f in findings):
        return "reject: the review has blocking findings", risks
    if risks:
        return "approve with care: the review has major findings the editor will address", risks
    return "approve", risks


def render_card(book, gate: str, ch: str | None) -> tuple[str, str, str]:
    """(card text without marker, artifact hash, confirmation hash): a pure function of the artifact."""
    art = artifact_path(gate, ch)
    body = read_body(book.root, art)
    ahash = short_hash(body.rstrip())
    rec, risks = _recommend(gate, body)
    rollback = GATES[gate][1]
    preview = "\n".join(body.strip().splitlines()[:40])
    fence = "````" if "```" in preview else "```"
    who = f" — {ch}" if ch else ""
    content = "\n".join([
        f"# Gate: {gate}{who}", "",
        f"- gate: {gate}", f"- chapter: {ch or '-'}", f"- artifact: {art}", f"- artifact_hash: {ahash}", "",
        "## Preview", "", f"{fence}markdown", preview, fence, "",
        "## Recommendation", "", rec, "",
        "## Risks", "", *([f"- {r}" for r in risks] or ["- none found by the checks"]), "",
        "## Alternatives", "",
        f"- approve: `book approve {gate}{' ' + ch if ch else ''}`",
        f"- reject: `book reject {gate}{' ' + ch if ch else ''} --reason \"...\"` (then {rollback} is redone with your reason)",
        f"- modify: `book modify {gate}{' ' + ch if ch else ''} --instructions \"...\"` ({rollback} is redone following them)",
    ])
    confirm = short_hash(f"{gate}\n{ch}\n{content}")
    return content + f"\n- confirmation: {confirm}\n", ahash, confirm


def _decision_block(decision: str, reason: str) -> str:
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"\n## Decision\n\n- decision: {decision}\n- reason: {reason or '-'}\n- at: {when}\n"


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


def ensure_card(book, gate: str, ch: str | None, warn=lambda m: None) -> Card:
    """The card for the artifact as it is now: the existing one if it still matches, else a
    new one (an older card, with its decision, goes to .bak)."""
    card = read_card(book, gate, ch)
    now = current_hash(book, gate, ch)
    if card is not None and card.artifact_hash == now:
        return card
    if card is not None:
        name = artifact_path(gate, ch).rsplit("/", 1)[-1]
        if card.decision == "approved":
            warn(f"{name} was changed outside book since the card was approved; the card is remade")
        backup(book.ws.path(card.path))
    content, ahash, confirm = render_card(book, gate, ch)
    rel = card_path(gate, ch)
    atomic_write(book.ws.path(rel), compose(content + "\n## Decision\n\n- decision: pending\n", MARKER))
    book.ledger.event("gate_card", None, ch, gate, artifact_hash=ahash, confirmation=confirm)
    return Card(gate, ch, artifact_path(gate, ch), ahash, confirm, "pending", "", rel)


def pending(book, chapters: list[str]) -> list[Card]:
    out = []
    for gate in active(book.cfg.gates):
        for ch in units(gate, chapters):
            card = read_card(book, gate, ch)
            if card and card.decision == "pending":
                out.append(card)
    return out


def decide(book, gate: str, ch: str | None, decision: str, reason: str = "", confirm: str | None = None) -> tuple[str, Card]:
    """Record a decision. Returns ("recorded" | "duplicate", card). Raises UsageError when the
    card does not exist, belongs to another gate, or has expired (the artifact changed)."""
    if gate not in GATES:
        raise UsageError(f"unknown gate {gate!r}: one of {', '.join(GATES)}")
    if GATE_STEPS[gate].chapter and not ch:
        raise UsageError(f"the {gate} gate is per chapter: say which, e.g. `book approve {gate} ch03`")
    if not GATE_STEPS[gate].chapter:
        ch = None
    if confirm:  # a card named by hash must be this gate's
        for other in GATES:
            for c in {ch, None}:
                oc = read_card(book, other, c)
                if oc and oc.confirmation == confirm and (other != gate or oc.chapter != ch):
                    raise UsageError(f"card {confirm} is the {other} gate's{' for ' + oc.chapter if oc.chapter else ''}; "
                                     f"a card cannot approve another gate")
    card = read_card(book, gate, ch)
    if card is None:
        raise UsageError(f"there is no card for the {gate} gate{' of ' + ch if ch else ''} yet; `book gates` lists them")
    if confirm and confirm != card.confirmation:
        raise UsageError(f"card {confirm} does not match the {gate} card ({card.confirmation}); `book gates` shows it")
    now = current_hash(book, gate, ch)
    if now != card.artifact_hash:
        new = ensure_card(book, gate, ch)
        raise NeedsHuman(f"the card has expired: {card.artifact} changed since it was made; here is the new card: "
                         f"{new.path} (confirmation {new.confirmation})")
    if card.decision == decision and card.reason == (reason or ""):
        return "duplicate", card
    if card.decision != "pending" and card.decision != decision:
        book.ledger.event("gate_decision_changed", None, ch, gate, old=card.decision, new=decision)
    content, _, _ = render_card(book, gate, ch)
    atomic_write(book.ws.path(card.path), compose(content + _decision_block(decision, reason), MARKER))
    book.ledger.event("gate_decision", None, ch, gate, decision=decision, reason=reason,
                      artifact_hash=card.artifact_hash, confirmation=card.confirmation)
    card.decision, card.reason = decision, reason
    return "recorded", card
