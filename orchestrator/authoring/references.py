"""Whether a file (or one line of it) refers to a definition, by resolution, not by a name match
(issue 34): the facts "used from N files" and "In use" are counted from this.

* A method or field `T.m` is referred to where the receiver of `.m` is known to be a `T` (or a
  subclass the project defines): `T.m`, `T(…).m`, a variable bound from `T(…)` / `new T(…)` /
  `&T{…}` / `T::new(…)`, a parameter or variable declared `x: T` / `T x` / `x *T`, `self`/`this`
  inside such a class, or a call the call resolver (callres) pins to it. A `.pop(` on a dict or a
  `res.headers()` of another type is not a use of `AppContext.pop` or `Response.headers`.
* A function or type of Python, JavaScript or TypeScript is referred to where the file imports
  it from the project (`from .app import Flask`, `import {Router} from './router'`,
  `const {parse} = require('./parse')`) or names it through an imported project module
  (`flask.Flask`); `JSON.parse(` is not a use of the project's `parse`.
* Other languages keep the map's rules (facts.uses): a package is a directory there.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ..repo.rank import is_local_module, local_module_names
from .project import Project, Sym

_SCRIPT = ("python", "javascript", "typescript")
_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type", "type alias", "impl"})
_PY_FROM = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+\(?([^#\n]*(?:\n[^)#\n]*)*?)\)?\s*(?:#.*)?$", re.M)
_PY_IMPORT = re.compile(r"^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", re.M)
# (a list of names over several lines: superjson's `import {⏎  walker,⏎} from './plainer.js'`)
_JS_IMPORT = re.compile(r"""^\s*import\s+(?:type\s+)?((?:[\w$]+\s*,\s*)?\{[^{}]*\}|.+?)\s+from\s+['"]([^'"]+)['"]""", re.M)
# (or a member of the module's own export: request's `request.Request = require('./request')`, then `new request.Request(…)`)
_JS_REQUIRE = re.compile(r"""(?:(?:const|let|var)\s+(\{[^}]*\}|[\w$]+)|^([\w$]+\.[\w$]+))\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)""", re.M)


def _key(p: Project, *k: str) -> tuple:
    return ("refs",) + k


def imports(p: Project, rel: str) -> dict[str, tuple[str, bool, str]]:
    """Local name → (module, whether the name is a module itself, the name it has there) of a Python/JS/TS file's imports
    of the project's own modules (relative, or whose first part is a top-level package of it)."""
    key = _key(p, "imports", rel)
    if key in p._keys:
        return p._keys[key]
    if ("refs", "local") not in p._keys:
        p._keys[("refs", "local")] = local_module_names(p.map.files) | p.map.project_names
    local = p._keys[("refs", "local")]
    text = "\n".join(p.lines_of(rel))
    out: dict[str, tuple[str, bool, str]] = {}
    lang = p.lang(rel)
    if lang == "python":
        for m in _PY_FROM.finditer(text):
            mod = m.group(1)
            if not is_local_module(mod, local):
                continue
            for part in re.split(r"[,\n]", m.group(2)):
                w = part.strip().strip("()").split()
                if w and w[0] != "*":
                    out[w[-1]] = (mod, False, w[0])  # `from flask import json`: a module or a name; both resolve below
        for m in _PY_IMPORT.finditer(text):
            for part in m.group(1).split(","):
                w = part.split()
                if w and is_local_module(w[0], local):
                    out[w[-1] if len(w) == 3 else w[0].split(".")[0]] = (w[0], True, "")
    else:
        for m in _JS_IMPORT.finditer(text):
            if not is_local_module(m.group(2), local):
                continue
            what = m.group(1)
            for orig, name in re.findall(r"(?:^|[{,])\s*(?:([\w$]+)\s+as\s+)?([\w$]+)\s*(?=[,}]|$)", what):
                out[name] = (m.group(2), not what.strip().startswith("{"), orig or name)
            ns = re.search(r"\*\s+as\s+([\w$]+)", what)
            if ns:
                out[ns.group(1)] = (m.group(2), True, "")
        for m in _JS_REQUIRE.finditer(text):
            bound, mod = m.group(1) or m.group(2), m.group(3)
            if not is_local_module(mod, local):
                continue
            if bound.startswith("{"):
                for orig, name in re.findall(r"(?:([\w$]+)\s*:\s*)?([\w$]+)", bound[1:-1]):
                    out[name] = (mod, False, orig or name)
            else:
                out[bound] = (mod, True, "")
    p._keys[key] = out
    return out


