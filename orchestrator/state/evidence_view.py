"""The book's evidence as its views read it: the source's revision (once per command), and per
chapter the evidence of its latest complete text (evidence.chapter), memoised for the command by
what it depends on (that text's hash and the revision)."""

from __future__ import annotations

from typing import Any

from ..evidence.chapter import ChapterEvidence, evaluate, record
from ..evidence.revision import Revision, source_revision
from ..repo.walk import WalkStopped
from ..signals import stop_requested
from ..steps import DRAFT, FINAL
from .memory import read_body


def revision(book) -> Revision:
    """The source's revision, read once per command (a scan, a run). Without git it is a content
    hash of the walked tree (seconds on a huge one, on the loop's thread): a stop signal ends it
    with WalkStopped, and nothing is memoised."""
    hit = book.memo.get("evidence.revision")
    if hit is None:
        src = book.cfg.source_dir if book.cfg.file is not None else None

        def hashed(rel: str) -> str | None:
            if stop_requested():
                raise WalkStopped(f"the content hash of {src} stopped at {rel}")
            assert src is not None  # only handed to source_revision with a source
            return book.cache.body_hash(str(src / rel))

        hit = book.memo["evidence.revision"] = source_revision(src, hashed if src else None)
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
    from ..evidence.claims import claims_path

    key = ("evidence.chapter", ch, st.path if st else None, body, rev.id, _accepted(steps),
           book.cache.body_hash(str(book.root / claims_path(ch))))
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
    try:
        revision(book)
    except WalkStopped:  # a stop signal while the tree was hashed: the run's last checkpoint goes without it
        return {}
    return {"revision": revision(book).label(),
            "chapters": {ch: chapter_evidence(book, ch, steps).state for ch, steps in snap.chapters.items()},
            "health": claim_health(book, snap), "follow": follow_lines(follow_view(book, snap))}


def follow_view(book, snap) -> dict[str, dict[str, Any]]:
    """What the last rewrite at the grain of the section did to each chapter, read from its files'
    markers (pipeline/section_redo.py): the sections its draft and final had rewritten, the
    sections a person edited and that were kept, and the files made from the draft that followed
    it without a model call. Shown while those files stand (the next whole redo clears it)."""
    from ..evidence.sections import heads
    from ..steps import STEPS

    out: dict[str, dict[str, Any]] = {}
    for ch, steps in snap.chapters.items():
        row: dict[str, Any] = {}
        for key in (DRAFT, FINAL):
            st = steps[key]
            x = st.marker.extra if st.marker is not None else {}
            if not x.get("redone") or st.status not in ("done", "edited"):
                continue
            hs = heads(read_body(book.root, st.path))
            row.setdefault("rewritten", {})[key] = _pick(hs, x["redone"])
            if x.get("person"):
                row.setdefault("kept", {})[key] = _pick(hs, x["person"])
        if row:
            row["followed"] = [k for k in STEPS if k not in (DRAFT, FINAL) and steps[k].marker is not None
                               and steps[k].marker.extra.get("follow") and steps[k].status == "done"]
            out[ch] = row
    return out


def _pick(heads: list[str], indexes: str) -> list[str]:
    return [heads[int(i)] for i in indexes.split(".") if i.isdigit() and int(i) < len(heads)]


def follow_lines(view: dict[str, dict[str, Any]]) -> list[str]:
    """One line per chapter of `follow_view`, for checkpoint.md and RESUME.md."""
    from ..evidence.sections import label

    out = []
    for ch, row in view.items():
        rw = row.get("rewritten", {})
        secs = list(dict.fromkeys(h for hs in rw.values() for h in hs))
        line = (f"- {ch}: " + ", ".join(f"§ {label(h)}" for h in secs) + f" rewritten ({', '.join(rw)})")
        if row.get("followed"):
            line += f"; followed without a model call: {', '.join(row['followed'])}"
        kept = list(dict.fromkeys(h for hs in row.get("kept", {}).values() for h in hs))
        if kept:
            line += "; a person's sections kept: " + ", ".join(f"§ {label(h)}" for h in kept)
        out.append(line)
    return out


def source_links(book):
    """Where the site sends citations of the source (publish.links.SourceLinks)."""
    from ..publish.links import SourceLinks

    return SourceLinks(revision(book), book.cfg.source_dir) if book.cfg.file is not None else None


def follow_source(book) -> dict[str, int]:
    """At the start of a run, after the source moved to a new revision: a chapter whose claims all
    still hold gets its moved citations and quotes pointed at their new lines in its draft and its
    final, without a model call, and the files made from them are told so (their markers' input
    hashes follow: the words they were made from are the same). A file a person edited is kept as
    it is. Its claims are recorded at the new revision. Returns chapter -> ranges moved."""
    from ..evidence import claims as claims_mod

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
        n = _retarget_chapter(book, ch)
        if n:
            moved[ch] = n
        st = book.scanner.step(ch, FINAL)
        if st.fresh:
            record_claims(book, ch, read_body(book.root, st.path), book.scanner.body_hash(st.path))
            book.scanner.invalidate(claims_mod.claims_path(ch))
    return moved


