"""Calls through a table of functions (issue 35): json5's `lexStates[lexState]()`, where `lexStates` is the module's
own `const lexStates = { default () {…}, value () {…}, … }` and the body has just set `lexState = 'default'`. The
call runs the member the key names; the hop names that member, tied to the line that set the key."""

from __future__ import annotations

import re

from .project import Project, Sym


def table_calls(p: Project, s: Sym) -> list[tuple[Sym, int, str, str, tuple[str, int]]]:
    """(member, the call's line, "table", `table[key]`, (file, the line that set the key)) of each call `s` makes into
    a table of functions by a key it set to a literal before the call: the fields of a hops.Hop."""
    if s.lang not in ("javascript", "typescript"):
        return []
    body = list(enumerate(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line], s.d.start_line))
    out: list[tuple[Sym, int, str, str, tuple[str, int]]] = []
    for k, (n, text) in enumerate(body):
        for m in re.finditer(r"(?<![\w$.])([A-Za-z_$][\w$]*)\[\s*([A-Za-z_$][\w$]*)\s*\]\s*\(", text):
            table, key = m.group(1), m.group(2)
            # the key's last value before the call, a literal (`lexState = 'default'`)
            set_at = [(j, v.group(1)) for j, t in body[:k + 1] for v in [re.match(rf"\s*{re.escape(key)}\s*=\s*['\"](\w+)['\"]", t)] if v]
            if not set_at:
                continue
            j, name = set_at[-1]
            hit = [x for x in p.find(name) if x.dotted == f"{table}.{name}" and x.rel == s.rel and x.kind == "method"]
            if len(hit) == 1:
                out.append((hit[0], n, "table", f"{table}[{key}]", (s.rel, j)))
    return out


def convention_calls(p: Project, s: Sym) -> list[tuple[Sym, int, str, str, tuple[str, int] | None]]:
    """The hops of `s` by a table of functions, then by serde driving a deserializer (serde_hops), then by a
    standard library parser calling its subclass back (parser_callbacks), then by a Ruby symbol block run on what a
    method yields (ruby_yields)."""
    from .parser_callbacks import called_back
    from .ruby_yields import yielded
    from .serde_hops import serde_driven

    return [*table_calls(p, s), *serde_driven(p, s), *called_back(p, s), *yielded(p, s)]
