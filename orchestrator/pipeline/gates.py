"""Human approval gates. When a step that a gate follows completes, the gate
writes a confirmation card `output/gates/<gate>[-chNN].md`: what is being approved (the
artifact and its hash), a preview, the recommendation and risks, alternatives, and a
confirmation hash derived from the card's content — the same artifact always yields the same
card. A person decides with `book approve` / `book reject` / `book modify`; the decision is
written into the card (the file is the truth) and the ledger."""

from __future__ import annotations

import datetime as _dt

from ..checks.findings import findings_in
from ..errors import NeedsHuman, UsageError, ValidationFailed
from ..state.fsio import atomic_write, backup
from ..state.gatecards import (  # noqa: F401  (reading cards lives in state/; re-exported for callers)
    DECISIONS,
    GATES,
    MARKER,
    Card,
    active,
    artifact_path,
    card_path,
    current_hash,
    pending,
    read_card,
    units,
)
from ..state.markers import compose, read_marker, short_hash
from ..state.memory import read_body
from ..steps import BOOK_STEPS, GATES as GATE_STEPS, STEPS
from .outline_checks import outline_risks


def _recommend(gate: str, artifact_text: str) -> tuple[str, list[str]]:
    if GATE_STEPS[gate].replans:  # the outline: the plan's own checks
        risks = outline_risks(artifact_text)
        if any(r.startswith(("the plan cannot", "dependency cycle")) for r in risks):
            return "reject: the plan cannot be built as it is", risks
        return ("modify: fix what the risks list, or approve knowing them" if risks else "approve"), risks
    try:  # read strictly (contracts.parse): a review nobody can read is not approved by default
        findings = findings_in(artifact_text) if GATE_STEPS[gate].verdict else []
    except ValidationFailed as e:
        return f"reject: the review cannot be read ({e})", []
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


def rollback_instructions(book, card: Card) -> str:
    """What the gate's rollback step is told when a person rejected or modified `card`."""
    why = f"the {card.gate} gate was {card.decision}: {card.reason}"
    if GATE_STEPS[card.gate].verdict:  # the findings a rejected review asks to address
        why += "\n\nThe merged review to address:\n\n" + read_body(book.root, card.artifact)
    return why


def rollback_done(book, card: Card) -> bool:
    """Whether the rollback `card` asks for has been carried out: the rollback step's file was
    written with these very instructions (its marker records their hash). Read from the files,
    so a run killed after the redo does not pay for it again."""
    step = GATES[card.gate][1]
    rel = STEPS[step].file(card.chapter) if card.chapter else BOOK_STEPS[step].path
    try:
        m = read_marker(book.root / rel)
    except OSError:
        return False
    return m is not None and m.inputs.get("instructions") == short_hash(rollback_instructions(book, card))


def renew_card(book, card: Card) -> Card:
    """A rejection or modification that was carried out and gave back the very artifact it
    judged: the decision is settled, and the artifact gets a fresh pending card (the old one,
    with its decision, goes to .bak) — a person decides again rather than the run looping."""
    backup(book.ws.path(card.path))
    book.ledger.event("gate_settled", None, card.chapter, card.gate, decision=card.decision,
                      artifact_hash=card.artifact_hash)
    return ensure_card(book, card.gate, card.chapter)
