#!/usr/bin/env python3
"""Prompts bounded by tokens, not by the book (issue 12's done-when): a whole N-chapter book
(default 100) runs through the Claude provider against the fake Messages API, and the input
tokens each draft request really sent (uncached + cache read + cache written, as the fake's
usage reports them) are compared: the last chapter's draft prompt against the first's (goal
≤ 1.2×), and the same for every chapter step. A real run: the long memory grows as the book is
written (a glossary term and a summary a chapter; each batch's chapters build on the last
chapter of the batch before), so a prompt that carried the whole book would grow with it.

The source is benchmarks/synthetic.py's package of uniform modules (one chapter per module).
Takes a few minutes at 100 chapters (~900 model calls through HTTP).

usage: python benchmarks/bench_prompt_growth.py [--chapters 100] [--batch-size 25]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import make_book  # noqa: E402

from orchestrator.state.book import Book  # noqa: E402
from orchestrator.testing.fake_api import FakeAPI  # noqa: E402
from orchestrator.testing.role_answers import answer  # noqa: E402

BOOK = str(Path(sys.executable).parent / "book")
GOAL = 1.2


STEPS = ("research", "draft", "r1", "r2", "r3", "review", "panel", "memory", "final")


def measure(chapters: int, batch_size: int) -> tuple[list[str], dict[tuple[str, str], int], float]:
    """(chapter ids, (chapter, step) -> input tokens its first call sent, wall seconds) of a whole
    book run through the Claude provider against the fake Messages API."""
    fake = FakeAPI(answerer=answer)
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ws = make_book(Path(tmp) / "ws", chapters, batch_size=batch_size)
            t = time.perf_counter()
            p = subprocess.run([BOOK, "run", "--provider", "anthropic", "-q", "--workspace", str(ws)], env=env,
                               capture_output=True, text=True)
            wall = time.perf_counter() - t
            if p.returncode != 0:
                raise RuntimeError(f"book run failed ({p.returncode}): {p.stderr[-3000:]}")
            book = Book.open(ws)
            try:
                ids = [c.id for c in book.scanner.outline.chapters]
                sent: dict[tuple[str, str], int] = {}
                for c in book.ledger.calls():
                    if c["chapter"] and c.get("status") != "started" and c["attempt"] == 1:
                        n = (c["input_tokens"] or 0) + (c["cache_read_tokens"] or 0) + (c["cache_creation_tokens"] or 0)
                        sent.setdefault((c["chapter"], c["step"]), n)  # the first call of the step
            finally:
                book.close()
    finally:
        fake.stop()
    return ids, sent, wall


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chapters", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=25)
    a = ap.parse_args()
    chapters, sent, wall = measure(a.chapters, a.batch_size)
    first, last = chapters[0], chapters[-1]
    print(f"{len(chapters)} chapters through the fake Messages API in {wall:.0f} s")
    worst = 0.0
    for step in STEPS:
        a_, b_ = sent.get((first, step)), sent.get((last, step))
        if not a_ or not b_:
            continue
        ratio = b_ / a_
        worst = max(worst, ratio)
        mark = "  <- the done-when" if step == "draft" else ""
        print(f"{step:9s} {first}: {a_:6d} tokens   {last}: {b_:6d} tokens   ratio {ratio:.2f}{mark}")
    d = sent[(last, "draft")] / sent[(first, "draft")]
    print(f"last chapter's draft prompt / first's: {d:.2f} (goal ≤ {GOAL}); worst step: {worst:.2f}")
    return 0 if d <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
