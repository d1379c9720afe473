"""The console side of a command: messages to stderr, data to stdout, and `book scan` itself
(which the entry point runs without importing typer, so it lives below both)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def err(msg: str) -> None:
    print(msg, file=sys.stderr)


def emit_json(doc) -> None:
    # Compact: json's C encoder only runs without `indent` (a scan of 300 chapters prints ~3000 values).
    sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")


def do_scan(workspace: Path, as_json: bool, rebuild: bool) -> None:
    from .state.book import Book, scan_report

    lock = None
    if rebuild and Path(workspace).is_dir():  # --rebuild writes: never while another run does (exit 4)
        from .state.fsio import Lock
        from .steps import LOCK

        lock = Lock(Path(workspace).resolve() / LOCK)
        lock.acquire()
    try:
        book = Book.open(workspace, require_config=False, repair=False)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    try:
        snap = book.snapshot()
        report = scan_report(book, snap)
        if rebuild:
            from .state.board import write_checkpoint

            write_checkpoint(book, snap)
            report["discrepancies"] = []
            err(f"rewrote {book.root / 'output/memory/checkpoint.md'}")
    finally:
        book.close()
        if lock is not None:
            lock.release()
    if as_json:
        emit_json(report)
    else:
        from .views import print_scan

        print_scan(report)
