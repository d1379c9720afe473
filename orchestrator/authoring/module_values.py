"""What a name at a file's top level holds, for valuetypes.Typer: the type of a value the file binds there
(marked's `const markedInstance = new Marked()`), and whether a name is one of the project's modules (`parser.Parser()`)."""

from __future__ import annotations

import re
from typing import Any

from .project import Project, Sym


def module_value(typer: Any, s: Sym, name: str, depth: int, max_depth: int) -> str:
    """The type of a value the file binds at its top (marked's `const markedInstance = new Marked()`), or a `let`
    there that its functions assign (nunjucks's `let e;`, `e = new Environment(…)` in `configure`)."""
    if s.lang not in ("javascript", "typescript", "tsx", "python", "go") or depth >= max_depth:
        return ""  # (Go's package-level `var std = New()`: logrus's exported functions call `std.Info(…)`)
    ind = r"\s*" if any(re.match(rf"(?:let|var)\s+{re.escape(name)}\s*;", ln) for ln in typer.p.lines_of(s.rel)) else ""
    rx = re.compile(rf"^{ind}(?:export\s+)?(?:(?:const|let|var)\s+)?{re.escape(name)}\s*(?::[^=\n]*)?=(?![=>])\s*(.+?);?\s*$")
    found = {typer.expr_type(s, m.group(1), depth + 1) for ln in typer.p.lines_of(s.rel) if (m := rx.match(ln))}
    if s.lang == "go":  # declared with its type alone (fastjson's `var handyPool ParserPool`)
        found |= {typer.type_in_text(m.group(1), "") for ln in typer.p.lines_of(s.rel)
                  if (m := re.match(rf"var\s+{re.escape(name)}\s+\*?([A-Z]\w*)\s*(?://.*)?$", ln))}
    found.discard("")
    return found.pop() if len(found) == 1 else ""


def module_named(p: Project, name: str) -> bool:
    """`name` is one of the project's modules (a file or package of that name)."""
    key = ("vt_modules",)
    if key not in p._keys:
        p._keys[key] = {part for rel in p.code_files() for part in rel.rsplit(".", 1)[0].split("/")}
    return name in p._keys[key]
