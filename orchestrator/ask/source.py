"""Source lines at the book's revision, and the citation checks of evidence/ over them.

The book cites its source at a revision (DESIGN §11). When the source is a git work tree at that
very commit, its files are read through the safe reader (repo/read.py: inside the source root, a
regular file, bounded); when the work tree has moved on, the file is read from the commit itself
(`git show COMMIT:PATH`), so a citation is judged against the lines the book was written from.
Paths are refused before anything is read: absolute, `..`, a drive letter."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..evidence.cite import Citation, blocks
from ..evidence.resolve import MAX_BYTES, SourceFiles, citation_problem, cited_text, missing_names, occurs
from ..evidence.revision import Revision, git_revision
from ..text.markdown import split_lines

MAX_LINES = 400  # what one read of source lines returns at most


def refused(rel: str) -> str | None:
    """Why a path given by a person, a client or a model is refused before any read, or None."""
    p = rel.replace("\\", "/")
    if not p or "\x00" in p or p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", p) or ".." in p.split("/"):
        return "is outside the source tree (a path relative to the source root, without '..')"
    return None


class SourceAt(SourceFiles):
    """SourceFiles (evidence/resolve.py) that read each file at the book's revision."""

    def __init__(self, root: Path, book_rev: Revision | None):
        super().__init__(root)
        self.rev = book_rev
        self.commit: str | None = None  # read from this commit, not the work tree
        self.top: Path | None = None
        if book_rev is not None and book_rev.kind == "git" and root.is_dir():
            now = git_revision(root)
            if now is not None and now.id != book_rev.id:
                self.commit = book_rev.id
                self.top = _git_top(root)

    def _read(self, rel: str) -> list[str] | str:
        why = refused(rel)
        if why:
            return why
        if self.commit is None or self.top is None:
            return super()._read(rel)
        prefix = (self.rev.prefix + "/") if self.rev and self.rev.prefix else ""
        try:
            done = subprocess.run(["git", "-C", str(self.top), "show", f"{self.commit}:{prefix}{rel}"],
                                  capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError) as e:
            return f"cannot be read at {self.commit[:12]} ({e})"
        if done.returncode != 0:
            return f"does not exist in the source at {self.commit[:12]}"
        if len(done.stdout) > MAX_BYTES:
            return "cannot be read (too large)"
        lines = split_lines(done.stdout.decode("utf-8", errors="replace").removeprefix("\ufeff"))
        return lines[:-1] if lines and lines[-1] == "" else lines


def _git_top(root: Path) -> Path | None:
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                              text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def read_lines(files: SourceAt, rel: str, first: int = 1, last: int | None = None) -> dict:
    """Lines first..last of a source file at the book's revision: {path, first, last, total, text}.
    A refused path, a missing file or lines past its end are a UsageError naming the file."""
    why = refused(rel)
    if why:
        raise UsageError(f"source path {rel!r} {why}; nothing was read")
    lines = files.lines(rel)
    if isinstance(lines, str):
        raise UsageError(f"source file {rel} {lines}")
    if first > len(lines):
        raise UsageError(f"source file {rel} has {len(lines)} lines; line {first} does not exist")
    last = len(lines) if last is None else last
    if first < 1 or last < first:
        raise UsageError(f"lines {first}-{last} of {rel}: not a range of lines (1-based, first <= last)")
    last = min(last, len(lines), first + MAX_LINES - 1)
    body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(first, last + 1))
    return {"path": rel, "first": first, "last": last, "total": len(lines), "text": body}


@dataclass(frozen=True)
class Checked:
    citation: Citation
    problem: str | None  # None: it resolves and the lines hold what its sentence names


def check_citations(md: str, files: SourceFiles) -> list[Checked]:
    """Every citation of a Markdown answer, judged as R1 judges a chapter's (evidence/resolve.py):
    the file and lines exist at the revision, and the code names of the sentence it backs occur
    in the cited lines. Stricter than a chapter's: each citation of a sentence that names code
    must hold one of those names itself, so an invented range beside a true one is still caught."""
    out: list[Checked] = []
    for b in blocks(md):
        backed: set[int] = set()
        for s in b.sentences:
            gone = missing_names(s.names, s.cites, files) if s.cites else []
            for c in s.cites:
                backed.add(id(c))
                why = citation_problem(c, files)
                text = cited_text(c, files) if why is None else None
                if why is None and s.names and text is not None and not any(occurs(n, text) for n in s.names):
                    why = f"its lines ({c.ref}) hold none of the names the sentence gives"
                elif why is None and gone:
                    names = ", ".join(f"`{n}`" for n in gone)
                    why = f"the sentence names {names}, which the cited lines ({c.ref}) do not contain"
                out.append(Checked(c, why))
        out += [Checked(c, citation_problem(c, files)) for c in b.cites if id(c) not in backed]
    return out
