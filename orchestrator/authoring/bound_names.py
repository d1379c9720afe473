"""Python's module-level names bound to one object's method (issue 35): pyjwt's `api_jwt.py` ends
`_jwt_global_obj = PyJWT()`, `encode = _jwt_global_obj.encode`, and `jwt/__init__.py` re-exports that `encode`, so
the README's `jwt.encode(…)` runs `PyJWT.encode`, not `PyJWS.encode` of the same name."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym


def bound_methods(p: Project) -> dict[str, Sym]:
    """Name -> the method a package's `__init__.py` re-exports under it, where the module it imports it from binds
    the name to a method of a module-level instance of one of the project's classes."""
    key = ("bound_methods",)
    if key in p._keys:
        return p._keys[key]
    out: dict[str, Sym] = {}
    for init in (r for r, (lang, _k) in p.files.items() if lang == "python" and posixpath.basename(r) == "__init__.py"):
        text = "\n".join(p.lines_of(init))
        for mod, wrapped, line in re.findall(r"(?m)^from\s+\.(\w+)\s+import\s+(?:\(([^)]*)\)|([^\n]+))", text):
            names = wrapped or line
            rel = posixpath.join(posixpath.dirname(init), mod + ".py")
            if rel not in p.files:
                continue
            src = "\n".join(p.lines_of(rel))
            made = dict(re.findall(r"(?m)^(\w+)\s*=\s*([A-Z]\w*)\s*\(", src))  # `_jwt_global_obj = PyJWT()`
            for name in re.findall(r"\w+", names):
                m = re.search(rf"(?m)^{re.escape(name)}\s*=\s*(\w+)\.(\w+)\s*$", src)
                cls = made.get(m.group(1), "") if m else ""
                hit = [x for x in p.find(m.group(2)) if x.kind == "method" and x.dotted == f"{cls}.{m.group(2)}"] if cls and m else []
                if len(hit) == 1:
                    out[name] = hit[0]
    p._keys[key] = out
    return out
