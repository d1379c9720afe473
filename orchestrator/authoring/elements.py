"""The elements of a container field (issue 35): which project type a local has when the code takes
it out of one of its own object's maps or lists. `root := r.trees[req.Method]` with `trees
map[string]*node` makes `root.getValue(` `node.getValue`; `for name, f in self.dump_fields.items()`
with `dict[str, Field]` makes `f.serialize(` `Field.serialize`. Read from the field's declared
type, as callres reads a parameter's: one project type, or nothing."""

from __future__ import annotations

import re

from .project import Project, Sym

# A field's declaration with its whole type, by language (FIELD is the field)
_FIELD_TEXT = {
    "go": r"^\s*FIELD\s+([^/\n]+)",
    "rust": r"\bFIELD\s*:\s*([^\n]+?),?\s*(?://.*)?$",  # (a map's type has a comma: `HashMap<&'t str, Template<'t>>`)
    "java": r"([\w.]+<[^;=()]*>|[\w.]+\[\])\s+FIELD\s*[;=]",
    "csharp": r"([\w.]+<[^;=()]*>|[\w.]+\[\])\s+FIELD\s*[;={]",
    "typescript": r"\bFIELD\s*[?!]?\s*:\s*([^;=\n]+)",
    "python": r"\bself\.FIELD\s*:\s*([^=\n]+)|^\s*FIELD\s*:\s*([^=\n]+)|\bself\.FIELD\s*=.*#\s*type:\s*(.+)$",
}
_TYPES = frozenset({"class", "struct", "interface", "trait", "type", "enum", "type alias"})
_IDENT = re.compile(r"[A-Za-z_]\w*")


def element_locals(p: Project, s: Sym, code: str, by_dotted: dict[str, list[Sym]]) -> dict[str, str]:
    """Local name → the project type of the elements of `s`'s own container field it is bound from:
    a map or list indexed (`x := r.f[k]`, `x = self.f[k]`), looped over (`for k, x in self.f.items()`,
    `for _, x := range r.f`, `for (const x of this.f)`, `for x in self.f.iter()`), or got (`if let
    Some(x) = self.f.get(`)."""
    if "." not in s.dotted:
        return {}
    own = rf"{_own(s)}(?P<fld>\w+)"
    binds = [rf"\bfor\s+(?:\w+\s*,\s*)?(?P<v>\w+)\s+in\s+&?(?:mut\s+)?{own}(?:\.(?:items|values|iter|iter_mut)\(\))?\s*[:{{]",
             rf"(?:^|;|\bif\s+|\blet\s+|\b(?:const|let|var)\s+)\s*(?P<v>\w+)(?:\s*,\s*\w+)?\s*:?=\s*{own}\s*\[",
             rf"\bfor\s+\w+\s*,\s*(?P<v>\w+)\s*:=\s*range\s+{own}\s*\{{",
             rf"\bfor\s*\(\s*(?:const|let|var)\s+(?P<v>\w+)\s+of\s+{own}\s*\)",
             rf"\bif\s+let\s+Some\((?P<v>\w+)\)\s*=\s*{own}\.get\(",
             # (tinytemplate's `match self.templates.get(template) { Some(tmpl) => tmpl.render(…)`)
             rf"\bmatch\s+{own}\.get\([^(){{}}]*\)\s*\{{\s*Some\(\s*(?P<v>\w+)\s*\)\s*=>"]
    if s.lang == "ruby":  # a block over an instance variable's items (terminal-table's `@rows.map { |r| r.render }`,
        # or through its reader: `cells.map do |cell|`)
        binds = [r"(?<![\w.:@$])@?(?P<fld>[a-z_]\w*)\.(?:each|map|select|reject|each_with_index|flat_map|collect|filter_map|find|detect|"
                 r"sort_by|group_by|sum|count|each_slice)\b[^{\n]*?(?:\{|\bdo)\s*\|\s*(?P<v>\w+)"]
    out: dict[str, str] = {}
    for rx in binds:
        for m in re.finditer(rx, code, re.M):
            typ = _element_type(p, s, m.group("fld"), by_dotted)
            if typ:
                out.setdefault(m.group("v"), typ)
    return out


