"""Whether the arguments an example passes fit a definition's parameters: as many, and none plainly
of another type (a literal where a project type is wanted; RestSharp's `client.GetAsync(request)`, with
`var request = new RestRequest(…)`, is no call of the overload taking a `string resource`); a C# call
without type arguments runs no generic method whose arguments do not tell its type parameters."""
from __future__ import annotations

import re

from .arity import split_args
from .project import Project, Sym
from .signature import signature_parts

# the built-in types a value of a project type is not
_PLAIN = re.compile(r"(?:string|String|str|int|long|short|byte|bool|boolean|double|float|decimal|char|Integer|Long|Boolean)\??")


def takes(p: Project, x: Sym, args: str, code: str, typed: bool = True) -> bool:
    """`x` can be called with these arguments: as many, and none that is plainly another type where a
    type of the project is wanted (a literal, `new Long(10)`, a local declared `int[] values`), or a value
    of a project type where a string or number is; a call without type arguments (not `typed`) fits a
    generic C# method only when its arguments tell its type parameters."""
    def project_type(t: str) -> bool:
        return bool(t) and any(d.kind in ("class", "struct", "interface", "trait") for d in p.find(t))

    given = [a.strip() for a in split_args(args)] if args.strip() else []
    params = signature_parts(x)[0]
    # (JavaScript leaves any parameter out: ws' `ws.send('something')` calls `send(data, options, cb)`)
    if len(params) != len(given) and not any("..." in prm.type or prm.default for prm in params) \
            and not (x.lang == "javascript" and len(given) < len(params)):
        return False
    if x.lang == "csharp" and not typed and not inferred(x):
        return False
    for a, prm in zip(given, params):
        other = _given_type(a, code)
        want = re.sub(r"<.*|\[\]|\.\.\.", "", prm.type).strip().rsplit(".", 1)[-1]
        if not project_type(want):
            if _PLAIN.fullmatch(want) and project_type(other):
                return False  # (`GetAsync(request)` is not `GetAsync(string resource)`)
            continue
        if re.fullmatch(r"-?\d[\d_.]*[lLfFdD]?|\"[^\"]*\"|'[^']*'|true|false|null|nil|None", a) \
                or (other and (other.endswith("[]") or not project_type(other))):
            return False
    return True


def _given_type(a: str, code: str) -> str:
    """The type an argument plainly has: `new T(…)`, or a local the code declares `T a =` or `var a = new T(…)`."""
    if made := re.fullmatch(r"new\s+([\w.]+)\s*[(\[{].*", a, re.S):
        return made.group(1).rsplit(".", 1)[-1]
    if not re.fullmatch(r"[A-Za-z_]\w*", a):
        return ""
    if m := re.search(rf"\b(?:var|val|let|const|auto)\s+{re.escape(a)}\s*=\s*new\s+([\w.]+)", code):
        return m.group(1).rsplit(".", 1)[-1]
    local = re.search(rf"(?<![\w.])([A-Za-z_][\w.]*)(?:<[^;=()]*>)?(\[\])?\s+{re.escape(a)}\s*=", code)
    if local is None or local.group(1) in ("var", "val", "let", "const", "auto"):
        return ""
    return local.group(1).rsplit(".", 1)[-1] + (local.group(2) or "")


def inferred(x: Sym) -> bool:
    """Every type parameter of `x` (`M<T>(…)`) is in its parameters' types, so a call need not write it."""
    m = re.search(rf"\b{re.escape(x.short)}\s*<([^()]*)>\s*\(", x.d.signature)
    types = " ".join(prm.type for prm in signature_parts(x)[0])
    return m is None or all(re.search(rf"\b{re.escape(t.strip())}\b", types) for t in m.group(1).split(","))
