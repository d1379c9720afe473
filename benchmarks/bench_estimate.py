#!/usr/bin/env python3
"""The bill of a 12-chapter book (flask), estimated before the run and measured after it,
through the fake Messages API (real cache rules) with realistic answer lengths: ~1,500-word
chapters and a model that thinks (fake_model.ModelLike: a short think on every answer, a long
one on 30 %, plus preambles, closings and restated lines on continuation). Priced at the list
prices of data/prices.yaml (the default model, claude-sonnet-5-5).

Prints the `book run --dry-run` range (the plan before any call: no outline yet, so
`max_chapters`), the range once the outline exists, the range `book cost --json` gives after
each sixth of the chapters' finals (the estimate recomputed from the ledger's rows up to that
call: what `book cost` said at that moment), and the final bill. Then the coverage "after a
third" over every order the chapters could have been done in: for each choice of a third of
the chapters as the ones done first, the estimate from the outline's call and those chapters'
calls; how often the final bill lies inside, below or above it, and its width over its middle.

usage: python benchmarks/bench_estimate.py [stream|batch] [SOURCE_DIR] [KEEP_DIR]
       python benchmarks/bench_estimate.py coverage WORKSPACE...   (the coverage of books already run;
       with several, a last line over all of them: each run weighing the same, the widths of every order)
(default: stream, a flask checkout's src; KEEP_DIR: where the workspace is kept, for a look after;
BENCH_SEED: the fake model's seed, 7 unless set; BENCH_QUIRKS: what the model-like upstream does,
thinking,preamble,closing,restate unless set: without `thinking`, answers carry no thinking)
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from orchestrator.estimate import estimate
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_model import ModelLike
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answerer

BOOK = str(Path(sys.executable).parent / "book")


def coverage(book: Book, calls: list[dict], batch: bool | None = None) -> dict:
    """For every choice of a third of the chapters as the ones done first: is the final bill
    inside the estimate from the outline's call and those chapters' calls, and how wide is it."""
    total = sum(c["cost_usd"] or 0.0 for c in calls)
    chapters = sorted({c["chapter"] for c in calls if c["chapter"]})
    outline = [c for c in calls if not c["chapter"] and c["step"] == "outline"]
    where, widths = {"inside": 0, "below": 0, "above": 0}, []
    for first in itertools.combinations(chapters, max(1, len(chapters) // 3)):
        low, high = estimate(book, outline + [c for c in calls if c["chapter"] in first], batch=batch)["estimate_usd"]
        widths.append((high - low) / ((high + low) / 2))
        where["inside" if low <= total <= high else "below" if total < low else "above"] += 1
    n = len(widths)
    return {"bill": total, "orders": n, **{k: v / n for k, v in where.items()},
            "width_median": statistics.median(widths), "width_max": max(widths), "widths": widths}


def say_coverage(label: str, cov: dict) -> None:
    print(f"{label}: the bill ${cov['bill']:.2f} inside the estimate after a third in {cov['inside']:.0%} of "
          f"{cov['orders']} chapter orders (below {cov['below']:.0%}, above {cov['above']:.0%}); width over middle "
          f"median {cov['width_median']:.0%}, max {cov['width_max']:.0%}")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "coverage":
        runs = []
        for ws in sys.argv[2:]:
            book = Book.open(Path(ws), repair=False)
            try:
                runs.append(coverage(book, book.ledger.calls()))
                say_coverage(ws, runs[-1])
            finally:
                book.close()
        if len(runs) > 1:  # every run's orders together: each run weighs the same
            widths = [w for r in runs for w in r["widths"]]
            mean = {k: statistics.mean(r[k] for r in runs) for k in ("inside", "below", "above")}
            print(f"all {len(runs)} runs: inside {mean['inside']:.1%} (below {mean['below']:.1%}, above "
                  f"{mean['above']:.1%}; the worst run {min(r['inside'] for r in runs):.0%}); width over middle median "
                  f"{statistics.median(widths):.1%}, 90th percentile {statistics.quantiles(widths, n=10)[8]:.0%}, "
                  f"max {max(widths):.0%}; wider than 60 %: {sum(w > 0.6 for w in widths) / len(widths):.1%} of orders")
        return 0
    mode = sys.argv[1] if len(sys.argv) > 1 else "stream"
    source = sys.argv[2] if len(sys.argv) > 2 else "/tmp/budget_corpus/flask/src"
    seed = int(os.environ.get("BENCH_SEED", "7"))
    quirks = tuple(os.environ.get("BENCH_QUIRKS", "thinking,preamble,closing,restate").split(","))
    fake = FakeAPI(answerer=answerer(1500), cache_rules=True, model_like=ModelLike(0.3, seed=seed, quirks=quirks))
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    os.environ.update(ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=env["ANTHROPIC_BASE_URL"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ws = make_example(Path(sys.argv[3] if len(sys.argv) > 3 else tmp) / "ws", max_chapters=12, batch_size=4, source=f'"{source}"', budget_usd=0)
            dry = subprocess.run([BOOK, "run", "--dry-run", "--workspace", str(ws)]
                                 + (["--message-batches"] if mode == "batch" else []), env=env, capture_output=True,
                                 text=True)
            print("book run --dry-run:", (dry.stdout.strip().splitlines() or ["?"])[-1])
            code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01),
                                     message_batches=(mode == "batch"))
            assert code == 0, summary.needs_human
            book = Book.open(ws, repair=False)
            try:
                calls = book.ledger.calls()
                total = sum(c["cost_usd"] or 0.0 for c in calls)
                outline_at = next(i for i, c in enumerate(calls) if c["step"] == "outline" and c["stop_reason"] == "end_turn")
                finals = [i for i, c in enumerate(calls) if c["step"] == "final" and c["stop_reason"] == "end_turn"]
                points = [("the outline", outline_at + 1)] + [
                    (f"{k} of {len(finals)} finals", finals[k - 1] + 1) for k in range(2, len(finals) + 1, 2)]
                for label, k in points:
                    e = estimate(book, calls[:k])
                    lo, hi = e["estimate_usd"]
                    mid = (lo + hi) / 2
                    print(f"after {label:<16} (call {k:>3}): ${lo:.2f}–${hi:.2f}, width {(hi - lo) / mid:.0%} of its "
                          f"middle; the bill {'inside' if lo <= total <= hi else 'OUTSIDE'}")
                say_coverage(mode, coverage(book, calls))
            finally:
                book.close()
            cost = json.loads(subprocess.run([BOOK, "cost", "--json", "--workspace", str(ws)], env=env,
                                             capture_output=True, text=True).stdout)
            print(f"{mode}: {len(calls)} calls, the bill ${total:.4f} (book cost ${cost['total_usd']:.4f}, "
                  f"estimate_usd {cost['estimate_usd']}); thinking tokens {cost['thinking_tokens']}, "
                  f"output {cost['output_tokens']}")
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
