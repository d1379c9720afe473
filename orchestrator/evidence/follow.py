"""Following the code: when the source moves to a new revision, a chapter whose recorded claims
all still hold is not redone; its citations (and its quotes' `lines=`) that merely moved are
pointed at the new lines without a model call.

`holds` answers the scanner: may a changed source file be ignored for this chapter's steps?
Only when the chapter's claims file cites that file, and every claim resting on it is
supported at the current tree (quoted code: still there, exactly).

`stale_sections` answers the runner for a chapter with a stale or gone claim: which of its
sections hold them. Those sections are rewritten (pipeline/section_redo.py), the others kept;
a section a person edited is kept whatever its claims say, and reported. The opening (the title
line and the paragraphs before the first `## `) is one of the sections: a stale claim there has
the opening rewritten, not the whole chapter."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import claims as claims_mod, sections as sections_mod
from .resolve import SourceFiles

# More of the chapter's sections than this share stale: it is redone whole (as cheap, and whole)
WHOLE_SHARE = 0.5


def _claims_of(doc: dict, path: str) -> list[dict]:
    return [c for c in doc.get("claims", [])
            if any(doc["evidence"].get(r, {}).get("path") == path for r in c.get("evidence", []))]


def holds(root: Path, source_dir: Path, ch: str, path: str, files: SourceFiles | None = None) -> bool:
    """Every claim of the chapter that rests on `path` is supported in the tree as it is now."""
    doc = claims_mod.load(root / claims_mod.claims_path(ch))
    if doc is None:
        return False
    mine = _claims_of(doc, path)
    if not mine:
        return False  # what the chapter says of this file is not on record: redo it
    sub = {**doc, "claims": mine}
    return all(c["status"] == "supported" for c in claims_mod.health(sub, source_dir, files))


def cited_paths(doc: dict) -> set[str]:
    return {ev["path"] for ev in doc.get("evidence", {}).values() if ev.get("path")}


def unheld(root: Path, source_dir: Path, ch: str, path: str, files: SourceFiles | None = None) -> bool:
    """A claim of the chapter resting on `path` no longer holds, and the lines it cites there are
    not what they were when it was recorded: the chapter is to follow that file although its
    research never read it (another chapter's file it cites). Once its claims are recorded again
    at the new revision, their lines are unchanged: a claim that still fails is then R1's to
    report, not a loop of rewrites."""
    from .claims import locate

    doc = claims_mod.load(root / claims_mod.claims_path(ch))
    if doc is None:
        return False
    files = files or SourceFiles(source_dir)
    evs = [ev for ev in doc["evidence"].values() if ev.get("path") == path]
    if not evs or all(locate(ev, files).status == "unchanged" for ev in evs):
        return False
    mine = _claims_of(doc, path)
    return bool(mine) and any(c["status"] != "supported" for c in claims_mod.health({**doc, "claims": mine}, source_dir,
                                                                                   files))


def retargeted(root: Path, source_dir: Path, ch: str, body: str) -> tuple[str, int]:
    """(the chapter's text with its moved citations and quotes pointed at their new lines, how
    many ranges moved)."""
    doc = claims_mod.load(root / claims_mod.claims_path(ch))
    if doc is None:
        return body, 0
    moves = claims_mod.moved_citations(doc, source_dir)
    if not moves:
        return body, 0
    return claims_mod.retarget(body, moves), len(moves)


@dataclass(frozen=True)
class Stale:
    """A chapter's sections at the source's current revision, from its recorded claims."""

    rewrite: tuple[str, ...]  # heads of the sections to rewrite (their claims are stale or gone)
    kept: tuple[str, ...]  # heads of stale sections a person edited: kept as they are
    claims: dict[str, int]  # head -> its claims that no longer hold
    whole: str = ""  # why the chapter cannot be followed section by section ("" when it can)


def stale_sections(root: Path, source_dir: Path, ch: str, body: str, recorded: str | None,
                   files: SourceFiles | None = None) -> Stale | None:
    """The sections of `body` (the chapter's draft or final as it is) that hold claims which no
    longer hold at the current tree, or None when every recorded claim holds (or none is recorded:
    nothing to follow by). `recorded` is the marker's `sections=` (what the run wrote in each
    section): a stale section whose text is not that is a person's, and is kept."""
    doc = claims_mod.load(root / claims_mod.claims_path(ch))
    if doc is None:
        return None
    bad: dict[str, int] = {}
    for c in claims_mod.health(doc, source_dir, files):
        if c["status"] != "supported":
            bad[c.get("section") or sections_mod.OPENING] = bad.get(c.get("section") or sections_mod.OPENING, 0) + 1
    if not bad:
        return None
    heads = sections_mod.heads(body)
    why = ""  # the opening (the text before the first `## `) is a section like the others
    if missing := [h for h in bad if h not in heads]:
        why = f"its section {sections_mod.label(missing[0])!r} is not in the text"
    elif dup := [h for h in sections_mod.duplicated(body) if h in bad]:
        why = f"two sections are headed {dup[0]!r}"
    elif len(bad) > WHOLE_SHARE * len(heads):
        why = f"{len(bad)} of its {len(heads)} sections (the opening counted) hold stale claims"
    person = set(sections_mod.edited(body, recorded) or ())
    kept = tuple(h for h in heads if h in bad and h in person)
    rewrite = tuple(h for h in heads if h in bad and h not in person)
    return Stale(rewrite, kept, bad, why)
