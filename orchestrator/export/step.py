"""An export as a step of the file-system state.

`output/export/<name>.epub` (or `.pdf`) is written through the write protocol (a temp file,
fsync, rename): a kill leaves the old complete file or none, never a half one. Beside it
`<name>.epub.json` records what it was made of (the `ExportBook` digest, with the format
version) and the file's own SHA-256: the proof of completion, written after the file. An
export whose sidecar names the same inputs and whose file still has the recorded hash is done
and not redone; a file without a sidecar that matches (killed between the two writes, edited,
or made from other inputs) is redone, and gives the same bytes when the inputs are the same."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..state.fsio import atomic_write, sweep_temp_files, write_if_changed
from .content import FORMAT, ExportBook

EXPORT_DIR = "output/export"


@dataclass(frozen=True)
class Result:
    kind: str
    path: Path
    status: str  # "written" | "unchanged"
    size: int
    seconds: float
    chapters: int
    waiting: tuple[str, ...]
    detail: str = ""  # e.g. the PDF's page count


def sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_done(path: Path, inputs: str) -> bool:
    """The file at `path` is complete and was made from `inputs`."""
    try:
        side = json.loads(sidecar(path).read_text(encoding="utf-8"))
        data = path.read_bytes()
    except (OSError, ValueError):
        return False
    return isinstance(side, dict) and side.get("inputs") == inputs and side.get("sha256") == _sha(data)


def run(out: Path, kind: str, book: ExportBook, build: Callable[[], tuple[bytes, str]], extra: str = "",
        name: str = "book") -> Result:
    """Build `out/<name>.<kind>` with `build` unless it is done for these inputs (the book's
    digest, and `extra`: what only this format reads, such as the PDF's page stylesheet)."""
    start = time.monotonic()
    path = out / f"{name}.{kind}"
    inputs = f"{kind}:{FORMAT}:{book.digest}" + (f":{_sha(extra.encode())[:16]}" if extra else "")
    waiting = tuple(w.id for w in book.waiting)
    if out.is_dir():
        sweep_temp_files(out)  # a killed export's temp file holds nothing of value
    if is_done(path, inputs):
        side = json.loads(sidecar(path).read_text(encoding="utf-8"))
        return Result(kind, path, "unchanged", path.stat().st_size, time.monotonic() - start,
                      len(book.chapters), waiting, str(side.get("detail", "")))
    data, detail = build()
    write_if_changed(path, data)  # the same inputs give the same bytes: an mtime kept when nothing moved
    record = {"inputs": inputs, "sha256": _sha(data), "size": len(data), "modified": book.meta.modified,
              "chapters": [c.id for c in book.chapters], "not_ready": list(waiting), "detail": detail}
    atomic_write(sidecar(path), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return Result(kind, path, "written", len(data), time.monotonic() - start, len(book.chapters), waiting, detail)
