#!/usr/bin/env python3
"""Phase 3 of one batch of 8 chapters with a provider that sleeps a fixed latency L per call.

Prints the wall time of phase 3 against the critical path (the sequential steps of one
chapter: research, draft, reviews, merge, panel, memory = 6 L), with every ready step allowed
to run (concurrency 24) and with --concurrency 1 (about 8 x 8 L), and the orchestrator's own
overhead per step with L = 0.

usage: python benchmarks/bench_run.py [--latency 0.2] [--chapters 8]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from orchestrator.pipeline.plan import Scope
from orchestrator.providers.offline import OfflineProvider
from orchestrator.testing.helpers import make_example, run_book


def phase3(latency: float, concurrency: int, chapters: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = make_example(Path(tmp) / "ws", max_chapters=chapters, batch_size=chapters)
        code, _ = run_book(ws, scope=Scope(phase=2))
        assert code == 0
        # Independent chapters: the critical path is then one chapter's six sequential steps.
        outline = ws / "output/memory/outline.md"
        text = outline.read_text()
        outline.write_text(re.sub(r"depends_on:\n(  - ch\d+\n)+", "depends_on: []\n", text))
        p = OfflineProvider(latency=latency)
        t = time.perf_counter()
        code, summary = run_book(ws, provider=p, scope=Scope(batch=1), concurrency=concurrency)
        wall = time.perf_counter() - t
        assert code == 0, summary.needs_human
        return wall, p.calls


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--chapters", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    L, n = a.latency, a.chapters
    crit = 6 * L
    full = statistics.median(phase3(L, 3 * n, n)[0] for _ in range(a.runs))
    one, calls = phase3(L, 1, n)
    zero = [phase3(0.0, 3 * n, n) for _ in range(a.runs)]
    z = statistics.median(w for w, _ in zero)
    print(f"{n} chapters, L = {L}s, {calls} model calls in phase 3")
    print(f"concurrency {3 * n}: {full:.2f}s = {full / crit:.2f} x the critical path (6 L = {crit:.2f}s)")
    print(f"concurrency 1:  {one:.2f}s = {one / crit:.2f} x the critical path (ideal {calls * L / crit:.1f} x: {calls} calls x L)")
    print(f"L = 0: {z:.2f}s for {calls} steps = {1000 * z / calls:.1f} ms of orchestrator work per step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
