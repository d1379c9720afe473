"""What a JavaScript or TypeScript value is at run time where its declaration says less: a class field made
by one of its methods (marked's `parse = this.parseMarkdown(true)`), a function declared to return a type
with no members in the map that returns `new X(…)` (ts-pattern's `match(…): Match<…>` is a `MatchExpression`)."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym


def made_field(p: Project, by_dotted: dict[str, list[Sym]], typ: str, name: str) -> tuple[Sym, int] | None:
    """(the method, the field's line) when a TS/JS class's field of that name is made by one of its
    methods (marked's `parse = this.parseMarkdown(true)`): a call of the field runs what it made."""
    for t in by_dotted.get(typ, ()):
        if t.kind == "class" and t.lang in ("javascript", "typescript", "tsx"):
            lines = p.lines_of(t.rel)[t.d.start_line - 1:t.d.end_line]
            for k, ln in enumerate(lines):
                made = re.match(rf"\s*(?:(?:readonly|public|private|protected|static)\s+)*{re.escape(name)}\s*"
                                rf"(?::[^=\n]*)?=\s*this\.(\w+)\b", ln)
                hit = by_dotted.get(f"{typ}.{made.group(1)}", []) if made and made.group(1) != name else []
                if len(hit) == 1:
                    return hit[0], t.d.start_line + k
    return None


def made_result(p: Project, code: str, declared: str) -> str:
    """The class a function returns `new` when the type it declares (`declared`, one with no members in the
    map: a type alias of a public API) says nothing of its methods; `declared` otherwise."""
    made = set(re.findall(r"\breturn\s+new\s+([A-Z][\w$]*)\b", code))
    if len(made) == 1:
        cls = made.pop()
        if any(t.kind == "class" for t in p.find(cls) if t.dotted == cls):
            return cls
    return declared


def object_members(p: Project, obj: Sym) -> list[Sym]:
    """The functions a JS/TS module's object literal gathers by name (json5's `const JSON5 = { parse, stringify }`,
    exported): what a user calls on the object (`JSON5.parse(…)`) is the function of that name."""
    if obj.kind not in ("constant", "variable") or obj.lang not in ("javascript", "typescript"):
        return []
    text = "\n".join(p.lines_of(obj.rel)[obj.d.start_line - 1:obj.d.end_line])
    body = re.search(r"=\s*\{([^{}]*)\}", text)
    names = re.findall(r"(?:^|,)\s*([A-Za-z_$][\w$]*)\s*(?=,|$)", body.group(1).strip()) if body else []
    out: list[Sym] = []
    for n in names:
        hits = [x for x in p.find(n) if x.dotted == n and x.kind == "function"]
        hits = [x for x in hits if not x.rel.endswith(".d.ts")] or hits  # (its code, not its declaration)
        if len(hits) == 1:
            out.append(hits[0])
    return out


_REEXPORT = re.compile(r"""export\s*\{([^}]*)\}\s*from\s*["'](\.[^"']+)["']""")


def exported_value_class(p: Project, name: str) -> str:
    """The class of the project's value a package's index re-exports under `name`, made there by `new`
    (tsyringe's `export {instance as container} from "./dependency-container"`, where `export const instance:
    DependencyContainer = new InternalDependencyContainer()`: the class constructed runs, whatever the constant is
    declared as), or ''."""
    for rel in p.code_files():
        if not re.fullmatch(r"index\.(?:[cm]?js|ts)", posixpath.basename(rel)):
            continue
        for m in _REEXPORT.finditer("\n".join(p.lines_of(rel))):
            for item in m.group(1).split(","):
                parts = item.split()
                if not parts or parts[-1] != name:
                    continue
                base = posixpath.normpath(posixpath.join(posixpath.dirname(rel), m.group(2)))
                for c in p.find(parts[0]):
                    made = re.search(r"=\s*new\s+([A-Z][\w$]*)\s*[(<]", c.d.signature)
                    if c.kind in ("constant", "variable") and made and posixpath.splitext(c.rel)[0] in (base, base + "/index") \
                            and any(t.kind == "class" for t in p.find(made.group(1)) if t.dotted == made.group(1)):
                        return made.group(1)
    return ""


def default_class(p: Project, rel: str, name: str) -> str:
    """The class a JS/TS file's `import name from './module'` binds: the module's default export (formidable's
    `import Formidable from "./Formidable.js"`, whose file ends `export default IncomingForm;`), or ''."""
    if p.lang(rel) not in ("javascript", "typescript") or not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
        return ""
    if not re.search(rf"(?m)^\s*import\s+{re.escape(name)}\s*(?:,|\s+from\b)", "\n".join(p.lines_of(rel))):
        return ""
    from .references import imports, module_file

    module = imports(p, rel).get(name, ("", False, ""))[0]
    there = module_file(p, rel, module) if module else None
    m = re.search(r"(?m)^\s*export\s+default\s+(?:class\s+)?([A-Za-z_$][\w$]*)", "\n".join(p.lines_of(there))) if there else None
    return m.group(1) if m and any(x.kind == "class" and x.rel == there for x in p.find(m.group(1))) else ""


def package_instance(p: Project, code: str, var: str) -> str:
    """The class of the instance a package exports as its default, when example code imports it as `var` (mime's
    `import mime from 'mime'`, whose src/index.ts ends `export default new Mime(standardTypes, otherTypes)._freeze();`;
    `module.exports = new X(…)`): what the example calls on `var` is that class's; '' otherwise. (The caller drops a
    name another package's import binds: entry.foreign_imports.)"""
    v = re.escape(var)
    if not re.search(rf"(?m)^\s*import\s+{v}\s+from\s*['\"][^./'\"]|\b{v}\s*=\s*require\s*\(\s*['\"][^./'\"]", code):
        return ""
    made = instance_sites(p)
    return next(iter(made)) if len(made) == 1 else ""


def instance_sites(p: Project) -> dict[str, tuple[str, int]]:
    """Class → (file, line) of the package index's `export default new X(…)` / `module.exports = new X(…)` (read once)."""
    key = ("instance_sites",)
    if key in p._keys:
        return p._keys[key]
    out: dict[str, tuple[str, int]] = p._keys.setdefault(key, {})
    for rel in p.code_files():
        if re.fullmatch(r"index\.(?:[cm]?[jt]s)", posixpath.basename(rel)) and rel.count("/") <= 1:
            for k, ln in enumerate(p.lines_of(rel), 1):
                # (or with more put on it: signale's `module.exports = Object.assign(new Signale(), {Signale});`)
                m = re.match(r"(?:export\s+default|module\.exports\s*=)\s*(?:Object\.assign\(\s*)?new\s+([A-Z][\w$]*)\s*\(", ln)
                if m and any(t.kind == "class" for t in p.find(m.group(1)) if t.dotted == m.group(1)):
                    out.setdefault(m.group(1), (rel, k))
    return out


_EXPORTS_ITSELF = re.compile(r"(?m)^\s*module\.exports\s*=\s*(?:require\(\s*['\"](\.[^'\"]+)['\"]\s*\)|Object\.assign\(\s*([A-Za-z_$][\w$]*)\s*,"
                             r"|([A-Za-z_$][\w$]*)\s*;?\s*$)|^\s*export\s+default\s+(?:async\s+)?(?:function\s+)?([A-Za-z_$][\w$]*)")


def package_function(p: Project) -> Sym | None:
    """The function a JavaScript package is, as its root index exports it (prompts' `index.js` is
    `module.exports = require('./lib/index.js')`, which ends `module.exports = Object.assign(prompt, { … })`):
    what a README's `const prompts = require('prompts')`, then `prompts({…})`, calls; None when it exports another."""
    key = ("package_function",)
    if key not in p._keys:
        from .references import module_file

        found = None
        rel = next((r for r in p.code_files() if re.fullmatch(r"index\.[cm]?js", r)), None)
        for _hop in range(4):  # (a re-export or two, never a cycle)
            m = _EXPORTS_ITSELF.search("\n".join(p.lines_of(rel))) if rel else None
            if m is None or rel is None:
                break
            if m.group(1):
                rel = module_file(p, rel, m.group(1))
                continue
            name = m.group(2) or m.group(3) or m.group(4)
            found = next((x for x in p.find(name) if x.rel == rel and x.kind == "function" and x.dotted == name), None)
            break
        p._keys[key] = found
    return p._keys[key]


def package_binding(p: Project, code: str) -> str:
    """The name example code binds this package to itself under (`const prompts = require('prompts')`,
    `import prompts from 'prompts'`), when the package is a function (package_function) the code calls, or an
    instance of one of its classes (instance_sites) the code calls a method of (`signale.success(…)`); ''."""
    from .project import project_name

    pkg = re.escape(project_name(p.root))
    m = re.search(rf"(?m)(?:\b([A-Za-z_$][\w$]*)\s*=\s*require\s*\(\s*|^\s*import\s+([A-Za-z_$][\w$]*)\s+from\s*)['\"]{pkg}['\"]", code)
    name = (m.group(1) or m.group(2)) if m else ""
    called = name and package_function(p) is not None and re.search(rf"(?<![\w$.]){re.escape(name)}\s*\(", code)
    used = name and len(instance_sites(p)) == 1 and re.search(rf"(?<![\w$.]){re.escape(name)}\s*\.\s*[A-Za-z_$][\w$]*\s*\(", code)
    return name if called or used else ""
