"""The command line: parse, call the core, map errors to exit codes (DESIGN §8).

Data goes to stdout (`--json`: one JSON document), messages and progress to stderr.
Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 stopped for a person, 4 locked.
Heavy imports (the runner, providers, anthropic) happen inside the commands that need them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import BookError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Write a technical book about a codebase with a team of LLM agents. "
                       "The file system is the state: stop it any time, edit by hand, run it again.")

Workspace = Annotated[Path, typer.Option("--workspace", "-w", help="the book's directory", show_default="current directory")]
Json = Annotated[bool, typer.Option("--json", help="print one JSON document on stdout")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")]


from .main import emit_json, err  # noqa: E402


# ---------------------------------------------------------------- init / scan


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="where to create the book")] = Path("."),
    source: Annotated[Optional[str], typer.Option(help="the source tree to write about, relative to DIR")] = None,
    example: Annotated[bool, typer.Option("--example", help="also write a small sample source tree (src/)")] = False,
    title: Annotated[Optional[str], typer.Option(help="the book's title")] = None,
    language: Annotated[Optional[str], typer.Option(help="en or zh")] = None,
) -> None:
    """Create book.yaml (every key with its default) and, with --example, a sample source."""
    from .workspace import init_workspace

    made = init_workspace(directory, source=source, example=example, title=title, language=language)
    err(f"created {', '.join(made)} in {directory.resolve()}")
    err(f"next: edit book.yaml, then `book run --workspace {directory}`")


@app.command()
def scan(
    workspace: Workspace = Path("."),
    as_json: Json = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="rewrite checkpoint.md from the files")] = False,
) -> None:
    """Infer progress from the files alone. Changes nothing unless --rebuild."""
    from .main import do_scan

    do_scan(workspace, as_json, rebuild)
