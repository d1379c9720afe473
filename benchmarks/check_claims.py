#!/usr/bin/env python3
"""An independent check of the book's "used by" claims (issue 23: claims only from resolved
facts). For every sentence of the finals that says "`NAME`: N other files use it" (the offline
writer's wording) or "used from N other files", count, without the repository map, the source
files other than the one that defines NAME in which NAME appears as a whole word. A resolved
reference is a name written in that file, so a claim of more files than the text count is
contradicted; the text count may be higher (a name match is not a reference).

usage: check_claims.py WORKSPACE [--source DIR]    (exit 1 when a claim is contradicted)
Shares no code with orchestrator/: it reads book.yaml, the finals and the source as text.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CODE = {".py", ".go", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".rs", ".java", ".c", ".h", ".cc", ".cpp", ".hpp", ".hh"}
CLAIM = re.compile(r"`([A-Za-z_][\w.:]*)`(?:[^`.\n]{0,40}?):? (\d+) other files? use it|"
                   r"`([A-Za-z_][\w.:]*)`[^`.\n]{0,60}?used from (\d+) other (?:source )?files?")
CITE = re.compile(r"\(source:([^)#\s]+)#L\d+")


def source_dir(ws: Path, given: str | None) -> Path:
    if given:
        return Path(given)
    text = (ws / "book.yaml").read_text(encoding="utf-8")
    m = re.search(r'(?m)^source:\s*"?([^"\n]+)"?', text)
    src = Path(m.group(1).strip()) if m else Path("src")
    return src if src.is_absolute() else (ws / src).resolve()


def code_files(root: Path) -> dict[str, str]:
    out = {}
    for p in root.rglob("*"):
        if p.is_file() and p.suffix in CODE and ".git" not in p.parts and "node_modules" not in p.parts:
            try:
                out[str(p.relative_to(root))] = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                pass
    return out


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    ws = Path(args[0])
    src = source_dir(ws, args[args.index("--source") + 1] if "--source" in args else None)
    files = code_files(src)
    checked = wrong = 0
    for final in sorted((ws / "output/chapters/final").glob("ch*-final.md")):
        for line in final.read_text(encoding="utf-8").splitlines():
            for m in CLAIM.finditer(line):
                name, n = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
                short = re.split(r"[.:]+", name)[-1]
                cite = CITE.search(line[m.end():])
                home = cite.group(1) if cite else None
                word = re.compile(rf"(?<![\w$]){re.escape(short)}(?![\w$])")
                count = sum(1 for rel, text in files.items() if rel != home and word.search(text))
                checked += 1
                if int(n) > count:
                    wrong += 1
                    print(f"CONTRADICTED {final.name}: `{name}` in {n} other files; its name is written in {count}")
    print(f"{checked} claims checked, {wrong} contradicted ({ws})")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
