"""What a Ruby block's parameter is (issue 35): the value the method the block is given yields. `CSV.foreach`
runs `open(path, mode) do |csv| csv.each(&block) end`, and `CSV.open` makes `csv = new(file, **options)` and
`yield csv`: the block's `csv` is a CSV, so `csv.each` is `CSV#each`. Text-based, as valuetypes is: one
`yield` of one local whose type the method's own code says, or nothing."""

from __future__ import annotations

import re
from typing import Any

from .project import Sym


def block_param_type(typer: Any, s: Sym, name: str, depth: int) -> str:
    """The project type of `name` when `s`'s body binds it as the parameter of a block it hands a method of the
    project (`open(…) do |name|`, `Foo.bar { |name, i| … }`); '' otherwise."""
    if s.lang != "ruby":
        return ""
    code = typer.code_of(s)
    m = re.search(rf"(?<![\w.:@$])((?:[A-Z][\w:]*|self)\s*\.\s*)?([a-z_]\w*[!?]?)\s*(\((?:[^()\n]|\([^()\n]*\))*\))?\s*"
                  rf"(?:do|\{{)\s*\|\s*{re.escape(name)}\s*[|,]", code)
    if m is None:
        return ""
    raw = ((m.group(1) or "").replace(" ", "") + m.group(2)).replace("::", ".")
    hit = typer.resolver_for(s).resolve(raw, False, (m.group(3) or "()")[1:-1])
    if hit is None or hit.lang != "ruby":
        return ""
    yielded = set(re.findall(r"(?m)^\s*yield[ (]\s*([a-z_]\w*)\s*\)?\s*$", typer.code_of(hit)))
    if len(yielded) != 1:
        return ""
    return str(typer.local_type(hit, yielded.pop(), depth + 1))
