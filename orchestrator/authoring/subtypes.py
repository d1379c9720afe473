"""Types and their subtypes as the declarations say (issue 35): an abstract or interface method
without a body of its own, a type that extends or implements another, and which of several
implementations the example's own calls make. hops.implemented reads them."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym


def _owner(s: Sym) -> str:
    return s.dotted.rsplit(".", 1)[0] if "." in s.dotted else ""


def bodiless(p: Project, s: Sym) -> bool:
    """An abstract or interface method: a declaration with no body of its own."""
    text = "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])
    if s.lang == "python":
        from .references import code_lines

        lines = p.lines_of(s.rel)  # (its span may open at its decorators; its docstring and comments are blanked)
        head = next((k for k in range(s.d.start_line - 1, s.d.end_line) if re.match(r"\s*(?:async\s+)?def\b", lines[k])), s.d.start_line - 1)
        body = [ln.strip() for ln in code_lines(p, s.rel)[head + 1:s.d.end_line] if ln.strip() and not re.fullmatch(r"\s*[rbuf]*[\"'][\"'\s]*", ln, re.I)]  # (a docstring, blanked)
        return any("abstractmethod" in ln for ln in lines[max(0, head - 3):head]) or \
            bool(body) and re.fullmatch(r"raise NotImplementedError\b.*|\.\.\.|pass", body[0]) is not None and len(body) == 1
    if s.lang == "go":  # an interface's method: its spec, no `func`
        return not s.d.signature.lstrip().startswith("func")
    return s.lang in ("java", "csharp", "typescript", "kotlin", "scala", "swift") and "{" not in text.split("=>")[0]


def subtype(p: Project, sub: str, sup: str, depth: int = 3) -> bool:
    """Type `sub` extends or implements `sup` (its declaration names it), directly or through a few."""
    if depth == 0:
        return False
    key = ("subtype", sub, sup, depth)  # (asked for every pair of a type's implementations: easy-random's 200 randomizers)
    if key not in p._keys:
        p._keys[key] = any(sup.rsplit(".", 1)[-1] in named or any(subtype(p, n, sup, depth - 1) for n in named if n != sub)
                           for named in _named_bases(p, sub))
    return bool(p._keys[key])


def _named_bases(p: Project, sub: str) -> list[set[str]]:
    """The names each declaration of type `sub` extends or implements."""
    key = ("named_bases", sub)
    if key not in p._keys:
        out = []
        for t in (x for x in p.find(sub.rsplit(".", 1)[-1]) if x.dotted == sub and x.kind in ("class", "struct", "interface")):
            head = re.split(r"\{", " ".join(t.d.signature.split()), maxsplit=1)[0]
            m = re.search(r"\b(?:extends|implements)\b(.*)$|\bclass\s+\w+(?:<[^{]*?>)?\s*[:(](.*)$", head)
            out.append(set(re.findall(r"[A-Za-z_]\w*", (m.group(1) or m.group(2) or "") if m else "")))
        p._keys[key] = out
    return list(p._keys[key])


def made(p: Project, roots: list[Sym]) -> list[Sym]:
    """Of several implementations, those whose type a method the example calls constructs, else those of a value
    the example hands over (all when none);
    in Go, of types of one name, the one of the package whose constructor the example calls (`html.NewRenderer`)."""
    from .example_made import made_by_example, valued_types

    hit = [x for x in roots if _owner(x) in made_by_example(p, [_owner(x)])] or \
        [x for x in roots if _owner(x).rsplit(".", 1)[-1] in valued_types(p)] or roots  # (`jwt.SigningMethodHS256`)
    if len(hit) > 1 and all(x.lang == "go" for x in hit):
        hit = [x for x in hit if _made_in_package(p, x)] or hit
    return hit


def made_how(p: Project, x: Sym) -> str:
    """How the example chose implementation `x` (subtypes.made): "made" by its calls, or "handed" over as a value the
    project names (`jwt.SigningMethodHS256`), as chapter 1 says."""
    from .example_made import made_by_example

    return "made" if _owner(x) in made_by_example(p, [_owner(x)]) or _made_in_package(p, x) else "handed"


def _made_in_package(p: Project, x: Sym) -> bool:
    """`x` is of a Go package whose constructor the example calls by its qualifier (`html.NewRenderer(opts)`)."""
    from .example_made import made_in_packages

    return posixpath.basename(posixpath.dirname(x.rel)) in made_in_packages(p)


def example_makes(p: Project, x: Sym) -> bool:
    """The example's calls make the type of implementation `x` (its constructor, or its Go package's), or it hands
    over a value of that type the project names (`jwt.SigningMethodHS256`)."""
    from .example_made import made_by_example, valued_types

    return _owner(x) in made_by_example(p, [_owner(x)]) or (x.lang == "go" and _made_in_package(p, x)) \
        or _owner(x).rsplit(".", 1)[-1] in valued_types(p)


def go_built(p: Project, x: Sym, iface: str) -> bool:
    """Go's `func New(…) Markdown { md := &markdown{…}; …; return md }`: a function of implementation `x`'s package
    that gives back interface `iface` builds `x`'s type, so a value the project makes of that interface is an `x`
    (goldmark's `defaultMarkdown = New()`, `NewParser() Parser` building a `parser`)."""
    key = ("go_built", x.rel, x.d.start_line, iface)
    if key in p._keys:
        return p._keys[key]
    name = _owner(x).rsplit(".", 1)[-1]
    p._keys[key] = False
    for f in p.symbols(within=[r for r in p.files if posixpath.dirname(r) == posixpath.dirname(x.rel)]):
        if f.kind == "function" and re.search(rf"\)\s*\(?\s*\*?{re.escape(iface)}\b[^(]*$", " ".join(f.d.signature.split())):
            body = "\n".join(p.lines_of(f.rel)[f.d.start_line - 1:f.d.end_line])
            last = re.findall(r"\breturn\s+&?(\w+)\s*(\{)?", body)[-1:]  # what it gives back at its end: the type
            # built there, or a local built as one (not goquery's `return invalidMatcher{}` on an error, then `return cs`)
            if last and (last[0][0] == name and last[0][1]
                         or re.search(rf"\b{re.escape(last[0][0])}\s*:?=\s*&?{re.escape(name)}\s*\{{", body)):
                p._keys[key] = True
                break
    return p._keys[key]


def _go_implements(p: Project, typ: str, rel: str, iface: Sym) -> bool:
    """Go's implicit `implements`: the type (of its package) has every method the interface declares."""
    key = ("go_method_sets",)
    if key not in p._keys:  # (package directory, type) -> its methods' names, read once
        sets: dict[tuple[str, str], set[str]] = {}
        for x in p.symbols():
            if x.lang == "go" and x.kind == "method" and _owner(x):
                sets.setdefault((posixpath.dirname(x.rel), _owner(x)), set()).add(x.short)
        p._keys[key] = sets
    wanted = {x.short for x in p.symbols(within=[iface.rel]) if _owner(x) == _owner(iface) and bodiless(p, x)}
    return bool(wanted) and wanted <= p._keys[key].get((posixpath.dirname(rel), typ), set())


def implementations(p: Project, s: Sym) -> list[Sym]:
    """The methods of the project's subtypes that implement abstract or interface method `s`, with its
    parameters (Java, C#, Kotlin: its types, and its generic arity); [] when `s` has a body."""
    owner = _owner(s)
    if not owner or s.kind != "method" or not bodiless(p, s):
        return []
    impls = [x for x in p.find(s.short) if x.short == s.short and x.kind == "method" and x.lang == s.lang
             and _owner(x) and (_owner(x), x.rel) != (owner, s.rel) and not bodiless(p, x)
             and (_go_implements(p, _owner(x), x.rel, s) if s.lang == "go" else _owner(x) != owner and subtype(p, _owner(x), owner))]
    if s.lang in ("java", "csharp", "kotlin", "scala", "swift"):  # an override takes what it overrides (not `newInstance(t, ctx)`)
        from .arity import base_type as _base, param_count as _param_count
        from .signature import signature_parts

        def types(x: Sym) -> list[str]:
            return [_base(prm.type) for prm in signature_parts(x)[0]]

        impls = [x for x in impls if _param_count(x) == _param_count(s)]
        impls = [x for x in impls if types(x) == types(s)] or impls  # (`Compile(string)`, not `Compile(TextReader)`)

        def generic(x: Sym) -> bool:  # (YamlDotNet's `T Deserialize<T>(string)` beside `object? Deserialize(string)`)
            return bool(re.search(rf"\b{re.escape(x.short)}\s*<", x.d.signature))

        impls = [x for x in impls if generic(x) == generic(s)] or impls
    return impls
