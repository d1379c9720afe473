"""Ruby's mixins: the modules a class takes methods from besides its superclass. `include M`,
`extend M` and `prepend M` in the class's own body, and what an included module's
`self.included(base)` hook adds (`base.extend ClassMethods`: httparty's `HTTParty.get` runs
`Basement.get`, a method of `HTTParty::ClassMethods` that `include HTTParty` gave `Basement`).
A mixin's class methods and instance methods count alike; a class's own two methods of one name
(liquid's `Template.parse` and `Template#parse`) are told apart by what they are called on (`class_or_instance`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from .project import Project, Sym

_MIX = re.compile(r"^(?:include|extend|prepend)\s*\(?\s*([A-Z][\w:]*(?:\s*,\s*[A-Z][\w:]*)*)\s*\)?\s*(?:#.*)?$")
# in a hook: `base.extend ClassMethods`, `base.send(:include, InstanceMethods)`, `klass.include(Helpers)`
_HOOK_MIX = re.compile(r"\b[a-z_]\w*\s*\.\s*(?:extend|include|prepend|send\s*\(?\s*:(?:include|extend|prepend)\s*,)"
                       r"\s*\(?\s*([A-Z][\w:]*)")
_HOOKS = ("included", "extended", "prepended")


def constant(by_dotted: Mapping[str, Sequence[Sym]], scope: list[str], name: str) -> str:
    """The dotted name of the class or module `name` means inside `scope` (Ruby looks a constant up
    through the modules the code is written in, innermost first), or ""."""
    parts = [w for w in name.replace("::", ".").split(".") if w]
    for k in range(len(scope), -1, -1):
        d = ".".join(scope[:k] + parts)
        if any(x.kind in ("class", "module") and x.lang == "ruby" for x in by_dotted.get(d, ())):
            return d
    return ""


def mixins(p: Project, by_dotted: Mapping[str, Sequence[Sym]], typ: str) -> list[str]:
    """The modules class or module `typ` mixes in, with what their hooks add, nearest first."""
    out: list[str] = []
    for _rel, _line, _text, d, hooked in _mixed(p, by_dotted, typ):
        out += [x for x in [d, *hooked] if x not in out and x != typ]
    return out


def mixin_line(p: Project, by_dotted: Mapping[str, Sequence[Sym]], typ: str,
               mod: str) -> tuple[str, int, str, str] | None:
    """(file, line, its text, the module it names) of the `include`/`extend` in `typ`'s body that gives it
    module `mod`'s methods, directly or through that module's hook (`include HTTParty` for
    `HTTParty::ClassMethods`)."""
    return next(((rel, line, text, d) for rel, line, text, d, hooked in _mixed(p, by_dotted, typ)
                 if mod == d or mod in hooked), None)


def _mixed(p: Project, by_dotted: Mapping[str, Sequence[Sym]], typ: str) -> list[tuple[str, int, str, str, list[str]]]:
    """(file, line, text, module, what its hook adds) of each mixin line in class or module `typ`'s own body,
    read once per project (Typer.member asks for every type it climbs through)."""
    key = ("ruby_mixed", typ)
    if key not in p._keys:
        p._keys[key] = _read_mixed(p, by_dotted, typ)
    return p._keys[key]


def _read_mixed(p: Project, by_dotted: Mapping[str, Sequence[Sym]], typ: str) -> list[tuple[str, int, str, str, list[str]]]:
    out: list[tuple[str, int, str, str, list[str]]] = []
    for t in by_dotted.get(typ, ()):
        if t.lang != "ruby" or t.kind not in ("class", "module"):
            continue
        lines = p.lines_of(t.rel)[t.d.start_line:max(t.d.start_line, t.d.end_line - 1)]
        indent = next((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), 0)
        single: int | None = -1  # (and at the level of its `class << self`: multi_xml's `class << self⏎ include ParseSupport`)
        for k, ln in enumerate(lines):
            at = len(ln) - len(ln.lstrip())
            if ln.strip() and at <= indent:
                single = None if at == indent and re.match(r"class\s*<<\s*self\b", ln.strip()) else -1
            elif ln.strip() and single is None:
                single = at  # (the block's own level: its first line's)
            m = _MIX.match(ln.strip()) if at == indent or (ln.strip() and at == single) else None
            for name in (m.group(1).split(",") if m else ()):
                d = constant(by_dotted, typ.split("."), name.strip())
                if d and d != typ:
                    out.append((t.rel, t.d.start_line + 1 + k, ln.strip(), d, _hooked(p, by_dotted, d)))
    return out


def _hooked(p: Project, by_dotted: Mapping[str, Sequence[Sym]], mod: str) -> list[str]:
    """What module `mod`'s `self.included(base)` hook mixes into the class that includes it."""
    return list(dict.fromkeys(d for d, _rel, _line in hook_lines(p, by_dotted, mod)))


