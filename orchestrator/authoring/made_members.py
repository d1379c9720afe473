"""JavaScript and TypeScript objects whose methods are made at run time (issue 35): consola's default instance,
`export const consola = createConsola()`, is a `Consola` whose constructor gives it one logging function per log
type (`(this as …)[type] = this._wrapLogFn(defaults)`), so the README's `consola.info(…)` is no method the class
defines: it runs the function `_wrapLogFn` made, which calls `_logFn`."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym

# `this[key] = this.maker(…)`, the receiver perhaps cast: `(this as unknown as ConsolaInstance)[type as LogType] =`;
# or `this[type] = this._logger.bind(this, type)`: the method itself, bound (signale)
_ASSIGNED = re.compile(r"\bthis\b[^\n=;{}]*?\)?\s*\[[^\]\n]+\]\s*=\s*this\s*\.\s*([A-Za-z_$][\w$]*)\s*(\.\s*bind\s*)?\(")
# a returned function literal: `return (...args: any[]) => {`, `return function (…) {`
_RETURNED_FN = re.compile(r"\breturn\s+(?:async\s+)?(?:function\b[^{]*\{|\([^()]*\)\s*(?::\s*[^=\n]+)?=>)")


def made_members(p: Project, cls: str) -> tuple[Sym, Sym, int] | None:
    """(maker, called, the constructor's line that assigns) when `cls`'s constructor gives the object members made by
    its method `maker`, which returns a function that calls the class's method `called`, or that are `maker` itself,
    bound (then `called` is `maker`); None otherwise."""
    key = ("made_members", cls)
    if key not in p._keys:
        found = None
        for ctor in (x for x in p.find("constructor") if x.dotted == f"{cls}.constructor" and x.lang in ("javascript", "typescript")):
            body = "\n".join(p.lines_of(ctor.rel)[ctor.d.start_line - 1:ctor.d.end_line])
            m = _ASSIGNED.search(body)
            maker = next((x for x in p.find(m.group(1)) if x.dotted == f"{cls}.{m.group(1)}" and x.kind == "method"), None) if m else None
            if m is None or maker is None:
                continue
            if m.group(2):  # (bound: the member runs `maker` itself)
                found = (maker, maker, ctor.d.start_line + body.count("\n", 0, m.start()))
                break
            text = "\n".join(p.lines_of(maker.rel)[maker.d.start_line - 1:maker.d.end_line])
            ret = _RETURNED_FN.search(text)
            calls = re.findall(r"\bthis\s*\.\s*([A-Za-z_$][\w$]*)\s*\(", text[ret.end():]) if ret else []
            called = [x for n in calls[-1:] for x in p.find(n) if x.dotted == f"{cls}.{n}" and x.kind == "method"]
            if called:
                found = (maker, called[0], ctor.d.start_line + body.count("\n", 0, m.start()))
                break
        p._keys[key] = found
    return p._keys[key]


def exported_call_class(p: Project, name: str, result_type: object) -> str:
    """The class of the constant `name` the package's index exports, made by calling one of its functions (consola's
    `export const consola = createConsola()`): the type that function gives back, or the class of an intersection it
    names (`type ConsolaInstance = Consola & Record<LogType, LogFn>`); ''. `result_type` is valuetypes' Typer's."""
    made = re.compile(rf"(?m)^\s*export\s+const\s+{re.escape(name)}\s*(?::[^=\n]+)?=\s*([A-Za-z_$][\w$]*)\s*\(")
    index = sorted((r for r in p.code_files() if re.fullmatch(r"index\.(?:[cm]?[jt]s)", posixpath.basename(r))),
                   key=lambda r: (r.count("/"), r))  # (the first that makes it: src/index.ts, not lib/index.cjs' shim)
    rel, m = next(((r, m) for r in index if (m := made.search("\n".join(p.lines_of(r))))), ("", None))
    if m is None:  # (or a class's static field: typedi's `export const Container = ContainerRegistry.defaultContainer;`)
        return next((f for r in index for f in [_static_field_class(p, "\n".join(p.lines_of(r)), name)] if f), "")
    fn = [x for x in p.find(m.group(1)) if x.rel == rel and x.kind == "function"]
    typ = result_type(fn[0]) if len(fn) == 1 and callable(result_type) else ""
    for t in p.find(typ) if typ else ():
        if t.dotted == typ and t.kind == "class":
            return typ
        alias = re.search(r"=\s*([A-Z][\w$]*)\s*&", t.d.signature) if t.dotted == typ and t.kind == "type alias" else None
        if alias and any(c.kind == "class" for c in p.find(alias.group(1)) if c.dotted == alias.group(1)):
            return alias.group(1)
    return ""


def _static_field_class(p: Project, text: str, name: str) -> str:
    """The class of `export const name = Owner.field;` where the project's class `Owner` declares `field` of a class of
    the project (`public static readonly defaultContainer: ContainerInstance = new ContainerInstance('default')`); ''."""
    m = re.search(rf"(?m)^\s*export\s+const\s+{re.escape(name)}\s*=\s*([A-Z][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)\s*;?\s*$", text)
    owner = next((x for x in p.find(m.group(1)) if x.dotted == m.group(1) and x.kind == "class"), None) if m else None
    body = "\n".join(p.lines_of(owner.rel)[owner.d.start_line - 1:owner.d.end_line]) if owner and m else ""
    field = re.search(rf"\b{re.escape(m.group(2))}\s*:\s*([A-Z][\w$]*)\b", body) if m and body else None
    return field.group(1) if field and any(c.kind == "class" for c in p.find(field.group(1)) if c.dotted == field.group(1)) else ""
