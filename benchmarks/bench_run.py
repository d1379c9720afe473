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
       python benchmarks/bench_run.py --book 25 --latency 0.5 --concurrency 16 [--trace]
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


class Traced(OfflineProvider):
    """Records when each call holds a model-call slot: the runner enters `generate` as soon as
    it has one and gives it back when `generate` returns."""

    def __init__(self, latency: float):
        super().__init__(latency=latency)
        self.spans: list[tuple[float, float, str | None, str]] = []  # (start, end, chapter, step)

    async def generate(self, req, sink):
        t = time.perf_counter()
        try:
            return await super().generate(req, sink)
        finally:
            self.spans.append((t, time.perf_counter(), req.chapter, req.step))


def trace_wants() -> list[tuple[float, str | None, str]]:
    """When each call asked for a slot: the budget check comes just before the slot is awaited."""
    from orchestrator.pipeline.budget import Budget

    wants: list[tuple[float, str | None, str]] = []
    check = Budget.over_budget

    def over_budget(self, req):
        wants.append((time.perf_counter(), req.chapter, req.step))
        return check(self, req)

    Budget.over_budget = over_budget  # type: ignore[method-assign]
    return wants


def occupancy(p: Traced, wants: list, t0: float, concurrency: int, bucket: float) -> None:
    """Slot-seconds over the run: held, idle while a call waited for a slot (the event loop was
    busy elsewhere), idle with no call ready (its steps were gathering, validating, committing,
    or waiting on dependencies); and, per step, the gap between its dependencies' calls
    ending and it asking for a slot (the orchestrator's work between two calls of a chain)."""
    from orchestrator.steps import STEPS

    start = {(ch, st): s for s, _, ch, st in p.spans}
    end = {(ch, st): e for _, e, ch, st in p.spans}
    asked = {(ch, st): w for w, ch, st in wants}
    t_end = max(e for _, e, _, _ in p.spans)
    events = [(s, 1, 0) for s, _, _, _ in p.spans] + [(e, -1, 0) for _, e, _, _ in p.spans]
    events += [(w, 0, 1) for w, ch, st in wants] + [(start[k], 0, -1) for k in asked if k in start]
    events.sort()
    held = idle_waiting = idle_none = 0.0
    busy = waiting = 0
    last = t0
    timeline = [0.0] * (int((t_end - t0) / bucket) + 1)
    for t, db, dw in events:
        dt = t - last
        if dt > 0:
            free = concurrency - busy
            held += busy * dt
            idle_waiting += min(free, waiting) * dt
            idle_none += (free - min(free, waiting)) * dt
            a, b = last - t0, t - t0  # spread the held slot-seconds over the buckets
            while a < b:
                i = int(a / bucket)
                step = min(b, (i + 1) * bucket) - a
                timeline[i] += busy * step
                a += step
        busy, waiting, last = busy + db, waiting + dw, t
    total = concurrency * (t_end - t0)
    print(f"slots over {t_end - t0:.2f}s x {concurrency}: held {100 * held / total:.0f}%, idle while a call "
          f"waited {100 * idle_waiting / total:.0f}%, idle with no call ready {100 * idle_none / total:.0f}%")
    first_ch = min(s for s, _, ch, _ in p.spans if ch)
    last_ch = max(e for _, e, ch, _ in p.spans if ch)
    print(f"  before the first chapter call {first_ch - t0:.2f}s; after the last {t_end - last_ch:.2f}s "
          f"(the audit's call: {sum(e - s for s, e, ch, _ in p.spans if not ch and s > last_ch - 0.01):.2f}s)")
    gaps: dict[str, list[float]] = {}
    for (ch, st), w in asked.items():
        needs = STEPS[st].needs if ch and st in STEPS else ()
        before = [end[(ch, d)] for d in needs if (ch, d) in end]
        if before:
            gaps.setdefault(st, []).append(w - max(before))
    print("  from a step's dependencies ending to its call asking for a slot (median / max, ms): " + ", ".join(
        f"{st} {1000 * statistics.median(g):.0f}/{1000 * max(g):.0f}" for st, g in gaps.items()))
    waits = [start[k] - w for k, w in asked.items() if k in start]
    print(f"  waiting for a slot: median {1000 * statistics.median(waits):.0f} ms, max {1000 * max(waits):.0f} ms")
    print(f"  slots held per {bucket}s: " + " ".join(f"{x / bucket:.0f}" for x in timeline))


