"""What another package's server runs of the project's, where an example hands it a value: Node's
`http.createServer(app).listen(3000)` calls the function the project made (`app`, from connect's
`createServer`); Go's `http.ListenAndServe(":8080", handler)` runs what `cors.Default().Handler(mux)`
returned. mainpath starts the main path there."""

from __future__ import annotations

import re

from .project import Project, Sym, project_name


def node_server(p: Project, code: str, at: int, starts: list[tuple[Sym, float]]) -> tuple[Sym, str] | None:
    """The project's function that made the value an example hands to another package's server whose
    result it runs (connect's `var app = connect(); … http.createServer(app).listen(3000)`: Node's
    server calls `app`, which `createServer`, the package's export, made) and the value's name, or None."""
    from .entry import _package_name, root_files

    before = re.search(r"([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)\s*\(([^()]*)\)\s*\.\s*$", code[:at])
    if before is None:
        return None
    own = {_package_name(x) for x in (project_name(p.root), p.root.name)}

    def package(name: str) -> str | None:
        m = re.search(rf"""\b{re.escape(name)}\s*=\s*require\(\s*['"]([^'"]+)['"]|\bimport\s+{re.escape(name)}\s+from\s+['"]([^'"]+)['"]""", code)
        return _package_name(m.group(1) or m.group(2)) if m else None

    server = package(before.group(1))
    if server is None or server in own:
        return None  # not another package's server
    funcs = [s for s, _b in starts if s.kind == "function"]
    for arg in re.findall(r"[A-Za-z_$][\w$]*", before.group(3)):
        made = re.search(rf"\b{re.escape(arg)}\s*=\s*([A-Za-z_$][\w$]*)\s*\(", code)
        if made is None:
            continue
        name = made.group(1)
        hit = [s for s in funcs if s.short == name] or \
            ([s for s in funcs if s.rel in root_files(p) and "." not in s.dotted] if package(name) in own else [])
        if len(hit) == 1:
            p._keys[("served_by",)] = f"{before.group(1)}.{before.group(2)}"  # (`http.createServer`)
            return hit[0], arg
    return None


def wrapping_method(code: str, args: str, starts: list[tuple[Sym, float]]) -> Sym | None:
    """The project's method whose result the example hands to another package's server (rs/cors's
    `handler := cors.Default().Handler(mux)` … `http.ListenAndServe(":8080", handler)`): what it
    returns is what serves, so the path starts there, not at its type's own `ServeHTTP`."""
    for arg in re.findall(r"[A-Za-z_]\w*", args):
        bound = re.search(rf"(?m)^\s*{re.escape(arg)}\s*:?=\s*[^\n]*\.\s*([A-Za-z_]\w*)\s*\([^\n]*\)\s*;?\s*$", code)  # (its last call)
        hit = [s for s, _b in starts if bound and s.kind == "method" and s.short == bound.group(1)]
        if len(hit) == 1:
            return hit[0]
    return None


def own_runs(code: str) -> list[re.Match[str]]:
    """The calls of an example that run what it set up (SERVING), but a server of another package made around a
    function literal (formidable's `const server = http.createServer(async (req, res) => { … form.parse(req) … })`,
    then `server.listen(8080)`): the calls inside the function are the run."""
    from .example_text import SERVING

    around = set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*[a-z_$][\w$]*\s*\.\s*create\w*\s*\(\s*"
                            r"(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)", code))
    return [m for m in SERVING.finditer(code) if (m.group(2) != "Handle" or m.group(1) == "http") and m.group(1) not in around]
