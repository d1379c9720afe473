"""Redo at the grain of the section (DESIGN §11): when the source has moved to a revision at which
some of a chapter's claims no longer hold, the writer rewrites only the sections that hold them,
the editor then rewrites the same sections of the final, and the files in between follow the
draft section by section without a model call where that is sound.

What runs again after a section rewrite, and why (the staleness rules stay the contract: every
file keeps recording the true hashes of what it was made from; what changes is what a step
does when it is stale, never whether it is):

- research: again, whole (a model step). It read the source, which changed under its claims;
  the rewritten sections are written from what it reports now.
- draft: the writer rewrites the stale sections only (one call for the chapter, the sections
  listed: the chapter is sent once, and sections rewritten together stay consistent with each
  other); the others are kept byte for byte, their moved citations pointed at the new lines.
- r1, r2, r3: followed without a model. Each one's findings on the sections kept are carried over
  (their lines shifted to the new draft); its findings on a rewritten section are dropped with the
  text they were about, and its deterministic check of the new draft (R1: quotes and citations
  against the source; R2: glossary, links, metaphors; R3: structure) is its finding on the
  rewritten sections. A blocking finding there means the section needs a model's review: that
  reviewer runs again whole, as does everything after it.
- review (merge): followed in the same way when all three reviewers were (its findings and
  actions shifted or dropped, the reviewers' new findings added as actions; its verdict is the
  planner's, from the findings, as always); else it runs again.
- panel: followed when the review was: the readers' notes shifted to the new lines, a note on a
  rewritten section pointing at its heading. Readers judge how the chapter reads; the rewritten
  sections keep their heading, place and subject.
- memory: again, whole (a model step): other chapters read it; whether they are then stale is
  the rules' to say (their `longmem` hash), unchanged when the chapter's memory comes back the same.
- final: the editor rewrites the same sections of the final, given the new draft, the review and
  the panel, when the final was made from the draft the rewrite started from and the review and
  panel followed; else it is redone whole.

A followed file's marker has `follow=<its own previous body hash>` (what it followed from: the next
file down checks it), a rewritten draft's or final's has `follow=` too, with `redone=` (the indexes
of the rewritten sections) and `was=` (the first line of each section before), from which the old
lines of every kept section map to the new ones. Every chapter text records `sections=`: the hash
of each section as the run wrote it, so that a person's edit is told section by section. Every
file is written through state/commit.py; a kill between two of them leaves each file either its
old self (stale, followed on resume) or its new self (fresh)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..errors import BookError
from ..evidence import sections as S
from ..evidence.follow import WHOLE_SHARE, Stale, retargeted, stale_sections
from ..state import commit
from ..state.cited import cited_key, unheld
from ..state.fsio import Lock
from ..state.markers import compose
from ..state.memory import read_body
from ..steps import BOOK, DRAFT, FINAL, PANEL, R1, RESEARCH, REVIEW, REVIEWERS, STEPS, Node
from .outcomes import Outcome

# What a chapter text may be stale on for its sections to be rewritten rather than the whole.
REWRITABLE = {DRAFT: frozenset({RESEARCH}), FINAL: frozenset({DRAFT, REVIEW, PANEL})}
FOLLOWERS = (*REVIEWERS, REVIEW, PANEL)  # made from the draft, followed without a model when sound
ACT = {"en": "fix: {msg}", "zh": "修正：{msg}"}  # an action for a finding the follow adds (the offline merger's words)
_LINE_RE = re.compile(r"\b(lines?|行) (\d+)(?:-(\d+))?")


@dataclass(frozen=True)
class Plan:
    key: str  # DRAFT or FINAL
    rewrite: tuple[str, ...]  # heads of the sections to write
    kept: tuple[str, ...]  # stale sections a person edited: kept
    body: str  # the text as it is, its moved citations retargeted
    source: str  # the body hash of the text the rewrite starts from
    was: str  # the first line of each of its sections, dot-joined
    person: str = ""  # the indexes of the sections a person edited, dot-joined (kept)
    recorded: str = ""  # the marker's `sections=` before (a person's sections keep what the run wrote)


def _enabled(book) -> bool:
    return book.cfg.file is not None and book.scanner.source_dir is not None and book.scanner.evidence_min is not None


def plan(book, ch: str, key: str) -> Plan | None:
    """The sections of the chapter's draft or final to rewrite now, or None: it is fresh, or is
    to be redone whole (stale for another reason, not ours, or no section grain holds)."""
    if key not in REWRITABLE or not _enabled(book):
        return None
    sc = book.scanner
    st = sc.step(ch, key)
    mk = st.marker
    if not _ours(st) or mk is None or not st.stale or not all(_rewritable(key, s) for s in st.stale):
        return None
    if key == FINAL and not _final_may_follow(book, ch, mk.inputs):
        return None
    body = read_body(book.root, st.path)
    recorded = mk.extra.get("sections")
    person = S.edited(body, recorded) if st.status == "edited" else []
    if person is None:
        return None  # a person's edit that cannot be told section by section: theirs, whole
    # a file whose body is what its marker says is wholly the run's, whatever its `sections=` says
    # (a retargeting of an older release may have left that record behind): no section of it is a person's
    stale = stale_sections(book.root, book.cfg.source_dir, ch, body, recorded if st.status == "edited" else None)
    if stale is None or stale.whole:
        return None
    text, _moved = retargeted(book.root, book.cfg.source_dir, ch, body)
    stale = _with_blocked(book, ch, text, stale, set(person))
    if stale is None:
        return None
    if key == FINAL:  # only the sections the draft rewrote: the rest of the final is from the same draft
        d = sc.step(ch, DRAFT)
        done = _redone_heads(read_body(book.root, d.path), d.marker.extra if d.marker else {})
        if not set(stale.rewrite) <= set(done):
            return None
    if person:  # a person's sections are kept byte for byte, their citations too
        text = S.splice(text, S.only(body, person))
    was = ".".join(str(s.first) for s in S.split(text))
    heads = S.heads(text)
    mine = ".".join(str(i) for i, h in enumerate(heads) if h in person)
    return Plan(key, stale.rewrite, stale.kept, text, sc.body_hash(st.path) or "", was, mine, recorded or "")


def _with_blocked(book, ch: str, text: str, stale: Stale, person: set[str]) -> Stale | None:
    """`stale` with the sections R1's deterministic check now blocks in (what the release removed,
    named where no claim records it: a diagram's message, a member in a table), which would
    otherwise block the chapter's review though no claim went stale; None when nothing is left
    to rewrite or so much is that the chapter is redone whole (evidence.follow.WHOLE_SHARE)."""
    from ..agents.context import code_findings

    secs = S.split(text)
    blocked = {s.head for f in code_findings(book, ch, text) if f["severity"] == "blocking" and f.get("line")
               for s in secs if s.first <= int(f["line"]) <= s.last}
    heads = [s.head for s in secs]
    bad = set(stale.claims) | blocked
    rewrite = tuple(h for h in heads if h in bad and h not in person)
    if not rewrite or len(bad) > WHOLE_SHARE * len(heads) or (bad & set(S.duplicated(text))):
        return None
    return Stale(rewrite, tuple(h for h in heads if h in bad and h in person), stale.claims)


def _rewritable(key: str, stale: str) -> bool:
    """What the text may be stale on for its sections to be rewritten: a draft, also on another
    chapter's source file it cites, whose lines changed under a claim (state/cited.py)."""
    return stale in REWRITABLE[key] or (key == DRAFT and stale.startswith("src:"))


