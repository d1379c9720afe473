"""A generic base's result, bound by the subclass a call is made on: feign's
`Builder extends BaseBuilder<Builder, Feign>` makes `build()`, declared `T` in `BaseBuilder<B, T>`,
a `Feign`, so `build().newInstance(target)` is `Feign.newInstance`."""

from __future__ import annotations

import re
from collections.abc import Callable

from .project import Sym
from .signature import java_result, owner, signature_parts


def bound_result(by_dotted: dict[str, list[Sym]], is_type: Callable[[str], bool], typ: str, hit: Sym) -> str:
    """For a method `typ` has from a generic base whose declared result is one of the base's type
    parameters, the argument `typ`'s own declaration gives that parameter (a project type); else ''."""
    base = owner(hit)
    if not base or base == typ or hit.lang not in ("java", "csharp", "kotlin", "typescript"):
        return ""
    declared = (java_result(hit) if hit.lang in ("java", "csharp") else signature_parts(hit)[1]).strip()
    params = [re.match(r"\s*(?:in\s+|out\s+)?([A-Za-z_]\w*)", a) for a in angle_args(by_dotted, base, base)]
    names = [m.group(1) if m else "" for m in params]
    if declared not in names:
        return ""
    given = angle_args(by_dotted, typ, base.split(".")[-1])
    arg = given[names.index(declared)].strip() if len(given) == len(names) else ""
    arg = re.split(r"\s*<", arg)[0].split(".")[-1]
    return arg if arg and is_type(arg) else ""


def angle_args(by_dotted: dict[str, list[Sym]], typ: str, name: str) -> list[str]:
    """The type arguments (or parameters) written `name<…>` in the declaration of class `typ`,
    split at their top-level commas."""
    for t in by_dotted.get(typ, ()):
        if t.kind not in ("class", "struct", "interface"):
            continue
        head = " ".join(t.d.signature.split()).split("{", 1)[0]
        m = re.search(rf"(?<![\w.]){re.escape(name)}\s*<", head)
        if m is None:
            continue
        depth, parts, cur = 0, list[str](), ""
        for ch in head[m.end():]:
            if ch == "<":
                depth += 1
            elif ch == ">":
                if depth == 0:
                    return parts + [cur]
                depth -= 1
            elif ch == "," and depth == 0:
                parts, cur = parts + [cur], ""
                continue
            cur += ch
    return []


def given_class(is_type: Callable[[str], bool], hit: Sym, args: list[str]) -> str:
    """The class a generic function gives back when it is handed that class: class-validator's
    `getFromContainer<T>(someClass: { new (...args: any[]): T } | Function): T`, called as
    `getFromContainer(Validator)`, gives a `Validator` (Java's `<T> T get(Class<T> type)`, `get(Foo.class)`,
    alike); else ''."""
    params, result = signature_parts(hit)
    result = (java_result(hit) if hit.lang in ("java", "csharp") else result).strip()
    if not re.fullmatch(r"[A-Z]\w{0,2}", result):
        return ""
    t = re.escape(result)
    for k, prm in enumerate(params[:len(args)]):  # (Java writes the type first: `Class<T> type`)
        typ = prm.type or prm.name
        if re.search(rf"\bnew\s*\([^()]*\)\s*(?::|=>)\s*{t}\b|\b(?:Class|Type|KClass)\s*<\s*{t}\s*>", typ):
            arg = re.sub(r"\.class$|::class(?:\.java)?$", "", args[k].strip())
            name = arg.split(".")[-1]
            return name if re.fullmatch(r"[A-Z]\w*", name) and is_type(name) else ""
    return ""
