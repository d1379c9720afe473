"""R1 for diagrams: every ```mermaid block must render (the supported subset, read strictly by
diagrams.mermaid) and every name it shows — node, participant, message, class, member — must
be a file or a definition of the source, checked with R1's own index as quoted code is.

A diagram whose labels are prose ("handles the request") is refused too: a picture in the
book is a picture of the code, so each label names something a reader can find. Both kinds
of finding block, as code that is not in the source does: the writer is asked again."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..diagrams.mermaid import MermaidError, is_path, parse
from ..text.markdown import code_blocks
from .findings import Collected, Finding

_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_PATH = re.compile(r"^(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)*/?$")


def check_diagrams(md: str, symbol_problem: Callable[[str], str | None],
                   path_exists: Callable[[str], bool]) -> list[Finding]:
    """Findings for the Mermaid blocks of `md`. `symbol_problem(name)` says why a name is not
    defined in the source (None: it is); `path_exists(path)` whether a file or directory is."""
    out = Collected()
    for b in code_blocks(md):
        if b.lang.lower() != "mermaid":
            continue
        for k, message in diagram_problems(b.code, symbol_problem, path_exists):
            out.add("r1.diagram", "blocking", b.line + k, f"the diagram at line {b.line} {message}")
    return list(out)


def diagram_problems(code: str, symbol_problem: Callable[[str], str | None],
                     path_exists: Callable[[str], bool]) -> list[tuple[int, str]]:
    """(line within the block, what is wrong) of one Mermaid block: it would not render, or a
    name it shows is not of the source. Empty: the diagram is valid."""
    try:
        d = parse(code)
    except MermaidError as e:
        return [(e.line, f"would not render: {e.message}")]
    out = []
    for k, what, name in d.identifiers():
        problem = name_problem(name, symbol_problem, path_exists)
        if problem:
            out.append((k, f"shows the {what} `{name}`, which {problem}"))
    return out


def name_problem(name: str, symbol_problem: Callable[[str], str | None],
                 path_exists: Callable[[str], bool]) -> str | None:
    if is_path(name):
        if _PATH.match(name) and path_exists(name):
            return None
        if "/" in name or not _NAME.match(name):
            return "does not exist in the source" if _PATH.match(name) else "is not a path of the source"
        # `res.json`, `config.toml`: a file at the top, or a member named like an extension
    if not _NAME.match(name):
        return "is not a name of the source (a diagram's labels name its definitions or files)"
    problem = symbol_problem(name)
    return f"is not in the source: {problem}" if problem else None
