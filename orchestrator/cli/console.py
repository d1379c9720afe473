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
    # the steps behind a waiting gate are not "skipped" work: they wait for the decision
    from ..state.human_text import words

    w = words(book.cfg.language)
    behind = _behind_gates(summary.outcomes)
    cards = len(summary.waiting)
    waits = w["s_behind"].format(n=behind, cards=cards) if behind and cards else ""
    other = count("skipped") - (behind if waits else 0)
    # what waits for a person: each gate card once (a group card stands for all its chapters), and the rest
    held = sum(1 for n, o in summary.outcomes.items() if o.status == "needs_human" and not n[1].startswith("gate:"))
    err(w["s_run"].format(made=len(summary.generated), failed=count("failed"), waiting=held + cards)
        + waits + (w["s_skipped"].format(n=other) if other or not waits else ""))
    if getattr(summary, "stopped", ""):
        err(f"stopped by the API (exit 5; nothing was marked failed for it): {summary.stopped}")
    if summary.needs_human:
        waiting = sorted(k for k in summary.needs_human if k.startswith("ch"))
        if waiting and index.exists():
            err(f"published a partial book ({index}); not ready: {', '.join(waiting)}")
        err(w["s_needs"])
        for k, v in sorted(summary.needs_human.items()):
            err(f"  {k}: NEEDS_HUMAN_REVIEW — {v}")
    if summary.waiting:
        err(w["s_waiting"])
        for c in summary.waiting:
            err(f"  {c}")
    if summary.ok and not summary.needs_human and index.exists():
        err(f"the book: {index}")


def _behind_gates(outcomes) -> int:
    """How many skipped steps wait, directly or through the steps they need, for a gate card."""
    waiting = {tuple(n) for n, o in outcomes.items() if n[1].startswith("gate:") and o.status == "needs_human"}
    skipped = {tuple(n): tuple(o.reason.split(" ")[:2]) for n, o in outcomes.items() if o.status == "skipped"}
    behind: set[tuple] = set()
    grew = True
    while grew:  # a step skipped for a step that waits waits too (a later batch for an earlier one)
        grew = False
        for n, cause in skipped.items():
            if n not in behind and (cause in waiting or cause in behind):
                behind.add(n)
                grew = True
    return len(behind)


def conditional(why: str) -> bool:
    """A step the plan lists only because a step before it runs ("after ch01 memory, if that
    changes what it reads"): it runs only if that step's file comes back changed."""
    return why.startswith("after ")


def print_plan(plan, empty: str | None = "nothing to do: every file is fresh") -> None:
    """A dry run's plan (stdout): what will run, and why; then, in one line, the steps that run
    only if what they read comes back changed (most do not: an edit's reviews often say the
    same), so that the list predicts what the run does rather than everything it might."""
    if not plan and empty:
        print(empty)
    maybe = [f"{ch} {step}" for (ch, step), why in plan if conditional(why)]
    for (ch, step), why in plan:
        if not conditional(why):
            print(f"{ch:<6} {step:<12} {why}")
    if maybe:
        shown = ", ".join(maybe[:8]) + (f", … ({len(maybe) - 8} more)" if len(maybe) > 8 else "")
        print(f"then, only if what they read comes back changed: {len(maybe)} more step(s): {shown}")