def _ours(st) -> bool:
    """A chapter text the run may rewrite sections of: its own, or one a person edited in some
    sections only (told by the marker's `sections=`; a `book accept`ed file is wholly theirs)."""
    if st.marker is None:
        return False
    if st.status == "done":
        return True
    return st.status == "edited" and st.marker.extra.get("by") != "person" and bool(st.marker.extra.get("sections"))


def _final_may_follow(book, ch: str, inputs: dict[str, str]) -> bool:
    """The final was made from the draft a section rewrite started from, and from the review and
    panel that followed it (or are unchanged)."""
    sc = book.scanner
    d = sc.step(ch, DRAFT)
    if not _ours(d) or d.marker is None or d.marker.extra.get("follow") != inputs.get(DRAFT):
        return False
    for k in (REVIEW, PANEL):
        s = sc.step(ch, k)
        if s.marker is None or not s.complete:
            return False
        if inputs.get(k) not in (sc.body_hash(s.path), s.marker.extra.get("follow")):
            return False
    return True


def _redone_heads(text: str, extra: dict[str, str]) -> list[str]:
    heads = S.heads(text)
    idx = [int(i) for i in (extra.get("redone") or "").split(".") if i.isdigit()]
    return [heads[i] for i in idx if i < len(heads)]


def context_extra(book, n: Node) -> dict[str, Any]:
    """What a writer's or an editor's request carries for a section rewrite ({} for a whole one)."""
    p = plan(book, n[0], n[1])
    if p is None:
        return {}
    follow = {"follow": p.source, "was": p.was} | ({"person": p.person, "recorded": p.recorded} if p.person else {})
    return {"rewrite_sections": list(p.rewrite), "current_text": p.body, "_follow": follow,
            "_sections_kept": list(p.kept)}


