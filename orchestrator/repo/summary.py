"""The walk's one-line summary as source-map.md recorded it, for `book scan`: reading one
short file keeps the scan fast (it never walks the source or imports tree-sitter)."""

from __future__ import annotations

from pathlib import Path

PREFIX = "Read: "  # the line pipeline/derived.source_map writes


def recorded_summary(source_map: Path) -> str | None:
    """"N files (…); M left out (…)" from source-map.md, or None when there is none yet."""
    try:
        with open(source_map, encoding="utf-8", errors="replace") as fh:
            for _, line in zip(range(40), fh):
                if line.startswith(PREFIX):
                    return line[len(PREFIX):].strip().rstrip(".")
    except OSError:
        return None
    return None
