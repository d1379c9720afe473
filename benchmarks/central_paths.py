"""Chapter 1's main path per repository, without building a book: the path
`authoring.mainpath.central_path` returns (and the set-up path before it), one line each. Compare two
trees' outputs to see which repositories a change moves.

    python benchmarks/central_paths.py NAME:SOURCE_DIR [NAME:SOURCE_DIR ...]
    python benchmarks/central_paths.py --file pairs.txt     (one NAME:SOURCE_DIR per line)
    python benchmarks/central_paths.py --file pairs.txt --names benchmarks/main_path_names.txt

With --names (lines `NAME: a/alt, b, c, d`: the four names of the main path a reader must meet,
written down before any book of the repository was built), each line ends with k/4, how many of
them the set-up and the path name (a step `X.y` meets `y`, `X.y` and `y/z` alike), and a total closes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", help="NAME:SOURCE_DIR")
    ap.add_argument("--file", type=Path, help="a file of NAME:SOURCE_DIR lines")
    ap.add_argument("--names", type=Path, help="a file of `NAME: four, names, of, the path` lines")
    a = ap.parse_args(argv)
    pairs = list(a.pairs) + (a.file.read_text().split() if a.file else [])
    names = _names(a.names) if a.names else {}
    total = [0, 0]
    from orchestrator.authoring import example_setup, mainpath, overview, project

    for spec in pairs:
        name, src = spec.split(":", 1)
        try:
            p = project.load(src)
            entries = overview.entry_points(p)
            path = mainpath.central_path(p, entries)
            setup = example_setup.setup_path(p, entries, path)
        except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
            print(f"{name}: ERROR {e!r}", flush=True)
            continue
        before = " -> ".join(x.dotted for x in setup) + " | " if setup else ""
        score = ""
        if name in names:
            k = met(names[name], [x.dotted for x in setup + path])
            total[0] += k
            total[1] += len(names[name])
            score = f"  [{k}/{len(names[name])}]"
        print(f"{name}: {before}" + " -> ".join(x.dotted for x in path) + score, flush=True)
    if names:
        print(f"total: {total[0]}/{total[1]}")
    return 0


def _names(path: Path) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for line in path.read_text().splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            repo, _, rest = line.partition(":")
            out[repo.strip()] = [[a.strip() for a in alt.split("/") if a.strip()] for alt in rest.split(",") if alt.strip()]
    return out


def met(wanted: list[list[str]], steps: list[str]) -> int:
    """How many of the wanted names (each with its alternatives) a step names: `Router.ServeHTTP` meets
    `ServeHTTP` and `Router.ServeHTTP`; `Hono.#dispatch` meets `dispatch`."""
    def meets(step: str, name: str) -> bool:
        last = step.rsplit(".", 1)[-1].lstrip("#")
        return step == name or step.endswith("." + name) or last == name
    return sum(1 for alts in wanted if any(meets(s, a) for a in alts for s in steps))


if __name__ == "__main__":
    sys.exit(main())
