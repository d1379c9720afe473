"""The options several commands share, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Workspace = Annotated[Path, typer.Option("--workspace", "-w", help="the book's directory", show_default="current directory")]
Json = Annotated[bool, typer.Option("--json", help="print one JSON document on stdout")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")]
Strategy = Annotated[str, typer.Option("--strategy", help="half-finished files: conservative (back up, redo), "
                                                          "aggressive (continue the partial text), ask (list them, wait)")]
Provider = Annotated[str | None, typer.Option("--provider", help="offline | anthropic | auto (book.yaml's by default)")]
Concurrency = Annotated[int | None, typer.Option("--concurrency", min=1, help="model calls in flight at once")]
