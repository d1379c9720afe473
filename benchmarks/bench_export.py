#!/usr/bin/env python3
"""The exports against the book's size: an offline book of SOURCE is built for each chapter
count (`max_chapters: N`, `gates: off`), then `book export --epub --pdf` runs in a child
process of its own, whose wall time and peak memory (its own `ru_maxrss`, from wait4) are
measured.

Prints per size: chapters, build s, export s (wall, and CPU: the machine may be shared),
EPUB KB and s, PDF pages, KB and s, the export's peak MB and the load average; then, between
the smallest and the largest size, the ratio per chapter of the PDF's seconds, the export's
CPU, the peak MB and the pages (linear work gives ≈ 1; a PDF typeset in pieces gives well
under 1 for the memory).

usage: python benchmarks/bench_export.py --source /work/corpus/sqlalchemy/lib/sqlalchemy \\
           [--sizes 12,40] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BOOK = [sys.executable, "-c", "import sys; from orchestrator.main import main; sys.exit(main())"]


def _run(args: list[str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, stdout) of one command in a process of its own: wait4 gives
    that child's own peak memory (RUSAGE_CHILDREN would give the largest of every child so far)."""
    start = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert p.stdout is not None
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed (exit {p.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def measure(source: Path, chapters: int, work: Path) -> dict[str, float]:
    ws = work / f"book-{chapters}"
    if not (ws / "book.yaml").exists():
        subprocess.run([*BOOK, "init", str(ws), "--source", str(source)], check=True, capture_output=True)
        cfg = ws / "book.yaml"
        text = re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg.read_text())
        cfg.write_text(re.sub(r"(?m)^max_chapters:.*$", f"max_chapters: {chapters}", text))
    build_s, _, _, _ = _run([*BOOK, "run", "--workspace", str(ws)])
    for old in (ws / "output/export").glob("book.*"):
        old.unlink()  # measure a fresh export, not "unchanged"
    load = os.getloadavg()[0]
    export_s, cpu, peak, out = _run([*BOOK, "export", "--epub", "--pdf", "--json", "--workspace", str(ws)])
    got = {e["kind"]: e for e in json.loads(out)["exports"]}
    return {"chapters": got["pdf"]["chapters"], "build_s": build_s, "export_s": export_s, "export_cpu": cpu,
            "epub_kb": got["epub"]["bytes"] / 1024, "epub_s": got["epub"]["seconds"],
            "pdf_pages": int(str(got["pdf"]["detail"]).split()[0]), "pdf_kb": got["pdf"]["bytes"] / 1024,
            "pdf_s": got["pdf"]["seconds"], "peak_mb": peak, "load": load}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", type=Path, required=True, help="the source folder the books are about")
    ap.add_argument("--sizes", default="12,40", help="comma-separated max_chapters values")
    ap.add_argument("--keep", type=Path, help="build the books here (and keep them) instead of a temp dir")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows = []
        print("chapters  build s  export s  (CPU)  EPUB KB  EPUB s  PDF pages  PDF KB   PDF s  peak MB  load")
        for n in sizes:
            r = measure(args.source.resolve(), n, work)
            rows.append(r)
            print(f"{r['chapters']:8.0f} {r['build_s']:8.1f} {r['export_s']:9.1f} {r['export_cpu']:6.1f} {r['epub_kb']:8.0f} "
                  f"{r['epub_s']:7.1f} {r['pdf_pages']:10d} {r['pdf_kb']:7.0f} {r['pdf_s']:7.1f} "
                  f"{r['peak_mb']:8.0f} {r['load']:5.1f}", flush=True)
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        for key, what in (("pdf_s", "PDF seconds"), ("export_cpu", "export CPU seconds"), ("peak_mb", "peak MB"), ("pdf_pages", "PDF pages")):
            ratio = (b[key] / b["chapters"]) / (a[key] / a["chapters"])
            print(f"{what} per chapter, {b['chapters']:.0f} vs {a['chapters']:.0f} chapters: x{ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
