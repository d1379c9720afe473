#!/usr/bin/env python3
"""The orchestrator at scale: whole synthetic books built offline (so only the orchestrator is
measured), N uniform independent modules, one chapter each (`max_chapters: 1000`).

Prints the build's wall and CPU time and the CPU per chapter for each size, and the ratio of
the CPU per chapter of the largest to the smallest (constant work per step makes it ≈ 1).

A warm-up build of a few modules runs first, untimed, so that the first size measured does
not pay the process's one-time costs (imports, template compilation); each size is built
`--repeat` times and the lowest CPU time is reported (the machine is shared: other processes
only ever add to a measurement). The load average is printed beside each figure.

usage: python benchmarks/bench_scale.py [--sizes 25,150] [--big 300] [--repeat 2] [--profile N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_book  # noqa: E402

from orchestrator.testing.helpers import run_book  # noqa: E402


def build(n: int, profile: bool = False) -> tuple[float, float, int]:
    """(wall s, CPU s, chapters) of one whole offline build of an n-module book."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_book(Path(tmp) / "ws", n)
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        w0, c0 = time.perf_counter(), time.process_time()
        code, summary = run_book(ws)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
        assert code == 0, (code, summary.needs_human)
        chapters = len(list((ws / "output/chapters/final").glob("ch*-final.md")))
        return wall, cpu, chapters


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="25,150", help="comma-separated module counts for the ratio")
    ap.add_argument("--big", type=int, default=300, help="also time a build of this many chapters (0: skip)")
    ap.add_argument("--profile", type=int, default=0, help="profile a build of this many chapters instead")
    ap.add_argument("--repeat", type=int, default=2, help="builds per size in --sizes; the lowest CPU is kept")
    a = ap.parse_args()
    if a.profile:
        build(a.profile, profile=True)
        return 0
    build(3)  # warm-up: imports, templates
    per: list[float] = []
    for n in [int(s) for s in a.sizes.split(",")]:
        wall, cpu, chs = min((build(n) for _ in range(max(1, a.repeat))), key=lambda r: r[1])
        per.append(1000 * cpu / max(chs, 1))
        print(f"{n} modules → {chs} chapters: build {wall:.1f} s, CPU {cpu:.1f} s, {per[-1]:.0f} ms CPU per chapter "
              f"(best of {max(1, a.repeat)}; load average {os.getloadavg()[0]:.1f})", flush=True)
    if len(per) > 1:
        print(f"CPU per chapter, largest / smallest: {per[-1] / per[0]:.2f} (goal ≤ 1.5)")
    if a.big:
        wall, cpu, chs = build(a.big)
        print(f"{a.big} modules → {chs} chapters: build {wall:.1f} s (goal < 30 s), CPU {cpu:.1f} s, "
              f"{1000 * cpu / max(chs, 1):.0f} ms CPU per chapter (load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
