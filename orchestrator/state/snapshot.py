"""What a scan finds, as data: a step's state (`StepState`), the whole tree's (`Snapshot`) and
the status word a scan reports for a state (`status_word`). Made by `scan.Scanner`; read by
every view (checkpoint.md, the board, scan_report, reconcile)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..steps import AUDIT, BOOK, FINAL, HTML, INDEX, OUTLINE, PHASE3, STYLE_GUIDE

if TYPE_CHECKING:
    from ..outline import Outline
    from .markers import Marker

DONE = ("done", "edited")


@dataclass
class StepState:
    status: str  # missing | half_finished | done | edited
    path: str  # relative to the workspace
    marker: Marker | None = None
    stale: list[str] = field(default_factory=list)  # names of inputs that changed
    checked: bool = False  # stale has been computed
    size: int = 0
    mtime: float = 0.0
    mtime_ns: int = 0  # with size, the version of the file this state was read from (0: not read)

    @property
    def complete(self) -> bool:
        return self.status in DONE

    @property
    def fresh(self) -> bool:
        """Complete and nothing it was made from has changed (or a person owns it)."""
        return self.status == "edited" or (self.status == "done" and not self.stale)



# ---------------------------------------------------------------- the whole-tree view

@dataclass
class Snapshot:
    root: Path
    chapters: dict[str, dict[str, StepState]]
    book: dict[str, StepState]
    memory_files: dict[str, bool]
    outline: Outline | None
    outline_error: str | None

    def batch_of(self, ch: str) -> int | None:
        c = self.outline.by_id.get(ch) if self.outline else None
        return c.batch if c else None

    @cached_property
    def _progress(self) -> tuple[bool, bool, bool, int | None]:
        """One walk over the chapters for phase, batch and complete (each asked once or more
        per report): (a phase-3 step not fresh, a final not fresh, every page fresh, the
        earliest batch with phase-3 work left). `fresh` inline: thousands of states."""
        phase3 = final = False
        pages = True
        batches: list[int] = []
        for ch, row in self.chapters.items():
            for k in PHASE3:
                s = row[k]
                if not (s.status == "edited" or (s.status == "done" and not s.stale)):
                    phase3 = True
                    if (b := self.batch_of(ch)) is not None:
                        batches.append(b)
                    break
            s = row[FINAL]
            if not (s.status == "edited" or (s.status == "done" and not s.stale)):
                final = True
            s = row[HTML]
            if not (s.status == "edited" or (s.status == "done" and not s.stale)):
                pages = False
        return phase3, final, pages, min(batches) if batches else None

    @property
    def phase(self) -> int:
        if not self.book[OUTLINE].complete:
            return 1
        if not (self.book[STYLE_GUIDE].complete and all(self.memory_files.values())):
            return 2
        phase3, final, _pages, _batch = self._progress
        if phase3:
            return 3
        if final or not self.book[AUDIT].fresh:
            return 4
        return 5

    @property
    def complete(self) -> bool:
        return self.phase == 5 and self._progress[2] and self.book[INDEX].complete

    @property
    def batch(self) -> int | None:
        """The earliest batch with a chapter whose phase-3 work is not done."""
        return self._progress[3]

    def files(self, pred) -> list[str]:
        out = [s.path for ch in self.chapters.values() for s in ch.values() if pred(s)]
        out += [s.path for s in self.book.values() if pred(s)]
        return out

    # One walk over every state of the book, once per snapshot (a snapshot is not changed after
    # it is taken), for all of the lists below: a scan report asks for each, some more than once.
    @cached_property
    def _lists(self) -> tuple[list[str], list[str], list[str], list[tuple[str, str, StepState]],
                              dict[str, tuple[int, int] | None]]:
        half: list[str] = []
        stale: list[str] = []
        edited: list[str] = []
        half_steps: list[tuple[str, str, StepState]] = []
        versions: dict[str, tuple[int, int] | None] = {}
        units = [(ch, row) for ch, row in self.chapters.items()]
        units.append((BOOK, self.book))
        for unit, row in units:
            for k, s in row.items():
                status = s.status
                if status == "half_finished":
                    half.append(s.path)
                    half_steps.append((unit, k, s))
                    versions[s.path] = (s.size, s.mtime_ns) if s.mtime_ns else None
                elif status == "edited":
                    edited.append(s.path)
                    versions[s.path] = (s.size, s.mtime_ns) if s.mtime_ns else None
                    if s.stale:
                        stale.append(s.path)
                elif status == "done" and s.stale:
                    stale.append(s.path)
        return half, stale, edited, half_steps, versions

    @property
    def half_finished(self) -> list[str]:
        return self._lists[0]

    @property
    def stale(self) -> list[str]:
        return self._lists[1]

    @property
    def edited(self) -> list[str]:
        return self._lists[2]

    @property
    def half_finished_steps(self) -> list[tuple[str, str, StepState]]:
        """(chapter or BOOK, step key, state) of each half-finished file, in the order of `half_finished`."""
        return self._lists[3]

    @property
    def versions(self) -> dict[str, tuple[int, int] | None]:
        """path -> (size, mtime_ns) of each half-finished or edited file as this snapshot read
        it, for the checks of a person's files through the hash cache (no second stat)."""
        return self._lists[4]


def status_word(s: StepState) -> str:
    """The status a scan reports: an edited file stays `edited` even when stale."""
    if s.status == "done" and s.stale:
        return "stale"
    return s.status

