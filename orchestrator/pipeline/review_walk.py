"""`book review`: a walk through the gate cards that wait, one decision per card. For each card a
person sees what it approves (a preview) and what changed since the version last approved, or
since the version before it; then approves, rejects with a reason, modifies with instructions,
skips, or quits. The walk is handed its input and output (`ask`, `say`), so the terminal, a plain
pipe and a test drive the same code; each decision goes through `gates.decide`, as `book
approve` does, under the writer's lock, so a crash after any decision loses none of them."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field

from ..state.markers import short_hash
from ..state.memory import read_body
from . import gates

# one key each; the long words are accepted too, for a plain pipe
CHOICES = {"a": "approved", "r": "rejected", "m": "modified", "s": "skip", "q": "quit"}
WORDS = {"approve": "a", "reject": "r", "modify": "m", "skip": "s", "quit": "q", "": "a"}
PREVIEW_LINES = 30
DIFF_LINES = 60


@dataclass
class WalkResult:
    decided: dict[str, str] = field(default_factory=dict)  # card path -> decision
    skipped: list[str] = field(default_factory=list)
    quit: bool = False


def previous_version(book, card: gates.Card) -> tuple[str, str] | None:
    """(label, text) of the version to compare with: the last one approved at this gate (a
    backed-up card that says approved names its hash; the artifact's backups hold the text),
    else the newest backup of the artifact."""
    art = book.root / card.artifact
    baks = sorted(art.parent.glob(art.name + ".bak.*"), reverse=True)
    if not baks:
        return None
    approved: set[str] = set()
    cp = book.root / card.path
    for old in cp.parent.glob(cp.name + ".bak.*"):
        text = old.read_text(encoding="utf-8", errors="replace")
        if "- decision: approved" in text:
            approved |= {line.split(": ", 1)[1].strip() for line in text.splitlines()
                         if line.startswith("- artifact_hash: ")}
    texts = [(b, read_body(book.root, str(b.relative_to(book.root)))) for b in baks]
    for b, text in texts:
        if short_hash(text.rstrip()) in approved:
            return f"the version last approved ({b.name})", text
    return f"the version before ({texts[0][0].name})", texts[0][1]


def describe(book, card: gates.Card) -> list[str]:
    """What a person reads before deciding on `card`."""
    who = f" — {card.chapter}" if card.chapter else ""
    body = read_body(book.root, card.artifact)
    lines = [f"── {card.gate} gate{who}: {card.artifact} (card {card.path})"]
    if _persons(book, card):
        lines.append("   this is your own edit")
    prev = previous_version(book, card)
    if prev is not None:
        label, old = prev
        diff = list(difflib.unified_diff(old.splitlines(), body.splitlines(), label, card.artifact, lineterm="", n=1))
        lines.append(f"   changes against {label}:" if diff else f"   the same text as {label}")
        lines += [f"   {d}" for d in diff[:DIFF_LINES]]
        if len(diff) > DIFF_LINES:
            lines.append(f"   … {len(diff) - DIFF_LINES} more diff lines: open {card.artifact}")
    else:
        text = body.strip().splitlines()
        lines += [f"   {t}" for t in text[:PREVIEW_LINES]]
        if len(text) > PREVIEW_LINES:
            lines.append(f"   … {len(text) - PREVIEW_LINES} more lines: open {card.artifact}")
    return lines


def _persons(book, card: gates.Card) -> bool:
    sc, step = book.scanner, gates.GATES[card.gate][0]
    return (sc.step(card.chapter, step) if card.chapter else sc.book_step(step)).status == "edited"


def walk(book, cards: list[gates.Card], ask: Callable[[str], str], say: Callable[[str], None]) -> WalkResult:
    """Ask for a decision on each card in turn. `ask(prompt)` returns the person's answer (a key
    or a word; empty means approve, the recommendation for a card that is already checked)."""
    out = WalkResult()
    for n, card in enumerate(cards, 1):
        say(f"\n[{n}/{len(cards)}]")
        for line in describe(book, card):
            say(line)
        while True:
            key = ask("[a]pprove  [r]eject  [m]odify  [s]kip  [q]uit > ").strip().lower()
            key = WORDS.get(key, key[:1])
            if key in CHOICES:
                break
            say(f"   {key!r}? one of a, r, m, s, q")
        choice = CHOICES[key]
        if choice == "quit":
            out.quit = True
            break
        if choice == "skip":
            out.skipped.append(card.path)
            continue
        words = ""
        if choice in ("rejected", "modified"):
            while not words:
                words = ask("   why? (the redo is given it) > " if choice == "rejected"
                            else "   what should change? > ").strip()
        result, _ = gates.decide(book, card.gate, card.chapter, choice, words, card.confirmation)
        out.decided[card.path] = choice if result == "recorded" else f"{choice} (already)"
        say(f"   {choice}")
    return out
