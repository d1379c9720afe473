#!/usr/bin/env python3
"""SIGINT at random moments of a `book run` over `source: /` (issue 22, item 4): the walk, the
map, the ranking and the offline planner of a huge tree take seconds, and a signal in any of them
must end the run within a second, exit 130. N trials, each a fresh workspace and a signal at a
uniform random moment of the plan's length (measured first); `--load K` runs K busy processes
meanwhile (a loaded machine: CPU hogs on every core). Prints each exit time, the max and median.

usage: python benchmarks/sigint_root.py [TRIALS] [--load K] [--seed S]   (BOOK=cmd, default: the venv's `book`)
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orchestrator.state.book import init_workspace  # noqa: E402


def _hog() -> None:
    while True:
        pass


def start(book: list[str], ws: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*book, "run", "--workspace", str(ws)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "ANTHROPIC_API_KEY": ""})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trials", nargs="?", type=int, default=20)
    ap.add_argument("--load", type=int, default=0, help="busy processes to run meanwhile")
    ap.add_argument("--seed", type=int, default=22)
    a = ap.parse_args()
    book = shlex.split(os.environ.get("BOOK", str(Path(sys.executable).parent / "book")))
    rng = random.Random(a.seed)
    hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(a.load)]
    for h in hogs:
        h.start()
    tmp = Path(tempfile.mkdtemp(prefix="sigint-root-"))
    try:
        ws = tmp / "probe"
        init_workspace(ws, source="/")
        t0 = time.monotonic()
        proc = start(book, ws)
        proc.communicate(timeout=600)
        length = time.monotonic() - t0
        print(f"an uninterrupted run of source: / took {length:.1f} s (exit {proc.returncode})", flush=True)
        took: list[float] = []
        bad = t = 0
        while len(took) < a.trials and t < 3 * a.trials:  # a trial whose run ended first is not counted
            t += 1
            ws = tmp / f"t{t}"
            init_workspace(ws, source="/")
            at = rng.uniform(0.05, max(0.1, length))
            proc = start(book, ws)
            time.sleep(at)
            if proc.poll() is not None:
                print(f"trial {t}: the run ended before {at:.2f} s (exit {proc.returncode})", flush=True)
                length = at  # the probe was slow (a cold cache): aim within what a run takes now
                continue
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                err = proc.communicate(timeout=30)[1]
            except subprocess.TimeoutExpired:
                proc.kill()
                err = proc.communicate()[1]
            took.append(time.monotonic() - sent)
            # -SIGINT: the signal came while Python imported the command, before it could handle one
            # (nothing was opened yet); the default action ends the process, as it should
            ok = (proc.returncode == 130 and "book resume" in err) or proc.returncode == -signal.SIGINT
            bad += not ok
            print(f"trial {t}: SIGINT at {at:.2f} s -> exit {proc.returncode} in {took[-1]:.3f} s"
                  + ("" if ok else f"  BAD: {err[-300:]!r}"), flush=True)
    finally:
        for h in hogs:
            h.terminate()
        subprocess.run(["rm", "-rf", str(tmp)], check=False)
    if took:
        print(f"{len(took)} signals (load {a.load}): max {max(took):.3f} s, median {statistics.median(took):.3f} s, "
              f"{bad} without exit 130")
    return 1 if bad or not took or max(took) > 1.0 else 0


if __name__ == "__main__":
    sys.exit(main())