def imports_of(p: Project, rel: str) -> dict:
    """A script's imports (`imports`), nothing for the languages whose imports are not read here."""
    return imports(p, rel) if p.lang(rel) in _SCRIPT else {}


def owners(p: Project, s: Sym) -> set[str]:
    """The type a method belongs to and the project's types that extend it (transitively)."""
    if "." not in s.dotted:
        return set()
    top = s.dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    key = _key(p, "subs")
    if key not in p._keys:
        subs: dict[str, set[str]] = {}
        for x in p.symbols():
            if x.kind in ("class", "struct", "interface", "trait"):
                sig = " ".join(x.d.signature.split())
                bases = re.search(r"\(([^)]*)\)\s*:?\s*$", sig) if x.lang == "python" else \
                    re.search(r"\bextends\s+([\w$.]+(?:\s*,\s*[\w$.]+)*)", sig)
                for b in re.findall(r"[\w$]+", bases.group(1)) if bases else ():
                    subs.setdefault(b, set()).add(x.short)
        p._keys[key] = subs
    subs = p._keys[key]
    out, todo = {top}, [top]
    while todo:
        for sub in subs.get(todo.pop(), ()):
            if sub not in out:
                out.add(sub)
                todo.append(sub)
    return out


def _bound(p: Project, rel: str) -> dict[str, set[str]]:
    """Variable name → the type names the file binds it to (constructor calls and declarations)."""
    key = _key(p, "bound", rel)
    if key in p._keys:
        return p._keys[key]
    text = "\n".join(p.lines_of(rel))
    out: dict[str, set[str]] = {}
    pats = [
        r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*(?::\s*[\w$.\[\]]+\s*)?=\s*(?:new\s+|&)?(?:[\w$]+\.)*([A-Z][\w$]*)\s*[({]",
        r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*:=\s*&?(?:[\w$]+\.)*([A-Z][\w$]*)\s*[({]",  # Go
        r"\blet\s+(?:mut\s+)?([a-z_]\w*)\s*(?::\s*[\w:<>&]+)?\s*=\s*([A-Z]\w*)::",  # Rust `T::new(`
        r"(?<![\w$.])([a-z_$][\w$]*)\s*:\s*(?:Optional\[|&(?:mut\s+)?|\*)?(?:[\w$]+\.)*([A-Z][\w$]*)\b",  # x: T
        r"\b([A-Z][\w$]*)(?:<[^<>()]*>)?\s+([a-z_$][\w$]*)\s*[=;,)]",  # Java/C#: `T x =`
        r"\(\s*([a-z_]\w*)\s+\*?([A-Z]\w*)\s*\)",  # Go receiver `(r *T)`
        r"(?<![\w$.])([a-z_]\w*)\s+\*?(?:[\w]+\.)?([A-Z]\w*)\s*[,)]",  # Go parameter `w ResponseWriter`
    ]
    for k, rx in enumerate(pats):
        for a, b in re.findall(rx, text):
            var, typ = (b, a) if k == 4 else (a, b)
            out.setdefault(var, set()).add(typ)
    rets = _returns(p)  # `ctx = self.request_context(environ)`, which is declared `-> RequestContext`
    owners_of = _method_owners(p)
    for var, chain, fn in re.findall(r"(?<![\w$.])([a-z_$][\w$]*)\s*:?=\s*(?:await\s+)?((?:[\w$]+\.)*)([\w$]+)\s*\(", text):
        recv = chain.rstrip(".").rsplit(".", 1)[-1]
        # a method's result only through a receiver of its type: `path = path.replace(…)` on a
        # `str` is not `URL.replace`, whatever URL.replace returns
        if fn in rets and (not recv or fn not in owners_of or recv in ("self", "this", "cls") or recv in owners_of[fn]
                           or out.get(recv, set()) & owners_of[fn]):
            out.setdefault(var, set()).add(rets[fn])
    p._keys[key] = out
    return out


def code_lines(p: Project, rel: str) -> list[str]:
    """The file's lines with its strings, docstrings and comments blanked (a docstring's
    `AppContext.pop()` refers to nothing)."""
    key = _key(p, "masked", rel)
    if key not in p._keys:
        from .codetext import LINE_COMMENT, mask_text

        text = LINE_COMMENT.sub("", "\n".join(p.lines_of(rel)))
        p._keys[key] = mask_text(text, p.lang(rel)).split("\n")
    return p._keys[key]


def _returns(p: Project) -> dict[str, str]:
    """Function or method name → the one project type every definition of that name declares it
    returns (`def request_context(self, environ) -> RequestContext`, `fn new() -> Self` left out)."""
    key = _key(p, "returns")
    if key not in p._keys:
        types = {x.short for x in p.symbols() if x.kind in ("class", "struct", "interface", "trait")}
        found: dict[str, set[str]] = {}
        for x in p.symbols():
            if x.kind in ("function", "method"):
                m = re.search(r"(?:->|\)\s*:)\s*(?:Optional\[|Promise<)?\*?([A-Z][\w$]*)", x.d.signature) or \
                    (re.search(r"\)\s*\*?([A-Z]\w*)\s*\{?\s*$", x.d.signature) if x.lang == "go" else None)
                found.setdefault(x.short, set()).add(m.group(1) if m and m.group(1) in types else "")
        p._keys[key] = {n: next(iter(ts)) for n, ts in found.items() if len(ts) == 1 and "" not in ts}
    return p._keys[key]


def _method_owners(p: Project) -> dict[str, set[str]]:
    """Method name → the project types that define a method of that name."""
    key = _key(p, "method_owners")
    if key not in p._keys:
        found: dict[str, set[str]] = {}
        for x in p.symbols():
            if x.kind == "method" and "." in x.dotted:
                found.setdefault(x.short, set()).add(x.dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1])
        p._keys[key] = found
    return p._keys[key]


def _classes(p: Project, rel: str) -> list[tuple[int, int, str]]:
    """(first, last, name) of the classes a file defines (its own methods' `self` is theirs)."""
    fm = p.map.files.get(rel)
    return [(d.start_line, d.end_line, d.name) for d in (fm.definitions if fm else ())
            if d.kind in ("class", "struct", "impl", "interface")]


def receiver_lines(p: Project, rel: str, s: Sym) -> set[int]:
    """The lines of `rel` (1-based) where `.m`/`::m` has a receiver resolved to `s`'s type."""
    key = _key(p, "recv", rel, s.rel, s.name, str(s.d.start_line))
    if key in p._keys:
        return p._keys[key]
    types = owners(p, s)
    # an owner that is an object, not a type (express's `res`, `app`), is named so by its users
    # by habit: a test's `res` parameter may be any library's response. It counts only where the
    # file imports it by that name, or in its own file.
    # Where the method's name is the project's only definition of it and the file imports the
    # project, a call `res.send(` on a receiver named as the object is taken as that object's.
    if ("refs", "kinds") not in p._keys:
        from collections import Counter

        p._keys[("refs", "kinds")] = ({x.short: x.kind for x in p.symbols()}, Counter(x.short for x in p.symbols()))
    kinds, named = p._keys[("refs", "kinds")]
    objs = {t for t in types if kinds.get(t) not in _TYPE_KINDS and rel != s.rel and t not in imports_of(p, rel)}
    types -= objs
    only = named[s.short] == 1 and bool(imports_of(p, rel))
    calls = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, sorted(objs)))})\s*\.\s*{re.escape(s.short)}\s*\(") \
        if objs and only else None
    m = re.escape(s.short)
    bound = {v for v, ts in _bound(p, rel).items() if ts & types}
    classes = [(a, b) for a, b, n in _classes(p, rel) if n in types]
    alts = "|".join(re.escape(t) for t in sorted(types | bound))
    rx = re.compile(rf"(?<![\w$])(?:(?:{alts})(?:\([^()]*\))?|(self|this|cls|Self))\s*(?:\.|::|->)\s*{m}(?![\w$])")
    out: set[int] = set()
    for i, ln in enumerate(code_lines(p, rel), 1):
        if calls is not None and calls.search(ln):
            out.add(i)
            continue
        for hit in rx.finditer(ln) if types or bound else ():
            if hit.group(1) is None or any(a <= i <= b for a, b in classes):
                out.add(i)
                break
    p._keys[key] = out
    return out


def module_file(p: Project, rel: str, module: str) -> str | None:
    """The project file a Python/JS/TS import of `module` from `rel` names, or None."""
    files = p.map.files
    if p.lang(rel) == "python":
        dots = len(module) - len(module.lstrip("."))
        parts = [x for x in module.lstrip(".").split(".") if x]
        if dots:
            base = posixpath.dirname(rel).split("/") if posixpath.dirname(rel) else []
            base = base[:len(base) - (dots - 1)] if dots > 1 else base
            stems = ["/".join(base + parts)]
        else:
            stems = ["/".join(parts)]
            if parts and parts[0] in p.map.project_names and "__init__.py" in files:
                # the book's source is the package itself (`--source starlette/`): its absolute
                # imports (`from starlette.requests import Request`) name files from the root
                stems.insert(0, "/".join(parts[1:]) or "__init__")
        here = posixpath.dirname(rel)
        for stem in stems:
            cands = (stem + ".py", stem + "/__init__.py")
            roots = [""] if dots else ["", "src/", "lib/", "python/", here + "/" if here else ""]
            for root in roots:  # the import path's roots first: a test's `flask.py` is not the package
                for cand in cands:
                    if root + cand in files:
                        return root + cand
            hits = [f for c in cands for f in files if f.endswith("/" + c)]
            if len(hits) == 1 and not dots:
                return hits[0]
        return None
    if not module.startswith("."):
        return None
    stem = posixpath.normpath(posixpath.join(posixpath.dirname(rel), module))
    for cand in (stem, *(stem + e for e in (".js", ".ts", ".mjs", ".cjs", ".tsx", "/index.js", "/index.ts"))):
        if cand in files:
            return cand
    js = re.match(r"(.*)\.([mc]?)js$", stem)  # TypeScript's ESM imports name the emitted file: './utils.js' is utils.ts
    return next((c for c in (f"{js.group(1)}.{js.group(2)}ts", f"{js.group(1)}.tsx") if c in files), None) if js else None


def origin(p: Project, rel: str, name: str, depth: int = 0) -> str | None:
    """The file whose definition `name` means in `rel`: its own, else the one its import names,
    followed through re-exports (`flask/__init__.py`'s `from .app import Flask`)."""
    fm = p.map.files.get(rel)
    if fm is not None and any(d.name == name for d in fm.definitions):
        return rel
    got = imports(p, rel).get(name)
    if got is None or depth > 4:
        return None
    mod, _is_mod, there = got
    target = module_file(p, rel, mod)
    if target is None:
        return None
    sub = module_file(p, rel, mod.rstrip(".") + "." + there) if p.lang(rel) == "python" and there else None
    if sub is not None:
        return sub  # `from flask import json`: a module
    return origin(p, target, there or name, depth + 1)


def imported_definition(p: Project, rel: str, name: str, member: str = "") -> list[Sym]:
    """The project's function or class a JS/TS file calls by the bare name it imports (`import { compose }
    from './compose'`, `const { third } = require('./d')`, `import other from './c.js'`), followed through
    re-exports, or with `member` the one of that name the module it imports whole exports (`import adapters
    from './adapters.js'` … `adapters.getAdapter(`); [] when the name is not imported from the project or
    its home defines no one such."""
    got = imports(p, rel).get(name)
    if got is None:
        return _object_member(p, rel, name, member) if member else []
    mod, is_mod, there = got
    if member:
        return [x for x in _top_defs(p, module_file(p, rel, mod) if is_mod else None) if x.short == member]
    if not is_mod:
        return [x for x in _top_defs(p, origin(p, rel, name)) if x.short == (there or name)]
    target = module_file(p, rel, mod)  # a default import: what the module exports by default
    if target is None:
        return []
    text = "\n".join(p.lines_of(target))
    said = set(re.findall(r"(?m)^\s*(?:export\s+default\s+(?:async\s+)?(?:function\*?|class)?\s*|module\.exports\s*=\s*)"
                          r"([A-Za-z_$][\w$]*)", text))
    return [x for x in _top_defs(p, target) if x.short in said or default_export(p, x)]


def _object_member(p: Project, rel: str, obj: str, member: str) -> list[Sym]:
    """`Obj.member(` where the file binds `const Obj = { member, … }` (or `member: fn`) to its own top-level
    functions: that function (dotenv's `DotenvModule.configDotenv(options)`, `DotenvModule = { configDotenv, … }`)."""
    text = "\n".join(p.lines_of(rel))
    lit = re.search(rf"(?m)^(?:export\s+)?(?:const|let|var)\s+{re.escape(obj)}\s*=\s*\{{([^{{}}]*)\}}", text)
    if lit is None:
        return []
    pairs = dict(re.findall(r"(?:^|,)\s*([A-Za-z_$][\w$]*)\s*(?::\s*([A-Za-z_$][\w$]*)\s*)?(?=,|$)", lit.group(1).strip()))
    if member not in pairs:
        return []
    return [x for x in _top_defs(p, rel) if x.short == (pairs[member] or member)]


def _top_defs(p: Project, rel: str | None) -> list[Sym]:
    """The functions and classes at the top level of a file (none for no file)."""
    return [x for x in p.symbols(within=[rel]) if "." not in x.dotted and x.kind in ("function", "class")] if rel else []


def default_export(p: Project, s: Sym) -> bool:
    """`s` is a CommonJS module's default export (`module.exports = function …`, named by its file)."""
    if s.lang not in _SCRIPT:
        return False
    if s.name == "module.exports":
        return True
    from ..repo.commonjs import default_export as defines

    lines = p.lines_of(s.rel)
    return 0 < s.d.start_line <= len(lines) and defines(lines[s.d.start_line - 1])


def imported(p: Project, rel: str, s: Sym) -> set[int]:
    """The lines of a Python/JS/TS file where it names `s` (a function or type) as imported from
    its home (followed through re-exports): the bare name, or `module.name` through an imported
    project module. Two definitions of one name are told apart by where the import leads."""
    names = imports(p, rel)
    bare = [q for q, (_m, _is, there) in names.items() if there == s.short and origin(p, rel, q) == s.rel]
    if default_export(p, s):  # a CommonJS default export: the name `require('./is-stream')` is bound to
        bare += [q for q, (mod, is_mod, _t) in names.items() if is_mod and module_file(p, rel, mod) == s.rel]
    quals = []
    for q, (mod, is_mod, there) in names.items():
        if there == s.short:
            continue
        target = module_file(p, rel, mod if is_mod else mod.rstrip(".") + "." + there) or \
            (module_file(p, rel, mod) if is_mod else None)
        if target is not None and origin(p, target, s.short) == s.rel:
            quals.append(q)
    rx_bare = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, bare))})(?![\w$])") if bare else None
    rx_q = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, quals))})\.{re.escape(s.short)}(?![\w$])") \
        if quals else None
    mods = {q: mod for q, (mod, is_mod, _t) in names.items() if is_mod}
    rx_deep = re.compile(rf"(?<![\w$.])({'|'.join(map(re.escape, mods))})((?:\.[\w$]+)+)\.{re.escape(s.short)}(?![\w$])") \
        if mods and p.lang(rel) == "python" else None  # `click.testing.CliRunner`
    out: set[int] = set()
    for i, ln in enumerate(code_lines(p, rel), 1):
        if (rx_bare and rx_bare.search(ln)) or (rx_q and rx_q.search(ln)):
            out.add(i)
        elif rx_deep and any((f := module_file(p, rel, mods[m.group(1)] + m.group(2))) and origin(p, f, s.short) == s.rel
                             for m in rx_deep.finditer(ln)):
            out.add(i)
    return out


