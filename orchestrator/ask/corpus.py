"""What of a book can be asked: its committed chapters, its glossary, its revision.

Committed means what a run or a person has finished: a chapter's final with a valid marker (the
editor's, or a person's text after it), else its published `chNN.md` (the publisher writes it
whole, atomically). A half-written file (a `.partial`, a final without its marker) is never
read, so a run may be updating the book while it is asked."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, UsageError
from ..evidence.revision import Revision
from ..state.markers import find_marker, split_marked
from ..steps import CHAPTER_RE, FINAL, MEMORY_DIR, MEMORY_FILES, PUBLISH_DIR, STEPS, chapter_sort_key

GLOSSARY = MEMORY_FILES["glossary"]
CLAIMS_DIR = f"{MEMORY_DIR}/claims"
_GLOSS_RE = re.compile(r"^\s*[-*]\s+\*\*(.+?)\*\*\s*(?:\((ch\d{2,})\))?\s*:\s*(.+)$")


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    rel: str  # the file it was read from, relative to the workspace
    text: str  # its body (the marker line left out)
    stamp: str  # size and mtime of that file: the index's input


@dataclass(frozen=True)
class Term:
    term: str
    chapter: str
    text: str


def no_book(root: Path) -> ConfigError:
    return ConfigError("no book here: neither book.yaml nor output/", str(root),
                       fix="run `book init` and `book run`, or pass --workspace DIR")


def workspace(root: str | os.PathLike[str]) -> Path:
    """The workspace's real path; a directory without a book is a usage error naming it."""
    p = Path(root).resolve()
    if not p.is_dir():
        raise ConfigError(f"workspace {p} does not exist", fix="pass --workspace DIR")
    if not (p / "book.yaml").is_file() and not (p / "output").is_dir():
        raise no_book(p)
    return p


def _stamp(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}"


def _committed_final(path: Path) -> tuple[str, str] | None:
    """(body, stamp) of a final that carries its marker, or None."""
    try:
        data = path.read_bytes()
        st = path.stat()
    except OSError:
        return None
    mk = find_marker(data)
    if mk is None or mk.name != STEPS[FINAL].marker:
        return None
    return split_marked(data, mk).decode("utf-8", errors="replace"), _stamp(st)


def _published(path: Path) -> tuple[str, str] | None:
    try:
        data = path.read_bytes()
        st = path.stat()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace"), _stamp(st)


def _title(text: str, ch: str) -> str:
    for ln in text.splitlines():
        if ln.startswith("# "):
            return ln[2:].strip()
    return ch


def chapter_ids(root: Path) -> list[str]:
    """Every chapter id that has a final or a published page (committed or not)."""
    final_dir = root / STEPS[FINAL].path.format(ch="x").rsplit("/", 1)[0]
    ids: set[str] = set()
    for d, rx in ((final_dir, re.compile(r"^(ch\d{2,})-final\.md$")), (root / PUBLISH_DIR, re.compile(r"^(ch\d{2,})\.md$"))):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        ids |= {m.group(1) for n in names if (m := rx.match(n))}
    return sorted(ids, key=chapter_sort_key)


def chapter(root: Path, ch: str) -> Chapter | None:
    """The committed text of one chapter, or None when it has none yet."""
    rel = STEPS[FINAL].path.format(ch=ch)
    got = _committed_final(root / rel)
    if got is None:
        rel = f"{PUBLISH_DIR}/{ch}.md"
        got = _published(root / rel)
    if got is None:
        return None
    text, stamp = got
    return Chapter(ch, _title(text, ch), rel, text, stamp)


def chapters(root: Path) -> list[Chapter]:
    return [c for ch in chapter_ids(root) if (c := chapter(root, ch)) is not None]


def check_chapter(root: Path, ch: str) -> Chapter:
    """The chapter `ch`, or a usage error that says which chapters there are."""
    if not isinstance(ch, str) or not CHAPTER_RE.match(ch):
        raise UsageError(f"invalid chapter id {ch!r}: expected 'ch' and at least two digits, like ch01")
    got = chapter(root, ch)
    if got is None:
        have = ", ".join(chapter_ids(root)) or "none yet"
        raise UsageError(f"chapter {ch} does not exist in this book or is not finished (chapters: {have})")
    return got


def glossary(root: Path) -> tuple[list[Term], str]:
    """The glossary's entries and the file's stamp ("" when there is none or it is not committed)."""
    path = root / GLOSSARY
    try:
        data = path.read_bytes()
        st = path.stat()
    except OSError:
        return [], ""
    mk = find_marker(data)
    if mk is None:
        return [], ""
    out = []
    for ln in split_marked(data, mk).decode("utf-8", errors="replace").splitlines():
        m = _GLOSS_RE.match(ln)
        if m:
            out.append(Term(m.group(1).strip(), m.group(2) or "", m.group(3).strip()))
    return out, _stamp(st)


def recorded_revision(root: Path) -> Revision | None:
    """The revision the book's claims were checked at (output/memory/claims/chNN.json), or None."""
    d = root / CLAIMS_DIR
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".json"))
    except OSError:
        return None
    for n in names:
        try:
            rev = json.loads((d / n).read_text(encoding="utf-8")).get("revision") or {}
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(rev, dict) and rev.get("id"):
            return Revision(str(rev.get("kind", "")), str(rev["id"]), str(rev.get("remote", "")),
                            str(rev.get("prefix", "")))
    return None
