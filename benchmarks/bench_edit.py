#!/usr/bin/env python3
"""A one-chapter hand edit on the offline book of a large repository, as a share of the full
build (issue 10's goal: at most 25 %), and where the rebuild's time goes.

Builds the book once (`book init --source REPO`, `book run`), edits one chapter's draft by
hand (a sentence added to its body), runs `book run` again (a process, as the full build was),
and reports both wall times and the share; then makes a second such edit and runs it under
cProfile for the rebuild's most expensive functions (the profiler would inflate the share).

usage: python benchmarks/bench_edit.py [--repo /work/corpus/sqlalchemy] [--chapter ch03] [--keep DIR] [--top 25]
       [--full SECONDS]  (with --keep DIR naming a workspace built earlier: edit and profile only)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOOK = str(Path(sys.executable).parent / "book")


def run(ws: Path, *extra: str) -> float:
    t = time.perf_counter()
    p = subprocess.run([BOOK, "run", "-q", "--provider", "offline", "--workspace", str(ws), *extra],
                       capture_output=True, text=True)
    took = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"book run failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return took


def profiled_run(ws: Path, top: int) -> tuple[float, str]:
    """`book run` in this process under cProfile: (wall seconds, the top functions)."""
    from orchestrator.main import main as book_main

    prof = cProfile.Profile()
    argv = sys.argv
    sys.argv = ["book", "run", "-q", "--provider", "offline", "--workspace", str(ws)]
    t = time.perf_counter()
    try:
        prof.enable()
        try:
            book_main()
        except SystemExit as e:
            if e.code not in (0, None):
                sys.exit(f"book run failed ({e.code})")
        finally:
            prof.disable()
    finally:
        sys.argv = argv
    took = time.perf_counter() - t
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("cumulative").print_stats(r"orchestrator/(?!main|cli)", top)  # the tool's own steps
    stats.sort_stats("tottime").print_stats(top)  # where the CPU actually goes
    return took, out.getvalue()


def hand_edit(ws: Path, ch: str) -> Path:
    from orchestrator.steps import DRAFT, STEPS

    path = ws / STEPS[DRAFT].file(ch)
    text = path.read_text(encoding="utf-8")
    # a sentence after the first paragraph of the body: what a person would add by hand
    new = re.sub(r"\n\n", "\n\nA reader new to this part of the code should read it slowly, once.\n\n", text, count=1)
    path.write_text(new, encoding="utf-8")
    return path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default="/work/corpus/sqlalchemy")
    ap.add_argument("--chapter", default="ch03")
    ap.add_argument("--keep", help="build in this directory and keep it")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--full", type=float, help="the full build's seconds, when --keep names a built workspace")
    a = ap.parse_args()
    repo = Path(a.repo).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(a.keep) if a.keep else Path(tmp) / "ws"
        if not (ws / "book.yaml").exists():
            subprocess.run([BOOK, "init", str(ws), "--source", str(repo)], check=True, capture_output=True)
            cfg = ws / "book.yaml"  # no gates: the benchmark measures the build, not a person's approval
            cfg.write_text(re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg.read_text()))
        fresh = not (ws / "output").exists()
        full = run(ws) if fresh else float(a.full or 0) or sys.exit("a kept workspace needs --full SECONDS")
        noop = run(ws)  # nothing changed: what a run costs when there is nothing to do
        path = hand_edit(ws, a.chapter)
        edit = run(ws)  # timed as the full build was: a `book run` process, no profiler
        hand_edit(ws, a.chapter)  # a second edit of the same kind, for the profile (cProfile slows it)
        _, profile = profiled_run(ws, a.top)
        print(f"repository: {repo}")
        print(f"full build:           {full:7.1f} s")
        print(f"no-op run:            {noop:7.1f} s")
        print(f"one-chapter edit run: {edit:7.1f} s  ({100 * edit / full:.0f} % of the full build; goal <= 25 %)"
              f"  [edited {path.relative_to(ws)}]")
        print("\nwhere the edit run's time goes (cumulative):")
        print("\n".join(ln for ln in profile.splitlines() if ln.strip()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
