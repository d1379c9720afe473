#!/usr/bin/env python3
"""How fast the safe walker lists a source tree: files and directory entries per second,
cold (first run, as the OS cache allows) and warm (best of the repeats), and what it left out.

usage: python benchmarks/bench_walk.py DIR [--repeat 5] [--max-files N] [--max-entries N] [--read]
  --read  also reads every included file through read_source (the cost of a full first pass)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orchestrator.repo.walk import SourceTree, read_source, walk  # noqa: E402


def once(root: Path, args: argparse.Namespace) -> tuple[float, SourceTree, int]:
    t0 = time.perf_counter()
    tree = walk(root, max_files=args.max_files, max_entries=args.max_entries)
    read = 0
    if args.read:
        for f in tree.files:
            read += len(read_source(root, f.rel))
    return time.perf_counter() - t0, tree, read


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-files", type=int, default=20_000)
    ap.add_argument("--max-entries", type=int, default=200_000)
    ap.add_argument("--read", action="store_true")
    args = ap.parse_args()
    times, tree, read = [], None, 0
    for _ in range(max(1, args.repeat)):
        dt, tree, read = once(args.root, args)
        times.append(dt)
    assert tree is not None
    n, e = len(tree.files), tree.entries
    best = min(times)
    print(f"{args.root}: {n} files included, {len(tree.skipped)} left out, {e} entries, "
          f"truncated={tree.truncated}")
    print(f"first run {times[0] * 1000:.0f} ms ({n / times[0]:,.0f} files/s); best of {len(times)} "
          f"{best * 1000:.0f} ms ({n / best:,.0f} files/s, {e / best:,.0f} entries/s)"
          + (f"; read {read / 1e6:.1f} M characters" if args.read else ""))
    print("kinds:", dict(Counter(f.kind for f in tree.files).most_common()))
    print("languages:", dict(Counter(f.lang or "-" for f in tree.files).most_common(8)))
    # reasons without their per-file details (sizes, targets), most common first
    print("left out:", dict(Counter(s.reason.split(" (")[0] for s in tree.skipped).most_common(10)))


if __name__ == "__main__":
    main()
