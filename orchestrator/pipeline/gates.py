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
from ..state.fsio import atomic_write, backup, utc_stamp
from ..state.gatecards import (  # noqa: F401  (reading cards lives in state/; re-exported for callers)
    DECISIONS,
    GATES,
    GROUP_RE,
    MARKER,
    WHOLE_BOOK,
    Card,
    active,
    artifact_path,
    card_path,
    card_units,
    current_hash,
    grain_of,
    group_hashes,
    group_of,
    grouped,
    holds,
    pending,
    read_card,
    read_file_card,
    units,
)
from ..state.human_text import language_of, words
from ..state.markers import compose, read_marker, short_hash
from ..state.memory import read_body
from ..steps import BOOK_STEPS, GATES as GATE_STEPS, STEPS
from .outline_checks import outline_risks


def _recommend(book, gate: str, artifact_text: str) -> tuple[str, list[str]]:
    w = words(language_of(book))
    if GATE_STEPS[gate].replans:  # the outline: the plan's own checks
        risks = outline_risks(artifact_text)
        if any(r.startswith(("the plan cannot", "dependency cycle")) for r in risks):
            return w["rec_plan_broken"], risks
        return (w["rec_plan_risks"] if risks else w["rec_approve"]), risks
    try:  # read strictly (contracts.parse): a review nobody can read is not approved by default
        findings = findings_in(artifact_text) if GATE_STEPS[gate].verdict else []
    except ValidationFailed as e:
        return w["rec_unreadable"].format(error=e), []
    risks = [f"{f.severity} {f.check} line {f.line}: {f.message}" for f in findings if f.severity in ("blocking", "major")]
    if any(f.severity == "blocking" for f in findings):
        return w["rec_blocking"], risks
    if risks:
        return w["rec_major"], risks
    return w["rec_approve"], risks


def _preview(body: str, lines: int) -> list[str]:
    text = "\n".join(body.strip().splitlines()[:lines])
    fence = "````" if "```" in text else "```"
    return [f"{fence}markdown", text, fence]


def render_card(book, gate: str, ch: str | None) -> tuple[str, str, str]:
    """(card text without marker, artifact hash, confirmation hash): a pure function of the artifact
    (and of the book's language, which the card is written in)."""
    w = words(language_of(book))
    art = artifact_path(gate, ch)
    body = read_body(book.root, art)
    ahash = short_hash(body.rstrip())
    rec, risks = _recommend(book, gate, body)
    rollback = GATES[gate][1]
    who = f" — {ch}" if ch else ""
    cmd = f"{gate}{' ' + ch if ch else ''}"
    content = "\n".join([
        f"# {w['card_title'].format(gate=gate, who=who)}", "",
        f"- gate: {gate}", f"- chapter: {ch or '-'}", f"- artifact: {art}", f"- artifact_hash: {ahash}", "",
        f"## {w['preview']}", "", *_preview(body, 40), "",
        f"## {w['recommendation']}", "", rec, "",
        f"## {w['risks']}", "", *([f"- {r}" for r in risks] or [f"- {w['no_risks']}"]), "",
        f"## {w['alternatives']}", "",
        "- " + w["alt_approve"].format(cmd=f"book approve {cmd}"),
        "- " + w["alt_reject"].format(cmd=f'book reject {cmd} --reason "..."', step=rollback),
        "- " + w["alt_modify"].format(cmd=f'book modify {cmd} --instructions "..."', step=rollback),
    ])
    confirm = short_hash(f"{gate}\n{ch}\n{content}")
    return content + f"\n- confirmation: {confirm}\n", ahash, confirm


