"""JavaScript as Node writes it (issue 35 item 4): CommonJS modules export by assignment, and the
thing assigned is the definition a reader meets — `module.exports = class Application …` defines
`Application`, `exports.helper = function …` defines `helper`, `module.exports = { parse () {} }`
defines `parse` — while `const x = require('…')` defines nothing: it imports. definitions.py asks
here for JavaScript and TypeScript nodes."""

from __future__ import annotations

import dataclasses
import posixpath
import re
from typing import Any

_EXPORTS = re.compile(r"^(?:exports\s*=\s*)?module\.exports$|^exports$")
_MEMBER = re.compile(r"^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$")
_DEFAULT = re.compile(r"\s*(?:(?:const|let|var)\s+[\w$]+\s*=\s*)?(?:exports\s*=\s*)?module\.exports\s*=")
_NO_NAME = frozenset({"index", "main", "mod"})  # a package's entry file: its default export is the package


def file_name(rel: str) -> str:
    """The name a module's anonymous default export goes by: its file's, as Node code binds it
    (`parse.js` → `parse`, `is-stream.js` → `isStream`); '' for an index or a name no code can write."""
    words = [w for w in posixpath.basename(rel).split(".", 1)[0].split("-") if w]
    name = "".join(w if k == 0 else w[:1].upper() + w[1:] for k, w in enumerate(words))
    return name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) and name not in _NO_NAME else ""


def named_by_file(rel: str, fm: Any) -> Any:
    """`fm` with an anonymous default export (`module.exports = function (str, opts) {`) named by its
    file: qs's README calls `qs.parse`, which index.js takes from `require('./parse')`, and a reader
    meets `parse`, never `module.exports`. (Done per path, after the content-keyed parse cache.)"""
    name = file_name(rel)
    if not name or not any(d.qualified_name == "module.exports" for d in fm.definitions):
        return fm
    defs = [dataclasses.replace(d, name=name, qualified_name=name)
            if d.qualified_name == "module.exports" and d.kind in ("function", "class") else d for d in fm.definitions]
    return dataclasses.replace(fm, definitions=defs)


def default_export(line: str) -> bool:
    """The line defines the module's default export (`module.exports = (stream) => {`)."""
    return _DEFAULT.match(line) is not None


def _target(src: Any, assignment: Any) -> str:
    left = assignment.child_by_field_name("left")
    return " ".join(src.text(left).split()) if left is not None else ""


def exports_object(src: Any, obj: Any) -> bool:
    """`module.exports = { … }` (or ESM's `export default { … }`: axios's adapters.js) at the top of the
    module: its members are the module's API."""
    parent = obj.parent
    if parent is not None and parent.type == "export_statement" and any(c.type == "default" for c in parent.children):
        return True
    while parent is not None and parent.type == "assignment_expression":  # exports = module.exports = {…}
        if _EXPORTS.match(_target(src, parent)) and parent.parent is not None and \
                parent.parent.type in ("expression_statement", "assignment_expression"):
            return True
        parent = parent.parent
    return False


def prototype_owner(src: Any, obj: Any) -> str:
    """`Compiler` for the object of `Compiler.prototype = { compile: function (…) {…}, … }` (handlebars'
    ES5 classes): its members are the constructor's methods; '' for another object."""
    parent = obj.parent
    if parent is None or parent.type != "assignment_expression" or parent.child_by_field_name("right") != obj:
        return ""
    m = re.fullmatch(r"([A-Za-z_$][\w$]*)\.prototype", _target(src, parent))
    return m.group(1) if m else ""


def table_owner(src: Any, obj: Any) -> str:
    """`lexStates` for the object of a module's own `const lexStates = { default () {…}, value () {…} }` (json5's
    tables of states, called as `lexStates[lexState]()`): its function members are the table's methods; '' for
    another object (one inside a function, or a value given to a call)."""
    decl = obj.parent
    if decl is None or decl.type != "variable_declarator" or decl.child_by_field_name("value") != obj:
        return ""
    stmt = decl.parent
    top = stmt.parent if stmt is not None else None
    if top is not None and top.type == "export_statement":
        top = top.parent
    name = decl.child_by_field_name("name")
    return src.text(name) if top is not None and top.type == "program" and name is not None and name.type == "identifier" else ""


def exported_value(src: Any, node: Any) -> bool:
    """A class or function expression (or an object's member) assigned to the module's exports."""
    parent = node.parent
    if node.type in ("pair", "method_definition", "shorthand_property_identifier") and parent is not None \
            and parent.type == "object":
        return exports_object(src, parent)
    return parent is not None and parent.type == "assignment_expression" and \
        (_EXPORTS.match(_target(src, parent)) is not None or _MEMBER.match(_target(src, parent)) is not None)


def is_require(src: Any, declarator: Any) -> bool:
    """`const x = require('m')`, `const y = require('m').y`, `const z = await import('m')`."""
    value = declarator.child_by_field_name("value")
    while value is not None and value.type in ("member_expression", "await_expression", "parenthesized_expression"):
        value = value.child_by_field_name("object") or (value.named_children[0] if value.named_child_count else None)
    if value is None or value.type != "call_expression":
        return False
    fn = value.child_by_field_name("function")
    return fn is not None and src.text(fn) in ("require", "import")


def qualified(src: Any, assignment: Any) -> str:
    """The name of what an assignment defines: the class or function it assigns, the member of
    `exports` it sets, else the target as written (`app.use`, `Router.prototype.route` → `Router.route`)."""
    right = assignment.child_by_field_name("right")
    name = right.child_by_field_name("name") if right is not None and right.type in (
        "class", "function_expression") else None
    target = _target(src, assignment)
    if name is not None and _EXPORTS.match(target):
        return src.text(name)
    member = _MEMBER.match(target)
    if member:
        return member.group(1)
    return target.replace(".prototype.", ".")


