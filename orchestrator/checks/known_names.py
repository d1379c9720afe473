"""What R1 knows lies outside the source and is still not unknown code: the project around the
source (its README and guides, the paths in them), the standard modules the source imports (their
names read from their own source with `ast`, nothing imported) and what hangs off an imported
library's alias (`t.Any` of `import typing as t`), which R1 cannot see into and so does not judge."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .code import _Index

_TEXT_LIMIT = 1 << 20  # characters kept of one README or guide
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def project_texts(root: Path) -> list[str]:
    """The README and guides of the project around the source (above `src/pkg`): names a
    chapter takes from them are the project's own words, not unknown code."""
    from ..repo.project import discover

    try:
        info = discover(root)
    except OSError:
        return []
    out = []
    for rel in ([info.readme] if info.readme else []) + list(info.docs)[:40]:
        if info.in_source(rel) is not None:
            continue  # inside the source: indexed with it
        try:
            out.append(info.read(rel)[:_TEXT_LIMIT])
        except (OSError, ValueError):
            continue
    return out


def external_alias(head: str, idx: _Index) -> bool:
    """`head` is bound by an import of a module outside the source (`t` of `import typing as t`):
    what hangs off it is that library's, and R1 cannot see into it, so it does not judge it."""
    return any(m.split(".")[0] not in idx.modules for m in idx.aliases.get(head, ()))


def stdlib_member(name: str, idx: _Index) -> bool:
    """`name` is defined by a standard module the source imports (`IntEnum` of `import enum`)."""
    tops = {m.split(".")[0] for ms in idx.aliases.values() for m in ms}
    return any(name in stdlib_names(t) for t in tops if t in sys.stdlib_module_names)


_STDLIB_NAMES: dict[str, frozenset[str]] = {}


def stdlib_names(module: str) -> frozenset[str]:
    """The top-level names a standard module defines, read from its source with `ast` (nothing is
    imported, so the answer is the same in every process); a built-in module's from the
    interpreter, where it is always the same."""
    if module not in _STDLIB_NAMES:
        import importlib.util

        names: set[str] = set()
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None) or ""
        if origin == "frozen":  # os, codecs...: frozen into the interpreter, their source still on disk
            origin = getattr(getattr(spec, "loader_state", None), "filename", None) or ""
        if origin.endswith(".py"):
            try:
                body = list(ast.parse(Path(origin).read_bytes()).body)
                while body:  # the module's level, also inside `if`/`try` (os defines most of itself so)
                    node = body.pop()
                    for attr in ("body", "orelse", "finalbody", "handlers"):
                        if not isinstance(node, _DEFS) and isinstance(more := getattr(node, attr, None), list):
                            body += more
                    if isinstance(node, _DEFS):
                        names.add(node.name)
                    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
                    elif isinstance(node, (ast.Import, ast.ImportFrom)):
                        names.update((a.asname or a.name).split(".")[0] for a in node.names)
            except (OSError, SyntaxError, ValueError):
                pass
        elif module in sys.builtin_module_names:
            names.update(dir(sys.modules.get(module) or __import__(module)))
        _STDLIB_NAMES[module] = frozenset(names)
    return _STDLIB_NAMES[module]


_PROJECT_ROOTS: dict[str, Path] = {}


def in_project(cand: str, root: Path) -> bool:
    """A path of the project around the source (README.md, docs/, CHANGES.md above `src/pkg`):
    the project is part of what a book explains (repo/project.py)."""
    from ..repo.project import find_root

    key = str(root)
    if key not in _PROJECT_ROOTS:
        _PROJECT_ROOTS[key] = find_root(root)
    proj = _PROJECT_ROOTS[key]
    if proj == root.resolve():
        return False
    full = (proj / cand).resolve()
    return full.is_relative_to(proj) and full.exists()
