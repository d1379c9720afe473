"""`book init` and `book doctor`: make a book's directory, and check that it can run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..state.book import init_workspace
from .console import emit_json, err
from .options import Json, Provider, Workspace


def init(
    directory: Annotated[Path, typer.Argument(help="where to create the book")] = Path("."),
    source: Annotated[str | None, typer.Option(help="the source tree to write about (relative to where you run this; with --example, where in DIR to put the sample)")] = None,
    example: Annotated[bool, typer.Option("--example", help="also write a small sample source tree (src/)")] = False,
    title: Annotated[str | None, typer.Option(help="the book's title")] = None,
    language: Annotated[str | None, typer.Option(help="en or zh")] = None,
) -> None:
    """Create book.yaml (every key with its default) and, with --example, a sample source."""
    if language is not None and language not in ("en", "zh"):
        raise UsageError(f"--language {language!r} is not supported: choose en or zh")
    if title is not None and not title.strip():
        raise UsageError("--title is empty: give the book a title")

    made = init_workspace(directory, source=source, example=example, title=title, language=language)
    err(f"created {', '.join(made)} in {directory.resolve()}")
    err(f"next: edit book.yaml, then `book run --workspace {directory}`")


def doctor(workspace: Workspace = Path("."), provider: Provider = None, as_json: Json = False) -> None:
    """Check config, source, API key, that the model answers (one tiny call), and the prompts."""
    from ..doctor import run_checks

    checks = run_checks(workspace, provider)
    if as_json:
        emit_json([vars(c) for c in checks])
    else:
        for c in checks:
            print(f"{'ok ' if c.ok else 'warn' if c.warning else 'BAD'} {c.name:<9} {c.detail}")
            if c.fix:
                print(f"    fix: {c.fix}")
    bad = [c.name for c in checks if not c.ok]
    raise typer.Exit(0 if not bad else 1 if bad == ["model"] else 2)