def ideal_rounds(ws: Path, concurrency: int) -> int:
    """Rounds of L the plan needs with no orchestrator time at all: every round, the ready calls
    with the longest chains behind them take the slots (the runner's rule); the phases in turn.
    A floor no run can beat by more than that rule misses the optimum (for unit calls, rarely)."""
    from orchestrator.pipeline.plan import Scope, chapter_graph, phase12, topo
    from orchestrator.state.book import Book
    from orchestrator.steps import ALL_STEPS

    def remaining_calls(graph: dict) -> dict:  # as plan.remaining_calls (here too for a run against main)
        after: dict = {node: [] for node in graph}
        for node, spec in graph.items():
            for d in spec.hard + spec.settle:
                if d in after:
                    after[d].append(node)
        rank: dict = {}
        for node in reversed(topo(graph)):
            rank[node] = int(ALL_STEPS[node[1]].model) + max((rank[m] for m in after[node]), default=0)
        return rank

    book = Book.open(ws, repair=False)
    try:
        o = book.scanner.outline
        assert o is not None
        rounds = 0
        for graph in (phase12(), chapter_graph(o, Scope())):
            rank = remaining_calls(graph)
            done: set = set()
            while len(done) < len(graph):
                settled = True
                while settled:  # steps that call no model take no time
                    settled = False
                    for node, spec in graph.items():
                        if node not in done and not ALL_STEPS[node[1]].model and all(
                                d in done or d not in graph for d in spec.hard + spec.settle):
                            done.add(node)
                            settled = True
                ready = [node for node, spec in graph.items() if node not in done and ALL_STEPS[node[1]].model
                         and all(d in done or d not in graph for d in spec.hard + spec.settle)]
                if ready:
                    ready.sort(key=lambda node: -rank[node])
                    done.update(ready[:concurrency])
                    rounds += 1
        return rounds
    finally:
        book.close()


def whole_book(n: int, latency: float, concurrency: int, trace: bool = False, batch_size: int = 25) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from synthetic import make_book

    with tempfile.TemporaryDirectory() as tmp:
        ws = make_book(Path(tmp) / "ws", n, batch_size=batch_size)
        p = Traced(latency) if trace else OfflineProvider(latency=latency)
        wants = trace_wants() if trace else []
        t, c = time.perf_counter(), time.process_time()
        code, summary = run_book(ws, provider=p, concurrency=concurrency)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        assert code == 0, summary.needs_human
        depth, dependent = critical_calls(ws)
        crit = depth * latency
        chapters = len(list((ws / "output/chapters/final").glob("*-final.md")))
        ideal = ideal_rounds(ws, concurrency) * latency
        print(f"whole book: {chapters} chapters ({dependent} with depends_on, batches of {batch_size}), L = {latency}s, "
              f"--concurrency {concurrency}, {p.calls} model calls")
        # No schedule beats the longest chain, nor the calls spread over the slots in flight.
        floor = max(crit, p.calls / concurrency * latency)
        print(f"wall {wall:.2f}s; critical path {depth} calls x L = {crit:.2f}s; "
              f"wall / critical path = {wall / crit:.2f} (goal ≤ 1.5)")
        print(f"floor max(critical path, {p.calls} calls / {concurrency} in flight x L) = {floor:.2f}s; "
              f"wall / floor = {wall / floor:.2f}; CPU {cpu:.2f}s (load average {os.getloadavg()[0]:.1f})")
        print(f"ideal schedule (whole rounds of L, no orchestrator time) = {ideal:.2f}s; wall / ideal = {wall / ideal:.2f}")
        if isinstance(p, Traced):
            occupancy(p, wants, t, concurrency, bucket=latency / 2)
        return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--book", type=int, default=0, help="a whole synthetic book of this many independent chapters")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--chapters", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--trace", action="store_true", help="with --book: when the model-call slots were held or idle")
    ap.add_argument("--batch-size", type=int, default=25, help="with --book: the outline's batches (later ones wait)")
    a = ap.parse_args()
    if a.book:
        return whole_book(a.book, a.latency, a.concurrency, a.trace, a.batch_size)
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
