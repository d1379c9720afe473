"""Benchmark the repository map on a directory: cold (empty cache) and warm (cache filled).

    python benchmarks/bench_repomap.py /work/corpus/sqlalchemy [--top 20] [--render 4000]

Prints, for each pass, seconds, files, parsed/cached counts, lines and the process's peak
RSS (resource.getrusage, so the peak of everything so far: the cold figure is the one that
matters). The walk here is a plain os.walk with the extension table; the real book run uses
the safe walker (orchestrator/repo/walk.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orchestrator.repo.cache import MapCache
from orchestrator.repo.languages import language_for_path
from orchestrator.repo.map import build_map

SKIP_DIRS = {".git", "node_modules", "vendor", "target", "dist", "build", "__pycache__", ".venv", ".tox"}
TEST_DIRS = {"test", "tests", "__tests__", "spec", "testing", "testdata"}
EXAMPLE_DIRS = {"example", "examples", "_examples", "docs_src", "samples"}
MAX_BYTES = 2_000_000
MANIFESTS = {"Cargo.toml", "package.json", "pyproject.toml", "go.mod"}


def classify(rel: str) -> str:
    parts = rel.split("/")
    base = parts[-1]
    if any(p in TEST_DIRS for p in parts[:-1]) or base.startswith("test_") or \
            base.endswith(("_test.go", "_test.py")) or ".test." in base or ".spec." in base:
        return "test"
    if any(p in EXAMPLE_DIRS for p in parts[:-1]):
        return "example"
    if parts[0] in ("doc", "docs"):
        return "doc"
    return "code"


def simple_walk(root: Path) -> list[tuple[str, str | None, str]]:
    """(rel, language, kind) for every regular source file under root, symlinks not followed."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
                continue
            rel = path.relative_to(root).as_posix()
            lang = language_for_path(rel)
            if lang is not None:
                out.append((rel, lang, classify(rel)))
            elif name in MANIFESTS:
                out.append((rel, None, "build"))  # not parsed; it names the project
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", type=Path)
    ap.add_argument("--top", type=int, default=20, help="print the N best definitions")
    ap.add_argument("--render", type=int, default=0, help="print the rendered map within N chars")
    args = ap.parse_args()
    root = args.root.resolve()
    files = simple_walk(root)

    def read(rel: str) -> bytes:
        return (root / rel).read_bytes()

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
