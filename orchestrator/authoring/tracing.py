"""Where chapter 1's traced path touches the code: the line of a caller that makes each call,
and the call at the end that the map cannot resolve (where the docs must take over)."""

from __future__ import annotations

import re

from .project import Project, Sym


def call_line(p: Project, caller: Sym, callee: Sym) -> int:
    """The line of `caller`'s body that calls `callee` (0 when the name is not written there); its
    docstring's and comments' "See `httpx.request`" are no call (references.code_lines)."""
    from .references import code_lines

    lines = code_lines(p, caller.rel)
    rx = re.compile(rf"(?<![\w$]){re.escape(callee.short)}\s*(?:!\s*)?[(<\[]|\.{re.escape(callee.short)}(?![\w$])")
    for n in range(caller.d.start_line + 1, min(caller.d.end_line, len(lines)) + 1):
        if rx.search(lines[n - 1]):
            return n
    return 0


_BUILTIN_CALLS = frozenset({"len", "print", "str", "int", "isinstance", "append", "get", "format", "Errorf", "Sprintf",
                            "make", "new", "panic", "super", "require", "push", "join", "keys", "items", "map", "list",
                            "dict", "set", "tuple", "range", "type", "getattr", "setattr", "hasattr", "Some", "Ok", "Err",
                            "unwrap", "clone", "into", "to_string", "String", "Error", "Object", "Array", "fmt"})


def unresolved_tail(p: Project, last: Sym) -> tuple[str, int] | None:
    """(call, line) of the last call `last` makes that the map does not resolve to a definition of
    the source (an interface's method, another package's function): where the traced path leaves
    what the map can follow, and the docs must take over. None when every call resolves."""
    from .facts import all_calls

    known = {c.short for c in all_calls(p, last)}
    lines = p.lines_of(last.rel)
    found: tuple[str, int] | None = None
    for n in range(last.d.start_line + 1, min(last.d.end_line, len(lines)) + 1):
        text = lines[n - 1].split("//", 1)[0].split(" #", 1)[0]
        for m in re.finditer(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*\(", text):
            name = m.group(1)
            short = name.rsplit(".", 1)[-1]
            if short not in known and short not in _BUILTIN_CALLS and not short.startswith("_") and len(short) > 2:
                found = (name, n)
    return found
