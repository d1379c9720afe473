#!/usr/bin/env python3
"""`book run --message-batches` end to end against the fake API with faults, a kill -9 while
a batch is processing and `book resume`; then the same book streamed, for the price.

Faults: a share of batch-endpoint calls fail with 5xx (half of the failing creates after the
batch was made: a lost response), a share of batched requests end `errored`, and a share of
streamed POST /v1/messages calls are answered 500/529.

Prints: batched requests, custom_ids sent twice (must be 0), streamed calls and their share
of batched ones (goal ≤ 15 %), `book cost --json` total_usd of the batched and the streamed
run and their ratio (goal ≤ 60 %), wall times. Exit code 1 when a goal is missed.

usage: python benchmarks/bench_batches.py [--chapters 12] [--source /work/corpus/flask/src]
       [--batch-fail-rate 0.15] [--message-fail-rate 0.05] [--batch-delay 1.0] [--seed 1] [--no-kill]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from orchestrator.batches import journal as jr
from orchestrator.testing import fake_batches
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import make_example
from orchestrator.testing.role_answers import answer

BOOK = str(Path(sys.executable).parent / "book")


def streamed_calls(fake: FakeAPI) -> int:
    return sum(1 for r in fake.requests if r["path"].split("?")[0] == "/v1/messages")


def workspace(root: Path, chapters: int, source: str) -> Path:
    ws = make_example(root, max_chapters=chapters, batch_size=chapters)
    if source:
        cfg = ws / "book.yaml"
        cfg.write_text("\n".join(f"source: {json.dumps(source)}" if line.startswith("source:") else line
                                 for line in cfg.read_text().splitlines()) + "\n")
    return ws


def book(*args: str, env: dict[str, str], timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BOOK, *args], env=env, capture_output=True, text=True, timeout=timeout)


def total_usd(ws: Path, env: dict[str, str]) -> float:
    p = book("cost", "--json", "--workspace", str(ws), env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    return float(json.loads(p.stdout)["total_usd"])


def chapter_batch_in_flight(ws: Path) -> bool:
    try:
        return any(w.chapter and w.batch_id for w in jr.waiting(ws / "output").values())
    except Exception:  # noqa: BLE001 - a journal being replaced; look again
        return False


def run_batched(a: argparse.Namespace, tmp: Path) -> dict[str, float]:
    fake = FakeAPI(answerer=answer)
    st = fake_batches.store(fake)
    st.delay, st.fail_rate, st.error_rate = a.batch_delay, a.batch_fail_rate, a.message_fail_rate
    st.rng.seed(a.seed)
    fake.message_fail_rate = a.message_fail_rate
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start(),
               BOOK_BATCH_POLL_SECONDS=str(a.poll))
    ws = workspace(tmp / "batched", a.chapters, a.source)
    t0 = time.perf_counter()
    killed = 0
    try:
        cmd = [BOOK, "run", "--provider", "anthropic", "--message-batches", "-q", "--workspace", str(ws)]
        if not a.no_kill:
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 900
            while p.poll() is None and time.monotonic() < deadline and not chapter_batch_in_flight(ws):
                time.sleep(0.02)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)  # a chapter batch is processing on the server
                killed = 1
            p.wait()
            before = len(st.received)
            print(f"killed with {len(jr.waiting(ws / 'output'))} steps waiting in a batch "
                  f"({before} requests sent so far)", file=sys.stderr)
            r = book("resume", "--provider", "anthropic", "-q", "--workspace", str(ws), env=env)
        else:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        for _ in range(3):  # a step that failed for good under the faults: resume it, as a person would
            if r.returncode == 0:
                break
            r = book("resume", "--provider", "anthropic", "-q", "--workspace", str(ws), env=env)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"the batched book did not complete:\n{r.stderr[-3000:]}")
        return {"requests": len(st.received), "twice": len(st.received) - len(set(st.received)),
                "streamed": streamed_calls(fake), "usd": total_usd(ws, env), "wall": wall, "killed": killed,
                "batches": len(jr.load_all(ws / "output"))}
    finally:
        fake.stop()


def run_streamed(a: argparse.Namespace, tmp: Path) -> dict[str, float]:
    fake = FakeAPI(answerer=answer)
    fake.message_fail_rate = a.message_fail_rate
    env = dict(os.environ, ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    ws = workspace(tmp / "streamed", a.chapters, a.source)
    t0 = time.perf_counter()
    try:
        r = book("run", "--provider", "anthropic", "-q", "--workspace", str(ws), env=env)
        for _ in range(3):
            if r.returncode == 0:
                break
            r = book("resume", "--provider", "anthropic", "-q", "--workspace", str(ws), env=env)
        if r.returncode != 0:
            raise SystemExit(f"the streamed book did not complete:\n{r.stderr[-3000:]}")
        return {"streamed": streamed_calls(fake), "usd": total_usd(ws, env), "wall": time.perf_counter() - t0}
    finally:
        fake.stop()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chapters", type=int, default=12)
    ap.add_argument("--source", default="/work/corpus/flask/src" if Path("/work/corpus/flask/src").is_dir() else "",
                    help="the source tree to write about (default: flask when present, else the example)")
    ap.add_argument("--batch-fail-rate", type=float, default=0.15)
    ap.add_argument("--message-fail-rate", type=float, default=0.05)
    ap.add_argument("--batch-delay", type=float, default=1.0)
    ap.add_argument("--poll", type=float, default=0.2, help="seconds between batch polls")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-kill", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        b = run_batched(a, Path(t))
        s = run_streamed(a, Path(t))
    share = b["streamed"] / b["requests"] if b["requests"] else 1.0
    ratio = b["usd"] / s["usd"] if s["usd"] else 1.0
    print(f"chapters {a.chapters}, source {a.source or 'the example'}, batch-endpoint failures "
          f"{a.batch_fail_rate:.0%}, message failures {a.message_fail_rate:.0%}, kill -9 during a batch: "
          f"{'yes' if b['killed'] else 'no'}")
    print(f"batched run: {b['batches']:.0f} batches, {b['requests']:.0f} batched requests, "
          f"{b['twice']:.0f} custom_ids sent twice, {b['streamed']:.0f} streamed calls "
          f"({share:.1%} of batched; goal ≤ 15 %), ${b['usd']:.4f}, {b['wall']:.0f} s")
    print(f"streamed run: {s['streamed']:.0f} calls, ${s['usd']:.4f}, {s['wall']:.0f} s")
    print(f"batched / streamed cost: {ratio:.1%} (goal ≤ 60 %)")
    ok = b["twice"] == 0 and share <= 0.15 and ratio <= 0.60
    print("OK" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
