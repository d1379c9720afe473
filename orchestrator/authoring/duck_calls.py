"""Calls on a receiver of no known type in a language without declared types (issue 35): what the map may
still say of `x.name(…)` from the names alone."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .project import Sym

if TYPE_CHECKING:
    from .valuetypes import Typer

_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*")


def duck_call(by_short: dict[str, list[Sym]], typer: Typer, receiver: str, name: str) -> list[Sym]:
    """The method `receiver.name(…)` calls when its receiver's type is unknown: a name of three words one or two
    methods of the project have (liquid's `parse_context.new_block_body`); or, where the receiver is named for
    a kind of the project's classes (`operation`: `AddOperation`, `RemoveOperation` under `PatchOperation`;
    `engine`: `RenderEngine`), that class's method, or the base's that the others override (jsonpatch's
    `operation.apply(obj)` runs one operation's `apply`: `PatchOperation.apply` says which); a class, not a
    table of functions (fast-xml-parser's `options.isArray(…)` is no `defaultOptions.isArray`); in Ruby, a method the
    project gives every object."""
    methods = [x for x in by_short.get(name, ()) if x.kind == "method"]
    # every Ruby object is an `Object` and includes `Kernel`: a method the project adds to either (awesome_print's
    # `module Kernel; def ai`) is what `object.ai(options)` calls, when no class of the project has its own
    every = [x for x in methods if x.lang == "ruby" and x.dotted.rsplit(".", 1)[0] in ("Kernel", "Object")]
    if every and len(every) == len(methods):
        return every[:1]
    if len(_WORDS.findall(name)) >= 3:
        return methods[:2]
    kind = "".join(w[:1].upper() + w[1:] for w in receiver.strip("_@").split("_") if w)  # (`parse_context`, `parseContext`)
    if len(kind) < 4 or not kind.isalpha():
        return []
    owners = {x.dotted.rsplit(".", 1)[0]: x for x in methods if "." in x.dotted
              and re.search(rf"(?:^|\.)\w*{kind}$", x.dotted.rsplit(".", 1)[0]) and typer.is_type(x.dotted.rsplit(".", 1)[0])}
    if len(owners) == 1:
        return list(owners.values())
    # the one whose class every other one's derives from
    top = [x for o, x in owners.items() if all(o == q or o.rsplit(".", 1)[-1] in typer.bases(q) for q in owners)]
    return top[:1]
