#!/usr/bin/env python3
"""Following the code (issue 24, item 5): a book built at one release of a real repository,
the source moved to the next, and what the rebuild costs in model steps (goal for a patch
release: at most 20 % of the full build's), with the claims' health after it (goal: 100 %).

Clones the repository (a local path: `git clone`, the .git kept so the revision is pinned),
checks out OLD, builds the offline book with gates off (`book init --source CLONE`, `book run`),
checks out NEW, runs `book scan --json` (the stale claims, by chapter and section), `book run`,
and `book scan --json` again. A model step is a step_end event of a model step in the ledger;
each run's are told apart by the run id.

usage: python benchmarks/bench_follow.py [--repo /work/corpus/flask] [--old 3.1.1] [--new 3.1.2[,3.1.3]] [--keep DIR]
(exit 1 when a move does not end in exit 0 with every claim supported)
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

BOOK = str(Path(sys.executable).parent / "book")


def sh(*cmd: str, cwd: Path | None = None) -> str:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in (0,):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p.stdout


def book(ws: Path, *args: str) -> str:
    return sh(BOOK, *args, "--workspace", str(ws))


def model_steps(ws: Path) -> list[Counter]:
    """Per run, in order: how many model steps ended, by step key."""
    from orchestrator.steps import ALL_STEPS

    con = sqlite3.connect(ws / "output/.book/state.db")
    try:
        rows = con.execute("SELECT run, step FROM events WHERE type='step_end' ORDER BY seq").fetchall()
        runs = [r for (r,) in con.execute("SELECT run FROM events WHERE type='run_start' ORDER BY seq")]
    finally:
        con.close()
    by_run: dict[str, Counter] = {r: Counter() for r in runs}
    for run, step in rows:
        key = step.split(":", 1)[0] if step else ""
        if key in ALL_STEPS and ALL_STEPS[key].model:
            by_run.setdefault(run, Counter())[key] += 1
    return [by_run[r] for r in runs]


def redone_by_chapter(ws: Path) -> dict[str, list[tuple[str, str]]]:
    """The last run's model steps, by chapter: (step, why it ran) in order (the ledger's step_start)."""
    from orchestrator.steps import ALL_STEPS

    con = sqlite3.connect(ws / "output/.book/state.db")
    try:
        run = con.execute("SELECT run FROM events WHERE type='run_start' ORDER BY seq DESC LIMIT 1").fetchone()
        rows = con.execute("SELECT chapter, step, detail FROM events WHERE type='step_start' AND run=? ORDER BY seq",
                           (run[0] if run else "",)).fetchall()
    finally:
        con.close()
    out: dict[str, list[tuple[str, str]]] = {}
    for ch, step, detail in rows:
        if step in ALL_STEPS and ALL_STEPS[step].model:
            why = (json.loads(detail or "{}") or {}).get("why", "")
            out.setdefault(ch or "book", []).append((step, why))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default="/work/corpus/flask")
    ap.add_argument("--old", default="3.1.1")
    ap.add_argument("--new", default="3.1.2")
    ap.add_argument("--keep", help="work in this directory and keep it")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(a.keep) if a.keep else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        src, ws = base / "src", base / "ws"
        if not src.exists():
            sh("git", "clone", "-q", a.repo, str(src))
        sh("git", "-c", "advice.detachedHead=false", "checkout", "-q", a.old, cwd=src)
        if not ws.exists():
            sh(BOOK, "init", str(ws), "--source", str(src))
            cfg = ws / "book.yaml"  # no gates: the benchmark measures the build, not a person's approval
            cfg.write_text(re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg.read_text()))
        book(ws, "run", "-q", "--provider", "offline")
        before = json.loads(book(ws, "scan", "--json"))
        full = sum(model_steps(ws)[0].values())
        h = before.get("claim_health") or {}
        print(f"full build at {a.old}: {full} model steps; claims {h.get('supported')}/{h.get('all')}")
        code = 0
        prev = a.old
        for new in a.new.split(","):  # `--new 3.1.2,3.1.3`: through the next releases, one after another
            code |= follow(ws, src, prev, new, full, a.repo)
            prev = new
    return code


def follow(ws: Path, src: Path, old: str, new: str, full: int, repo: str) -> int:
    """Move the source from `old` to `new`, run again, and report; 0 when the run ended 0, no
    chapter needs a person and every claim holds."""
    changed = sh("git", "diff", "--shortstat", old, new, "--", ".", cwd=src).strip()
    sh("git", "-c", "advice.detachedHead=false", "checkout", "-q", new, cwd=src)
    moved = json.loads(book(ws, "scan", "--json"))
    r = subprocess.run([BOOK, "run", "-q", "--provider", "offline", "--workspace", str(ws)], capture_output=True,
                       text=True)
    after = json.loads(book(ws, "scan", "--json"))
    redo = model_steps(ws)[-1]
    h1, h2 = (x.get("claim_health") or {} for x in (moved, after))
    print(f"repository: {repo} {old} -> {new} ({changed})")
    print(f"after the move, before the run: claims {h1.get('supported')}/{h1.get('all')} supported, "
          f"{h1.get('stale')} stale, {h1.get('gone')} gone")
    for ch, cs in (h1.get("stale_claims") or {}).items():
        secs = Counter(c.get("section") or "the opening" for c in cs)
        print(f"  {ch}: " + "; ".join(f"§ {s} ({n})" for s, n in secs.items()))
    n = sum(redo.values())
    print(f"run: exit {r.returncode}; {n} of {full} model steps redone ({100 * n / max(full, 1):.0f} %; goal <= 20 %): "
          + ", ".join(f"{k} {v}" for k, v in sorted(redo.items())))
    for ch, steps in redone_by_chapter(ws).items():  # what was redone, and why, per chapter
        whole = {"r1", "r2", "r3", "review", "panel"} <= {k for k, _ in steps}
        print(f"  {ch}: {len(steps)} ({'whole' if whole else 'by sections or followed'}): "
              + ", ".join(dict.fromkeys(k for k, _ in steps)) + f" — first because {steps[0][1]}")
    if r.returncode:
        print("   " + (r.stdout + r.stderr).strip().replace("\n", "\n   ")[-1500:])
    q = after.get("quality") or {}
    print(f"after the run: claims {h2.get('supported')}/{h2.get('all')} supported "
          f"({100 * h2.get('share', 0):.0f} %), {h2.get('stale')} stale, {h2.get('gone')} gone; citations resolving "
          f"{q.get('citations_resolving')}/{q.get('citations')}")
    for ch, row in (after.get("follow") or {}).items():
        print(f"  {ch}: rewritten {json.dumps(row.get('rewritten'), ensure_ascii=False)}; "
              f"followed without a model call: {', '.join(row.get('followed', [])) or '-'}")
    ok = r.returncode == 0 and h2.get("supported") == h2.get("all") and not h2.get("stale") and not h2.get("gone")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