def render_group(book, gate: str, group: str, hashes: dict[str, str]) -> tuple[str, str]:
    """(card text without marker, confirmation) of a group card: every chapter it covers with its
    artifact's hash, a preview and the checks' recommendation for each. A pure function of the
    artifacts, as a chapter's card is."""
    w = words(language_of(book))
    rollback = GATES[gate][1]
    o = book.scanner.outline
    title = {c.id: c.title for c in o.chapters} if o else {}
    name = w["group_book"] if group == WHOLE_BOOK else w["group_batch"].format(n=group[1:])
    per = max(8, 40 // max(1, len(hashes)))  # every chapter's opening, the card still readable
    previews: list[str] = []
    recs: list[str] = []
    risks: list[str] = []
    for ch in hashes:
        body = read_body(book.root, artifact_path(gate, ch))
        rec, found = _recommend(book, gate, body)
        previews += [f"### {ch} — {title.get(ch, ch)}", "", *_preview(body, per), ""]
        recs.append(f"- {ch}: {rec}")
        risks += [f"- {ch}: {r}" for r in found]
    first = next(iter(hashes), "chNN")
    content = "\n".join([
        f"# {w['card_title'].format(gate=gate, who=' — ' + name)}", "",
        f"- gate: {gate}", f"- group: {group}", f"- chapters: {' '.join(hashes)}", "",
        w["group_intro"].format(n=len(hashes)), "",
        f"## {w['chapters']}", "",
        *[f"- {ch}: {artifact_path(gate, ch)} (artifact_hash: {h})" for ch, h in hashes.items()], "",
        f"## {w['preview']}", "", *previews,
        f"## {w['recommendation']}", "", *recs, "",
        f"## {w['risks']}", "", *(risks or [f"- {w['no_risks']}"]), "",
        f"## {w['alternatives']}", "",
        "- " + w["alt_group_approve"].format(cmd=f"book approve {gate} {group}"),
        "- " + w["alt_group_one"].format(cmd=f'book reject {gate} {first} --reason "..."'),
        "- " + w["alt_group_reject"].format(cmd=f'book reject {gate} {group} --reason "..."', step=rollback),
    ])
    confirm = short_hash(f"{gate}\n{group}\n{content}")
    return content + f"\n- confirmation: {confirm}\n", confirm


def _decision_block(book, decision: str, reason: str, own: dict[str, tuple[str, str]] | None = None) -> str:
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"- decision: {decision}", f"- reason: {reason or '-'}"]
    for ch, (d, r) in (own or {}).items():  # a chapter decided apart from its group card
        lines += [f"- decision {ch}: {d}", f"- reason {ch}: {r or '-'}"]
    return f"\n## {words(language_of(book))['decision']}\n\n" + "\n".join(lines) + f"\n- at: {when}\n"


def ensure_card(book, gate: str, ch: str | None, warn=lambda m: None) -> Card:
    """The card for the artifact as it is now: the existing one if it still matches, else a
    new one (an older card, with its decision, goes to .bak). A chapter of a grouped gate gets
    its view of the group card."""
    group = group_of(book, gate, ch)
    if group is not None and ch is not None:
        whole = ensure_group(book, gate, group, warn)
        if ch not in whole.members:  # its artifact is missing: nothing to approve yet
            raise UsageError(words(language_of(book))["u_missing"].format(artifact=artifact_path(gate, ch), gate=gate))
        return whole.view(ch)
    card = read_card(book, gate, ch)
    now = current_hash(book, gate, ch)
    if card is not None and card.artifact_hash == now:
        return card
    if card is not None:
        name = artifact_path(gate, ch).rsplit("/", 1)[-1]
        if card.decision == "approved" and _by_hand(book, gate, ch):  # a redo's new text just waits at its gate
            warn(words(language_of(book))["g_changed"].format(name=name))
        backup(book.ws.path(card.path))
    content, ahash, confirm = render_card(book, gate, ch)
    rel = card_path(gate, ch)
    heading = words(language_of(book))["decision"]
    kept = _group_decision(book, gate, ch, ahash) if card is None else None
    block = _decision_block(book, *kept) if kept else f"\n## {heading}\n\n- decision: pending\n"
    atomic_write(book.ws.path(rel), compose(content + block, MARKER))
    book.ledger.event("gate_card", None, ch, gate, artifact_hash=ahash, confirmation=confirm)
    return Card(gate, ch, artifact_path(gate, ch), ahash, confirm, *(kept or ("pending", "")), rel)


def _by_hand(book, gate: str, ch: str | None) -> bool:
    """Whether the artifact a card approved was changed by a person (not redone by a run)."""
    step = GATES[gate][0]
    sc = book.scanner
    return (sc.step(ch, step) if ch else sc.book_step(step)).status == "edited"


def _group_decision(book, gate: str, ch: str | None, ahash: str) -> tuple[str, str] | None:
    """The decision a group card (from before gate_grain went back to chapter) made on this very
    artifact, if any: it stands, rather than being asked again."""
    o = book.scanner.outline
    if ch is None or o is None or ch not in o.by_id:
        return None
    for group in (f"b{o.by_id[ch].batch}", WHOLE_BOOK):
        old = read_file_card(book, gate, group)
        if old is not None and old.members.get(ch, ("", ""))[1] == ahash and old.decision_of(ch)[0] != "pending":
            return old.decision_of(ch)
    return None


