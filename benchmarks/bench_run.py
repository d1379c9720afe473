#!/usr/bin/env python3
"""Phase 3 of one batch of 8 chapters with a provider that sleeps a fixed latency L per call.

Prints the wall time of phase 3 against the critical path (the sequential steps of one
chapter: research, draft, reviews, merge, panel, memory = 6 L), with every ready step allowed
to run (concurrency 24) and with --concurrency 1 (about 8 x 8 L), and the orchestrator's own
overhead per step with L = 0.

With --book N: a whole offline book of N independent chapters (a synthetic package whose
modules do not import each other, so the planner gives them no depends_on), every call
sleeping L, at --concurrency C; prints the wall time against the book's critical path (the
longest chain of model calls in the plan, times L).

usage: python benchmarks/bench_run.py [--latency 0.2] [--chapters 8]
       python benchmarks/bench_run.py --book 25 --latency 0.5 --concurrency 16
"""

from __future__ import annotations

import argparse
import os
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


def critical_calls(ws: Path) -> tuple[int, int]:
    """(model calls on the longest path of the whole book's plan, chapters with depends_on)."""
    from orchestrator.pipeline.plan import chapter_graph, phase12, topo
    from orchestrator.state.book import Book
    from orchestrator.steps import spec

    book = Book.open(ws, repair=False)
    try:
        o = book.scanner.outline
        assert o is not None
        total = 0
        for graph in (phase12(), chapter_graph(o, Scope())):  # phases 1-2 finish before phase 3 starts
            depth: dict = {}
            for n in topo(graph):
                before = [depth[d] for d in graph[n].hard + graph[n].settle if d in depth]
                depth[n] = max(before, default=0) + (1 if spec(n).model else 0)
            total += max(depth.values())
        return total, sum(1 for c in o.chapters if c.depends_on)
    finally:
        book.close()


def whole_book(n: int, latency: float, concurrency: int) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from synthetic import make_book

    with tempfile.TemporaryDirectory() as tmp:
        ws = make_book(Path(tmp) / "ws", n)
        p = OfflineProvider(latency=latency)
        t, c = time.perf_counter(), time.process_time()
        code, summary = run_book(ws, provider=p, concurrency=concurrency)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        assert code == 0, summary.needs_human
        depth, dependent = critical_calls(ws)
        crit = depth * latency
        chapters = len(list((ws / "output/chapters/final").glob("*-final.md")))
        print(f"whole book: {chapters} chapters ({dependent} with depends_on), L = {latency}s, "
              f"--concurrency {concurrency}, {p.calls} model calls")
        # No schedule beats the longest chain, nor the calls spread over the slots in flight.
        floor = max(crit, p.calls / concurrency * latency)
        print(f"wall {wall:.2f}s; critical path {depth} calls x L = {crit:.2f}s; "
              f"wall / critical path = {wall / crit:.2f} (goal ≤ 1.5)")
        print(f"floor max(critical path, {p.calls} calls / {concurrency} in flight x L) = {floor:.2f}s; "
              f"wall / floor = {wall / floor:.2f}; CPU {cpu:.2f}s (load average {os.getloadavg()[0]:.1f})")
        return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--book", type=int, default=0, help="a whole synthetic book of this many independent chapters")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--chapters", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if a.book:
        return whole_book(a.book, a.latency, a.concurrency)
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