def element_calls(p: Project, s: Sym, code: str, by_dotted: dict[str, list[Sym]]) -> list[Sym]:
    """Methods called straight on an element of `s`'s own container field: FluentValidation's
    `Rules[i].ValidateAsync(…)` with `TrackingCollection<IValidationRuleInternal<T>> Rules`, `self.f[k].m(`."""
    if "." not in s.dotted:
        return []
    # (in C#, Java and Kotlin a field is also named without `this.`)
    own = rf"(?:{_own(s)}{'|(?<![.$])' if s.lang in ('csharp', 'java', 'kotlin') else ''})"
    out: list[Sym] = []
    for m in re.finditer(rf"(?<![\w$]){own}(\w+)\s*\[[^\]\n]*\]\s*\.\s*(\w+)\s*\(", code):
        typ = _element_type(p, s, m.group(1), by_dotted)
        hit = list(by_dotted.get(f"{typ}.{m.group(2)}", ())) if typ else []
        if len(hit) == 1 and hit[0] not in out:
            out.append(hit[0])
    return out


def _own(s: Sym) -> str:
    """The pattern of a field reached through the method's own object (`self.`, `this.`, `r.`)."""
    from .signature import receiver

    return rf"(?:{re.escape(receiver(s))}|self|this)\."


def _element_type(p: Project, s: Sym, fld: str, by_dotted: dict[str, list[Sym]]) -> str:
    """The project type of the elements of `s`'s own field `fld` (a map's values, a list's items),
    when its declaration says one: `map[string]*node`, `dict[str, Field]`."""
    if s.lang == "ruby":
        return _ruby_items(p, s, fld, by_dotted)
    rx = _FIELD_TEXT.get(s.lang)
    if rx is None:
        return ""

    def is_type(name: str) -> bool:
        return any(x.kind in _TYPES for x in by_dotted.get(name, ()))

    found: set[str] = set()
    for o in by_dotted.get(s.dotted.rsplit(".", 1)[0], ()):
        if o.kind not in _TYPES:
            continue
        text_of = "\n".join(p.lines_of(o.rel)[o.d.start_line - 1:o.d.end_line])
        for hit in re.findall(rx.replace("FIELD", re.escape(fld)), text_of, re.M):
            text = hit if isinstance(hit, str) else next((t for t in hit if t), "")
            if not re.search(r"[\[<]", text):
                continue  # not a container: the field's own type (callres._field_call)
            words = [w for w in _IDENT.findall(text) if is_type(w)]
            if words:
                found.add(words[-1])  # a map's value type comes last
    return found.pop() if len(found) == 1 else ""


def _ruby_items(p: Project, s: Sym, fld: str, by_dotted: dict[str, list[Sym]]) -> str:
    """The project class of what a Ruby class puts in its instance variable `@fld` (`@rows << row` after
    `row = array == :separator ? Separator.new(self) : Row.new(self, array)`): one class, or the one the
    others subclass (`class Separator < Row`); '' otherwise."""
    owner = s.dotted.rsplit(".", 1)[0]
    scope = owner.split(".")

    def cls(name: str) -> str:  # `Row` inside `Terminal::Table`: `Terminal.Table.Row`, innermost first
        name = name.replace("::", ".")
        return next((t for t in (".".join(scope[:k] + [name]) for k in range(len(scope), -1, -1))
                     if any(x.kind == "class" for x in by_dotted.get(t, ()))), "")

    found: set[str] = set()
    for o in by_dotted.get(owner, ()):
        if o.kind != "class":
            continue
        text = "\n".join(p.lines_of(o.rel)[o.d.start_line - 1:o.d.end_line])
        for m in re.finditer(rf"@{re.escape(fld)}\s*(?:<<|\.push\(|\.append\()\s*([^\n]+)", text):
            value = m.group(1)
            local = re.fullmatch(r"\s*([a-z_]\w*)\s*\)?\s*", value)
            if local:  # `@rows << row`: what the method bound `row` to just before
                bound = [b.group(1) for b in re.finditer(rf"(?m)^\s*{local.group(1)}\s*=\s*([^\n]+)", text[:m.start()])]
                value = bound[-1] if bound else ""
            found |= {c for n in re.findall(r"\b([A-Z][\w:]*)\.new\b", value) if (c := cls(n))}
    if len(found) > 1:  # of a class and its subclasses, the class (`class Separator < Row`)
        bases = {t: {cls(b.group(1)) for x in by_dotted.get(t, ()) if (b := re.search(r"<\s*([A-Z][\w:]*)", x.d.signature))}
                 for t in found}
        found = {t for t in found if all(u == t or t in bases[u] for u in found)}
    return found.pop() if len(found) == 1 else ""
