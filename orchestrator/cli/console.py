"""The console side of a command: messages to stderr, data to stdout. Light (no typer): the
fast path of `book scan` prints through it too."""

from __future__ import annotations

import json
import sys


def err(msg: str) -> None:
    print(msg, file=sys.stderr)


def emit_json(doc) -> None:
    # Compact: json's C encoder only runs without `indent` (a scan of 300 chapters prints ~3000 values).
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")


def print_summary(summary, book) -> None:
    """What a run did, and what waits for a person (stderr)."""
    count = lambda st: sum(1 for o in summary.outcomes.values() if o.status == st)  # noqa: E731
    index = book.root / "output/publish/index.html"
    err(f"generated {len(summary.generated)} file(s); {count('failed')} failed; {count('needs_human')} waiting "
        f"for a person; {count('skipped')} skipped")
    if getattr(summary, "stopped", ""):
        err(f"stopped by the API (exit 5; nothing was marked failed for it): {summary.stopped}")
    if summary.needs_human:
        waiting = sorted(k for k in summary.needs_human if k.startswith("ch"))
        if waiting and index.exists():
            err(f"published a partial book ({index}); not ready: {', '.join(waiting)}")
        err("needs a person (see output/memory/needs-human.md):")
        for k, v in sorted(summary.needs_human.items()):
            err(f"  {k}: NEEDS_HUMAN_REVIEW — {v}")
    if summary.waiting:
        err("waiting for your decision (`book gates`, then `book approve`/`book reject`/`book modify`):")
        for c in summary.waiting:
            err(f"  {c}")
    if summary.ok and not summary.needs_human and index.exists():
        err(f"the book: {index}")


def print_plan(plan, empty: str | None = "nothing to do: every file is fresh") -> None:
    """A dry run's plan: what would run, and why (stdout)."""
    if not plan and empty:
        print(empty)
    for (ch, step), why in plan:
        print(f"{ch:<6} {step:<12} {why}")
