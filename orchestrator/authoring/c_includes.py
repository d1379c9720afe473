"""What a C or C++ file can see (callres's rule for a bare call): the project's files it includes,
transitively, and the prototypes they declare, read from the text."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym


def prototypes(p: Project, rel: str, name: str, lang: str) -> list[tuple[str, ...]]:
    """The parameter types of the prototypes of `name` that file `rel` declares (`FMT_API void
    vprint(string_view fmt, format_args args);`): read from the text, as the grammar misses the
    declarations inside include guards and namespaces."""
    key = ("protos", rel)
    if key not in p._keys:
        found: dict[str, list[tuple[str, ...]]] = {}
        for m in _PROTO.finditer("\n".join(p.lines_of(rel))):
            found.setdefault(m.group(1), []).append(m.group(0))  # type: ignore[arg-type]
        p._keys[key] = found
    from ..repo.parse import Definition

    out = []
    for text in p._keys[key].get(name, []):
        d = Definition(kind="function", name=name, qualified_name=name, signature=text, doc="",
                       start_line=0, end_line=0, exported=True)
        out.append(_param_types(Sym(rel, d, 0.0, lang)))
    return out


_PROTO = re.compile(r"(?m)^[ \t]*(?:[\w:<>,*& \t]+?[\s*&])([A-Za-z_]\w*)[ \t]*\(([^;{}()]*(?:\([^()]*\)[^;{}()]*)*)\)"
                    r"(?:[ \t]*(?:const|noexcept|->[^;{}]*))*[ \t]*;")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def includes(p: Project, rel: str) -> set[str]:
    """The files of the project a C/C++ file includes, transitively, itself included."""
    key = ("includes", rel)
    if key not in p._keys:
        by_tail: dict[str, list[str]] = {}
        for f, (lang, _kind) in p.files.items():
            if lang in ("c", "cpp"):
                parts = f.split("/")
                for k in range(len(parts)):
                    by_tail.setdefault("/".join(parts[k:]), []).append(f)
        seen, todo = {rel}, [rel]
        while todo and len(seen) < 400:
            cur = todo.pop()
            for inc in _INCLUDE.findall("\n".join(p.lines_of(cur)[:3000])):
                near = posixpath.normpath(posixpath.join(posixpath.dirname(cur), inc))
                hits = [near] if near in p.files else by_tail.get(inc, [])
                for h in hits[:1]:
                    if h not in seen:
                        seen.add(h)
                        todo.append(h)
        p._keys[key] = seen
    return p._keys[key]


def _param_types(x: Sym) -> tuple[str, ...]:
    from .signature import signature_parts

    return tuple(re.sub(r"\bstd::|\s+", "", prm.type) for prm in signature_parts(x)[0])


def c_global(p: Project, s: Sym, by_short: dict[str, list[Sym]], name: str, args: str) -> list[Sym]:
    """A bare C/C++ call in `s`: of the definitions named so, the ones the caller's file can see (its
    own, its includes', or the body of a prototype it can see: `print` in base.h calls the
    `vprint` that base.h declares and format-inl.h defines); of those, the one with a body,
    overloads told apart by their number of parameters."""
    from .arity import arity, is_static, param_count

    named = [x for x in by_short.get(name, ()) if "." not in x.dotted and x.lang in ("c", "cpp")
             and x.kind in ("function", "macro")]
    named = [x for x in named if not is_static(x) or x.rel == s.rel]
    n = arity(args)
    seen = includes(p, s.rel)
    own = {pt for rel in sorted(seen) for pt in prototypes(p, rel, name, s.lang) if len(pt) == n}
    near = [x for x in named if x.rel in seen and (x.kind == "macro" or _has_body(p, x))] + \
        [x for x in named if x.rel not in seen and _has_body(p, x) and _param_types(x) in own]
    if near:  # what the file can see; else (no include read, no prototype) the one name program-wide
        named = near
    bodies = [x for x in named if x.kind == "macro" or _has_body(p, x)]
    pick = bodies if bodies else (named if len(named) == 1 else [])
    if len(pick) > 1:  # overloads (or one function per platform): told apart by their arity, or not at all
        pick = [x for x in pick if param_count(x) == n]
    return pick


def _has_body(p: Project, x: Sym) -> bool:
    """A C/C++ function definition, not a prototype: its lines open a body."""
    return "{" in "\n".join(p.lines_of(x.rel)[x.d.start_line - 1:x.d.end_line])
