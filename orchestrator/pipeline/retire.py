"""A chapter deleted from the outline is retired: its files are moved aside, never deleted,
to `output/retired/<chapter>-<UTC time>/` (the same relative paths inside), so it leaves the
site, the long memory and the scan, and a person can still read or restore it."""

from __future__ import annotations

import os

from ..state.fsio import utc_stamp
from ..steps import OUT, STEPS

RETIRED_DIR = f"{OUT}/retired"


def orphans(book) -> list[str]:
    """Chapters with files that the outline no longer has (none while there is no outline).
    A chapter was in the outline once if book made or adopted one of its files (a marker, a
    .partial); one whose files are all marker-less is a person's start of a new chapter, not
    a deleted one (`unplanned`)."""
    o = book.scanner.outline
    if o is None:
        return []
    return [ch for ch in book.scanner.chapters() if ch not in o.by_id and not _persons_only(book, ch)]


def unplanned(book) -> dict[str, list[str]]:
    """Chapters not in the outline whose files are all a person's (no marker): chapter -> files.
    They are left where they are, for the person to add the chapter to the outline."""
    o = book.scanner.outline
    if o is None:
        return {}
    return {ch: [s.path for k in STEPS if (s := book.scanner.step(ch, k)).status != "missing"]
            for ch in book.scanner.chapters() if ch not in o.by_id and _persons_only(book, ch)}


def _persons_only(book, ch: str) -> bool:
    states = [book.scanner.step(ch, k) for k in STEPS]
    if any(st.marker is not None for st in states):
        return False
    return not any(book.ws.path(s.file(ch) + ".partial").is_file() for s in STEPS.values())


def retire(book, run_id: str | None = None) -> dict[str, str]:
    """Move every file of each orphan chapter aside; return chapter -> where it went."""
    moved: dict[str, str] = {}
    for ch in orphans(book):
        dest_root = f"{RETIRED_DIR}/{ch}-{utc_stamp()}"
        files = []
        for s in STEPS.values():
            rel = s.file(ch)
            for suffix in ("", ".partial"):
                src = book.ws.path(rel + suffix)
                if src.is_file():
                    dst = book.ws.path(f"{dest_root}/{rel}{suffix}")
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(src, dst)  # a rename: the text is kept whole
                    book.cache.forget(str(src))
                    files.append(rel + suffix)
        if files:
            moved[ch] = dest_root
            book.ledger.event("retired", run_id, ch, None, to=dest_root, files=files)
    if moved:
        book.scanner.invalidate()
    return moved


def retire_deleted(runner) -> None:
    """The runner's side: retire, say where the files went, forget what they waited for."""
    for ch, where in retire(runner.book, runner.run_id).items():
        runner.warn(f"{ch} is no longer in the outline: its files were moved to {where}")
        runner.needs.pop(ch, None)
    for ch, files in unplanned(runner.book).items():
        runner.warn(f"{ch} is not in the outline, but {', '.join(files)} is there (yours, no marker): it is left as "
                    f"it is; add an entry for {ch} to output/memory/outline.md to have the book build it")