def cited_extra(book, n: Node) -> dict[str, Any]:
    """A draft written (whole or by sections) while claims of its chapter rest on other chapters'
    files whose lines changed under them records those files as they are now (`cited=`,
    state/cited.py): its claims are recorded anew with its final, and until then it is not stale
    on them again (the chapter moves on to its reviews)."""
    if n[1] != DRAFT or n[0] == BOOK or not _enabled(book):
        return {}
    files = unheld(book.scanner, n[0])
    return {"_cited": cited_key(book.scanner, n[0], files)} if files else {}


def marker_extra(ctx: dict[str, Any], text: str) -> dict[str, str]:
    """The marker attributes of a chapter text: each section's hash, and what a rewrite started
    from. A section a person edited keeps the hash of what the run wrote there, and `person=`
    names it: the file stays theirs (`edited`), and their sections stay theirs next time."""
    hashes = S.hashes(text).split(".")
    out: dict[str, str] = {}
    follow = dict(ctx.get("_follow") or {}) if ctx.get("rewrite_sections") else {}
    if follow:
        heads = S.heads(text)
        recorded = follow.pop("recorded", "").split(".")
        person = [int(i) for i in follow.get("person", "").split(".") if i.isdigit()]
        for i in person:
            if i < len(hashes) and i < len(recorded):
                hashes[i] = recorded[i]
        out |= follow | {"redone": ".".join(str(heads.index(h)) for h in ctx["rewrite_sections"] if h in heads)}
        if not person:
            out.pop("person", None)
    return out | ({"cited": ctx["_cited"]} if ctx.get("_cited") else {}) | {"sections": ".".join(hashes)}


def asked_sections(rs, n: Node) -> bool:
    """The step's request is a section rewrite now (answers.request_for asks for one)."""
    return n not in rs.redo and n not in rs.instructions and n not in rs.whole and plan(rs.book, n[0], n[1]) is not None


def whole_instead(rs, n: Node) -> bool:
    """A section rewrite whose every answer failed validation (the sections could not be written
    as they are headed: their subject left the code, or the writer would not keep to them): the
    chapter is to be written whole instead, once (True; rs.whole says so to the request). Never
    when a section of it is a person's: theirs are never rewritten, the step fails and says why."""
    if not asked_sections(rs, n):
        return False
    p = plan(rs.book, n[0], n[1])
    if p is None or p.person:
        return False
    rs.whole.add(n)
    return True


def note_rewrite(book, run_id: str, n: Node, ctx: dict[str, Any]) -> None:
    """The ledger's record of a section rewrite just committed (RESUME.md counts them)."""
    if ctx.get("rewrite_sections"):
        book.ledger.event("sections_rewritten", run_id, n[0], n[1], sections=list(ctx["rewrite_sections"]),
                          kept=list(ctx.get("_sections_kept") or []))


def splice_answer(ctx: dict[str, Any], answer: str) -> str:
    """The whole chapter: the answer's sections in the places of the current text's (validation)."""
    return S.splice(ctx["current_text"], answer)


# ---------------------------------------------------------------- the files made from the draft


def _line_map(old_was: str, draft: str, extra: dict[str, str]):
    """old draft line -> (new line, True) for a kept section, (the rewritten section's heading
    line, False) for a rewritten one; None beyond the old text."""
    old_first = [int(x) for x in old_was.split(".") if x.isdigit()]
    new = S.split(draft)
    redone = {int(i) for i in (extra.get("redone") or "").split(".") if i.isdigit()}
    if len(old_first) != len(new):
        return None

    def where(line: int) -> tuple[int, bool] | None:
        k = max((i for i, a in enumerate(old_first) if a <= line), default=None)
        if k is None:
            return None
        if k in redone:
            return new[k].first, False
        return new[k].first + (line - old_first[k]), True

    return where


