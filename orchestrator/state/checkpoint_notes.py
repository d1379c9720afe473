"""A person's notes in `checkpoint.md` (issue 39, item 4): the file stays derived (rewritten from
the files at every state change), but text a person adds to it is never discarded.

Its last section, under the notes heading, is the person's and is carried over verbatim. Text a
person writes anywhere else (a line added or changed among the tables) is moved into that section
at the next rewrite, under a line saying where it came from. What was written last is kept in
`output/.book/checkpoint.last`, so a person's lines are told from the view's by a diff; without
that copy (a deleted `.book/`), every line the new view does not have and that is not of the
view's own kinds (tables, headings, its dated header lines) is kept."""

from __future__ import annotations

import datetime as _dt
import difflib
import os
from pathlib import Path

HEADING = {"en": "## Notes (yours: kept as written; the rest of this file is rewritten from the files)",
           "zh": "## 备注（人工添加，原样保留；本文件其余部分由文件状态重写）"}
_PREFIXES = ("## Notes", "## 备注")
MOVED = {"en": "(moved here on {when} from the rest of checkpoint.md, which is rewritten from the files:)",
         "zh": "（{when} 从 checkpoint.md 其余部分移到此处，那部分由文件状态重写：）"}
LAST = "checkpoint.last"  # in output/.book/ (not a .md: not one of the book's Markdown files)


def split(text: str) -> tuple[str, str]:
    """(the view, the notes section's content) of a checkpoint.md."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith(_PREFIXES):
            return "".join(lines[:i]), "".join(lines[i + 1:])
    return text, ""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _ours(line: str, fresh: set[str], header_words: tuple[str, ...]) -> bool:
    """Whether a line can be the view's own (without the copy of what was written last)."""
    s = line.strip()
    return (not s or s in fresh or s.startswith(("|", "#", "- ch", "- ⚠", "- ✋", "图例", "Legend"))
            or any(s.startswith((w + ":", w + "：")) for w in header_words))


def added_lines(old_view: str, last_view: str | None, fresh: str, header_words: tuple[str, ...]) -> list[str]:
    """The lines of `old_view` a person wrote: those not in what was written last (a diff), or,
    without that, those that cannot be the view's."""
    old = old_view.splitlines()
    if last_view is None:
        seen = {x.strip() for x in fresh.splitlines()}
        return [x for x in old if not _ours(x, seen, header_words)]
    out: list[str] = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(None, last_view.splitlines(), old, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            out += [x for x in old[j1:j2] if x.strip()]
    return out


def keep(view: str, current: str | None, last: str | None, lang: str, header_words: tuple[str, ...],
         now: _dt.datetime | None = None) -> str:
    """checkpoint.md: the freshly rendered `view`, then the notes section, with what the person
    wrote in `current` (the file as it is now) carried over."""
    lang = "zh" if lang == "zh" else "en"
    if current is None:
        return view
    old_view, notes = split(current)
    if current != last:  # changed since it was written: by a person
        moved = added_lines(old_view, split(last)[0] if last is not None else None, view, header_words)
        if moved:
            when = (now or _dt.datetime.now(_dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
            block = "\n".join([MOVED[lang].format(when=when), *moved]) + "\n"
            notes = (notes.rstrip("\n") + "\n\n" if notes.strip() else "\n") + block
    if not notes.strip():
        return view
    return view.rstrip("\n") + "\n\n" + HEADING[lang] + "\n" + notes.rstrip("\n") + "\n"


def last_path(ledger_path: Path) -> Path:
    return ledger_path.parent / LAST


def current_and_last(checkpoint: Path, ledger_path: Path) -> tuple[str | None, str | None]:
    return _read(checkpoint), _read(last_path(ledger_path))


def remember(ledger_path: Path, text: str) -> None:
    """Keep what was written (a cache: lost, the next rewrite falls back to telling lines apart
    by their kind). No fsync: checkpoint.md itself is written atomically."""
    p = last_path(ledger_path)
    if not p.parent.is_dir():
        return
    tmp = p.with_name(f".{p.name}.tmp.{os.getpid()}")  # the temp sweep's pattern (fsio.temp_path)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    except OSError:  # a stale copy would make the view's own changed lines look like a person's
        for x in (tmp, p):
            try:
                x.unlink()
            except OSError:
                pass
