"""Keeping the human views current: checkpoint.md and needs-human.md (DESIGN §4, §5)."""

from __future__ import annotations

from . import checkpoint
from .fsio import atomic_write
from .scan import Snapshot
from .steps import CHECKPOINT, NEEDS_HUMAN


def write_checkpoint(book, snap: Snapshot | None = None, live: dict[tuple[str, str], str] | None = None) -> None:
    snap = snap or book.snapshot()
    title = (snap.outline.title if snap.outline and snap.outline.title else None) or book.cfg.title
    text = checkpoint.render(snap, title, book.cfg.language, live=live, needs_human=book.needs_human())
    atomic_write(book.ws.path(CHECKPOINT), text)


def write_needs_human(book, items: dict[str, str]) -> None:
    """`- chNN: reason` lines; an empty dict leaves a file that says nothing is waiting."""
    lines = ["# Needs a person", "",
             "Chapters marked NEEDS_HUMAN_REVIEW: fix the cause, then `book run` or `book resume` retries them.", ""]
    lines += [f"- {ch}: {why}" for ch, why in sorted(items.items())] or ["(nothing is waiting)"]
    atomic_write(book.ws.path(NEEDS_HUMAN), "\n".join(lines) + "\n")