def ensure_group(book, gate: str, group: str, warn=lambda m: None) -> Card:
    """The group card for the group's artifacts as they are now. A card made afresh (an artifact
    changed, or a chapter of the group reached the gate since) keeps the decisions already made
    on the artifacts that did not change, its own or a chapter card's from before the grain
    changed: a person is asked only about what is new."""
    old = read_file_card(book, gate, group)
    now = group_hashes(book, gate, group)
    if old is not None and {m: h for m, (_, h) in old.members.items()} == now:
        return old
    keep: dict[str, tuple[str, str]] = {}
    for ch, h in now.items():
        if old is not None and ch in old.members:
            d, r = old.decision_of(ch)
            if old.members[ch][1] == h:
                if d != "pending":
                    keep[ch] = (d, r)
                continue
            if d == "approved" and _by_hand(book, gate, ch):
                warn(words(language_of(book))["g_changed"].format(name=artifact_path(gate, ch).rsplit("/", 1)[-1]))
        mine = read_file_card(book, gate, ch)  # a chapter's card from before the grain changed
        if mine is not None and mine.artifact_hash == h and mine.decision != "pending":
            keep[ch] = (mine.decision, mine.reason)
    if old is not None:
        _keep_copy(book.ws.path(old.path))
    content, confirm = render_group(book, gate, group, now)
    rel = card_path(gate, group)
    atomic_write(book.ws.path(rel), compose(content + _decision_block(book, "pending", "", keep), MARKER))
    book.ledger.event("gate_card", None, None, gate, group=group, chapters=list(now), confirmation=confirm)
    card = read_file_card(book, gate, group)
    assert card is not None
    return card


def _keep_copy(path) -> None:
    """A copy of a group card at `<card>.bak.<UTC time>` before it is rewritten in place: the other
    chapters' decisions are in it, so it never leaves its path (a crash between the two writes
    leaves the old card, which the next run remakes again)."""
    stamp = utc_stamp()
    dest = path.with_name(f"{path.name}.bak.{stamp}")
    n = 1
    while dest.exists():
        dest = path.with_name(f"{path.name}.bak.{stamp}-{n}")
        n += 1
    atomic_write(dest, path.read_bytes())


def _unit_card(book, gate: str, unit: str | None) -> Card | None:
    """The card a decision names: a chapter's view, a group card, or the book's."""
    if unit is not None and GROUP_RE.match(unit):
        return read_file_card(book, gate, unit) if grouped(book, gate) else None
    return read_card(book, gate, unit)


def decide(book, gate: str, ch: str | None, decision: str, reason: str = "", confirm: str | None = None) -> tuple[str, Card]:
    """Record a decision on a chapter (or the book, or a group card named by its group: b3, all).
    Returns ("recorded" | "duplicate", card). Raises UsageError when the card does not exist,
    belongs to another gate, or has expired (the artifact changed)."""
    w = words(language_of(book))
    if gate not in GATES:
        raise UsageError(w["u_gate"].format(gate=gate, gates=", ".join(GATES)))
    if GATE_STEPS[gate].chapter and not ch:
        raise UsageError(w["u_per_chapter"].format(gate=gate))
    if not GATE_STEPS[gate].chapter:
        ch = None
    is_group = ch is not None and bool(GROUP_RE.match(ch))
    if is_group and not grouped(book, gate):
        raise UsageError(w["u_not_grouped"].format(unit=ch, gate=gate, grain=grain_of(book)))
    if confirm:  # a card named by hash must be this gate's
        for other in GATES:
            for unit in {ch, None, group_of(book, other, ch) if ch and not is_group else None}:
                oc = _unit_card(book, other, unit)
                if oc and oc.confirmation == confirm and (other != gate or (oc.unit != ch and oc.group != ch
                                                                              and ch not in oc.members)):
                    raise UsageError(w["u_other_gate"].format(confirm=confirm, other=other,
                                                              who=w["u_for"].format(unit=oc.unit) if oc.unit else ""))
    card = _unit_card(book, gate, ch)
    if card is None:
        raise UsageError(w["u_no_card"].format(gate=gate, who=w["u_of"].format(unit=ch) if ch else ""))
    if confirm and confirm != card.confirmation:
        raise UsageError(w["u_mismatch"].format(confirm=confirm, gate=gate, card=card.confirmation))
    if card.group:
        return _decide_group(book, gate, ch, card, decision, reason)
    now = current_hash(book, gate, ch)
    if now != card.artifact_hash:
        new = ensure_card(book, gate, ch)
        raise NeedsHuman(words(language_of(book))["g_expired"].format(what=card.artifact, card=new.path,
                                                                     confirmation=new.confirmation))
    if card.decision == decision and card.reason == (reason or ""):
        return "duplicate", card
    if card.decision != "pending" and card.decision != decision:
        book.ledger.event("gate_decision_changed", None, ch, gate, old=card.decision, new=decision)
    content, _, _ = render_card(book, gate, ch)
    atomic_write(book.ws.path(card.path), compose(content + _decision_block(book, decision, reason), MARKER))
    book.ledger.event("gate_decision", None, ch, gate, decision=decision, reason=reason,
                      artifact_hash=card.artifact_hash, confirmation=card.confirmation)
    card.decision, card.reason = decision, reason
    return "recorded", card