def _retarget_chapter(book, ch: str) -> int:
    from ..evidence.follow import retargeted
    from ..evidence.sections import hashes
    from ..steps import STEPS
    from .fsio import atomic_write
    from .markers import compose

    sc = book.scanner
    swapped: dict[str, str] = {}  # old body hash -> new, of the texts rewritten
    count = 0

    def rewrite(st, body: str) -> None:
        mk = st.marker
        inputs = {k: swapped.get(v, v) for k, v in mk.inputs.items()}
        extra = dict(mk.extra or {})
        if "sections" in extra:  # the run's own text, its lines moved: each section's hash as it is now (else
            extra["sections"] = hashes(body)  # a moved section would read as a person's at the next release)
        atomic_write(book.root / st.path, compose(body, mk.name, inputs, mk.run, extra or None))
        sc.invalidate(st.path)

    for key in (DRAFT, FINAL):  # the texts that cite, in the order one is made from the other
        st = sc.step(ch, key)
        if st.status != "done" or st.marker is None:
            continue  # missing, half-finished, or a person's: not ours to rewrite
        body = read_body(book.root, st.path)
        text, n = retargeted(book.root, book.cfg.source_dir, ch, body)
        if not n and not any(v in swapped for v in st.marker.inputs.values()):
            continue
        old = sc.body_hash(st.path)
        rewrite(st, text)
        new = sc.body_hash(st.path)
        if old and new and old != new:
            swapped[old] = new
        count = max(count, n)
    if not swapped:
        return count
    for key in STEPS:  # the files made from a rewritten text: the same words, moved lines
        if key in (DRAFT, FINAL) or not STEPS[key].model:
            continue  # a page is derived: published again from the new final, with the new links
        st = sc.step(ch, key)
        if st.status == "done" and st.marker is not None and any(v in swapped for v in st.marker.inputs.values()):
            rewrite(st, read_body(book.root, st.path))
    return count


def resume_lines(book, snap, run_id: str | None) -> list[str]:
    """RESUME.md's `## Evidence`: the revision, the claims' health, what the last run did when the
    source had moved (citations pointed at new lines, chapters redone because their claims changed)."""
    if book.cfg.file is None or not snap.chapters:
        return []
    h = claim_health(book, snap)
    out = ["## Evidence", "", f"- source revision: {revision(book).label()}",
           f"- claims supported: {h['supported']}/{h['all']} ({h['stale']} stale, {h['gone']} gone)"]
    partial = [ch for ch, steps in snap.chapters.items() if chapter_evidence(book, ch, steps).state != "covered"]
    if partial:
        out.append(f"- evidence not covered: {', '.join(partial)}")
    for ch, cs in h["stale_claims"].items():
        out.append(f"- {ch}: {len(cs)} claim(s) no longer hold, e.g. § {cs[0]['section'] or '—'} line {cs[0]['line']}")
    if run_id:
        moved = [e for e in book.ledger.events(type="citations_moved") if e.get("run") == run_id]
        if moved:
            detail = moved[-1].get("detail") or {}
            chs = detail.get("chapters", {}) if isinstance(detail, dict) else {}
            out.append(f"- this run pointed the citations of {len(chs)} chapter(s) at the source's new lines "
                       f"without a model call ({sum(chs.values())} ranges moved)")
        done = [e for e in book.ledger.events(type="sections_rewritten") if e.get("run") == run_id]
        if done:
            n = len({(e["chapter"], h) for e in done for h in (e.get("detail") or {}).get("sections", [])})
            out.append(f"- this run rewrote {n} section(s) whose claims no longer held, in "
                       f"{len({e['chapter'] for e in done})} chapter(s); the rest of each chapter was kept")
    view = follow_lines(follow_view(book, snap))
    if view:
        out += ["- sections redone at the source's new revision (the last such rewrite of each chapter):",
                *("  " + v for v in view)]
    return out + [""]


def citation_warnings(book, snap) -> list[str]:
    """`book scan`'s words for citations that do not resolve in a chapter's latest text (a hand
    edit of a final, which no review reads again), naming the file and the line."""
    if book.cfg.file is None:
        return []
    out = []
    for ch, steps in snap.chapters.items():
        st = _latest(steps)
        if st is not None:
            out += [f"{st.path}:{line}: {why}" for line, why in chapter_evidence(book, ch, steps).problems]
    return out
