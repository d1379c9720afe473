"""Build one offline book per repository listed in benchmarks/LANGS.md, as a new user would
(`book init` + `gates: off` + `book run --provider offline`, first run), and print one table row
each: language, chapters planned/published, exit code, wall time, the figures of
benchmarks/book_quality.py (R1 blocking findings, reader trips, single-symbol share) and how many
of the names written down in LANGS.md the published chapters name in code.

    .venv/bin/python benchmarks/bench_langs.py --sources /tmp/src --books /tmp/books [NAME ...]

`--sources` holds one clone per repository, named as in LANGS.md's headings (`## MediatR (C#)`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOOK = [str(Path(sys.executable).with_name("book"))]  # the console script of this interpreter's venv
_ENTRY = re.compile(r"^## (\S+) \(([^)]*)\) — source `([^`]*)`", re.MULTILINE)


def entries(md: str) -> list[tuple[str, str, str, list[str]]]:
    """(name, language, source sub-folder, names a reader must meet) for each `## ` entry."""
    out = []
    for m in _ENTRY.finditer(md):
        rest = md[m.end():].split("\n## ", 1)[0]
        names = re.search(r"^- names: (.*)$", rest, re.MULTILINE)
        out.append((m.group(1), m.group(2), m.group(3),
                    [n.strip() for n in names.group(1).split(",")] if names else []))
    return out


def code_text(md: str) -> str:
    """What a chapter shows as code: its fenced blocks and backquoted spans."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", md, re.MULTILINE | re.DOTALL)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", md, flags=re.MULTILINE | re.DOTALL))
    return "\n".join(blocks + spans)


def build(name: str, source: Path, books: Path) -> dict[str, object]:
    ws = books / name
    if ws.exists():
        shutil.rmtree(ws)
    subprocess.run([*BOOK, "init", str(ws), "--source", str(source)], check=True, capture_output=True,
                   cwd=HERE.parent)
    cfg = ws / "book.yaml"
    cfg.write_text(re.sub(r'(?m)^gates: .*$', 'gates: "off"', cfg.read_text(encoding="utf-8")), encoding="utf-8")
    t0 = time.monotonic()
    run = subprocess.run([*BOOK, "run", "--workspace", str(ws), "--provider", "offline"],
                         capture_output=True, text=True, cwd=HERE.parent)
    wall = time.monotonic() - t0
    (books / f"{name}.log").write_text(run.stdout + run.stderr, encoding="utf-8")
    outline = ws / "output" / "memory" / "outline.md"
    planned = len(re.findall(r"(?m)^\s*- id: ch\d+", outline.read_text(encoding="utf-8"))) if outline.is_file() else 0
    published = sorted(p.stem for p in (ws / "output" / "publish").glob("ch*.html"))
    return {"ws": ws, "rc": run.returncode, "wall": wall, "planned": planned, "published": published,
            "tail": [ln for ln in (run.stdout + run.stderr).splitlines() if ln.strip()][-3:]}


def quality(ws: Path) -> dict[str, str]:
    q = subprocess.run([sys.executable, str(HERE / "book_quality.py"), str(ws)], capture_output=True, text=True,
                       cwd=HERE.parent)
    out = q.stdout
    def grab(pattern: str) -> str:
        m = re.search(pattern, out, re.MULTILINE)
        return m.group(1).strip() if m else "?"
    shape = subprocess.run([sys.executable, str(HERE / "book_quality.py"), str(ws), "--shape-json"],
                           capture_output=True, text=True, cwd=HERE.parent)
    try:
        figures = json.loads(shape.stdout)
    except ValueError:
        figures = {}
    return {"r1": grab(r"^R1 blocking findings: (\d+)"), "trips": grab(r"^reader trips: (.*)$"),
            "single": f"{figures.get('single_symbol_share', 0):.0%}" if figures else "?",
            "ch1": str(figures.get("ch1_title", "?"))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*")
    ap.add_argument("--sources", type=Path, default=Path("/tmp/src"))
    ap.add_argument("--books", type=Path, default=Path("/tmp/books"))
    ap.add_argument("--langs", type=Path, default=HERE / "LANGS.md")
    a = ap.parse_args()
    a.books.mkdir(parents=True, exist_ok=True)
    print("| repo | language | planned/published | exit | wall | R1 blocking | single-symbol sections | "
          "names covered | reader trips |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, lang, sub, names in entries(a.langs.read_text(encoding="utf-8")):
        if a.only and name not in a.only:
            continue
        source = (a.sources / name / sub).resolve()
        r = build(name, source, a.books)
        finals = r["ws"] / "output" / "chapters" / "final"  # type: ignore[operator]
        shown = "\n".join(code_text(p.read_text(encoding="utf-8")) for p in sorted(finals.glob("ch*-final.md"))
                          if p.name.split("-")[0] in r["published"])  # type: ignore[operator]
        covered = [n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", shown)]
        q = quality(r["ws"]) if r["published"] else {"r1": "-", "trips": "-", "single": "-"}  # type: ignore[arg-type]
        missing = sorted(set(names) - set(covered))
        print(f"| {name} | {lang} | {r['planned']}/{len(r['published'])} | {r['rc']} | {r['wall']:.0f} s | "  # type: ignore[arg-type]
              f"{q['r1']} | {q['single']} | {len(covered)}/{len(names)}"
              f"{' (missing ' + ', '.join(missing) + ')' if missing else ''} | {q['trips']} |", flush=True)
        if r["rc"]:
            print(f"|  | {' / '.join(r['tail'])} |||||||", flush=True)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
