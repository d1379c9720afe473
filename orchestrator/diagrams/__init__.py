"""Diagrams from the repository map, in Mermaid (what GitHub, mkdocs and the site render):
`mermaid` reads the supported subset strictly, `svg` draws it at build time (no script, no
network: the site, the EPUB and the PDF take the same static image), `generate` makes the
diagrams of a chapter and of the book's overview from the map's definitions and resolved calls.

`for_chapter` and `for_overview` are imported on use: the checks and the publisher read
Mermaid without loading the map's code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .mermaid import Diagram, MermaidError, parse

if TYPE_CHECKING:
    from ..authoring.project import Project, Sym
    from .generate import Calls

__all__ = ["Diagram", "MermaidError", "for_chapter", "for_overview", "parse", "parts_block", "path_block", "render_svg",
           "subsystems_block"]


def render_svg(source: str, title: str = "", uid: str = "") -> str:
    """The static SVG of a Mermaid block; MermaidError when it is not in the subset."""
    from .svg import render

    return render(source, title, uid)


def for_chapter(p: Project, files: list[str], key: list[Sym], calls: Calls, lang: str = "en") -> list[str]:
    """Markdown lines (a sentence and a ```mermaid block per diagram) for a chapter of `files`
    whose key symbols are `key`; [] when the map gives nothing worth drawing. `calls(p, sym,
    code)` is the map's call resolution (authoring.codeinfo.resolved_calls)."""
    from .generate import for_chapter as make

    return make(p, files, key, calls, lang)


def for_overview(p: Project, calls: Calls, lang: str = "en", operation: list[Sym] | None = None) -> list[str]:
    """Markdown lines for the book's overview: the parts and their dependencies, and the path
    of the central operation: the first of `operation` (the symbols the planner chose, e.g.
    `TinyDB.insert`) whose calls go somewhere, else the entry point or public API whose calls
    cross the most files."""
    from .generate import for_overview as make

    return make(p, calls, lang, operation)


def parts_block(p: Project) -> str:
    """The ```mermaid block of the project's parts and what each uses, or '' (one part)."""
    from .generate import fenced, parts_graph

    return fenced(parts_graph(p))


def subsystems_block(nodes: list[tuple[str, str]], edges: list[tuple[int, int, str]]) -> str:
    """The ```mermaid block of the project's parts: (role, name) nodes and (from, to, name called)
    edges, as authoring.overview groups them; '' when there is nothing to draw."""
    from .generate import fenced, subsystems_graph

    return fenced(subsystems_graph(nodes, edges))


def path_block(path: list[Sym], before: dict[tuple[str, int], Sym] | None = None) -> str:
    """The ```mermaid block of a chain of resolved calls (each calls the next, as the overview's
    central path is found): a sequence between types and files, a tree inside one; '' for less
    than one call."""
    from .generate import chain, fenced

    return fenced(chain(path, before))
