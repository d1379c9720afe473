"""A Rust format crate's deserializer driven by serde (issue 35): ron's `from_str_seed` ends in
`seed.deserialize(&mut deserializer)`, and serde's `Deserialize` of the type asked for then calls the deserializer's
`deserialize_*` methods; for a value whose shape the data tells, its `deserialize_any`. The call graph cannot see
this (serde's code is not the project's); the hop names that method of the deserializer's type."""

from __future__ import annotations

import re

from .project import Project, Sym

_DRIVEN = re.compile(r"\.\s*deserialize\s*\(\s*&mut\s+([a-z_]\w*)\s*\)|::deserialize\s*\(\s*&mut\s+([a-z_]\w*)\s*\)")


def serde_driven(p: Project, s: Sym) -> list[tuple[Sym, int, str, str, None]]:
    """(the deserializer type's `deserialize_any`, the call's line, "serde", what the line calls, None) for each
    `x.deserialize(&mut d)` / `T::deserialize(&mut d)` of `s` whose `d` is a local of a project type."""
    if s.lang != "rust":
        return []
    from .callres import Resolver
    from .codeinfo import _sym_index
    from .uses import rust_type_narrowed

    lines = p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]
    out: list[tuple[Sym, int, str, str, None]] = []
    typer = None
    for k, text in enumerate(lines):
        m = _DRIVEN.search(text)
        if m is None:
            continue
        typer = typer or Resolver(p, s, *_sym_index(p)).typer()
        var = m.group(1) or m.group(2)
        # (`let mut deserializer = Deserializer::from_str_with_options(s, self)?;` gives a `SpannedResult<Self>`
        # before the `?`: the type the call is made on is the deserializer's)
        made = re.search(rf"\blet\s+(?:mut\s+)?{var}\s*=\s*([A-Z]\w*)::(\w+)\s*\(", "\n".join(lines[:k + 1]))
        hits: list[Sym] = []
        for typ in [t for t in (typer.local_type(s, var), made.group(1) if made else "") if t]:
            hits = hits or rust_type_narrowed(p, s, typ, typer.member(typ, "deserialize_any"))
        if len(hits) > 1 and made:  # (of several types so named, the one whose constructor made it: ron's de/mod.rs)
            home = {x.rel for x in p.find(made.group(2)) if x.dotted == f"{made.group(1)}.{made.group(2)}"}
            hits = [x for x in hits if x.rel in home] or hits
        if len(hits) == 1:
            out.append((hits[0], s.d.start_line + k, "serde", "deserialize", None))
    return out
