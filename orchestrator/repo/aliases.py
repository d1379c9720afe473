"""Other names of a method a file gives it: Ruby's `alias`/`alias_method`, a Python class body's
`_parse = _parseNoCache`, a JS/TS module's `export { _Object_ as Object }` (the map records them as the
definition's `aliases`)."""

from __future__ import annotations

import re

from .definitions import Definition, Source


def other_names(src: Source, defs: list[Definition]) -> None:
    """Records the other names the file gives its methods (in Ruby and Python; other languages: none read)."""
    if src.lang == "ruby":
        _ruby_aliases(src, defs)
    elif src.lang == "python":
        _python_aliases(src, defs)
    elif src.lang in ("javascript", "typescript", "tsx"):
        _export_aliases(src, defs)


_EXPORT_LIST = re.compile(r"^[ \t]*export[ \t]*\{([^}]*)\}[ \t]*(?!from\b)(?:;|//|$)", re.M)


def _export_aliases(src: Source, defs: list[Definition]) -> None:
    """`export { _Object_ as Object }` (typebox: "Prevent Collision With Global Scope") names the module's own
    `_Object_` `Object` for every importer."""
    text = src.data.decode("utf-8", "replace")
    for m in _EXPORT_LIST.finditer(text):
        for own, other in re.findall(r"([A-Za-z_$][\w$]*)\s+as\s+([A-Za-z_$][\w$]*)", m.group(1)):
            target = [d for d in defs if d.name == own and d.qualified_name == own and d.kind in ("function", "class")]
            if target and own != other and other != "default" and other not in target[-1].aliases:
                target[-1].aliases.append(other)


_RUBY_ALIAS = re.compile(r"^[ \t]*alias(?:_method)?[ \t(]+:?([A-Za-z_]\w*[?!=]?)[ \t]*,?[ \t]+:?([A-Za-z_]\w*[?!=]?)", re.M)


def _ruby_aliases(src: Source, defs: list[Definition]) -> None:
    """`alias :t :translate` and `alias_method :t, :translate` name the method `translate` defined
    last before them (in i18n, `I18n.t` is `I18n::Base#translate`)."""
    text = src.data.decode("utf-8", "replace")
    for m in _RUBY_ALIAS.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = [d for d in defs if d.name == m.group(2) and d.kind == "method" and d.start_line < line]
        if not before and m.group(2) == "new":  # `class << self; alias from_cents new`: money's `Money.from_cents` makes a Money
            owner = [d for d in defs if d.kind in ("class", "module") and d.start_line <= line <= d.end_line][-1:]
            before = [d for d in defs if owner and d.name == "initialize" and d.kind == "method"
                      and d.qualified_name == f"{owner[0].qualified_name}::initialize"]
        if before and m.group(1) not in before[-1].aliases:
            before[-1].aliases.append(m.group(1))


# a class body's `name = other_name` at the indentation of its methods
_PY_ALIAS = re.compile(r"^([ \t]+)([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_]\w*)[ \t]*(?:#.*)?$", re.M)


def _python_aliases(src: Source, defs: list[Definition]) -> None:
    """`_parse = _parseNoCache`, `__str__ = __repr__` in a class body name the method defined before them
    in that class (pyparsing's `self._parse(…)` runs `_parseNoCache`)."""
    text = src.data.decode("utf-8", "replace")
    lines = text.split("\n")
    for m in _PY_ALIAS.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        owner = [d for d in defs if d.kind == "class" and d.start_line < line <= d.end_line][-1:]
        if not owner or m.group(2) == m.group(3):
            continue
        target = [d for d in defs if d.name == m.group(3) and d.kind == "method" and d.start_line < line
                  and d.qualified_name == f"{owner[0].qualified_name}.{m.group(3)}"
                  and lines[d.start_line - 1][:len(m.group(1))] == m.group(1)]
        # (not a name the class also defines: an alias, not an override)
        if target and not any(d.qualified_name == f"{owner[0].qualified_name}.{m.group(2)}" for d in defs) \
                and m.group(2) not in target[-1].aliases:
            target[-1].aliases.append(m.group(2))
