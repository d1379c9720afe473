"""Chapter 1's main path per repository, without building a book: the path
`authoring.mainpath.central_path` returns (and the set-up path before it), one line each. Compare two
trees' outputs to see which repositories a change moves.

    python benchmarks/central_paths.py NAME:SOURCE_DIR [NAME:SOURCE_DIR ...]
    python benchmarks/central_paths.py --file pairs.txt     (one NAME:SOURCE_DIR per line)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", help="NAME:SOURCE_DIR")
    ap.add_argument("--file", type=Path, help="a file of NAME:SOURCE_DIR lines")
    a = ap.parse_args(argv)
    pairs = list(a.pairs) + (a.file.read_text().split() if a.file else [])
    from orchestrator.authoring import mainpath, overview, project

    for spec in pairs:
        name, src = spec.split(":", 1)
        try:
            p = project.load(src)
            entries = overview.entry_points(p)
            path = mainpath.central_path(p, entries)
            setup = mainpath.setup_path(p, entries, path)
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{name}: ERROR {e!r}", flush=True)
            continue
        before = " -> ".join(x.dotted for x in setup) + " | " if setup else ""
        print(f"{name}: {before}" + " -> ".join(x.dotted for x in path), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
