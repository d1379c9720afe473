"""The book's quality figures measured for a run (evidence.quality, with the repository map and
R1's index this run already holds), kept with what they were made of (state.quality_view) so that
the audit's staleness, the scan and the checkpoint read them without the map."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..checks.code import name_checks
from ..checks.diagrams import diagram_problems
from ..evidence.quality import TOP_SYMBOLS, Quality, Symbol, measure
from ..evidence.resolve import SourceFiles
from ..state import quality_view
from ..state.evidence_view import revision
from ..state.ready import complete_finals
from ..steps import AUDIT


def top_symbols(repo_map, n: int = TOP_SYMBOLS) -> list[Symbol]:
    """The map's `n` best ranked definitions, one per qualified name of a file."""
    out: list[Symbol] = []
    seen: set[tuple[str, str]] = set()
    for r in repo_map.ranked_definitions():
        d = r.definition
        if (r.rel, d.qualified_name) in seen:
            continue
        seen.add((r.rel, d.qualified_name))
        out.append(Symbol(r.rel, d.name, d.qualified_name or d.name, d.start_line, d.end_line))
        if len(out) >= n:
            break
    return out


# () -> (the repository map, R1's source index): what the run already holds (agents.context)
Tools = Callable[[], tuple[Any, Any]]


def measure_book(book, tools: Tools) -> Quality:
    """Measure the figures of the complete finals now and keep them (output/.book/quality.json)."""
    repo_map, index = tools()
    src = Path(book.cfg.source_dir)
    finals, claims = quality_view.texts(book)
    top = top_symbols(repo_map)
    symbol_problem, path_exists = name_checks(src, index)
    files = SourceFiles(src)
    q = measure(finals, src, claims=claims, revision=revision(book), top=top, files=files,
                diagram_problems=lambda code: diagram_problems(code, symbol_problem, path_exists))
    read = sorted(set(files.paths()) | {s.rel for s in top})
    quality_view.store(book, q, {rel: book.cache.body_hash(str(src / rel)) for rel in read})
    return q


def figures(book, tools: Tools) -> Quality:
    """The current figures: the kept ones while they are of the book and source as they are, else
    measured now (the auditor's prompt and file carry them)."""
    return quality_view.current(book) or measure_book(book, tools)


def refresh(book, tools: Tools) -> bool:
    """At a run's start: an audit already written whose figures may have moved (the source or a
    claims file changed since they were measured) gets them measured now, so that its staleness
    says whether they did. True when they were measured."""
    if book.cfg.file is None or book.scanner.outline is None or not complete_finals(book.scanner):
        return False
    if book.scanner.book_step(AUDIT).marker is None or quality_view.current(book) is not None:
        return False
    measure_book(book, tools)
    return True
