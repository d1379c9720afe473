"""C#'s extension methods: `static R M(this T x, …)` in a static class, and the methods of C# 14's
`extension(T x) { … }` blocks. A value of type T takes them as its own: RestSharp's README calls
`client.GetAsync(request)` on a `RestClient`, and `GetAsync` is `RestClientExtensions`' method for any
`IRestClient`. The map knows them as the static class's methods; this reads whose they are."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .arity import arity, takes_count
from .example_args import inferred
from .project import Project, Sym
from .signature import signature_parts

_THIS = re.compile(r"\(\s*this\s+([A-Za-z_][\w.]*)(?:<[^()]*>)?\??\s+([A-Za-z_]\w*)")
_BLOCK = re.compile(r"^\s*extension\s*(?:<[^>()]*>)?\s*\(\s*([A-Za-z_][\w.]*)(?:<[^()]*>)?\??\s+([A-Za-z_]\w*)\s*\)\s*\{?\s*$")


def receiver(p: Project, s: Sym) -> tuple[str, str] | None:
    """(the receiver's type, without its namespace or type arguments; its name) of an extension method, else None."""
    if s.lang != "csharp" or s.kind != "method":
        return None
    if m := _THIS.search(s.d.signature):
        return m.group(1).rsplit(".", 1)[-1], m.group(2)
    lines = p.lines_of(s.rel)
    if not 0 < s.d.start_line <= len(lines):
        return None
    indent = _indent(lines[s.d.start_line - 1])
    for ln in reversed(lines[:s.d.start_line - 1]):  # the block around it: the first line indented less
        if not ln.strip() or _indent(ln) >= indent or ln.strip() == "{":
            continue
        m = _BLOCK.match(ln)
        return (m.group(1).rsplit(".", 1)[-1], m.group(2)) if m else None
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def extension_members(p: Project, bases: Callable[[str], Iterable[str]], typ: str, name: str) -> list[Sym]:
    """The extension methods named `name` of `typ` or of a type it extends or implements."""
    found = _index(p).get(name)
    if not found:
        return []
    types: set[str] = set()
    todo = [typ.rsplit(".", 1)[-1]]
    while todo and len(types) < 50:
        t = todo.pop()
        if t not in types:
            types.add(t)
            todo.extend(b.rsplit(".", 1)[-1] for b in bases(t))
    return [x for x, r in found if r in types]


def is_extension(p: Project, x: Sym) -> bool:
    return x.lang == "csharp" and any(y is x for y, _r in _index(p).get(x.short, ()))


def _index(p: Project) -> dict[str, list[tuple[Sym, str]]]:
    """Name → the project's extension methods of that name, each with its receiver's type (read once)."""
    key = ("extension_methods",)
    if key not in p._keys:
        index: dict[str, list[tuple[Sym, str]]] = {}
        blocks = {rel for rel, (lang, _kind) in p.files.items() if lang == "csharp"
                  and any(_BLOCK.match(ln) for ln in p.lines_of(rel))}
        for x in p.symbols():
            if x.lang == "csharp" and ("this " in x.d.signature or x.rel in blocks) and (r := receiver(p, x)):
                index.setdefault(x.short, []).append((x, r[0]))
        p._keys[key] = index
    return p._keys[key]


def with_extensions(p: Project, bases: Callable[[str], Iterable[str]], typ: str, name: str, args: str,
                    hit: list[Sym], typed: bool = False) -> list[Sym]:
    """The type's own methods so named, when one takes these arguments; else the extension methods
    of it or of a type it extends that do (`client.ExecuteAsync(request, Method.Get, ct)` on an
    `IRestClient`, whose own `ExecuteAsync` takes two). A call without type arguments (not `typed`)
    runs no generic method whose arguments do not tell its type parameters (`ExecuteGetAsync<T>(request)`)."""
    n = arity(args)
    if any(takes_count(x, n) and not is_extension(p, x) for x in hit):
        return hit
    found = [x for x in extension_members(p, bases, typ, name) if takes_count(x, n) and (typed or inferred(x))]
    exact = [x for x in found if len(signature_parts(x)[0]) == n]
    return (exact if len(found) > 1 and exact else found) or hit
