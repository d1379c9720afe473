"""Benchmark the repository map on a directory: cold (empty cache) and warm (cache filled).

    python benchmarks/bench_repomap.py /work/corpus/sqlalchemy [--top 20] [--render 4000]

Prints, for each pass, seconds, files, parsed/cached counts, lines and the process's peak
RSS (resource.getrusage, so the peak of everything so far: the cold figure is the one that
matters). The files are the safe walker's (orchestrator/repo/walk.py), read with its checks,
as in a book run; the walk's own time and summary are printed first.
"""

from __future__ import annotations

import argparse
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orchestrator.repo.cache import MapCache
from orchestrator.repo.map import build_map
from orchestrator.repo.walk import read_source_bytes, walk


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--top", type=int, default=20, help="print the N best definitions")
    ap.add_argument("--render", type=int, default=0, help="print the rendered map within N chars")
    args = ap.parse_args()
    root = args.root.resolve()
    t0 = time.perf_counter()
    tree = walk(root)
    print(f"walk: {time.perf_counter() - t0:.2f}s, {tree.summary()}")
    files = [(f.rel, f.lang, f.kind) for f in tree.files]

    def read(rel: str) -> bytes:
        return read_source_bytes(root, rel)

    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "state.db")
        cache = MapCache(conn)
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            repo = build_map(files, read=read, cache=cache)
            t_build = time.perf_counter() - t0
            t1 = time.perf_counter()
            top = repo.ranked_definitions(args.top)
            t_rank = time.perf_counter() - t1
            s = repo.stats
            print(f"{label}: build {t_build:.2f}s + rank {t_rank:.2f}s, files {len(files)} "
                  f"(parsed {s.get('parsed', 0)}, cached {s.get('cached', 0)}, errors {s.get('errors', 0)}), "
                  f"lines {s.get('lines', 0)}, peak RSS {peak_rss_mb():.0f} MB")
        conn.close()
    print(f"\ntop {args.top} definitions:")
    for i, (rel, d, score) in enumerate(top, 1):
        print(f"{i:3}. {d.qualified_name:40} {d.kind:10} {rel}:{d.start_line}  {score:.5f}")
    print("\nentry points:", ", ".join(repo.entry_points()[:10]))
    if args.render:
        print("\n" + repo.render(args.render))


if __name__ == "__main__":
    main()
