"""`book export --epub --pdf`: the published book as an EPUB and a PDF, in output/export/.
Each is redone only when what it is made of changed; the command holds the workspace lock."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..state.book import Book
from .console import emit_json, err
from .options import Json, Quiet, Workspace


def export(
    workspace: Workspace = Path("."),
    epub: Annotated[bool, typer.Option("--epub", help="an EPUB 3 (e-readers)")] = False,
    pdf: Annotated[bool, typer.Option("--pdf", help="a PDF (print), typeset by WeasyPrint")] = False,
    json_out: Json = False,
    quiet: Quiet = False,
) -> None:
    """Export the published book as EPUB and/or PDF (book.yaml's `exports` when no flag is given).

    The exports hold the chapters the site publishes; a chapter that waits is listed as not ready."""
    from ..pipeline.exporting import export_book

    book = Book.open(workspace)
    try:
        kinds = [k for k, on in (("epub", epub), ("pdf", pdf)) if on] or list(book.cfg.exports)
        if not kinds:
            raise UsageError("nothing to export: pass --epub and/or --pdf, or set `exports: [epub, pdf]` in book.yaml")
        results = export_book(book, kinds, progress=(lambda m: None) if quiet else err)
    finally:
        book.close()
    if json_out:
        emit_json({"exports": [{"kind": r.kind, "path": str(r.path), "status": r.status, "bytes": r.size,
                                "seconds": round(r.seconds, 3), "chapters": r.chapters,
                                "not_ready": list(r.waiting), "detail": r.detail} for r in results]})
    for r in results:
        extra = f", {r.detail}" if r.detail else ""
        wait = f"; not ready: {', '.join(r.waiting)}" if r.waiting else ""
        line = (f"{r.path} ({r.status}: {r.size:,} bytes, {r.chapters} chapters{extra}, {r.seconds:.1f}s){wait}")
        if json_out:
            err(line)
        else:
            print(line)