def hook_lines(p: Project, by_dotted: Mapping[str, Sequence[Sym]], mod: str) -> list[tuple[str, str, int]]:
    """(module, file, line) of each module `mod`'s hooks mix in (`base.extend ClassMethods`)."""
    out: list[tuple[str, str, int]] = []
    for hook in (x for h in _HOOKS for x in by_dotted.get(f"{mod}.{h}", ())):
        for k, ln in enumerate(p.lines_of(hook.rel)[hook.d.start_line:hook.d.end_line]):
            for name in _HOOK_MIX.findall(ln):
                d = constant(by_dotted, mod.split("."), name)
                if d:
                    out.append((d, hook.rel, hook.d.start_line + 1 + k))
    return out


def const_got(by_dotted: Mapping[str, Sequence[Sym]], s: Sym, namespace: str, name: str) -> Sym | None:
    """What `Namespace.const_get(x).name(…)` calls: a class got by name from a module is one of the
    module's classes, and a call on a class runs a class method (`def self.name`). When the module
    holds exactly one of them (kramdown's `Parser.const_get(parser).parse` → `Parser::Base.parse`,
    which every parser inherits), that one; else None."""
    ns = constant(by_dotted, s.dotted.split(".")[:-1], namespace)
    if not ns:
        return None
    hits = [x for d, xs in by_dotted.items() if d.startswith(ns + ".") and d.endswith("." + name) for x in xs
            if x.lang == "ruby" and re.match(rf"\s*def\s+self\.{re.escape(name)}\b", x.d.signature)]
    return hits[0] if len(hits) == 1 else None


def missing(member: Callable[[str, str], list[Sym]], typ: str, name: str) -> list[Sym]:
    """A call of a method `typ` does not define goes to its `method_missing`, when it has one
    (kramdown's `Document.new(text).to_html`)."""
    if member(typ, name):
        return []
    return [x for x in member(typ, "method_missing") if x.lang == "ruby"]


def singleton(p: Project, x: Sym) -> bool:
    """A Ruby class method: `def self.parse`, or a `def` in a `class << self` block."""
    if re.match(r"\s*def\s+self\.", x.d.signature):
        return True
    lines = p.lines_of(x.rel)
    at = lines[x.d.start_line - 1] if 0 < x.d.start_line <= len(lines) else ""
    indent = len(at) - len(at.lstrip())
    for ln in reversed(lines[:x.d.start_line - 1]):  # the line that opens the block the `def` is in
        if ln.strip() and not ln.lstrip().startswith("#") and len(ln) - len(ln.lstrip()) < indent:
            return bool(re.match(r"\s*class\s*<<\s*self\b", ln))
    return False


def class_or_instance(p: Project, hits: list[Sym], on_class: bool) -> list[Sym]:
    """Of a Ruby class's class method and instance method of one name (liquid's `Template.parse`,
    which runs `new(…).parse(source)`, the instance's), the one a call reaches: on the class
    (`Document.parse(…)`) its class method, on a value its instance method."""
    if len(hits) < 2 or any(x.lang != "ruby" for x in hits):
        return hits
    return [x for x in hits if singleton(p, x) == on_class] or hits