def signature_start(src: Any, node: Any, start: int) -> int:
    """Where the signature of `module.exports = class X …` starts: at `class`, as a reader names it."""
    if node.type == "assignment_expression" and _EXPORTS.match(_target(src, node)):
        right = node.child_by_field_name("right")
        if right is not None and right.type in ("class", "function_expression"):
            return right.start_byte
    return start


def exported_by_name(src: Any, name: str) -> bool:
    """A declaration the module exports by its name: `module.exports.load = load`, `exports.dump = dump`,
    `module.exports = parse`, `module.exports = { parse, stringify: stringify }` (js-yaml's loader, qs's
    index): the function a user calls is this one."""
    names = getattr(src, "_commonjs_exported", None)
    if names is None:
        text = src.data.decode("utf-8", "replace")
        names = set(re.findall(r"(?m)^\s*(?:module\.)?exports(?:\.[A-Za-z_$][\w$]*|\[['\"][^'\"]+['\"]\])?\s*=\s*"
                               r"([A-Za-z_$][\w$]*)\s*;?\s*$", text))
        for body in re.findall(r"(?m)^\s*module\.exports\s*=\s*\{([^{}]*)\}", text):
            names |= set(re.findall(r"(?:^|,)\s*(?:[A-Za-z_$][\w$]*\s*:\s*)?([A-Za-z_$][\w$]*)\s*(?=,|$)", body.strip()))
        src._commonjs_exported = names
    return name in names


_WRAPPED_BY = frozenset({"parenthesized_expression", "arguments", "call_expression", "unary_expression"})


def module_wrapper(src: Any, node: Any) -> bool:
    """A function that wraps a whole module, run where it is written: an IIFE (`(function () { … })()`)
    or a UMD factory (`(function (root, factory) { … }(this, function moduleFactory() { … }))`, PapaParse's).
    What its body declares is the module's own, not a local."""
    if src.lang not in ("javascript", "typescript", "tsx"):
        return False
    if node.type == "function_declaration":
        return _exported_factory(src, node)
    if node.type not in ("function_expression", "function", "arrow_function"):
        return False
    called, parent = False, node.parent
    while parent is not None and parent.type in _WRAPPED_BY:
        called = called or parent.type == "call_expression"
        parent = parent.parent
    return called and parent is not None and parent.type == "expression_statement" and \
        parent.parent is not None and parent.parent.type == "program"


def _exported_factory(src: Any, node: Any) -> bool:
    """A function of the module whose call is what the module exports (`export default createDOMPurify();`,
    `module.exports = factory()`, `const purify = createDOMPurify(); export default purify;`): the object it
    builds and returns is the module's API, so what its body declares is the module's own."""
    name = node.child_by_field_name("name")
    top = node.parent.parent if node.parent is not None and node.parent.type == "export_statement" else node.parent
    if name is None or top is None or top.type != "program":
        return False
    if getattr(src, "_factories", None) is None:  # (read once per file: every declaration's ancestors ask)
        text = src.data.decode("utf-8", "replace")
        exported = set(re.findall(r"(?m)^\s*(?:export\s+default|module\.exports\s*=)\s*([A-Za-z_$][\w$]*)\s*(\(|;?\s*$)", text))
        made = dict(re.findall(r"(?m)^\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*([A-Za-z_$][\w$]*)\s*\(", text))
        src._factories = {n for n, end in exported if end == "("} | {made[n] for n, end in exported if end != "(" and n in made}
    return src.text(name) in src._factories


def umd_members(text: str) -> dict[str, str]:
    """Name → `Object.member`: the declarations a module wrapper hands out as members of the object it
    returns (`var Papa = {}; Papa.parse = CsvToJson; … return Papa;`)."""
    out: dict[str, str] = {}
    for obj in re.findall(r"(?m)^\s*(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*\{\s*\}\s*;?\s*$", text):
        if re.search(rf"(?m)^\s*return\s+{re.escape(obj)}\s*;?\s*$", text):
            for member, name in re.findall(rf"(?m)^\s*{re.escape(obj)}\.([A-Za-z_$][\w$]*)\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$", text):
                out.setdefault(name, f"{obj}.{member}")
    return out


def constructor_member(src: Any, node: Any, scope: Any) -> bool:
    """`this.stream = function (…) { … }` written in the body of an ES5 constructor function (`function
    StringStreamer(config) { … }`, a capitalised function of the module, or one assigned to a capitalised name:
    showdown's `showdown.Converter = function (…) { … this.makeHtml = function (text) {…} }`): a method of its instances."""
    left = node.child_by_field_name("left") if node.type == "assignment_expression" and src.lang in ("javascript", "typescript", "tsx") else None
    if left is None or not src.text(left).startswith("this.") or scope.type not in ("function_declaration", "function_expression", "function"):
        return False
    name = constructor_name(src, scope)
    statement = node.parent
    return name.rsplit(".", 1)[-1][:1].isupper() and statement is not None and \
        statement.parent is not None and statement.parent.parent == scope


def constructor_name(src: Any, fn: Any) -> str:
    """The name a function is declared or assigned under (`function X`, `a.X = function`, `var X = function`), or ''."""
    name = fn.child_by_field_name("name") if fn.type == "function_declaration" else None
    parent = fn.parent
    if name is None and parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("right") == fn:
        name = parent.child_by_field_name("left")
    elif name is None and parent is not None and parent.type == "variable_declarator" and parent.child_by_field_name("value") == fn:
        name = parent.child_by_field_name("name")
    return src.text(name) if name is not None else ""
