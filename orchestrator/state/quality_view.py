"""The book's quality figures (evidence.quality) as the scan, the checkpoint and the audit's staleness
read them: measured in a run (teaching and diagrams need the repository map and R1's index) and kept in
`output/.book/quality.json` with what they were made of, so that a scan reads one small file and never
builds the map.

What the figures are made of: the complete finals (their body hashes), the claims files that hold
evidence the text alone cannot give, the source's revision, and the source files the figures read
(the cited files and those of the map's top-ranked symbols, each with its hash). The cache is
*current* while all of these are as recorded.

The audit's input `quality` is the hash of the figures themselves, so a change that moves no figure
leaves the audit fresh (no paid audit) and one that moves a figure makes it stale. When the source
moved under the same finals, the figures that need no map (claims, citations) are measured again
here, as the scan's claim health is, and the map's (teaching, diagrams) are taken as last measured;
a run that walks the book measures those again before it decides (agents.quality_context.refresh).
A decision at a gate changes none of the ingredients: an approval costs no audit."""

from __future__ import annotations

import json
import os
from typing import Any

from ..evidence.claims import claims_path
from ..evidence.quality import TOP_SYMBOLS, VERSION, Quality
from ..steps import FINAL, OUT, STEPS
from .markers import short_hash
from .ready import complete_finals

CACHE = f"{OUT}/.book/quality.json"


def ingredients(book) -> dict[str, Any]:
    """What the figures are made of, read from the files (cheap: stats and cached hashes)."""
    from .evidence_view import revision

    sc = book.scanner
    rev = revision(book).id
    finals = {ch: sc.body_hash(STEPS[FINAL].file(ch)) for ch in complete_finals(sc)}
    return {"version": VERSION, "top": TOP_SYMBOLS, "revision": rev, "finals": finals,
            "claims": {ch: _claims(book, ch, h, rev) for ch, h in finals.items()}}


def _claims(book, ch: str, final: str | None, rev: str) -> str | None:
    """A chapter's claims file as an ingredient: its hash when it holds evidence the text alone
    cannot give (recorded from this very final at another revision: the lines as they were then),
    else None (absent, of an older text, or of this text at this revision: the same claims the
    figures build from the text). So the claims file its page records after the audit changes nothing."""
    h = book.scanner.body_hash(claims_path(ch))
    if h is None:
        return None
    memo = ("quality.claims", ch, h)
    hit = book.memo.get(memo)
    if hit is None:
        from ..evidence.claims import load

        doc = load(book.root / claims_path(ch))
        hit = book.memo[memo] = (doc.get("of"), str(doc.get("revision", {}).get("id", ""))) if doc else (None, "")
    return h if hit[0] == final and hit[1] != rev else None


def key_of(ing: dict[str, Any]) -> str:
    return short_hash(json.dumps(ing, sort_keys=True))


def figures_hash(q: Quality) -> str:
    return short_hash(json.dumps(q.as_dict(), sort_keys=True, ensure_ascii=False))


