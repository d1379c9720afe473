"""`book scan`: progress inferred from the files alone. Light on purpose: the entry point runs
it without importing typer (scan runs in loops, hooks and watchers)."""

from __future__ import annotations

import gc
from pathlib import Path

from ..state.book import Book, require_book, scan_report
from ..state.fsio import Lock
from ..steps import LOCK
from .console import emit_json, err


def do_scan(workspace: Path, as_json: bool, rebuild: bool) -> None:
    # The scan of a big tree makes a few objects per file and frees none until it ends: the
    # cyclic collector would walk all of them again and again for nothing (~10% of a scan).
    paused = gc.isenabled()
    gc.disable()
    try:
        _scan(workspace, as_json, rebuild)
    finally:
        if paused:
            gc.enable()


def _scan(workspace: Path, as_json: bool, rebuild: bool) -> None:
    lock = None
    if rebuild and Path(workspace).is_dir():  # --rebuild writes: never while another run does (exit 4)
        lock = Lock(Path(workspace).resolve() / LOCK)
        lock.acquire()
    try:
        require_book(workspace)
        book = Book.open(workspace, require_config=False, repair=False)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    try:
        snap = book.snapshot()
        report = scan_report(book, snap)
        if rebuild:
            from ..state.board import write_checkpoint

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
        from ..views import print_scan

        print_scan(report)
