#!/usr/bin/env python3
"""The Claude provider against the fake Messages API with a fixed latency: calls per chapter,
share of input tokens read from the prompt cache over batch 1, spend per chapter at the
default model's prices, and the calls a resume re-makes after a kill (aim: only those in flight).

With --cache-rules the fake applies the real API's cache rules: a prefix shorter than the
model's minimum cacheable length is not cached, and a prefix is readable only once the
request writing it has started answering (requests sent together all write).
--cut SHARE:SEED cuts that share of answers at max_tokens (continuations too).

--draft-words N makes the fake's chapters (drafts and finals) about N words long, a real
chapter's length (the book's conventions aim at 1500 to 4000); the default fake chapter has ~400.
A chapter's material (entry + numbered draft) goes before the role instructions once it pays
(agents/prompts.py MATERIAL_FIRST_TOKENS), so the share depends on the chapters' length.
--prompt-layout roles|handbook picks book.yaml's prompt_layout (default handbook: agents/handbook.py).

usage: python benchmarks/bench_claude.py [--latency 0.05] [--chapters 8] [--cache-rules] [--cut 0.3:7]
       [--no-kill] [--draft-words 1500]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import make_example
from orchestrator.testing.role_answers import answerer

BOOK = str(Path(sys.executable).parent / "book")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--chapters", type=int, default=8)
    ap.add_argument("--cache-rules", action="store_true", help="the real API's cache rules")
    ap.add_argument("--cut", default="", help="SHARE:SEED: cut that share of answers at max_tokens")
    ap.add_argument("--no-kill", action="store_true", help="skip the kill-and-resume part")
    ap.add_argument("--draft-words", type=int, default=0, help="the fake's chapters run to about N words")
    ap.add_argument("--source", default="", help="write about this source tree instead of example/ (which plans 8 chapters)")
    ap.add_argument("--prompt-layout", choices=("handbook", "roles"), default="handbook",
                    help="book.yaml prompt_layout (agents/handbook.py)")
    a = ap.parse_args()
    share, _, seed = a.cut.partition(":")
    fake = FakeAPI(answerer=answerer(a.draft_words), latency=a.latency, cache_rules=a.cache_rules,
                   cut_share=float(share) if share else 0.0, cut_seed=int(seed or 0))
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            extra = {"source": f'"{Path(a.source).resolve()}"'} if a.source else {}
            ws = make_example(Path(tmp) / "ws", max_chapters=a.chapters, batch_size=4,
                              prompt_layout=f'"{a.prompt_layout}"', **extra)
            t = time.perf_counter()
            p = subprocess.run([BOOK, "run", "--provider", "anthropic", "-q", "--workspace", str(ws)], env=env,
                               capture_output=True, text=True)
            wall = time.perf_counter() - t
            assert p.returncode == 0, p.stderr[-2000:]
            book = Book.open(ws)
            calls = book.ledger.calls()
            o = book.scanner.outline
            batch1 = {c.id for c in o.chapters if c.batch == 1}
            per_ch = [c for c in calls if c["chapter"]]
            chapters = {c["chapter"] for c in per_ch}
            b1 = [c for c in per_ch if c["chapter"] in batch1]
            read = sum(c["cache_read_tokens"] for c in b1)
            total_in = sum(c["input_tokens"] + c["cache_read_tokens"] + c["cache_creation_tokens"] for c in b1)
            spend = sum(c["cost_usd"] for c in per_ch)
            model = calls[0]["model"]
            print(f"{len(chapters)} chapters, {len(calls)} calls in {wall:.1f}s (latency {a.latency}s per call)")
            print(f"calls per chapter: {len(per_ch) / len(chapters):.1f} (+{len(calls) - len(per_ch)} book-level)")
            print(f"input tokens read from cache over batch 1: {read}/{total_in} = {read / total_in:.0%}")
            ended = [c for c in calls if c.get("status") != "started"]
            r_all = sum(c["cache_read_tokens"] or 0 for c in ended)
            w_all = sum(c["cache_creation_tokens"] or 0 for c in ended)
            t_all = sum((c["input_tokens"] or 0) + (c["cache_read_tokens"] or 0) + (c["cache_creation_tokens"] or 0)
                        for c in ended)
            rules = "real cache rules" if a.cache_rules else "instant cache, no minimum"
            print(f"input tokens read from cache over the whole book ({rules}): {r_all}/{t_all} = "
                  f"{r_all / t_all:.0%} (written: {w_all / t_all:.0%}, uncached: {(t_all - r_all - w_all) / t_all:.0%})")
            if a.cut:
                print(f"answers cut at max_tokens by the fake: {fake.cuts}; continuations that diverged: {fake.diverged}")
            print(f"spend per chapter at {model} prices: ${spend / len(chapters):.4f} (whole book ${sum(c['cost_usd'] for c in calls):.4f})")
            book.close()
            if a.no_kill:
                return 0

            ws2 = make_example(Path(tmp) / "ws2", max_chapters=a.chapters, batch_size=4,
                               prompt_layout=f'"{a.prompt_layout}"')
            fake.delta_delay = 0.02
            proc = subprocess.Popen([BOOK, "run", "--provider", "anthropic", "-q", "--workspace", str(ws2)], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            time.sleep(wall * 0.6)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            fake.delta_delay = 0.0
            book = Book.open(ws2)
            ev = book.ledger.events()
            started = {(e["chapter"], e["step"]) for e in ev if e["type"] == "step_start"}
            ended = {(e["chapter"], e["step"]) for e in ev if e["type"] == "step_end"}
            in_flight = started - ended
            n_before = len(book.ledger.calls())
            book.close()
            subprocess.run([BOOK, "resume", "-q", "--workspace", str(ws2)], env=env, check=True, capture_output=True)
            book = Book.open(ws2)
            after = book.ledger.calls()[n_before:]
            remade = {(c["chapter"], c["step"]) for c in after} & (started | ended)
            print(f"after a kill: {len(in_flight)} steps were in flight; the resume re-made {len(remade)} of the steps "
                  f"started before the kill ({len(remade & ended)} of them had finished)")
            book.close()
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