def load(book) -> dict[str, Any] | None:
    """The cache file, or None when there is none or it cannot be read (derived: a run writes it again)."""
    try:
        doc = json.loads((book.root / CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(doc, dict) and isinstance(doc.get("figures"), dict) and isinstance(doc.get("files"), dict)
    return doc if ok else None


def _files_current(book, files: dict[str, str | None]) -> bool:
    src = book.cfg.source_dir
    return all(book.cache.body_hash(os.path.join(src, rel)) == h for rel, h in files.items())


def current(book) -> Quality | None:
    """The cached figures when they are of the book and source as they are now, else None.
    Memoised for the command by the ingredients and the cache file's version."""
    if book.cfg.file is None or book.scanner.outline is None:
        return None
    key = key_of(ingredients(book))
    try:
        st = os.stat(book.root / CACHE)
        stamp: tuple = (st.st_size, st.st_mtime_ns)
    except OSError:
        stamp = ()
    memo = ("quality.current", key, stamp)
    if memo in book.memo:
        return book.memo[memo]
    doc = load(book) if stamp else None
    hit = None
    if doc is not None and doc.get("key") == key and _files_current(book, doc["files"]):
        hit = Quality.from_dict(doc["figures"])
    book.memo[memo] = hit
    return hit


def texts(book) -> tuple[dict[str, str], dict[str, dict | None]]:
    """(chapter -> its complete final's body, chapter -> its claims document when it was made from
    that very text, else None): what the figures are measured from."""
    from ..evidence.claims import load
    from .memory import read_body

    sc = book.scanner
    finals, claims = {}, {}
    for ch in complete_finals(sc):
        rel = STEPS[FINAL].file(ch)
        finals[ch] = read_body(book.root, rel)
        doc = load(book.root / claims_path(ch))
        claims[ch] = doc if doc is not None and doc.get("of") == sc.body_hash(rel) else None
    return finals, claims


def remeasured(book) -> Quality | None:
    """When the cached figures are not current but the finals are those they were measured from
    (the source moved, a claims file was recorded): the figures that need no map measured again
    now (claims, citations: reading the cited files, as the scan's claim health does), the map's
    (teaching, diagrams) as last measured: a run measures those again before it decides
    (agents.quality_context.refresh). None when the finals changed (the audit is stale for them)."""
    if book.cfg.file is None or book.scanner.outline is None:
        return None
    doc = load(book)
    ing = ingredients(book)
    if doc is None or not isinstance(doc.get("ingredients"), dict) or \
            any(doc["ingredients"].get(k) != ing[k] for k in ("version", "top", "finals")):
        return None
    src = book.cfg.source_dir
    memo = ("quality.remeasured", key_of(ing), json.dumps(doc["figures"], sort_keys=True),
            tuple(book.cache.body_hash(os.path.join(src, rel)) for rel in sorted(doc["files"])))
    if memo not in book.memo:
        from ..evidence.quality import measure_evidence, with_evidence
        from .evidence_view import revision

        finals, claims = texts(book)
        ev = measure_evidence(finals, src, claims=claims, revision=revision(book))
        book.memo[memo] = with_evidence(Quality.from_dict(doc["figures"]), ev)
    return book.memo[memo]


def input_hash(book) -> str | None:
    """The audit's `quality` input: the hash of the figures, current or remeasured (so a source
    change that moves no figure leaves the audit fresh, one that moves a claim or a citation makes
    it stale); when the finals changed, the new ingredients' hash (the audit is stale for them anyway)."""
    if book.cfg.file is None or book.scanner.outline is None:
        return None
    q = current(book) or remeasured(book)
    return figures_hash(q) if q is not None else "u" + key_of(ingredients(book))[:11]


def store(book, q: Quality, files: dict[str, str | None]) -> None:
    """Keep the figures with what they were made of (the write protocol; the audit's state is
    asked again)."""
    from .fsio import write_if_changed

    doc = {"key": key_of(ingredients(book)), "ingredients": ingredients(book), "files": files,
           "figures": q.as_dict()}
    path = book.root / CACHE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(path, json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    from ..steps import AUDIT, BOOK_STEPS

    book.scanner.invalidate(BOOK_STEPS[AUDIT].path)


def scan_object(book) -> dict[str, Any] | None:
    """`book scan --json`'s `quality`: the figures, `current` false when the book or its source
    changed since they were all measured (then claims and citations are measured now, when the
    finals are the same; else the last measured figures are shown; null when none were)."""
    if book.cfg.file is None or book.scanner.outline is None:
        return None
    q = current(book)
    if q is not None:
        return {"current": True, **q.as_dict()}
    q = remeasured(book)
    if q is not None:  # claims and citations now; teaching and diagrams as last measured
        return {"current": False, **q.as_dict()}
    doc = load(book)
    return {"current": False, **doc["figures"]} if doc is not None else None


CHECKPOINT = {
    "en": "Book quality: claims {c} · claim paragraphs cited {p} · citations resolving {r} · "
          "top symbols taught {t} · diagrams valid {d}",
    "zh": "全书质量：论断成立 {c} · 引用了源码的论断段落 {p} · 可解析的引用 {r} · 讲解的高排名符号 {t} · 有效的图 {d}",
}


def checkpoint_line(book, language: str = "en") -> str:
    """The figures in one line under Phase 4 of checkpoint.md ("" until they are measured)."""
    q = current(book) or remeasured(book)
    if q is None:
        return ""

    def f(a: int, b: int) -> str:
        return f"{a}/{b}"

    return CHECKPOINT["zh" if language == "zh" else "en"].format(
        c=f(q.claims_supported, q.claims_all), p=f(q.claim_paragraphs_cited, q.claim_paragraphs),
        r=f(q.citations_resolving, q.citations), t=f(q.top_taught, q.top_symbols), d=f(q.diagrams_valid, q.diagrams))
