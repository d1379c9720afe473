#!/usr/bin/env python3
"""A person's loop at the gates (issue 25): how many decisions, `book review` walks and `book run`s
it takes to finish a book with default gates (`gates: normal`), answering approve to every card,
for each `gate_grain`; and how often the whole-book audit ran (it must run again only when the
finals it reads changed). Offline, through the CLI as a person types it (plain prompts: stdin is
not a terminal).

usage: python benchmarks/bench_gates.py [SOURCE] [--grain chapter --grain batch ...] [--keep DIR]
  SOURCE defaults to /work/corpus/click/src/click (a 12-chapter book); `--grain default` leaves
  gate_grain out of book.yaml (for a checkout without it: PYTHONPATH=/that/checkout ...)
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BOOK = [sys.executable, "-c", "from orchestrator.main import main; main()"]


def book(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # run outside the repository, so that PYTHONPATH (another checkout, for a before figure) decides the code
    return subprocess.run([*BOOK, *args], input=stdin, capture_output=True, text=True, cwd=cwd or tempfile.gettempdir())


def audit_runs(ws: Path) -> tuple[int, int]:
    """(audits, runs that wrote a final): the audit reads the finals, so it should run once per
    run whose finals changed, and never more."""
    from orchestrator.state.book import Book

    b = Book.open(ws, repair=False)
    try:
        audits = len(b.ledger.events(step="audit", type="step_end"))
        return audits, len({e["run"] for e in b.ledger.events(step="final", type="step_end")})
    finally:
        b.close()


def finish(source: Path, grain: str | None, ws: Path, limit: int = 80) -> dict[str, object]:
    made = book("init", str(ws), "--source", str(source))
    if made.returncode or not (ws / "book.yaml").exists():
        raise SystemExit(made.stderr)
    if grain is not None:  # None: book.yaml as `book init` writes it (the default grain)
        cfg = ws / "book.yaml"
        text = cfg.read_text(encoding="utf-8")
        line = f"gate_grain: {grain}"
        text = re.sub(r"^gate_grain: .*$", line, text, flags=re.M) if "\ngate_grain:" in text else text + line + "\n"
        cfg.write_text(text, encoding="utf-8")
    w = ("--workspace", str(ws))
    runs = walks = decisions = 0
    t0 = time.perf_counter()
    while runs < limit:
        run = book("run", "--quiet", *w)
        runs += 1
        if run.returncode == 0:
            break
        if run.returncode != 3:
            raise SystemExit(f"book run exited {run.returncode}:\n{run.stderr[-3000:]}")
        walk = book("review", *w, stdin="a\n" * 500)  # approve every card it shows
        walks += 1
        decided = sum(int(n) for n in re.findall(r"^(\d+) decided", walk.stderr, re.M))
        if not decided:
            raise SystemExit(f"book run stopped (exit 3) but nothing was decided:\n{run.stderr[-3000:]}")
        decisions += decided
    audits, final_runs = audit_runs(ws)
    index = (ws / "output/publish/index.html").read_text(encoding="utf-8")
    linked = len(set(re.findall(r'href="(ch\d+)\.html"', index)))  # the chapters a reader reaches
    return {"grain": grain or "default", "decisions": decisions, "walks": walks, "runs": runs,
            "audits": audits, "runs_with_new_finals": final_runs, "chapters_linked": linked,
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", nargs="?", type=Path, default=Path("/work/corpus/click/src/click"))
    ap.add_argument("--grain", action="append", help="chapter, batch or phase (repeatable); default: all three")
    ap.add_argument("--keep", type=Path, help="keep the workspaces under this directory")
    args = ap.parse_args()
    grains = args.grain or ["chapter", "batch", "phase"]
    base = Path(tempfile.mkdtemp(prefix="bench_gates_")) if args.keep is None else args.keep
    try:
        for g in grains:
            ws = base / f"ws-{g}"
            if ws.exists():
                shutil.rmtree(ws)
            r = finish(args.source, None if g == "default" else g, ws)
            print(" ".join(f"{k}={v}" for k, v in r.items()), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
