"""`book review`: a walk through the gate cards that wait, one decision per card. For each card a
person sees what it approves (a preview) and what changed since the version last approved, or
since the version before it; then approves, rejects with a reason, modifies with instructions,
skips, or quits. The walk is handed its input and output (`ask`, `say`), so the terminal, a plain
pipe and a test drive the same code; each decision goes through `gates.decide`, as `book
approve` does, under the writer's lock, so a crash after any decision loses none of them."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..state.gatecards import parse_card
from ..state.human_text import language_of, words
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
    w = words(language_of(book))
    art = book.root / card.artifact
    baks = sorted(art.parent.glob(art.name + ".bak.*"), reverse=True)
    if not baks:
        return None
    approved: set[str] = set()
    cp = book.root / card.path
    for old in cp.parent.glob(cp.name + ".bak.*"):
        was = parse_card(str(old.relative_to(book.root)), old.read_text(encoding="utf-8", errors="replace"), card.gate)
        if was is not None and was.group and card.chapter in was.members:
            was = was.view(card.chapter)  # a group card: this chapter's decision and hash in it
        if was is not None and not was.group and was.decision == "approved":
            approved.add(was.artifact_hash)
    texts = [(b, read_body(book.root, str(b.relative_to(book.root)))) for b in baks]
    for b, text in texts:
        if short_hash(text.rstrip()) in approved:
            return w["w_last_approved"].format(name=b.name), text
    return w["w_before"].format(name=texts[0][0].name), texts[0][1]


def describe(book, card: gates.Card) -> list[str]:
    """What a person reads before deciding on `card`: for a group card, each of its chapters."""
    if card.group and not card.chapter:
        out: list[str] = []
        for ch in card.waiting():
            out += describe(book, card.view(ch))
        return out
    w = words(language_of(book))
    who = f" — {card.chapter}" if card.chapter else ""
    body = read_body(book.root, card.artifact)
    lines = [w["w_head"].format(gate=card.gate, who=who, artifact=card.artifact, card=card.path)]
    if _persons(book, card):
        lines.append(w["w_yours"])
    prev = previous_version(book, card)
    if prev is not None:
        label, old = prev
        diff = list(difflib.unified_diff(old.splitlines(), body.splitlines(), label, card.artifact, lineterm="", n=1))
        lines.append(w["w_changes" if diff else "w_same"].format(label=label))
        lines += [f"   {d}" for d in diff[:DIFF_LINES]]
        if len(diff) > DIFF_LINES:
            lines.append(w["w_more_diff"].format(n=len(diff) - DIFF_LINES, path=card.artifact))
    else:
        text = body.strip().splitlines()
        lines += [f"   {t}" for t in text[:PREVIEW_LINES]]
        if len(text) > PREVIEW_LINES:
            lines.append("   " + w["more_lines"].format(n=len(text) - PREVIEW_LINES, path=card.artifact))
    return lines


def _persons(book, card: gates.Card) -> bool:
    sc, step = book.scanner, gates.GATES[card.gate][0]
    return (sc.step(card.chapter, step) if card.chapter else sc.book_step(step)).status == "edited"


def walk(book, cards: list[gates.Card], ask: Callable[[str], str], say: Callable[[str], None]) -> WalkResult:
    """Ask for a decision on each card in turn. `ask(prompt)` returns the person's answer (a key
    or a word; empty means approve, the recommendation for a card that is already checked). A
    group card takes one decision for its waiting chapters; a rejection or a modification asks
    which of them it is for (all of them by default)."""
    w = words(language_of(book))
    out = WalkResult()
    for n, card in enumerate(cards, 1):
        say(f"\n[{n}/{len(cards)}]")
        for line in describe(book, card):
            say(line)
        while True:
            key = ask(w["w_keys"]).strip().lower()
            key = WORDS.get(key, key[:1])
            if key in CHOICES:
                break
            say(w["w_bad_key"].format(key=key))
        choice = CHOICES[key]
        if choice == "quit":
            out.quit = True
            break
        if choice == "skip":
            out.skipped.append(card.path)
            continue
        words_ = ""
        if choice in ("rejected", "modified"):
            while not words_:
                words_ = ask(w["w_why"] if choice == "rejected" else w["w_what"]).strip()
        units: list[str | None] = [card.chapter]
        if card.group and not card.chapter:
            units = list(_which(card, choice, ask, say, w))
        results = [gates.decide(book, card.gate, u, choice, words_, card.confirmation)[0] for u in units]
        out.decided[card.path] = choice if "recorded" in results else f"{choice} (already)"
        say(w["w_done"].format(decision=w.get(choice, choice)))
        if note := gates.offline_note(book, words_):  # what the offline writer can do with the words
            say(note)
    return out


def _which(card: gates.Card, choice: str, ask: Callable[[str], str], say: Callable[[str], None],
           w: dict[str, str]) -> list[str]:
    """The units a decision on a group card is for: the card (its chapters still waiting), or,
    for a rejection or a modification, the chapters a person names (Enter: all of them) — the
    others keep waiting for their own decision."""
    waiting = card.waiting()
    whole = [card.group]
    if choice == "approved" or len(waiting) == 1:
        return whole
    while True:
        said = ask(w["w_which"].format(chapters=" ".join(waiting))).strip()
        if not said:
            return whole
        named = [c for c in re.findall(r"ch\d{2,}", said) if c in waiting]
        if named:
            return list(dict.fromkeys(named))
        say(w["w_which"].format(chapters=" ".join(waiting)).strip().rstrip(">").strip())


