"""`book ask` and `book mcp`: the finished book asked from the command line, or served to an
agent over the Model Context Protocol. Neither writes the book nor takes its lock."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .console import emit_json, err
from .options import Json, Provider, Quiet, Workspace


def ask(
    question: Annotated[str, typer.Argument(help="what you want to know about the code", show_default=False)],
    workspace: Workspace = Path("."),
    provider: Provider = None,
    json_out: Json = False,
    quiet: Quiet = False,
) -> None:
    # one paragraph per line: rich keeps a docstring's line breaks
    """Answer a question from the finished book and the source at its revision.

    Offline: the passages of the book that answer it, with their citations. With a model: a written answer whose every citation is checked before it is printed. The question and its answer are kept in output/asked/; the book itself is never changed."""  # noqa: E501
    from ..ask.service import Shelf, check_question

    q = check_question(question)  # before the workspace is read: an empty question changes nothing
    shelf = Shelf.open(workspace, progress=None if quiet else err)
    a = shelf.ask(q, provider)
    if json_out:
        emit_json(a.as_json())
    else:
        print(a.text)
    if not quiet and a.record:
        err(f"kept in {a.record}")


def mcp(workspace: Workspace = Path(".")) -> None:
    # one paragraph per line: rich keeps a docstring's line breaks
    """Serve the book to an agent over the Model Context Protocol (stdio).

    Tools: book_structure, read_chapter, search_book, ask_book, read_source; the chapters are also resources (book://chapter/chNN). Read-only: it holds no lock and reads committed files only, so it can serve while `book run` updates the book.

    Add it to Claude Code with: claude mcp add book -- book mcp --workspace /path/to/book"""  # noqa: E501
    from ..ask.server import serve
    from ..ask.service import Shelf

    serve(Shelf.open(workspace))
