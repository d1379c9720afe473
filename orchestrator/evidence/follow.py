"""Following the code: when the source moves to a new revision, a chapter whose recorded claims
all still hold is not redone; its citations (and its quotes' `lines=`) that merely moved are
pointed at the new lines without a model call.

`holds` answers the scanner: may a changed source file be ignored for this chapter's steps?
Only when the chapter's claims file cites that file, and every claim resting on it is
supported at the current tree (quoted code: still there, exactly). A chapter with a stale or
gone claim is redone as before (at the grain of the chapter: a section-grain rewrite needs the
writer to write one section, which it cannot yet)."""

from __future__ import annotations

from pathlib import Path

from . import claims as claims_mod
from .resolve import SourceFiles


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
