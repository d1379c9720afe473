"""Which of several implementations the example's own calls make (issue 35). FluentValidation's
`RuleFor(x => x.Surname)` makes a `PropertyRule` (`PropertyRule<T, TProperty>.Create(…)`) and adds it
to the rules that `Rules[i].ValidateAsync(…)` runs later: of the interface's implementations
(`PropertyRule`, `CollectionPropertyRule`), the example's path runs that one. Read from the bodies of
the project's methods the example calls by name, one level down."""

from __future__ import annotations

import re

from .project import Project, Sym


def made_by_example(p: Project, owners: list[str]) -> list[str]:
    """Of `owners` (dotted type names), those a method the first example calls constructs."""
    key = ("example_made",)
    if key not in p._keys:
        p._keys[key] = ""  # (being read: a question asked while reading it finds nothing)
        p._keys[key] = _called_bodies(p)
    text = p._keys[key]
    out = []
    for o in owners:
        t = re.escape(o.rsplit(".", 1)[-1])
        if re.search(rf"\bnew\s+{t}\b|(?<![\w.]){t}\s*(?:<[^;()\n]*>)?\s*(?:\.|::)\s*(?:[Cc]reate|new|of)\s*\(", text):
            out.append(o)
    return out


def made_in_packages(p: Project) -> set[str]:
    """The Go packages whose constructor the first example calls by its qualifier (`html.NewRenderer(opts)`: html)."""
    from .overview import entry_points, example_of

    ex = example_of(p, entry_points(p))
    return set(re.findall(r"(?<![\w.])([a-z]\w*)\.New\w*\s*\(", ex.calls_code)) if ex is not None else set()


def _called_bodies(p: Project) -> str:
    from .overview import entry_points, example_of

    ex = example_of(p, entry_points(p))
    if ex is None:
        return ""
    names = set(re.findall(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:<[^;()\n]*>)?\s*\(", ex.calls_code))
    bodies = []
    for n in sorted(names):
        for x in p.find(n):
            if x.short == n and x.kind in ("method", "function") and x.lines < 200:
                bodies.append("\n".join(p.lines_of(x.rel)[x.d.start_line - 1:x.d.end_line]))
    return "\n".join(bodies)


def valued_types(p: Project) -> set[str]:
    """The types of the project's named values the first example hands over (jwt's `jwt.SigningMethodHS256`,
    declared `SigningMethodHS256 *SigningMethodHMAC` and made `= &SigningMethodHMAC{…}`): a value of that type is
    what the code it is given runs."""
    key = ("example_values",)
    if key not in p._keys:
        from .overview import entry_points, example_of

        ex = example_of(p, entry_points(p))
        names = set(re.findall(r"(?<=[\w)]\.)([A-Z]\w*)\b(?!\s*[({<])", ex.calls_code)) if ex is not None else set()
        out: set[str] = set()
        for rel in p.code_files() if names else []:
            text = "\n".join(p.lines_of(rel))
            for n in names:
                for m in re.finditer(rf"(?m)^\s*(?:(?:public|static|final|readonly|const|val|var)\s+)*{re.escape(n)}\s*"
                                     r"(?::\s*|\s)\*?([A-Z]\w*)\b|\b" + re.escape(n) + r"\s*=\s*&?(?:new\s+)?([A-Z]\w*)\s*[{(]", text):
                    out.add(m.group(1) or m.group(2))
        p._keys[key] = out
    return set(p._keys[key])


def registry_pick(p: Project, roots: list[Sym]) -> list[tuple[Sym, tuple[str, int]]]:
    """Of several implementations, the one the project's table of them gives for the first name the example's data
    says (jsonpatch's `operations = {'add': AddOperation, …}`, and the tutorial's `{'op': 'add', …}` first):
    [(it, (file, the table's line))], or [] when no table names one so."""
    from .overview import entry_points, example_of

    ex = example_of(p, entry_points(p))
    text = (ex.code + "\n" + (ex.then.code if ex.then else "")) if ex else ""
    said = [m.group(1) for m in re.finditer(r"['\"]([\w-]+)['\"]", text)]
    if not said:
        return []  # (no name in the example's data: no table is read)
    found: list[tuple[int, Sym, tuple[str, int]]] = []
    for x in roots:
        cls = x.dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        rx = re.compile(rf"['\"]([\w-]+)['\"]\s*[:,=]>?\s*{re.escape(cls)}\b(?!\s*\()")
        hits = [(said.index(m.group(1)), (rel, k + 1)) for rel in p.code_files() for k, ln in enumerate(p.lines_of(rel))
                if cls in ln and (m := rx.search(ln)) and m.group(1) in said and not re.match(r"\s*(?:#|//)", ln)]  # (its keys as written)
        if len(hits) == 1:
            found.append((hits[0][0], x, hits[0][1]))
    return [min(found, key=lambda f: f[0])[1:]] if found else []
