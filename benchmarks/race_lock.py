#!/usr/bin/env python3
"""Eight `book run --phase 1` started at once on a workspace whose `output/.lock` is stale
(`999999 vm`, as a killed run leaves), N times: how many writers each time (exit 0, and
`run_start` events in the ledger). The kernel lock must give exactly one, every time.

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
        procs = [subprocess.Popen([*book, "run", "-q", "--phase", "1", "--workspace", str(ws)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(8)]
        codes = sorted(p.wait() for p in procs)
        conn = sqlite3.connect(ws / "output/.book/state.db")
        starts = conn.execute("SELECT count(*) FROM events WHERE type='run_start'").fetchone()[0]
        conn.close()
        ok = codes == [0] + [4] * 7 and starts == 1
        bad += not ok
        print(f"trial {t}: exit codes {codes}, run_start events {starts} -> {'ok' if ok else 'NOT ONE WRITER'}",
              flush=True)
    shutil.rmtree(base.parent, ignore_errors=True)
    print(f"{trials - bad} of {trials} trials had exactly one writer")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
