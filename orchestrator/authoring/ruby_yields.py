"""A Ruby method handed a block made of a symbol, `&:name`, runs `name` on what it yields (issue 35): pundit's
`policy!(record)` is `cached_find(record, &:policy!)`, and `cached_find` does `klass = yield policy_finder(record)`,
so the work goes on in `PolicyFinder#policy!`, on the `PolicyFinder` that `policy_finder` makes. Apart from
ruby_blocks, which valuetypes reads: this one reads calls (callres), and a module may not import its readers."""

from __future__ import annotations

import re

from .project import Project, Sym

_SYMBOL_BLOCK = re.compile(r"(?<![\w.@:])([a-z_]\w*[!?]?)\s*\(([^()\n]*?),?\s*&:([a-z_]\w*[!?]?)\s*\)")
_YIELD = re.compile(r"\byield\s*\(?\s*([a-z_]\w*)")


def yielded(p: Project, s: Sym) -> list[tuple[Sym, int, str, str, tuple[str, int] | None]]:
    """(the method the symbol names, on the type of what the callee yields, the line, "yielded", the call, where the
    callee yields) for each call of a method of `s`'s own type given `&:name`."""
    if s.lang != "ruby" or "." not in s.dotted:
        return []
    from .callres import Resolver
    from .codeinfo import _sym_index

    owner = s.dotted.rsplit(".", 1)[0]
    index = _sym_index(p)
    by_dotted = index[0]
    out: list[tuple[Sym, int, str, str, tuple[str, int] | None]] = []
    for k, line in enumerate(p.lines_of(s.rel)[s.d.start_line:s.d.end_line], s.d.start_line + 1):
        for m in _SYMBOL_BLOCK.finditer(line):
            callee = [x for x in by_dotted.get(f"{owner}.{m.group(1)}", ()) if x.kind == "method"]
            if len(callee) != 1:
                continue
            body = p.lines_of(callee[0].rel)[callee[0].d.start_line - 1:callee[0].d.end_line]
            given = [(j, y) for j, ln in enumerate(body, callee[0].d.start_line) for y in [_YIELD.search(ln)] if y]
            if len(given) != 1:
                continue  # (no yield, or several things yielded: which runs is the block's caller's choice)
            at, y = given[0]
            maker = [x for x in by_dotted.get(f"{owner}.{y.group(1)}", ()) if x.kind == "method"]
            typer = Resolver(p, callee[0], *index).typer()
            typ = typer.result_type(maker[0]) if len(maker) == 1 else ""
            hit = [x for x in typer.member(typ, m.group(3)) if x.kind == "method"] if typ else []
            if len(hit) == 1 and hit[0] is not s:
                # (tied to the line that makes the value, which names its type: `PolicyFinder.new(record)`)
                made = next((j for j, ln in enumerate(p.lines_of(maker[0].rel)[maker[0].d.start_line - 1:maker[0].d.end_line],
                                                      maker[0].d.start_line) if re.search(rf"\b{re.escape(typ.rsplit('.', 1)[-1])}\b", ln)), 0)
                tie = (maker[0].rel, made) if made else (callee[0].rel, at)
                out.append((hit[0], k, "yielded", f"{m.group(1)}(…, &:{m.group(3)})", tie))
    return out
