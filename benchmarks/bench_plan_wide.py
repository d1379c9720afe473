#!/usr/bin/env python3
"""How the offline planner scales with the files of one directory (issue 22): N small Python
modules in one directory, each calling three others, walked, mapped and planned in a fresh
process; prints the walk+map time, the plan time, the chapters and the process's peak memory.

usage: python benchmarks/bench_plan_wide.py [N ...] [--keep DIR]   (default: 2000 50000)
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[2])
from orchestrator.authoring import project, outline_plan
t0 = time.perf_counter()
p = project.load(sys.argv[1])
t1 = time.perf_counter()
ctx = {"book": {"title": "", "audience": "readers", "brief": ""}, "language": "en",
       "limits": {"max_chapters": 12, "batch_size": 3}}
text = outline_plan.plan(ctx, p)
t2 = time.perf_counter()
print(json.dumps({"files": len(p.code_files()), "summary": p.tree_summary, "load_s": t1 - t0,
                  "plan_s": t2 - t1, "chapters": text.count("\n- id: "),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def make_wide(dest: Path, n: int, seed: int = 7) -> Path:
    """dest/wide/m00000.py …: n modules of one directory, each calling three others."""
    d = dest / "wide"
    d.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    for i in range(n):
        uses = [u for u in rnd.sample(range(n), min(3, n - 1)) if u != i] if n > 1 else []
        imports = "\n".join(f"from .m{u:05d} import helper_{u:05d}" for u in uses)
        calls = "\n".join(f"    total += helper_{u:05d}(x)" for u in uses)
        (d / f"m{i:05d}.py").write_text(
            f'"""Module {i} of the wide directory."""\n{imports}\n\n\n'
            f'class Thing{i:05d}:\n    """A thing numbered {i}."""\n\n'
            f'    def run(self, x: int) -> int:\n        return helper_{i:05d}(x) + 1\n\n\n'
            f'def helper_{i:05d}(x: int) -> int:\n    """Helper {i}."""\n    total = x\n{calls}\n    return total\n')
    (d / "__init__.py").write_text('"""wide: one wide directory."""\n')
    (dest / "README.md").write_text("# wide\n\nA wide directory.\n")
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sizes", nargs="*", type=int, default=[2000, 50000])
    ap.add_argument("--keep", type=Path, help="build the trees here (kept) instead of a temporary directory")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        for n in args.sizes:
            src = base / f"wide-{n}"
            if not (src / "wide").is_dir():
                make_wide(src, n)
            out = subprocess.run([sys.executable, "-c", CHILD, str(src), str(ROOT)], capture_output=True,
                                 text=True, timeout=600)
            if out.returncode:
                print(f"{n} files: failed\n{out.stderr[-2000:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{n:>6} files in one directory: walk+map {r['load_s']:.1f} s, plan {r['plan_s']:.1f} s, "
                  f"{r['chapters']} chapters, peak {r['peak_mb']:.0f} MB; planned {r['files']} code files "
                  f"({r['summary']})")


if __name__ == "__main__":
    main()
