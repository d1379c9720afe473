#!/usr/bin/env python3
"""A book through the fake compatible server (a local model's server: 8k window, no structured
outputs, no cache, no batches) with a share of off-contract answers (issue 27, item 4).

For each seed it builds the example book (or a copy of a corpus repository) and counts the steps
that went to a person (failed after their retries), the re-asks per role and the requests; then
the sums over the seeds. One step goes to a person when every one of its `retries` attempts broke
its contract.

`--size-hazard`: the fake's chance of breaking an answer grows with the tokens the model holds
(prompt and answer; `--off` at half the window), so that a smaller ask breaks less often than a
whole one; without it every answer breaks at `--off`, whatever was asked. `--no-smaller`: the
repair loop without smaller asks (every re-ask whole, with the reasons), as before issue 27's
item 4: the same fake, for a before/after.

usage: python benchmarks/weak_model.py [--book example|/work/corpus/click] [--chapters 12]
           [--retries 3] [--off 0.2] [--window 8192] [--seeds 1-10] [--size-hazard] [--no-smaller] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def seeds_of(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def build(book: str, chapters: int, retries: int, off: float, window: int, seed: int, tmp: Path,
          hazard: bool = False) -> dict:
    from orchestrator import config as config_mod
    from orchestrator.providers.anthropic.server import PLACEHOLDER_KEY, features_for, from_config
    from orchestrator.state.book import Book
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.fake_compatible import Compatible
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer, role_of

    compat = Compatible(window=window, off_contract=off, seed=seed, size_hazard=hazard)
    api = FakeAPI(answerer=answer, compatible=compat)
    os.environ["ANTHROPIC_BASE_URL"] = api.start()
    os.environ.pop("ANTHROPIC_API_KEY", None)
    try:
        keys = {"server": "compatible", "model": "qwen3-coder", "context_window": window, "max_output": 2048,
                "provider": "anthropic", "retries": retries}
        if book != "example":
            src = tmp / "src"
            shutil.copytree(book, src, ignore=shutil.ignore_patterns(".git"))
            keys |= {"max_chapters": chapters, "source": f'"{src}"'}
        ws = make_example(tmp / "ws", **keys)
        cfg = config_mod.load(ws)
        features_for(from_config(cfg), cfg.root, PLACEHOLDER_KEY)  # the probe, as `book run` does it
        compat.broken.clear()
        compat.chances.clear()
        api.requests.clear()
        t0 = time.monotonic()
        code, summary = run_book(ws)
        wall = time.monotonic() - t0
        b = Book.open(ws)
        try:
            last: dict[str, str] = {}  # a step's last word: failed, or ended (a section writer may save it)
            for e in b.ledger.events():
                if e["type"] == "step_end" or (e["type"] == "step_failed" and "attempt" not in (e["detail"] or {})):
                    last[f"{e['chapter'] or 'book'}/{e['step']}"] = e["type"]
            failed = [k for k, v in last.items() if v == "step_failed"]
            smaller = Counter(e["step"] for e in b.ledger.events(type="smaller_ask"))
        finally:
            b.close()
        reasks = Counter(role_of(r["body"]) for r in api.message_requests()
                         if r["body"] and "Your previous answer was rejected" in json.dumps(r["body"]))
        return {"seed": seed, "code": code, "to_person": sorted(set(failed)), "waiting": sorted(summary.needs_human),
                "reasks": dict(reasks), "broken": dict(compat.broken), "smaller_asks": dict(smaller),
                "requests": len(api.message_requests()), "max_prompt": max(compat.prompt_tokens or [0]),
                "mean_chance": round(sum(compat.chances) / max(1, len(compat.chances)), 3),
                "wall_s": round(wall, 1)}
    finally:
        api.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--book", default="example")
    ap.add_argument("--chapters", type=int, default=12)
    ap.add_argument("--retries", type=int, default=3)
    ap.add_argument("--off", type=float, default=0.2)
    ap.add_argument("--window", type=int, default=8192)
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--size-hazard", action="store_true")
    ap.add_argument("--no-smaller", action="store_true")
    ap.add_argument("--json", action="store_true")
    ns = ap.parse_args()
    if ns.no_smaller:
        from orchestrator.agents import smaller_ask

        smaller_ask.level_after = lambda step, rejected: 0  # type: ignore[assignment]
    rows = []
    for seed in seeds_of(ns.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            row = build(ns.book, ns.chapters, ns.retries, ns.off, ns.window, seed, Path(tmp), ns.size_hazard)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    reasks: Counter[str] = Counter()
    smaller: Counter[str] = Counter()
    for r in rows:
        reasks.update(r["reasks"])
        smaller.update(r["smaller_asks"])
    total = {"book": ns.book, "retries": ns.retries, "off_contract": ns.off, "window": ns.window,
             "size_hazard": ns.size_hazard, "smaller_asks_on": not ns.no_smaller, "runs": len(rows),
             "exit_0": sum(r["code"] == 0 for r in rows), "steps_to_person": sum(len(r["to_person"]) for r in rows),
             "requests": sum(r["requests"] for r in rows), "reasks": dict(reasks.most_common()),
             "smaller_asks": dict(smaller.most_common()), "max_prompt": max(r["max_prompt"] for r in rows),
             "mean_chance": round(sum(r["mean_chance"] for r in rows) / max(1, len(rows)), 3)}
    print(json.dumps(total) if ns.json else "\n".join(f"{k}: {v}" for k, v in total.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
