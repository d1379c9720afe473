"""The book's evidence as its views read it: the source's revision (once per command), and per
chapter the evidence of its latest complete text (evidence.chapter), memoised for the command by
what it depends on (that text's hash and the revision)."""

from __future__ import annotations

from typing import Any

from ..evidence.chapter import ChapterEvidence, evaluate, record
from ..evidence.revision import Revision, source_revision
from ..steps import DRAFT, FINAL
from .memory import read_body


def revision(book) -> Revision:
    """The source's revision, read once per command (a scan, a run)."""
    hit = book.memo.get("evidence.revision")
    if hit is None:
        src = book.cfg.source_dir if book.cfg.file is not None else None
        hit = book.memo["evidence.revision"] = source_revision(
            src, (lambda rel: book.cache.body_hash(str(src / rel))) if src else None)
    return hit


def _latest(steps: dict[str, Any]) -> Any | None:
    """The chapter's latest complete text: its final while fresh, else its draft."""
    if steps[FINAL].fresh:
        return steps[FINAL]
    return steps[DRAFT] if steps[DRAFT].complete else None


def _accepted(steps: dict[str, Any]) -> bool:
    """A person adopted the draft or the final (`book accept`): the threshold is theirs to waive."""
    return any(steps[k].marker is not None and steps[k].marker.extra.get("by") == "person" for k in (DRAFT, FINAL))


def chapter_evidence(book, ch: str, steps: dict[str, Any]) -> ChapterEvidence:
    if book.cfg.file is None:
        return ChapterEvidence()
    st = _latest(steps)
    rev = revision(book)
    body = book.scanner.body_hash(st.path) if st is not None else None
    key = ("evidence.chapter", ch, st.path if st else None, body, rev.id, _accepted(steps))
    hit = book.memo.get(key)
    if hit is None:
        text = (lambda: read_body(book.root, st.path)) if st is not None else None
        hit = book.memo[key] = evaluate(book.root, book.cfg.source_dir, ch, text, body, book.cfg.evidence_min, rev,
                                        accepted=_accepted(steps))
    return hit


def record_claims(book, ch: str, text: str, body_hash: str | None) -> None:
    """Write output/memory/claims/chNN.json for the chapter's final (the write protocol)."""
    from .fsio import write_if_changed

    record(book.root, book.cfg.source_dir, ch, text, body_hash, revision(book), write_if_changed)


def threshold(book, steps: dict[str, Any]) -> float | None:
    """The coverage R1 asks of a chapter: book.yaml's evidence_min, none once a person accepted it."""
    return None if _accepted(steps) else book.cfg.evidence_min


def claim_health(book, snap) -> dict[str, Any]:
    """The book's claims at the source's current revision: supported / all, and the claims that
    are not supported, by chapter and section."""
    if book.cfg.file is None:
        return {"supported": 0, "stale": 0, "gone": 0, "all": 0, "share": 1.0, "stale_claims": {}}
    total = {"supported": 0, "stale": 0, "gone": 0}
    stale: dict[str, list[dict]] = {}
    for ch, steps in snap.chapters.items():
        ev = chapter_evidence(book, ch, steps)
        for k in total:
            total[k] += ev.health.get(k, 0)
        if ev.stale:
            stale[ch] = ev.as_dict()["stale"]
    n = sum(total.values())
    return {**total, "all": n, "share": round(total["supported"] / n, 3) if n else 1.0, "stale_claims": stale}


def checkpoint_view(book, snap) -> dict[str, Any]:
    """What checkpoint.md shows of the evidence: the revision, each chapter's evidence, claim health."""
    if book.cfg.file is None:
        return {}
    return {"revision": revision(book).label(),
            "chapters": {ch: chapter_evidence(book, ch, steps).state for ch, steps in snap.chapters.items()},
            "health": claim_health(book, snap)}


def source_links(book):
    """Where the site sends citations of the source (publish.links.SourceLinks)."""
    from ..publish.links import SourceLinks

    return SourceLinks(revision(book), book.cfg.source_dir) if book.cfg.file is not None else None


def follow_source(book) -> dict[str, int]:
    """At the start of a run, after the source moved to a new revision: each chapter whose final
    the orchestrator wrote (a person's is kept as it is) and whose claims still hold gets its
    moved citations and quotes pointed at their new lines, without a model call, and its claims
    recorded at the new revision. Returns chapter -> ranges moved."""
    from ..evidence import claims as claims_mod
    from ..evidence.follow import retargeted
    from .fsio import atomic_write
    from .markers import compose

    if book.cfg.file is None or book.scanner.outline is None:
        return {}
    rev = revision(book)
    moved: dict[str, int] = {}
    for ch in book.scanner.chapters():
        doc = claims_mod.load(book.root / claims_mod.claims_path(ch))
        if doc is None or doc.get("revision", {}).get("id") == rev.id:
            continue
        if any(c["status"] != "supported" for c in claims_mod.health(doc, book.cfg.source_dir)):
            continue  # its claims changed: the chapter is redone (and its claims recorded with its page)
        st = book.scanner.step(ch, FINAL)
        if st.status != "done" or st.stale or st.marker is None:
            continue  # redone for another reason, or a person's: not rewritten here
        body = read_body(book.root, st.path)
        text, n = retargeted(book.root, book.cfg.source_dir, ch, body)
        if n:
            mk = st.marker
            atomic_write(book.root / st.path, compose(text, mk.name, mk.inputs, mk.run, mk.extra or None))
            book.scanner.invalidate(st.path)
            moved[ch] = n
        record_claims(book, ch, text, book.scanner.body_hash(st.path))
        book.scanner.invalidate(claims_mod.claims_path(ch))
    return moved
