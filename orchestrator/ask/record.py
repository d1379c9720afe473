"""The questions and their answers, kept in output/asked/NNNN.md: a person can read them later,
or turn one into a new section of a chapter by hand. An answer never changes the book itself.

Each record is written whole (a temp file, fsynced) and put in place with a hard link, which
fails rather than replace an existing file: two askers at once get two numbers, never one file."""

from __future__ import annotations

import datetime as _dt
import errno
import os
import re
from pathlib import Path

from ..state.fsio import fsync_dir, write_temp
from .answer import Answer

ASKED = "output/asked"
_NUM_RE = re.compile(r"^(\d{4,})\.md$")


def _next(d: Path) -> int:
    try:
        nums = [int(m.group(1)) for n in os.listdir(d) if (m := _NUM_RE.match(n))]
    except OSError:
        nums = []
    return max(nums, default=0) + 1


def render(a: Answer, revision: str, source: str) -> str:
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cites = "\n".join(f"- `{p}` lines {x}–{z}" for p, x, z in a.citations) or "- (none)"
    chapters = "\n".join(f"- {c['id']}: {c['title']}" + (f" › {c['section']}" if c["section"] else "")
                         for c in a.chapters()) or "- (none)"
    return (f"# {a.question}\n\nAsked {when} ({source}) · answered by {a.provider} · source at {revision}\n\n"
            f"## Answer\n\n{a.text}\n\n## Citations (checked)\n\n{cites}\n\n## Chapters\n\n{chapters}\n")


def keep(root: Path, a: Answer, revision: str, source: str = "book ask") -> Path:
    """Write the record; returns its path."""
    d = root / ASKED
    d.mkdir(parents=True, exist_ok=True)
    text = render(a, revision, source)
    n = _next(d)
    tmp = write_temp(d / f"{n:04d}.md", text)
    try:
        while True:
            dest = d / f"{n:04d}.md"
            try:
                os.link(tmp, dest)
                break
            except FileExistsError:
                n += 1
            except OSError as e:  # a file system without hard links: exclusive create instead
                if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP):
                    raise
                with open(dest, "x", encoding="utf-8") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
                break
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    fsync_dir(d)
    return dest