def follow(runner, n: Node) -> Outcome | None:
    """Bring a reviewer's file, the merged review or the panel up to date with a draft whose
    sections were rewritten, without a model call (see the module's docstring), or None: the
    step runs as it would otherwise."""
    book, ch, key = runner.book, n[0], n[1]
    if key not in FOLLOWERS or not _enabled(book):
        return None
    if (kept := _memory_moved(runner, n)) is not None:
        return kept
    sc = book.scanner
    d, st = sc.step(ch, DRAFT), sc.step(ch, key)
    dx = d.marker.extra if d.marker else {}
    if not _ours(d) or not dx.get("follow") or not dx.get("was") or st.status != "done" or st.marker is None:
        return None
    if not st.stale or any(not (s == DRAFT or s in REVIEWERS or s == REVIEW or (key == R1 and s.startswith("src:"))
                                or (key in REVIEWERS and s == "longmem")) for s in st.stale):
        return None
    inputs = st.marker.inputs
    if key == REVIEW:
        if not all(_came_from(sc, ch, k, inputs.get(k)) for k in REVIEWERS):
            return None
    elif inputs.get(DRAFT) != dx["follow"] or (key == PANEL and not _came_from(sc, ch, REVIEW, inputs.get(REVIEW))):
        return None
    draft = read_body(book.root, d.path)
    where = _line_map(dx["was"], draft, dx)
    if where is None:
        return None
    old = read_body(book.root, st.path)
    text = _followed(runner, ch, key, old, draft, dx, where)
    if text is None:
        return None
    return _commit(runner, n, st, text)


def _memory_moved(runner, n: Node) -> Outcome | None:
    """A reviewer's file stale only because other chapters' long memory changed (a chapter redone
    at a new release wrote its memory again), its draft as it was: when its deterministic check
    of the draft against the memory as it is now finds nothing its file does not already say,
    there is nothing new for a model to judge, and the file is kept as it is, told so (`follow=`);
    else (a new finding: a term now defined otherwise, a link, a metaphor) the reviewer runs."""
    from ..agents.context import reviewer_findings
    from ..contracts.errors import ContractError
    from ..contracts.parse import parse_review

    book, ch, key = runner.book, n[0], n[1]
    st = book.scanner.step(ch, key)
    if key not in REVIEWERS or st.status != "done" or st.marker is None or st.stale != ["longmem"]:
        return None
    old = read_body(book.root, st.path)
    try:
        said = {(f.check, f.line, f.message) for f in parse_review(old, file=st.path).review.findings}
    except ContractError:
        return None
    try:
        now = reviewer_findings(book, ch, key)
    except (BookError, ContractError):
        return None  # a memory file a person made unreadable: the step runs, and says which file
    if any((f["check"], int(f.get("line") or 0), f["message"]) not in said for f in now):
        return None
    return _commit(runner, n, st, old, "kept: the other chapters' memory changed, its checks found nothing new")


def _came_from(sc, ch: str, key: str, recorded: str | None) -> bool:
    """The file of `key` is fresh and is what a step recorded having read (`recorded`), or what a
    follow made of it: no model judged anything new in it."""
    st = sc.step(ch, key)
    if st.marker is None or st.status != "done" or st.stale:
        return False
    return recorded in (sc.body_hash(st.path), st.marker.extra.get("follow"))


def _in_redone(draft: str, extra: dict[str, str]) -> list[tuple[int, int]]:
    secs = S.split(draft)
    idx = {int(i) for i in (extra.get("redone") or "").split(".") if i.isdigit()}
    return [(secs[i].first, secs[i].last) for i in sorted(idx) if i < len(secs)]


def _shift(f, where):
    """A finding or an action at its new line, or None when it was about a rewritten section."""
    if not f.line:
        return f
    a = where(f.line)
    if a is None or not a[1]:
        return None
    z = where(f.end_line) if f.end_line else None
    return replace(f, line=a[0], end_line=z[0] if z and z[1] and z[0] > a[0] else None)


