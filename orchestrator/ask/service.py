"""The book as something to ask: one object for `book ask` and `book mcp`.

`Shelf.open(workspace)` checks that there is a book to ask (book.yaml and at least one committed
chapter), reads its revision, and opens the source at that revision; each method then reads
committed files only. Every bad input is a UsageError (exit 2 on the command line, an error
result over MCP) raised before anything is read or written."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import config as config_mod
from ..errors import ConfigError, UsageError
from ..evidence.revision import Revision
from ..evidence.sections import split
from ..text.markdown import slugify
from . import corpus, index
from .answer import Answer, extractive, written
from .record import keep
from .source import SourceAt, read_lines

MAX_QUESTION = 2000  # characters: a question, not a document
SEARCH_LIMIT = 50


def check_question(question: Any) -> str:
    if not isinstance(question, str) or not question.strip():
        raise UsageError("the question is empty: ask something, e.g. book ask \"where is the config read?\"")
    q = " ".join(question.split())
    if len(q) > MAX_QUESTION:
        raise UsageError(f"the question is {len(q):,} characters long; at most {MAX_QUESTION:,} are taken "
                         "(ask a question, not a document)")
    if not index.match_query(q):
        raise UsageError(f"the question {q!r} has no word to search for: name what you look for")
    return q


@dataclass
class Shelf:
    root: Path
    cfg: config_mod.Config
    rev: Revision | None
    files: SourceAt
    progress: Callable[[str], None] | None = None

    @classmethod
    def open(cls, workspace: str | os.PathLike[str], progress: Callable[[str], None] | None = None) -> Shelf:
        root = corpus.workspace(workspace)
        if not (root / "book.yaml").is_file():
            raise ConfigError("no book.yaml here: the source the book cites is unknown, so no citation could be "
                              "checked", str(root), fix="pass --workspace DIR of a book (`book init`, `book run`)")
        cfg = config_mod.load(root, require=True, check_source=False)
        if not corpus.chapter_ids(root):
            raise UsageError(f"the book in {root} has no finished chapter yet: run `book run` first")
        rev = corpus.recorded_revision(root)
        return cls(root, cfg, rev, SourceAt(cfg.source_dir, rev), progress)

    @property
    def revision_label(self) -> str:
        return self.rev.label() if self.rev else "an unrecorded revision"

    def index(self) -> Path:
        # the map is read from the work tree: only when that is the book's revision
        with_map = self.files.commit is None
        path, _ = index.ensure(self.root, self.cfg.source_dir, with_map, self.progress)
        return path

    # ------------------------------------------------------------------ reading

    def structure(self) -> dict[str, Any]:
        chs = corpus.chapters(self.root)
        terms, _ = corpus.glossary(self.root)
        return {"title": self.cfg.title, "revision": self.rev.as_dict() if self.rev else None,
                "source": str(self.cfg.source_dir), "glossary_terms": len(terms),
                "files": index.file_chapters(self.root),  # which chapter explains which source file
                "chapters": [{"id": c.id, "title": c.title, "file": c.rel,
                              "sections": [{"heading": s.head, "slug": slugify(s.head)}
                                           for s in split(c.text) if s.head]} for c in chs]}

    def chapter(self, ch: str, section: str | None = None) -> str:
        c = corpus.check_chapter(self.root, ch)
        if not section:
            return c.text
        parts = [s for s in split(c.text) if s.head]
        want = section.strip().lstrip("#").strip()
        for s in parts:
            if want in (s.head, slugify(s.head)) or want.lower() == s.head.lower():
                return s.text
        have = "; ".join(s.head for s in parts) or "none"
        raise UsageError(f"chapter {ch} has no section {section!r} (its sections: {have})")

    def search(self, query: str, limit: int = 10, kind: str = "") -> list[dict[str, Any]]:
        """The passages that match, best first; `kind` keeps one kind (chapter, glossary, map, source)."""
        q = check_question(query)
        if not isinstance(limit, int) or not 1 <= limit <= SEARCH_LIMIT:
            raise UsageError(f"limit must be a whole number from 1 to {SEARCH_LIMIT}")
        if kind and kind not in index.KINDS:
            raise UsageError(f"unknown kind {kind!r}: one of {', '.join(index.KINDS)}, or none for all")
        return [{"kind": p.kind, "chapter": p.chapter, "title": p.title, "section": p.section,
                 "link": p.link, "text": p.text,
                 "citations": [{"path": a, "lines": [x, z]} for a, x, z in p.cites],
                 "score": round(p.score, 3)} for p in index.search(self.index(), q, limit, (kind,) if kind else ())]

    def source(self, path: str, first: int = 1, last: int | None = None) -> dict[str, Any]:
        return read_lines(self.files, path, first, last)

    # ------------------------------------------------------------------ asking

    def ask(self, question: str, provider: str | None = None, record: str | None = "book ask") -> Answer:
        """The answer; kept in output/asked/ unless `record` is None (it names who asked)."""
        return asyncio.run(self.ask_async(question, provider, record))

    def _keep(self, a: Answer, record: str | None) -> None:
        if not record:
            return
        try:
            a.record = str(keep(self.root, a, self.revision_label, record).relative_to(self.root))
        except OSError as e:  # a read-only book is still asked; the record is what is lost, and said
            if self.progress:
                self.progress(f"the answer was not kept in output/asked/: {e.strerror or e}")

    async def ask_async(self, question: str, provider: str | None = None, record: str | None = "book mcp") -> Answer:
        """As `ask`, inside a running event loop (the MCP server's): the search in a thread, so that
        the server goes on answering while an index is built."""
        q = check_question(question)
        from ..providers import resolve_name

        name = resolve_name(provider, self.cfg)
        found = await asyncio.to_thread(lambda: index.search(self.index(), q, limit=24))
        a = extractive(q, found, self.files) if name == "offline" else await self._written(q, found, name)
        self._keep(a, record)
        return a

    async def _written(self, q: str, found: list, name: str) -> Answer:
        from ..providers import make_provider
        from ..providers.base import Request, Sink
        from .answer import SYSTEM

        provider = make_provider(name, self.cfg)
        model = self.cfg.model_for("asker")

        async def call(prompt: str) -> str:
            req = Request(role="asker", step="ask", chapter=None, system=SYSTEM, prompt=prompt, model=model,
                          max_tokens=4000)
            res = await provider.generate(req, Sink())
            return res.text

        try:
            return await written(q, found, self.files, call, model)
        finally:
            await provider.aclose()
