"""The three levels of state compared (files, ledger, checkpoint.md): checkpoint.md and the ledger against the
files. The files always win; these functions only say where the others disagree, and what
the ledger alone would conclude (`book replay`)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..steps import CHECKPOINT, ORDER, OUTLINE, RESUME, STEPS
from .person_files import kept_files, kept_for_person, looks_truncated, not_utf8, unreadable_memory  # noqa: F401 (re-exported)
from .scan import Snapshot, status_word


def replay_matrix(events: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(chapter, step) -> status, from the ledger's events alone."""
    out: dict[tuple[str, str], str] = {}
    for e in events:
        ch, step, typ = e.get("chapter"), e.get("step"), e.get("type")
        if not ch or step not in STEPS:
            continue
        if typ == "step_start":
            out[(ch, step)] = "running"
        elif typ == "step_end":
            out[(ch, step)] = "done"
        elif typ == "step_failed":
            out[(ch, step)] = "failed"
        elif typ == "recovered":
            out[(ch, step)] = "half_finished"
        elif typ == "hand_edit":
            out[(ch, step)] = "edited"
    # A run that ended (or was interrupted) has nothing running any more.
    return {k: ("interrupted" if v == "running" else v) for k, v in out.items()}


def replay_differences(matrix: dict[tuple[str, str], str], snap: Snapshot) -> list[dict[str, str]]:
    """Where the ledger's matrix (`replay_matrix`) and the files disagree (the files win); a
    file done and since edited or gone stale is what the ledger said, not a difference."""
    diffs = []
    for (ch, step), said in sorted(matrix.items()):
        row = snap.chapters.get(ch)
        have = status_word(row[step]) if row else "missing"
        if not (said == have or (said == "done" and have in ("edited", "stale"))):
            diffs.append({"chapter": ch, "step": step, "ledger": said, "files": have})
    return diffs


def ledger_discrepancies(snap: Snapshot, events: list[dict[str, Any]]) -> list[str]:
    if not events:
        return []
    claimed = replay_matrix(events)
    issues = []
    for (ch, step), said in sorted(claimed.items()):
        row = snap.chapters.get(ch)
        have = status_word(row[step]) if row else "missing"
        rel = STEPS[step].file(ch)
        if said == "done" and have not in ("done", "edited", "stale"):
            issues.append(f"the ledger says {ch} {step} finished, but {rel} is {have}")
        elif said == "interrupted" and have in ("missing", "half_finished"):
            issues.append(f"the ledger says {ch} {step} was started and never finished; {rel} is {have}")
    return issues


@dataclass
class HalfFinished:
    path: str
    size: int
    age_s: float
    truncated: bool
    why: str
    partial: bool  # a .partial left by a crash, rather than the final path


def half_finished(book, snap: Snapshot) -> list[HalfFinished]:
    now = time.time()
    out = []
    paths = list(snap.half_finished)
    for steps in snap.chapters.values():
        for k in ORDER:
            p = steps[k].path + ".partial"
            if os.path.exists(book.root / p):
                paths.append(p)
    for rel in sorted(set(paths)):
        p = book.root / rel
        try:
            st = p.stat()
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        t, why = looks_truncated(text)
        out.append(HalfFinished(rel, st.st_size, now - st.st_mtime, t, why, rel.endswith(".partial")))
    return out


def all_discrepancies(book, snap: Snapshot) -> list[str]:
    issues = []
    cp = book.root / CHECKPOINT
    if cp.exists():
        from . import checkpoint  # off the path of `book scan`, which compares only when there is one

        issues += checkpoint.compare(snap, cp.read_text(encoding="utf-8", errors="replace"), book.cfg.language)
    elif snap.chapters or snap.book[OUTLINE].status != "missing":
        issues.append("checkpoint.md is missing")
    if not (book.root / RESUME).exists() and snap.book[OUTLINE].status != "missing":
        issues.append("RESUME.md is missing")
    issues += ledger_discrepancies(snap, book.ledger.events())
    return issues


_PATH = re.compile(r"(output/\S+?)(?:[,;:]|\s|$)")


def brief(issues: list[str], listed: Iterable[str],
          behind_why: str | None = "the files listed above (the files win; the next run rewrites them)") -> list[str]:
    """The disagreements worth a line of their own: one about a file already listed as stale,
    edited or half-finished only says the checkpoint or ledger is behind the files, which the
    lists show; those become one line (none with `behind_why=None`: a run, which catches up
    with them as it goes, says nothing of them). Nothing is hidden from `--json`."""
    known = set(listed)
    keep, behind = [], 0
    for i in issues:
        m = _PATH.search(i)
        if m and m.group(1) in known:
            behind += 1
        else:
            keep.append(i)
    if behind and behind_why is not None:
        keep.append(f"{behind} entr{'y' if behind == 1 else 'ies'} of checkpoint.md and the ledger "
                    f"{'is' if behind == 1 else 'are'} behind {behind_why}")
    return keep
