"""Reading the source tree the book is about: which files count, and their text (the
prompts' sources; the offline authors use the repository map, repo/)."""

from __future__ import annotations

import os
from pathlib import Path

TEXT_EXT = {".py", ".pyi", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".js", ".ts",
            ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".kt", ".rb", ".sh", ".sql", ".lua", ".swift"}
CODE_EXT = TEXT_EXT - {".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json"}
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "build", "dist", ".tox", ".mypy_cache"}
MAX_BYTES = 200_000


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the text files worth reading, sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
        for f in files:
            p = Path(d) / f
            if p.suffix in TEXT_EXT and not f.startswith(".") and p.stat().st_size <= MAX_BYTES:
                out.append(p.relative_to(root).as_posix())
    return sorted(out)


def read_text(root: Path, rel: str) -> str:
    try:
        return (root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