def use_lines(p: Project, rel: str, s: Sym, calls_of: Callable[[Sym], list[Sym]] = lambda x: []) -> set[int] | None:
    """The lines where file `rel` refers to `s`, by the rules of the module doc; None when the
    language is not one these rules read (the caller keeps the map's own rule)."""
    if "." in s.dotted and s.kind in ("method", "function", "field", "property", "constant", "variable") \
            and not default_export(p, s):
        return receiver_lines(p, rel, s) | _resolved_call_lines(p, rel, s, calls_of)
    if s.lang in _SCRIPT and p.lang(rel) in _SCRIPT:
        return imported(p, rel, s)
    return None


def _resolved_call_lines(p: Project, rel: str, s: Sym, calls_of: Callable[[Sym], list[Sym]]) -> set[int]:
    """Lines of `rel`'s definitions whose calls the call resolver pins to `s` (typed parameters,
    typed fields)."""
    out: set[int] = set()
    if rel not in p.files or p.files[rel][1] != "code":
        return out  # the map resolves calls of its ranked code; tests and examples by receivers only
    for x in p.symbols(within=[rel]):
        if x.kind in ("class", "struct", "interface", "trait", "impl", "enum", "module"):
            continue  # a type's lines hold its methods': their calls are theirs
        if any(c.rel == s.rel and c.d.start_line == s.d.start_line for c in calls_of(x)):
            lines = code_lines(p, rel)[x.d.start_line - 1:x.d.end_line]
            rx = re.compile(rf"[.:>]{re.escape(s.short)}\s*\(")
            out |= {x.d.start_line + k for k, ln in enumerate(lines) if rx.search(ln)}
    return out



