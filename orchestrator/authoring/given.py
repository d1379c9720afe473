"""The type of an untyped parameter from what its callers pass (issue 35): i18n's private
`translate_key(key, throw, raise, locale, backend, options)` is called only by `translate`, with the
`backend = config.backend` it read, so `backend.translate(…)` is `Backend::Simple`'s. Read by
valuetypes.Typer as one more way a name gets its type."""

from __future__ import annotations

import re
from typing import Any

from .codetext import call_args, top_split
from .project import Sym

MAX_CALLER_LINES = 200  # a caller longer than this is not read for the arguments it passes


def given_type(typer: Any, s: Sym, name: str, depth: int, max_depth: int = 5) -> str:
    """The type of parameter `name` of a private Ruby or Python method that declares none, where every
    call of it in its own file passes one; a public one is called from anywhere, with anything
    (addressable's `URI.parse(uri)` takes a string too). '' when they differ or one is not read."""
    if s.lang not in ("ruby", "python") or depth >= max_depth or "." not in s.dotted:
        return ""
    # a class the callers hand in to be made (tty-prompt's public `invoke_question(object, …)` makes `object.new(…)`,
    # given `Question` by `ask` and a subclass of it by `keypress`, `multiline`, …): the base they share, whoever calls it
    made = s.lang == "ruby" and bool(re.search(rf"(?<![\w$.@]){re.escape(name)}\s*\.\s*new\b", typer.code_of(s)))
    if s.d.exported and not made:
        return ""
    from .signature import signature_parts

    at = next((k for k, prm in enumerate(signature_parts(s)[0]) if prm.name.lstrip("*&") == name), -1)
    if at < 0:
        return ""
    rx = re.compile(rf"(?<![\w$]){re.escape(s.short)}\s*\(")
    found = set()
    for c in typer.p.symbols(within=[s.rel]):
        if c is s or c.kind not in ("method", "function") or c.d.end_line - c.d.start_line > MAX_CALLER_LINES:
            continue
        code = typer.code_of(c)
        for m in rx.finditer(code, code.find("\n") + 1):
            args = top_split(call_args(code, m.end() - 1), ",")
            if at >= len(args) or re.match(r"\s*\*|\s*\w+\s*=(?!=)|\s*\w+:(?!:)", args[at]):
                return ""  # (a keyword or spread argument: not read)
            found.add(typer.expr_type(c, args[at], depth + 1))
    found.discard("")
    if len(found) > 1 and made:
        base = [t for t in found if all(t == u or t in _ancestors(typer, u) for u in found)]
        return base[0] if len(base) == 1 else ""
    return found.pop() if len(found) == 1 else ""


def _ancestors(typer: Any, typ: str) -> set[str]:
    out: set[str] = set()
    todo = [typ]
    while todo and len(out) < 50:
        for b in typer.bases(todo.pop()):
            if b not in out:
                out.add(b)
                todo.append(b)
    return out
