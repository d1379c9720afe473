#!/usr/bin/env python3
"""Eight `book run --phase 1` started at once on a workspace whose `output/.lock` is stale
(`999999 vm`, as a killed run leaves), N times: how many writers each time (exit 0, and
`run_start` events in the ledger). The kernel lock must give exactly one, every time.

Then (issue 22) N times: a `book run` going, its `output/.lock` deleted, replaced by another
file, or deleted and made again by hand, and a second `book run`: it must exit 4 every time
(the workspace directory stays locked), and the first must finish as the one writer.

usage: python benchmarks/race_lock.py [TRIALS]   (BOOK=cmd, default: the venv's `book`)
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    book = shlex.split(os.environ.get("BOOK", str(Path(sys.executable).parent / "book")))
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    base = Path(tempfile.mkdtemp()) / "base"
    subprocess.run([*book, "init", str(base), "--example"], check=True, capture_output=True)
    cfg = base / "book.yaml"
    cfg.write_text("\n".join('gates: "off"' if line.startswith("gates:") else line
                             for line in cfg.read_text().splitlines()) + "\n")
    bad = 0
    for t in range(trials):
        ws = base.parent / f"t{t}"
        shutil.copytree(base, ws)
        (ws / "output").mkdir()
        (ws / "output/.lock").write_text("999999 vm\n")
        # the outline call takes 0.5 s: longer than a taker retries a busy lock, so a late starter on a
        # loaded machine is refused rather than finding the phase done (exit 0, nothing to do)
        procs = [subprocess.Popen([*book, "run", "-q", "--phase", "1", "--workspace", str(ws)],
                                  env={**os.environ, "BOOK_OFFLINE_LATENCY": "0.5"},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(8)]
        codes = sorted(p.wait() for p in procs)
        conn = sqlite3.connect(ws / "output/.book/state.db")
        starts = conn.execute("SELECT count(*) FROM events WHERE type='run_start'").fetchone()[0]
        conn.close()
        # one writer: one run_start. A run that started late (a loaded machine staggers the eight
        # starts by seconds) may take the lock after the writer's end and find nothing to do: exit 0
        ok = starts == 1 and set(codes) <= {0, 4} and codes.count(4) >= 1
        bad += not ok
        print(f"trial {t}: exit codes {codes}, run_start events {starts} -> {'ok' if ok else 'NOT ONE WRITER'}",
              flush=True)
    print(f"{trials - bad} of {trials} trials had exactly one writer")
    bad_mid = mid_run(book, base, trials)
    shutil.rmtree(base.parent, ignore_errors=True)
    return 1 if bad or bad_mid else 0


def mid_run(book: list[str], base: Path, trials: int) -> int:
    """`output/.lock` deleted or replaced while a run holds it; a second run must exit 4."""
    import time

    env = {**os.environ, "BOOK_OFFLINE_LATENCY": "0.2"}  # the first run takes several seconds
    bad = 0
    for t in range(trials):
        ws = base.parent / f"m{t}"
        shutil.copytree(base, ws)
        first = subprocess.Popen([*book, "run", "-q", "--workspace", str(ws)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lock = ws / "output/.lock"
        while not (lock.exists() and lock.stat().st_size) and first.poll() is None:
            time.sleep(0.02)
        time.sleep(0.7)
        how = ("deleted", "replaced", "deleted and made again")[t % 3]
        if first.poll() is not None:
            print(f"mid-run trial {t}: the first run ended (exit {first.returncode}) before its lock was deleted: "
                  "NOT A TRIAL", flush=True)
            bad += 1
            continue
        lock.unlink()
        if how == "replaced":
            other = ws / "lock.other"
            other.write_text("12345 elsewhere\n")
            os.replace(other, lock)
        elif how == "deleted and made again":
            lock.write_text("")
        second = subprocess.run([*book, "run", "-q", "--workspace", str(ws)], env=env,
                                capture_output=True, text=True)
        running = first.poll() is None
        code = first.wait()
        conn = sqlite3.connect(ws / "output/.book/state.db")
        starts = conn.execute("SELECT count(*) FROM events WHERE type='run_start'").fetchone()[0]
        conn.close()
        ok = second.returncode == 4 and running and code == 0 and starts == 1
        bad += not ok
        print(f"mid-run trial {t}: lock {how}; second run exit {second.returncode} (first still running: {running}), "
              f"first exit {code}, run_start events {starts} -> {'ok' if ok else 'TWO WRITERS'}", flush=True)
    print(f"{trials - bad} of {trials}: a second run exited 4 with output/.lock deleted or replaced mid-run")
    return bad


if __name__ == "__main__":
    sys.exit(main())
