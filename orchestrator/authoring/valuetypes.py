"""Which project type a value has where the code says so (issue 35): a local made from a
construction or from a call whose result is known, a field its type's own code fills, what a call
returns. `md = Markdown(**kwargs); md.convert(text)` makes `md.convert(` `Markdown.convert`;
`self.parser = build_block_parser(self)` in one method, with `build_block_parser` returning the
`BlockParser(md)` it made, makes `self.parser.parseDocument(` in another `BlockParser.parseDocument`;
`parser.Parser().parse(expression).search(data)` is `Parser.parse`, then `ParsedResult.search`.

Text-based, as callres is, and as strict: a value has a type only when every place that gives it
one agrees, and a chain of readings stops at the first link it cannot read. A result is read from
the declared result type first (`-> Signer`, `ServiceMethod<?> loadServiceMethod(`, `-> Self`), else
from the `return` statements (Ruby's and Rust's last expression): all of those must name one type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from .arity import near
from .codetext import call_args, closing, go_qualifier, top_split as _top_split  # noqa: F401 (call_args, closing: re-exported)
from .ctor_args import param_given
from .extension_methods import extension_members
from .given import given_type
from .js_values import default_class, made_result
from .local_defs import top
from .local_values import LOCAL_LANGS, assigned_values
from .module_values import module_named, module_value
from .project import Project, Sym
from .references import bound_function
from .ruby_blocks import block_param_type
from .ruby_mixins import class_or_instance, mixins
from .signature import java_result, owner, receiver  # noqa: F401 (java_result: re-exported)
from .uses import rust_type_narrowed


class Calls(Protocol):
    """What typing asks of a call resolver (callres.Resolver): the one definition a call names."""

    def resolve(self, raw: str, bang: bool, args: str) -> Sym | None: ...

    def param_types(self) -> dict[str, str]: ...


MAX_DEPTH = 5  # links of reading one value through another inside one definition (a local from a local …)
MAX_NESTED = 30  # results read through other results at once (each is kept, so a long chain is read in parts)
_TYPES = frozenset({"class", "struct", "interface", "trait", "type", "enum", "type alias"})
_CALLABLE_CLASS = frozenset({"python", "kotlin", "swift", "scala"})  # `Markdown(…)` constructs
_PASS = frozenset({"unwrap", "expect", "clone", "borrow", "borrow_mut", "as_ref", "as_mut", "lock", "await", "__class__"})
_CONTAINER = re.compile(r"^\s*(?:\[\]|\[\w*\]|map\[|(?:Vec|List|Set|HashMap|BTreeMap|Map|Array|ArrayList|IEnumerable|"
                        r"IList|Collection|Iterable|Iterator|Sequence|list|dict|set|tuple|Dict|Tuple)\b)")
_WRAPPER = re.compile(r"^\s*(?:Result|Option|Box|Arc|Rc|RefCell|Mutex|Optional|Task|ValueTask|Promise|Future|"
                      r"Awaitable|Ref|Cow)\s*<(.*)>\s*$")

# A field's declaration in its type's body, by language: the type it names (FIELD is the field)
FIELD_DECL = {
    "go": r"(?m)^\s*FIELD\s+\*?(?:\[\])?([A-Za-z_]\w*)",
    "rust": r"\bFIELD\s*:\s*(?:&(?:'\w+\s+)?(?:mut\s+)?)?(?:(?:Box|Arc|Rc|Option)<)?([A-Za-z_]\w*)",
    "java": r"\b([A-Z]\w*)(?:<[^;=()]*>)?\s+FIELD\s*[;=]",
    "cpp": r"\b([A-Za-z_]\w*)(?:<[^;=()]*>)?\s*[*&]?\s*FIELD(?:_)?\s*[;={]",
    "typescript": r"\bFIELD\s*[?!]?\s*(?::|=\s*new\s)\s*([A-Za-z_]\w*)",  # (markdown-it's `core = new ParserCore()`)
    "python": r"\bself\.FIELD\s*:\s*([A-Za-z_]\w*)",
    "kotlin": r"\b(?:val|var)\s+FIELD\s*(?::\s*|=\s*(?=[A-Z]\w*\s*(?:<[^>]*>)?\())([A-Z]\w*)",
    # (CsvHelper's `Lazy<RecordManager> recordManager` read as `.Value` is a RecordManager; kotlin-csv's `val parser = CsvParser(…)`)
    "csharp": r"\b(?:Lazy<\s*)?([A-Z]\w*)(?:<[^;=()]*>)?\s*>?\s+FIELD\s*(?:[;=]|\{\s*get)",
}


def _code(p: Project, s: Sym) -> str:
    key = ("vt_code", s.rel, s.d.start_line, s.d.end_line)  # (read once: a long body's locals are typed many times)
    if key not in p._keys:
        from .codetext import mask_text

        p._keys[key] = mask_text("\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]), s.lang)
    return p._keys[key]


_SEG = re.compile(r"\s*(\?\.|\.|::)\s*(@?[A-Za-z_$][\w$]*)|\s*(\?|!!)")


def _statement_rest(code: str, at: int) -> str:
    """The value an assignment gives, from `at`: to the line's end, or on over the next lines while
    a bracket is open or the line ends in an operator (`this.router =⏎ options.router ??⏎ new SmartRouter({…})`)."""
    out = ""
    for line in code[at:].split("\n")[:8]:
        out += (" " if out else "") + line.strip()
        depth = sum(out.count(c) for c in "([{") - sum(out.count(c) for c in ")]}")
        if out and depth <= 0 and not re.search(r"(?:\?\?|\|\||&&|[?:(,=+]|\bor|\band)\s*$", out):
            break
    return out.strip().rstrip(";").strip()


class Typer:
    """Reads the types of one project's values; what it has read is kept in the project's memo."""

    def __init__(self, p: Project, by_dotted: dict[str, list[Sym]], resolver_for: Callable[[Sym], Calls],
                 codes: dict[int, str] | None = None) -> None:
        self.p, self.by_dotted, self.resolver_for = p, by_dotted, resolver_for
        self.codes = codes or {}  # id(sym) -> its code, for code outside the map (a README's example)

    def code_of(self, s: Sym) -> str:
        return self.codes.get(id(s)) or _code(self.p, s)

    def is_type(self, name: str) -> bool:
        syms = self.by_dotted.get(name, ())
        if any(x.kind in _TYPES for x in syms):
            return True
        # an ES5 constructor function with methods on its prototype (`function Writer () {…}`,
        # `Writer.prototype.render = function render (…) {…}`): a class
        return name[:1].isupper() and any(x.kind == "function" and x.lang in ("javascript", "typescript") for x in syms) \
            and bool(self._members().get(name))

    def type_in_text(self, text: str, owner: str = "") -> str:
        """The one project type a declared type names (`ServiceMethod<?>`, `Result<Signer, Error>`,
        `(*Command, error)`, `Self`), not a container of it (`Vec<Route>`, `[]*Route`); else ''."""
        t = text.strip().strip("'\"").lstrip("&*").strip()
        t = re.sub(r"^(?:t\.|typing\.)?(?:Optional|Type|Final|ClassVar)\[(.*)\]$", r"\1", t)  # (arrow's `Type[Arrow]`)
        t = re.sub(r"^(?:'\w+\s+)?(?:mut\s+)?(?:(?:crate|self|super)::)?(?:\w+::)*", "", t)
        if t.startswith("(") and "," in t:  # Go's results: the first
            t = t[1:].split(",", 1)[0].strip().lstrip("*")
        for _ in range(3):
            m = _WRAPPER.match(t)
            if m is None:
                break
            t = re.sub(r"^\s*'\w+\s*,", "", m.group(1)).split(",", 1)[0].strip().lstrip("&*")  # (`Cow<'_, Template>`)
        if _CONTAINER.match(t):
            return ""
        head = re.match(r"[A-Za-z_][\w.]*", t)
        if head is None:
            return ""
        name = head.group(0).rsplit(".", 1)[-1]
        if name in ("Self", "self", "this") and owner:
            return owner
        whole = head.group(0) if "." in head.group(0) and self.is_type(head.group(0)) else ""  # (`JWTCreator.Builder`)
        return self.scoped(name, owner) or whole

    def scoped(self, name: str, owner: str) -> str:
        """The project type `name` means in `owner`'s scope (jmustache's `Compiler` in `Mustache`: `Mustache.Compiler`)."""
        scope = owner.split(".") if owner and name[:1].isupper() else []
        return next((t for t in (".".join(scope[:k] + [name]) for k in range(len(scope), -1, -1)) if self.is_type(t)), "")

    def element_of(self, typ: str) -> str:
        """The element type of a named container type: `type methodTrees []methodTree`, `map[string]*node`."""
        found = set()
        for t in self.by_dotted.get(typ, ()):
            m = re.search(rf"\b{re.escape(typ)}\s*=?\s*(?:\[\]|map\[[^\]]*\]|\[\d*\]|(?:Vec|List)<)\s*\*?([A-Za-z_]\w*)",
                          " ".join(t.d.signature.split()))
            if m and self.is_type(m.group(1)):
                found.add(m.group(1))
        return found.pop() if len(found) == 1 else ""

    def bases(self, typ: str) -> list[str]:
        """The project types `typ` extends, as its declaration names them (`class TreeInterpreter(Visitor):`,
        `class Base < Rack::Builder`, `extends Visitor`, Kotlin's and C#'s `: Base()`)."""
        out: list[str] = []
        for t in self.by_dotted.get(typ, ()):  # (a Java interface's too: jayway's `DocumentContext extends ReadContext`)
            if t.kind not in ("class", "struct") and not (t.kind == "interface" and t.lang in ("java", "typescript", "kotlin", "csharp")):
                continue
            head = re.split(r"\{|\bimplements\b|\bwhere\b", " ".join(t.d.signature.split()), maxsplit=1)[0] if t.lang != "go" \
                else "extends " + " ".join(re.findall(r"(?m)^\s+\*?(?:\w+\.)?([A-Z]\w*)\s*(?://.*)?$", _code(self.p, t)))  # (embedded)
            m = (re.search(r"\bclass\s+[\w.]+\s*(?:\[[^\]]*\])?\s*\((.*)\)", head) if t.lang == "python"
                 else re.search(r"\bclass\s+[\w:]+\s*<\s*([\w:]+)", head) if t.lang == "ruby"
                 else re.search(r"\bextends\s+(.*)$", head) or re.search(r"\)?\s*:\s*([^{]*)$", head)
                 if t.lang in ("kotlin", "csharp", "scala", "swift") else re.search(r"\bextends\s+(.*)$", head))
            for w in re.findall(r"[A-Za-z_][\w.:]*", m.group(1) if m else ""):  # (in its namespace: faker's `class Name < Base`)
                w = t.lang == "ruby" and self.scoped(w.replace("::", "."), typ.rsplit(".", 1)[0]) or re.split(r"\.|::", w)[-1]
                if w != typ and self.is_type(w) and w not in out:
                    out.append(w)
        return out

    def member(self, typ: str, name: str, on_class: bool = False) -> list[Sym]:
        """The definitions of `typ.name`: its own, else the nearest base type's (up to eight levels: PyYAML's `Loader`
        gets `get_single_data` five up); of a Ruby class's class and instance method so named, a value's, unless `on_class`."""
        todo, seen = [typ], {typ}
        for level in range(8):
            # (a Ruby module's own `def self.get` is not what mixing it in gives: its instance methods are)
            found = [x for t in todo for x in self.by_dotted.get(f"{t}.{name}", ())
                     if not level or x.lang != "ruby" or not re.match(r"\s*def\s+self\.", x.d.signature)]
            if found:
                return class_or_instance(self.p, found, on_class)
            todo = [b for t in todo for b in self.bases(t) + mixins(self.p, self.by_dotted, t) if b not in seen]
            seen.update(todo)
        return bound_function(self.p, self.by_dotted.get(typ, ()), name) or extension_members(self.p, self.bases, typ, name)

    # ------------------------------------------------------------ what a call gives back

    def result_type(self, s: Sym) -> str:
        """The project type a call of `s` gives back: a class or constructor its own type; a declared
        result; else what all its readable `return`s (Ruby's and Rust's last expression) agree on."""
        key = ("vt_result", s.rel, s.d.start_line)
        p = self.p
        if key in p._keys:
            return p._keys[key] or ""
        active = p._keys.setdefault(("vt_active",), [0])
        if active[0] >= MAX_NESTED:
            return ""  # (not kept: read again from a shallower start)
        p._keys[key] = None  # being read: a recursion reads nothing
        active[0] += 1
        try:
            # each result is read from its own start: kept, it must not depend on how deep the asker was
            p._keys[key] = found = self._result_type(s)
        finally:
            active[0] -= 1
        return found

    def _result_type(self, s: Sym) -> str:
        if s.kind in _TYPES:  # (a nested class is known by its whole name: jb-markdown's `HtmlGenerator.HtmlGeneratingVisitor`)
            return s.short if self.is_type(s.short) else s.dotted
        own = owner(s)
        if s.short in ("__init__", "initialize", "constructor") and own:
            return own
        from .signature import signature_parts

        declared = java_result(s) if s.lang in ("java", "csharp") else signature_parts(s)[1]
        if declared.strip() in ("any", "unknown") and s.lang == "typescript":  # what its overloads declare
            above = "\n".join(self.p.lines_of(s.rel)[max(0, s.d.start_line - 30):s.d.start_line - 1])
            said = {self.type_in_text(m.group(1), own) for m in re.finditer(
                rf"\bfunction\s+{re.escape(s.short)}\b[^{{;]*?\)\s*:\s*([^{{\n;]+?)\s*;?\s*$", above, re.M)}
            if len(said) == 1:
                return said.pop()  # (superstruct's `object(): Struct<…>` and `object<S>(schema: S): Struct<…>`)
        if declared.strip():
            typ = self.type_in_text(declared, own)
            return made_result(self.p, self.code_of(s), typ) if s.lang in ("typescript", "javascript") and typ \
                and not self._members().get(typ) else typ
        if s.lang in ("java", "csharp", "go", "c", "cpp"):
            return ""  # (a result these languages do not declare is none)
        body = self.code_of(s).split("\n")[1:]
        values = [m.group(1) for m in re.finditer(r"(?<![\w$])return\s+([^;\n]+)", "\n".join(body))]
        if s.lang in ("ruby", "rust"):
            last = next((ln.strip() for ln in reversed(body) if ln.strip() and ln.strip() not in ("end", "}")), "")
            if last and not last.endswith(";") and \
                    not re.match(r"(?:end|if|unless|else|elsif|when|case|while|for|let|match|return)\b|\}", last):
                values.append(re.sub(r"^@{0,2}\w+\s*(?:\|\||&&)?=(?![=~>])\s*", "", last) if s.lang == "ruby" else last)
        head = s.d.signature.split("\n")[0] if s.lang == "kotlin" else self.code_of(s).split("\n")[0]  # an expression body:
        m = re.search(r"\)\s*(?::\s*[\w<>?, ]+)?=\s*(.+)$" if s.lang == "kotlin" else r"=>\s*([^{\s].*?);?\s*$", head)
        if m and s.lang in ("kotlin", "javascript", "typescript"):  # (`fun f() = g()`, formidable's `(...args) => new F(…)`)
            values.append(m.group(1))
        # (a cache's `return _loaded.setdefault(path, grammar)` gives back what it stores: parso's `load_grammar`)
        found = {self.expr_type(s, re.sub(r"^[\w.]+\.setdefault\(\s*[^,()]+,\s*(.+)\)$", r"\1", v.strip().rstrip(";"))) for v in values}
        found.discard("")
        if not found and s.lang == "ruby":  # an accessor that makes what it names, however it keeps it
            made = {self.expr_type(s, m.group()) for m in re.finditer(r"(?<![\w:])[A-Z]\w*(?:::[A-Z]\w*)*\.new\b", "\n".join(body))}
            found = {x for x in made if x and x.rsplit(".", 1)[-1].lower() == s.short.replace("_", "").lower()}
        return found.pop() if len(found) == 1 else ""

    def bound_result(self, typ: str, hit: Sym) -> str:
        """What `hit`, called on a `typ`, gives back: its result type, or the type argument `typ`
        binds to a generic base's result (generics.bound_result)."""
        from .generics import bound_result

        return self.result_type(hit) or bound_result(self.by_dotted, self.is_type, typ, hit)

    def local_type(self, s: Sym, name: str, depth: int = 0) -> str:
        """The project type of `s`'s local `name`, as every assignment of it the code can read agrees."""
        if s.lang not in LOCAL_LANGS or depth >= MAX_DEPTH:
            return ""
        ann = re.search(rf"(?m)^[ \t]*{re.escape(name)}\s*:\s*([\w.]+)\s*$", self.code_of(s)) if s.lang == "python" else None
        if ann and (typ := self.type_in_text(ann.group(1), owner(s))):
            return typ  # declared alone, then filled in branches (tenacity's `r: BaseRetrying`)
        found: set[str] = set()
        key = ("vt_assigned", s.rel, s.d.start_line, name)  # (read once: a long body asks often; an example, each time)
        assigned = self.p._keys.get(key) if s.rel else None
        if assigned is None:
            assigned = assigned_values(self.code_of(s), name, s.lang)
            if s.rel:
                self.p._keys[key] = assigned
        for declared, value in assigned:
            typ = self.type_in_text(declared.replace("::", "."), owner(s)) if declared else ""
            found.add(typ or self.expr_type(s, value.strip().rstrip(";{").strip(), depth + 1))
        found.discard("")
        return found.pop() if len(found) == 1 else ""

    def _declared_as(self, owner: str, fld: str, lang: str) -> set[str]:
        """The types `owner`'s body declares its field `fld` with, as written (FIELD_DECL)."""
        rx = FIELD_DECL.get(lang)
        return {t for o in self.by_dotted.get(owner, ()) if o.kind in _TYPES and rx is not None
                for t in re.findall(rx.replace("FIELD", re.escape(fld)), "\n".join(self.p.lines_of(o.rel)[o.d.start_line - 1:o.d.end_line]))}

    def declared_field(self, owner: str, fld: str, lang: str) -> str:
        """The type `owner`'s field `fld` is declared with, as written, a project type or not (jayway's `Object json;`)."""
        found = self._declared_as(owner, fld, lang)
        return found.pop() if len(found) == 1 else ""

    def field_type(self, owner: str, fld: str, lang: str) -> str:
        """The project type of the field `fld` of type `owner`: declared in the type's body, or what
        every assignment its methods make to it (`self.parser = …`, `this.x = …`, `@x = …`) agrees on."""
        p = self.p
        key = ("vt_field", owner, fld, lang)
        if key in p._keys:
            return p._keys[key] or ""
        active = p._keys.setdefault(("vt_active",), [0])
        if active[0] >= MAX_NESTED:
            return ""
        p._keys[key] = None
        active[0] += 1
        try:
            p._keys[key] = typ = self._field_type(owner, fld, lang)
        finally:
            active[0] -= 1
        return typ

    def _field_type(self, owner: str, fld: str, lang: str) -> str:
        p = self.p
        declared = {self.scoped(t, owner) for t in self._declared_as(owner, fld, lang)} - {""}
        if declared and not all(self._abstract(t) for t in declared):
            return declared.pop() if len(declared) == 1 else ""
        # what its methods fill it with; a field declared as an interface (hono's `router!: Router`), what
        # its own or a subclass's constructor fills it with (`this.router = options.router ?? new SmartRouter(…)`)
        assign = (rf"@{re.escape(fld)}\s*(?:\|\|)?=(?![=~])" if lang == "ruby"
                  else rf"(?<![\w$.])(\w+)\.{re.escape(fld)}\s*=(?![=>])")
        found: set[str] = set()
        for t in [owner] + (self.subclasses(owner) if declared else []):
            for m in self._members().get(t, ()):
                if m.lang != lang:
                    continue
                code = _code(p, m)
                for a in re.finditer(assign, code, re.M):
                    if lang != "ruby" and a.group(1) not in ("self", "this", receiver(m)):
                        continue
                    found.add(self.expr_type(m, rest := _statement_rest(code, a.end())))
                    if declared and re.fullmatch(r"[A-Za-z_]\w*", rest):  # (a constructor's parameter: what its callers give)
                        found.add(param_given(self, m, rest))
        found.discard("")
        if declared:
            found = {t for t in found if not self._abstract(t)} or declared
        return found.pop() if len(found) == 1 else ""

    def _abstract(self, typ: str) -> bool:
        return any(x.kind in ("interface", "trait") or (x.kind == "class" and re.search(r"\babstract\b", x.d.signature))
                   for x in self.by_dotted.get(typ, ()))

    def subclasses(self, typ: str) -> list[str]:
        """The project's types that extend `typ` (directly; a Ruby class or module too that mixes it in)."""
        key = ("vt_subclasses",)
        if key not in self.p._keys:
            subs: dict[str, list[str]] = {}
            for name, syms in self.by_dotted.items():
                if any(x.kind in ("class", "struct", "module") for x in syms):
                    for b in self.bases(name) + (mixins(self.p, self.by_dotted, name) if syms[0].lang == "ruby" else []):
                        subs.setdefault(b, []).append(name)
            self.p._keys[key] = subs
        return list(self.p._keys[key].get(typ, ()))

    # ------------------------------------------------------------ one expression

    def expr_type(self, s: Sym, expr: str, depth: int = 0) -> str:
        """The project type of an expression written in `s` (a name, a construction, a chain of
        calls and fields), or '' where any link of it is not certain."""
        if depth > MAX_DEPTH:
            return ""
        e = re.sub(r"^(?:(?:await|try|yield)\s+|[&*]+(?:mut\s+)?)+", "", expr.strip())
        if s.lang == "ruby":
            e = re.sub(r"::(?=[A-Za-z_])", ".", e)  # (`Backend::Simple.new`)
        alts = _top_split(e, r"\?\?|\|\||\bor\b")
        if len(alts) > 1:  # `options.router ?? new SmartRouter(…)`: the value given, else the default
            found = {self.expr_type(s, a, depth + 1) for a in alts}
            found.discard("")
            found = {t for t in found if not self._abstract(t)} or found  # (`Router` given, else a `SmartRouter`)
            return found.pop() if len(found) == 1 else ""
        new = re.match(r"new\s+(?:[\w.]+\.)?([A-Z]\w*|this)\s*(?:<[^()]*>)?\s*[({]", e)
        if new:  # (JS: `new this(…)` in a static method its own class, acorn's `Parser.parse`; a default import's class)
            return name if self.is_type(name := owner(s) if new.group(1) == "this" else new.group(1)) else default_class(self.p, s.rel, name)
        asserted = re.search(r"\.\(\s*\*?\s*(?:\w+\.)?([A-Za-z_]\w*)\s*\)$", e) if s.lang == "go" else None
        if asserted:  # Go's type assertion says the type, whatever gave the value (`engine.pool.Get().(*Context)`)
            return asserted.group(1) if self.is_type(asserted.group(1)) else ""
        if s.lang == "ruby" and re.fullmatch(r"(?:self\.)?new\b\s*(?:\(.*\))?", e, re.S) and owner(s):
            # an instance of its own class, unless the class defines its own `new` (sinatra's gives a `Wrapper`)
            made = [x for x in self.member(owner(s), "new") if x is not s]
            return self.result_type(made[0]) if len(made) == 1 else "" if made else owner(s)
        head = re.match(r"@?[A-Za-z_$][\w$]*", e)
        if head is None:
            return ""
        typ, at = self._head_type(s, head.group(0), e, head.end(), depth)
        while typ and at < len(e) and e[at:].strip():
            ix = re.compile(r"\s*\[").match(e, at)
            if ix is not None:  # `t[i]`: an element of a named container type (Go's `type methodTrees []methodTree`)
                close = closing(e, ix.end() - 1)
                typ, at = (self.element_of(typ), close + 1) if close > 0 else ("", len(e))
                continue
            m = _SEG.match(e, at)
            if m is None:
                return ""  # an operator: not read
            at = m.end()
            if m.group(3):
                continue  # Rust's `?`, Kotlin's `!!`
            seg = m.group(2)
            call = re.compile(r"\s*(?:<[\w\s,.?\[\]<>]*>\s*)?\(").match(e, at)
            if call is None and s.lang == "ruby" and seg[:1].isupper() and self.is_type(f"{typ}.{seg}"):
                typ = f"{typ}.{seg}"  # a type in a namespace (i18n's `Backend::Simple`)
                continue
            if call is None:  # a field (in Ruby, a call written without parentheses: `Parser.new`)
                if seg in _PASS or (seg == "new" and s.lang == "ruby" and (typ := self._made_by_new(typ))) or (seg == "Value" and s.lang == "csharp" and not
                                                                          self.member(typ, seg) and not self.field_type(typ, seg, s.lang)):
                    continue  # (C#'s `x.Value` of a `Lazy<T>` field: FIELD_DECL gave the field the type `T`)
                hit = self.member(typ, seg) if s.lang == "ruby" else []
                typ = self.result_type(hit[0]) if len(hit) == 1 else self.field_type(typ, seg, s.lang)
                continue
            at = call.end() - 1 + len(call_args(e, call.end() - 1)) + 2
            if seg in _PASS or (seg == "new" and s.lang == "ruby" and (typ := self._made_by_new(typ))):
                continue  # `X.new` makes an X
            hit = self.member(typ, seg, m.start() == head.end() and head.group(0)[:1].isupper())  # (`Document.parse(`)
            hit = near(s, rust_type_narrowed(self.p, s, typ, hit))
            if seg == "new" and s.lang == "rust" and not hit:
                continue
            typ = r.pop() if len(r := {self.bound_result(typ, h) for h in hit}) == 1 else ""  # (overloads that agree: LiteDB's `GetCollection`)
        return typ or ""

    def _head_type(self, s: Sym, name: str, e: str, at: int, depth: int) -> tuple[str, int]:
        """The type of an expression's first name (and of the call or literal that follows it), and
        where the rest begins."""
        call = re.compile(r"\s*(?:<[\w\s,.?\[\]<>]*>\s*)?\(").match(e, at)
        if call is not None:  # `f(…)`, `Markdown(…)`
            args = call_args(e, call.end() - 1)
            end = call.end() + len(args) + 1
            if self.is_type(name) and s.lang in _CALLABLE_CLASS:
                return name, end
            hit, own = self.resolver_for(s).resolve(name, False, args), owner(top(self.p, s))
            if hit is None and s.lang == "python" and re.search(rf"\b{re.escape(name)}\s*:\s*(?:Callable\[\s*\.\.\.\s*,|[Tt]ype\[)", s.d.signature):
                return self.resolver_for(s).param_types().get(name, ""), end  # (mistletoe's `renderer: Callable[..., BaseRenderer]`)
            return ("" if hit is None else self.bound_result(own, hit) if own else self.result_type(hit)), end
        if s.lang in ("go", "rust") and self.is_type(name) and re.compile(r"\s*\{").match(e, at):
            return name, len(e)  # a struct literal (its fields are not read)
        own = owner(top(self.p, s))  # (a local function's `self` is its enclosing method's: tenacity's `wrapped_f`)
        if name.startswith("@"):
            return (self.field_type(own, name[1:], s.lang) if own else ""), at
        if own and (name in ("self", "this", "Self", receiver(s)) or (s.lang == "ruby" and name in ("dup", "clone"))):
            return own, at  # (Ruby's `dup.call!(env)`: a copy of itself)
        this = re.search(r"\(\s*this\s*:\s*([A-Z][\w$]*)\s*[,)]", s.d.signature) if name == "this" and s.lang == "typescript" else None
        if this and self.is_type(this.group(1)):
            return this.group(1), at  # a function that declares its `this` (eta's `handleCache(this: Eta, …)`)
        if self.is_type(name):
            return name, at  # `Type.method(…)`, `Type::new(…)`: its own functions
        scope = s.dotted.split(".")[:-1]  # Ruby's `Parser` inside `module Http`: `Http::Parser`, innermost first
        nxt = re.compile(r"\s*\.\s*(\w+)").match(e, at) if s.lang == "ruby" else None
        for k in range(len(scope), -1, -1):
            whole = ".".join(scope[:k] + [name])
            if name[:1].isupper() and (k and self.is_type(whole) or nxt and any(x.kind == "module" for x in self.by_dotted.get(whole, ()))
                                       and (nxt.group(1)[:1].isupper() or self.member(whole, nxt.group(1), True))):
                return whole, at  # (a module, as the namespace of the type named next, `Backend::Simple`, or of its function: `Pastel.new`)
        params = self.resolver_for(s).param_types()
        if name in params:
            return params[name], at
        items = getattr(self.resolver_for(s), "element_locals", None)  # an item of its own container (`@rows.map { |r|`)
        if items is not None and name in (bound := items()):
            return bound[name], at
        typ = self.local_type(s, name, depth + 1) or module_value(self, s, name, depth + 1, MAX_DEPTH) or given_type(self, s, name, depth + 1, MAX_DEPTH) \
            or block_param_type(self, s, name, depth + 1)  # (Ruby's `open(…) do |csv|`: what `open` yields)
        if not typ and own and s.lang in ("java", "csharp", "kotlin") and (name[:1].islower() or s.lang == "csharp"):
            typ = self.field_type(own, name, s.lang)  # a field without `this.` (`parser.Read()`; C#'s property `Root`)
        if typ:
            return typ, at
        if s.lang == "ruby" and own and name[:1].islower():  # a method of its own called without parentheses
            methods = [x for x in self.member(own, name) if x.kind == "method" and x is not s]
            return (self.result_type(methods[0]) if len(methods) == 1 else ""), at
        mod = re.compile(r"\s*\.\s*([A-Za-z_]\w*)").match(e, at)
        if mod and s.lang in ("python", "javascript", "typescript") and module_named(self.p, name):
            return self._head_type(s, mod.group(1), e, mod.end(), depth)  # `parser.Parser()`: a module's
        call = re.compile(r"\s*\(").match(e, mod.end()) if mod and s.lang == "go" and self._go_package(s, name) else None
        if mod and call:  # `html.NewRenderer(opts)`: another package's function, by its qualifier
            hit = self.resolver_for(s).resolve(f"{name}.{mod.group(1)}", False, args := call_args(e, call.end() - 1))
            return (self.result_type(hit) if hit is not None and "." not in hit.dotted else ""), call.end() + len(args) + 1
        return "", at

    def _made_by_new(self, typ: str) -> str:
        """What Ruby's `X.new` gives: an X, unless X defines its own `new` (pastel's `module Pastel` with `def new`,
        `module_function :new`, gives the `Delegator` its last line builds)."""
        made = [x for x in self.member(typ, "new", True) if x.lang == "ruby"]
        return (self.result_type(made[0]) if len(made) == 1 else "") or typ

    def _go_package(self, s: Sym, name: str) -> bool:
        """`name` is a package qualifier in `s`: the project has a package of that name, and `s` uses it so."""
        return name in self.p.go_packages() and go_qualifier(name, self.code_of(s))

    def _members(self) -> dict[str, list[Sym]]:
        """Type → its methods (read once per project)."""
        key = ("vt_members",)
        if key not in self.p._keys:
            out: dict[str, list[Sym]] = {}
            for m in self.p.symbols():
                if "." in m.dotted and m.kind in ("method", "function", "constructor"):
                    out.setdefault(owner(m), []).append(m)
            self.p._keys[key] = out
        return self.p._keys[key]
