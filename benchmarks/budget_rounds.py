#!/usr/bin/env python3
"""The budget cap against a person deleting the ledger (issue 22, item 3): ROUNDS times `book run`
through the fake Messages API (priced at the default model's rates) with `budget_usd: CAP`, each
followed by `rm -rf output/.book`. Prints, per round, the exit code, the model calls the fake
served (the independent count), and the spend the next run's ledger starts from; at the end the
total spend against the cap. A sound cap spends at most CAP (plus the one call in flight that
the estimate bounds), whatever the rounds.

usage: python benchmarks/budget_rounds.py [--rounds 7] [--cap 0.30] [--keep-journal-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import make_example
from orchestrator.testing.role_answers import answerer

BOOK = str(Path(sys.executable).parent / "book")


def ledger_total(ws: Path) -> tuple[int, float]:
    conn = sqlite3.connect(ws / "output/.book/state.db")
    try:
        n, usd = conn.execute("SELECT count(*), coalesce(sum(cost_usd), 0) FROM llm_calls WHERE cost_usd > 0").fetchone()
    finally:
        conn.close()
    return int(n), float(usd)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cap", type=float, default=0.30)
    a = ap.parse_args()
    fake = FakeAPI(answerer=answerer(0), latency=0.0)
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    env.pop("BOOK_OFFLINE_LATENCY", None)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ws = make_example(Path(tmp) / "ws", budget_usd=a.cap, max_chapters=8, batch_size=4)
            for r in range(1, a.rounds + 1):
                before = len(fake.message_requests())
                p = subprocess.run([BOOK, "run", "-q", "--provider", "anthropic", "--workspace", str(ws)],
                                   env=env, capture_output=True, text=True)
                served = len(fake.message_requests()) - before
                n, usd = ledger_total(ws)
                cost = subprocess.run([BOOK, "cost", "--json", "--workspace", str(ws)], env=env,
                                      capture_output=True, text=True)
                shown = json.loads(cost.stdout)["total_usd"] if cost.returncode == 0 else None
                last = (p.stderr.strip().splitlines() or [""])[-1][:150]
                print(f"round {r}: exit {p.returncode}, {served} calls served by the fake, the ledger holds {n} paid "
                      f"calls, ${usd:.4f}; `book cost` ${shown}; {last}", flush=True)
                shutil.rmtree(ws / "output/.book")
            total = sum(1 for _ in fake.message_requests())
            # the spend of everything the fake served, as the last ledger (rebuilt from the journal) records it
            p = subprocess.run([BOOK, "cost", "--json", "--workspace", str(ws)], env=env, capture_output=True, text=True)
            rep = json.loads(p.stdout)
            print(f"after {a.rounds} rounds: {total} calls served, `book cost` (no ledger) ${rep['total_usd']:.4f}, "
                  f"incomplete: {rep.get('incomplete')}; cap ${a.cap:.2f}")
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