def _followed(runner, ch: str, key: str, old: str, draft: str, dx: dict[str, str], where) -> str | None:
    from ..agents.context import reviewer_findings
    from ..contracts import render as R
    from ..contracts.errors import ContractError
    from ..contracts.findings import Action, Finding, MergedReview, Review
    from ..contracts.parse import parse_merged, parse_review

    book = runner.book
    spans = _in_redone(draft, dx)

    def inside(line: int) -> bool:
        return any(a <= line <= z for a, z in spans)

    rel = STEPS[key].file(ch)
    try:
        if key in REVIEWERS:
            parsed = parse_review(old, file=rel)
            try:
                found = reviewer_findings(book, ch, key)
            except BookError:
                return None  # what it reads cannot be read: the step runs, and says where
            new = [Finding(f["check"], f["severity"], int(f.get("line") or 0), f["message"])
                   for f in found if inside(int(f.get("line") or 0))]
            if any(f.severity == "blocking" for f in new):
                return None  # a model reviews a rewritten section its check blocks
            kept = [g for f in parsed.review.findings if (g := _shift(f, where)) is not None]
            said = {(f.check, f.line, f.message) for f in kept}
            if "longmem" in runner.book.scanner.step(ch, key).stale and any(
                    not inside(int(f.get("line") or 0)) and (f["check"], int(f.get("line") or 0), f["message"]) not in said
                    for f in found):
                return None  # on a kept section, something new (the other chapters' memory moved): a model's to judge
            return R.render_review(Review(tuple(kept + new), parsed.review.notes), heading=parsed.heading)
        if key == REVIEW:
            parsed_m = parse_merged(old, file=rel)
            m = parsed_m.merged
            fs = [g for f in m.findings if (g := _shift(f, where)) is not None]
            acts = [g for a in m.actions if (g := _shift(a, where)) is not None]
            act = ACT.get(book.cfg.language, ACT["en"])
            for k in REVIEWERS:  # what the reviewers' checks found in the rewritten sections
                r = parse_review(read_body(book.root, STEPS[k].file(ch)), file=STEPS[k].file(ch))
                for f in r.review.findings:
                    if f.line and inside(f.line) and f not in fs:
                        fs.append(f)
                        acts.append(Action(act.format(msg=f.message), f.line, f.end_line, (f.check,)))
            title = next((ln[3:].strip() for ln in old.splitlines()[1:] if ln.startswith("## ")
                          and ln[3:].strip() not in ("Findings", "Notes")), R.ACTIONS_TITLE)
            return R.render_merged(MergedReview(tuple(fs), tuple(acts), m.notes), heading=parsed_m.heading,
                                   actions_title=title)
    except ContractError:
        return None  # a file a person made unreadable: the step runs, and says where
    # the panel: its notes' lines shifted; a note on a rewritten section points at its heading

    def sub(mo: re.Match[str]) -> str:
        a = where(int(mo.group(2)))
        if a is None:
            return mo.group(0)
        z = where(int(mo.group(3))) if mo.group(3) else None
        if z and z[1] and a[1] and z[0] > a[0]:
            return f"{mo.group(1)} {a[0]}-{z[0]}"
        word = mo.group(1).removesuffix("s") if not (z and z[1] and a[1]) else mo.group(1)
        return f"{word} {a[0]}"

    return _LINE_RE.sub(sub, old)


def _commit(runner, n: Node, st, text: str, why: str = "followed the draft's rewritten sections") -> Outcome:
    book, ch, key = runner.book, n[0], n[1]
    sc = book.scanner
    inputs = {k: v for k, v in sc.input_hashes(ch, key).items() if v is not None}
    extra = {k: v for k, v in (st.marker.extra or {}).items() if k != "follow"}
    extra["follow"] = sc.body_hash(st.path) or ""
    if STEPS[key].verdict:
        from .review_verdict import chapter_verdict

        extra["verdict"] = chapter_verdict(book, ch, text).verdict
    path = book.ws.path(st.path)
    composed = compose(text.rstrip("\n") + "\n", STEPS[key].marker, inputs, runner.run_id, extra)
    Lock.verify_held()
    placed = commit.commit(path, composed, commit.observe(path, (st.size, st.mtime_ns)))
    if not placed.written:  # saved by a person since the decision: theirs stays, the follow is beside it
        sc.invalidate(st.path)
        runner.warn(f"{st.path} was edited while this run brought it up to date: your version is kept, and "
                    f"what the run made is in {st.path}.partial")
        return Outcome("ok")
    sc.invalidate(st.path)
    book.ledger.event("section_followed", runner.run_id, ch, key)
    return Outcome("ok", reason=why)


__all__ = ["FOLLOWERS", "Plan", "asked_sections", "context_extra", "follow", "marker_extra", "plan", "splice_answer",
           "whole_instead"]
