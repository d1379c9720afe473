"""What a constructor's parameter holds, read from the places the project makes the type (issue 35): a field
declared as an interface and filled from a parameter (pebble's `PebbleTemplateImpl(PebbleEngine engine,
RenderableNode root, String name)`, `this.rootNode = root`) holds what every `new PebbleTemplateImpl(…)` of the
project gives there, when they agree on one type that is no interface (`RootNode root = parser.parse(…)`). The
type's own instance methods make theirs from an instance made elsewhere (a copy, `new PebbleTemplateImpl(engine,
rootNode, name)`; a variant, `embedTemplate`'s `bodyNode`): the first instance is what the others make.
"""

from __future__ import annotations

import re
from typing import Any

from .codetext import call_args, top_split
from .project import Sym
from .signature import signature_parts

# how each language makes an object of a type `T` (`new T(`, `T.new(`, `T(`)
_MAKES = {"java": r"\bnew\s+T\s*(?:<[^<>()]*>)?\s*\(", "csharp": r"\bnew\s+T\s*(?:<[^<>()]*>)?\s*\(",
          "typescript": r"\bnew\s+T\s*(?:<[^<>()]*>)?\s*\(", "javascript": r"\bnew\s+T\s*\(",
          "ruby": r"(?<![\w:])T\.new\s*\(", "python": r"(?<![\w.])T\s*\(", "kotlin": r"(?<![\w.])T\s*\("}


def param_given(typer: Any, ctor: Sym, param: str) -> str:  # (valuetypes' Typer, which imports this module)
    """The one project type, no interface, the project's constructions of `ctor`'s type give its parameter
    `param`, or ''."""
    p = typer.p
    key = ("ctor_given", ctor.rel, ctor.d.start_line, param)
    if key in p._keys:
        return str(p._keys[key])
    p._keys[key] = ""
    names = [x.name for x in signature_parts(ctor)[0]]
    owner = re.split(r"\.|::", ctor.dotted)[-2] if "." in ctor.dotted or "::" in ctor.dotted else ""
    rx = _MAKES.get(ctor.lang)
    if param not in names or not owner or rx is None:
        return ""
    at, made = names.index(param), re.compile(rx.replace("T", re.escape(owner)))
    found: set[str] = set()
    for rel in [r for r in p.code_files() if p.lang(r) == ctor.lang]:  # (code, not its tests: kind "code")
        text = "\n".join(p.lines_of(rel))
        if owner not in text:
            continue
        for m in made.finditer(text):
            args = top_split(call_args(text, m.end() - 1), ",")
            if len(args) != len(names):
                continue  # (another overload)
            arg = args[at].strip()
            line = text.count("\n", 0, m.start()) + 1
            inside = [s for s in p.symbols(within=[rel]) if s.kind in ("method", "function", "constructor")
                      and s.d.start_line <= line <= s.d.end_line]
            if not inside:
                return ""
            where = min(inside, key=lambda s: s.lines)
            if re.split(r"\.|::", where.dotted)[-2:-1] == [owner] and where.short != owner \
                    and not re.search(r"\bstatic\b|\bdef\s+self\.", where.d.signature):
                continue  # (one of its own that makes another from itself: pebble's `embedTemplate`, given a `BodyNode`)
            found.add(typer.expr_type(where, arg))
    if len(found) == 1 and (t := found.pop()) and not typer._abstract(t):
        p._keys[key] = t
    return str(p._keys[key])
