"""`book mcp`: the book over the Model Context Protocol, on stdio, with the official SDK (`mcp`).

Tools: the book's structure, a chapter (or one of its sections), a search, a question answered
with checked citations, and source lines at the book's revision; each chapter is also a resource,
`book://chapter/chNN`. A bad argument is the tool's error result (or, for a resource, an MCP
error), raised before anything is read. Nothing here writes the book or takes its lock; an asked
question is kept in output/asked/ as `book ask` keeps it."""

from __future__ import annotations

import json
from typing import Any

from ..errors import BookError
from . import corpus
from .service import Shelf

INSTRUCTIONS = """This server serves one technical book written about a source repository. Every claim in \
it cites the code as [label](source:PATH#Lm-Ln), PATH relative to the source root, at the revision the \
book records. Start with book_structure; search_book finds passages; ask_book answers a question with \
checked citations; read_source shows the cited lines."""


def build(shelf: Shelf) -> Any:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
    from mcp.types import ToolAnnotations

    # a client may run these without asking: they read the book and its source, and change nothing
    reads = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    # asking keeps the question and its answer in output/asked/ (never the book); with a model it calls one
    asks = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)

    app = MCPServer("book", instructions=INSTRUCTIONS, log_level="WARNING")

    def guarded(fn, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except BookError as e:  # a usage error: the caller's to fix, said in its words
            raise ToolError(str(e)) from None

    @app.tool(annotations=reads)
    def book_structure() -> str:
        """The book's title, source revision, and its chapters with their sections (id, title, headings)."""
        return json.dumps(guarded(shelf.structure), ensure_ascii=False, indent=1)

    @app.tool(annotations=reads)
    def read_chapter(chapter: str, section: str = "") -> str:
        """A chapter's Markdown by id (ch01, ch02, ...), or only one of its `## ` sections (by heading or
        slug). Citations are [label](source:PATH#Lm-Ln) links into the source."""
        return guarded(shelf.chapter, chapter, section or None)

    @app.tool(annotations=reads)
    def search_book(query: str, limit: int = 10, kind: str = "") -> str:
        """Passages that match the query, best first, each with its chapter, section and citations: the
        book's paragraphs (kind "chapter"), glossary entries ("glossary"), the repository map's definitions
        ("map") and 30-line windows of the source ("source"); `kind` keeps one of them."""
        return json.dumps(guarded(shelf.search, query, limit, kind), ensure_ascii=False, indent=1)

    @app.tool(annotations=asks)
    async def ask_book(question: str) -> str:
        """Answer a question about the code from the book: the passages that answer it (or, when the book is
        set up with a model, a written answer), every source citation checked at the book's revision.
        Returns JSON: {answer, citations: [{path, lines}], chapters: [...]}."""
        try:
            a = await shelf.ask_async(question)
        except BookError as e:
            raise ToolError(str(e)) from None
        return json.dumps(a.as_json(), ensure_ascii=False, indent=1)

    @app.tool(annotations=reads)
    def read_source(path: str, first: int = 1, last: int = 0) -> str:
        """Lines first..last (1-based; last=0: to the end, at most 400 lines) of a source file, at the
        revision the book cites. PATH is relative to the source root, as in the book's citations."""
        got = guarded(shelf.source, path, first, last or None)
        return f"{got['path']} lines {got['first']}-{got['last']} of {got['total']}\n{got['text']}"

    @app.resource("book://chapter/{chapter}", name="chapter", mime_type="text/markdown",
                  description="A chapter of the book as Markdown, by id (ch01, ...)")
    def chapter_resource(chapter: str) -> str:
        try:
            return shelf.chapter(chapter)
        except BookError as e:
            raise ResourceNotFoundError(str(e)) from None

    for c in corpus.chapters(shelf.root):  # listed too, so a client can show them without a template
        _static(app, shelf, c.id, c.title, ResourceNotFoundError)
    return app


def _static(app: Any, shelf: Shelf, ch: str, title: str, not_found: type[Exception]) -> None:
    @app.resource(f"book://chapter/{ch}", name=ch, title=title, mime_type="text/markdown")
    def read() -> str:
        try:
            return shelf.chapter(ch)
        except BookError as e:
            raise not_found(str(e)) from None


def serve(shelf: Shelf) -> None:
    """Serve on stdin/stdout until the client closes them."""
    build(shelf).run("stdio")