def bound_function(p: Project, types: Iterable[Sym], name: str) -> list[Sym]:
    """A TS/JS class's field `name` that holds a function its file imports or defines (eta's `compile = compile;` in
    `class Eta`, fast-xml-parser's `this.parseXml = parseXml;` in a constructor): calling the field calls that
    function. `types`: the class's definitions."""
    for t in types:
        if t.kind == "class" and t.lang in ("javascript", "typescript", "tsx"):
            for ln in p.lines_of(t.rel)[t.d.start_line - 1:t.d.end_line]:
                m = re.match(rf"\s*(?:(?:readonly|public|private|protected)\s+|this\.)*{re.escape(name)}\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$", ln)
                hit = imported_definition(p, t.rel, m.group(1)) if m else []
                if m and not hit:
                    hit = [x for x in p.symbols(within=[t.rel]) if x.dotted == m.group(1)]
                if len(hit) == 1 and hit[0].kind == "function":
                    return hit
    return []


def named_as_value(p: Project, name: str, skip: set[str]) -> tuple[str, int] | None:
    """(file, line) of the one line of the project's code, outside the `skip` files, that gives the
    type `name` as a value (`default_storage_class = JSONStorage`, `storage=JSONStorage`), not in an
    import, a comment or a string (a docstring's `>>> db = TinyDB(storage=MemoryStorage)`); None when
    no line or several do."""
    rx = re.compile(rf"(?:=|\breturn|\?\?|\|\||\bor)\s*(?:new\s+)?{re.escape(name)}\b(?!\s*[.:\[])")
    hits = [(rel, k + 1) for rel in p.code_files() if rel not in skip
            for k, ln in enumerate(code_lines(p, rel)) if name in ln and rx.search(ln) and not re.match(r"\s*(?:import|from|use)\b", ln)]
    return hits[0] if len(hits) == 1 else None