def _decide_group(book, gate: str, unit: str | None, view: Card, decision: str, reason: str) -> tuple[str, Card]:
    """A decision on a group card: for all of its chapters (`unit` is the group) or for one."""
    group = view.group
    card = read_file_card(book, gate, group)
    assert card is not None
    now = group_hashes(book, gate, group)
    if {m: h for m, (_, h) in card.members.items()} != now:
        changed = sorted(set(now.items()) ^ {(m, h) for m, (_, h) in card.members.items()})
        new = ensure_group(book, gate, group)
        raise NeedsHuman(words(language_of(book))["g_expired"].format(
            what=", ".join(dict.fromkeys(m for m, _ in changed)), card=new.path, confirmation=new.confirmation))
    whole = unit == group
    # The whole card: the chapters still waiting (a chapter decided apart keeps its decision),
    # or, when none waits, every chapter (a person changing their mind about the card).
    targets = (card.waiting() or list(card.members)) if whole else [view.chapter or ""]
    if all(card.decision_of(m) == (decision, reason or "") for m in targets):
        return "duplicate", card if whole else card.view(targets[0])
    for m in targets:
        old = card.decision_of(m)[0]
        if old != "pending" and old != decision:
            book.ledger.event("gate_decision_changed", None, m, gate, old=old, new=decision)
    if whole and (not card.own or len(targets) == len(card.members)):
        card.decision, card.reason, card.own = decision, reason or "", {}
    else:
        card.own.update({m: (decision, reason or "") for m in targets})
    content, _ = render_group(book, gate, group, now)
    atomic_write(book.ws.path(card.path),
                 compose(content + _decision_block(book, card.decision, card.reason, card.own), MARKER))
    for m in targets:
        book.ledger.event("gate_decision", None, m, gate, decision=decision, reason=reason, group=group,
                          artifact_hash=card.members[m][1], confirmation=card.confirmation)
    return "recorded", card if whole else card.view(targets[0])


def offline_note(book, words: str, provider: str | None = None) -> str | None:
    """For a rejection or modification that the offline writer will carry out: which of the
    person's requests it follows and which it cannot (None with a model, which reads them all)."""
    from ..providers import resolve_name

    if not words.strip() or resolve_name(provider, book.cfg) != "offline":
        return None
    from ..authoring.person_asks import said

    return said(words, language_of(book))


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
    with its decision, goes to .bak) — a person decides again rather than the run looping.
    Within a group card only that chapter asks again."""
    book.ledger.event("gate_settled", None, card.chapter, card.gate, decision=card.decision,
                      artifact_hash=card.artifact_hash)
    if card.group and card.chapter:
        whole = read_file_card(book, card.gate, card.group)
        if whole is not None:
            _keep_copy(book.ws.path(whole.path))
            whole.own[card.chapter] = ("pending", "")
            hashes = {m: h for m, (_, h) in whole.members.items()}
            content, _ = render_group(book, card.gate, card.group, hashes)
            atomic_write(book.ws.path(whole.path),
                         compose(content + _decision_block(book, whole.decision, whole.reason, whole.own), MARKER))
            return ensure_card(book, card.gate, card.chapter)
    backup(book.ws.path(card.path))
    return ensure_card(book, card.gate, card.chapter)
