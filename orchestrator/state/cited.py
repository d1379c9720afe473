"""A draft stale on a file it cites but its research never read (another chapter's file): when a
release changes the lines under one of its claims there (evidence.follow.unheld), the draft is
stale on that file, `src:PATH`, and is followed for it section by section (pipeline/section_redo.py)
like a draft whose own sources moved. A draft rewritten for just that records `cited=` (`key`):
the files as they were then, so it is not stale on them again until they change again, nor once
its claims are recorded anew at the new revision."""

from __future__ import annotations

import json

from ..steps import DRAFT, RESEARCH
from .markers import short_hash


def followed(sc, ch: str, key: str, mk, stale: list[str]) -> list[str]:
    """`stale` (a step's stale inputs, from its marker) with the cited files a draft must follow."""
    if key != DRAFT or sc.source_dir is None or sc.evidence_min is None:
        return stale
    files = unheld(sc, ch)
    if not files or mk.extra.get("cited") == cited_key(sc, ch, files):
        return stale
    return sorted(set(stale) | {"src:" + p for p in files})


def cited_key(sc, ch: str, paths: list[str]) -> str:
    """The files as they are now (a draft marker's `cited=`)."""
    return short_hash(json.dumps([(p, sc.input_hash(ch, "src:" + p)) for p in sorted(paths)]))


def unheld(sc, ch: str) -> list[str]:
    """The files the chapter's recorded claims cite beyond its research's sources on which a claim
    no longer holds. Memoised on the scanner by the claims file's and those files' hashes."""
    from ..evidence import claims as claims_mod, follow

    rel = claims_mod.claims_path(ch)
    ch_hash = sc.body_hash(rel)
    if ch_hash is None:
        return []
    paths = sc._holds.get(("cited", ch, ch_hash))
    if paths is None:
        doc = claims_mod.load(sc.root / rel)
        paths = sc._holds[("cited", ch, ch_hash)] = sorted(follow.cited_paths(doc)) if doc else []
    own = {n[4:] for n in sc.input_names(ch, RESEARCH) if n.startswith("src:")}
    out = []
    for p in paths:
        if p in own:
            continue
        k = ("unheld", ch, p, sc.input_hash(ch, "src:" + p), ch_hash)
        if k not in sc._holds:
            sc._holds[k] = follow.unheld(sc.root, sc.source_dir, ch, p, sc._source_files())
        if sc._holds[k]:
            out.append(p)
    return out
