"""Which definition a call in a definition's code names, resolved through the map, or nothing.

Text-based, as codeinfo is: the map has found the definitions; this reads one call expression
(`self.main(`, `ctx.invoke(`, `$crate::__private_api::log(`, `vprint(`) and asks the map for
the one definition it can mean. A call it cannot pin to exactly one definition resolves to
nothing: a path through the code is only ever made of calls that are certainly there.

The rules, per language, beside the common ones (a method of the caller's own type through `self`/`this`/the
receiver, its base type's through `base`/`super`, a qualified `Type.name`, a bare name defined once in the
caller's file or package):

* a parameter whose declared type is a type of the project: `ctx: Context` makes `ctx.invoke(` `Context.invoke`;
* Rust: `$crate::`, `crate::`, `self::`, `super::` name the crate itself; `name!(` is a macro
  (`macro_rules!`, exported crate-wide), `name(` never one; `module::name(` is the function of
  `module.rs` (or `module/mod.rs`);
* C and C++: a function of external linkage is one name program-wide, so a bare call reaches the one
  definition with a body (its prototypes in headers are declarations), a `static` one only from its own
  file; overloads in one file are told apart by their number of parameters; `ns::f(` with a namespace
  (not a type of the project) is `f`; an object-like macro (`#define X constexpr`) is never called."""
from __future__ import annotations

import posixpath
import re

from .arity import (
    STDLIB_SUPERS,
    WIDENS,
    arity as _arity,
    base_type as _base,
    funnel,
    is_static as _static,
    near as _near,
    param_count as _param_count,
    split_args as _split_args,
    takes_count as _takes_count,
)
from .c_includes import c_global
from .duck_calls import duck_call
from .extension_methods import is_extension, receiver, with_extensions
from .js_values import package_binding, package_function
from .local_defs import LANGS as LOCAL_LANGS, in_scope, same_object, this_alias, top
from .project import Project, Sym
from .references import imported_definition
from .signature import signature_parts
from .source_sets import lambda_receivers, source_set
from .uses import python_imports, rust_type_narrowed, rust_used, rust_uses
from .valuetypes import FIELD_DECL as _FIELD_DECL, Typer, java_result as _java_result

_MEMBER_SIG = re.compile(r"^\s*(?:(?:get|set|static|async)\s+)*(?:\*\s*)?[A-Za-z_$][\w$]*\s*(?:\(|:)")


# Languages where a bare call inside a type (or an Elixir module) names its own member first.
_IMPLICIT_SELF = frozenset({"csharp", "kotlin", "swift", "scala", "ruby", "elixir"})
# A call written after a call's result or an index (`builder.append(x).toString()`, `xs[0].close()`,
# a fluent chain's next line `.build()`) is a method of a value whose type the map does not know:
# it is not matched, so never taken for the own class's `toString` or a module's `close`.
CALL_RE = re.compile(r"(?<![\w$])(?<![\s)\]}>]\.)(?<!\?\.)"
                     r"((?:[A-Za-z_$][\w$]*(?:\.|::))*[A-Za-z_$][\w$]*)\s*(?:<[\w\s,.?\[\]<>]+>\s*|\[[A-Za-z_][\w\s,.*\[\]]*\]\s*)?(!\s*)?\(")
# (a generic call's type arguments, `QueryImpl<T>(cnn, …)`, Go's `toNumberE[int](i, …)`: the call; not Java's diamond
# `new T<>(…)`, a constructor, as before)
KEYWORDS = {"if", "for", "while", "switch", "return", "func", "function", "fn", "match", "catch", "elif", "not",
            "and", "or", "print", "len", "make", "new", "append", "super", "typeof", "await", "yield", "isinstance",
            "assert", "lambda", "defer", "go", "panic", "Some", "Ok", "Err", "Box", "Vec", "String", "sizeof",
            "decltype", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "alignof", "noexcept"}
_RUST_SELF = re.compile(r"^(?:\$crate|crate|super|self)::")
_OBJECT_MACRO = re.compile(r"^\s*#\s*define\s+\w+\b(?!\()")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_RUST_BOUND = re.compile(r"[<,\s]([A-Z]\w*)\s*:\s*(?:\?Sized\s*\+\s*)?([A-Za-z_]\w*)")  # `L: Log` in `<…>` or `where`

_PATH_TYPE = re.compile(r"((?:[A-Za-z_]\w*\s*(?:::|\.)\s*)*)([A-Za-z_]\w*)")


def _own_path_types(p: Project, typ: str) -> set[str]:
    """The words of a declared type that are not under another project's path (`multer::Error`,
    `http.ResponseWriter`): bare, or under `crate`/`self`/`super` or one of the project's modules."""
    if ("callres", "local") not in p._keys:
        from ..repo.rank import local_module_names

        p._keys[("callres", "local")] = {n.replace("-", "_") for n in local_module_names(p.map.files) | p.map.project_names}
    local = p._keys[("callres", "local")] | {"crate", "self", "super", "Self"}
    out = set()
    for m in _PATH_TYPE.finditer(typ):
        path = [x for x in re.split(r"\s*(?:::|\.)\s*", m.group(1)) if x]
        if not path or path[0] in local:
            out.add(m.group(2))
        out |= {w for w in path[1:] if not path or path[0] in local}
    return out


# no declared types: a receiver of no known type (duck_calls)
_DUCK = ("python", "ruby", "javascript", "typescript")


class Resolver:
    """Resolves the calls of one caller `s` (its parameters read once)."""

    def __init__(self, p: Project, s: Sym, by_dotted: dict[str, list[Sym]], by_short: dict[str, list[Sym]],
                 code: str = "") -> None:
        self.p, self.s, self.code = p, s, code
        self._vars: dict[str, str] | None = None
        self.by_dotted, self.by_short = by_dotted, by_short
        self.here = posixpath.dirname(s.rel)
        self._params: dict[str, str] | None = None
        self._elems: dict[str, str] | None = None
        self._typer: Typer | None = None

    def typer(self) -> Typer:
        """Reads the types of values (valuetypes), resolving their calls as this resolver would."""
        if self._typer is None:
            self._typer = Typer(self.p, self.by_dotted, self._resolver_for)
        return self._typer

    def _resolver_for(self, x: Sym) -> Resolver:
        if x is self.s:
            return self
        from .codetext import mask_text

        code = mask_text("\n".join(self.p.lines_of(x.rel)[x.d.start_line - 1:x.d.end_line]), x.lang)
        return Resolver(self.p, x, self.by_dotted, self.by_short, code)

    # ------------------------------------------------------------------ the caller's parameters

    def param_types(self) -> dict[str, str]:
        """Parameter name → the project type its declared type names (one, or it is left out)."""
        if self._params is None:
            from .signature import whole

            self._params = {}
            params, _ret = signature_parts(whole(self.p, self.s))
            bounds = dict(_RUST_BOUND.findall(self.s.d.signature)) if self.s.lang == "rust" else {}
            for prm in params:
                # `err: &multer::Error` is another crate's Error, not the project's: a type written
                # under a path counts only under the project's own (crate::, a module of it)
                own = _own_path_types(self.p, prm.type)
                words = [bounds.get(w, w) for w in _IDENT.findall(prm.type) if w in own]  # `logger: L` with `L: Log`
                types = {t for t in words if any(x.kind in _TYPES for x in self.by_dotted.get(t, ()))}
                if len(types) == 1:
                    self._params[prm.name] = types.pop()
            if self.s.lang == "csharp" and (r := receiver(self.p, self.s)) and self._is_type(r[0]):
                self._params.setdefault(r[1], r[0])  # (the receiver of C# 14's `extension(IRestClient client) { … }`)
        return self._params

    # ------------------------------------------------------------------ one call

    def resolve(self, raw: str, bang: bool, args: str) -> Sym | None:
        s, lang = self.s, self.s.lang
        if lang == "rust":
            while _RUST_SELF.match(raw):
                raw = _RUST_SELF.sub("", raw, count=1)
        expr = raw.replace("::", ".")
        if lang == "ruby" and expr in ("new", "self.new") and "." in s.dotted:  # `return new(…)` in `def self.parse`
            from .ruby_mixins import singleton  # (addressable's `URI.parse`): an instance of its own class

            return next(iter(self.by_dotted.get(s.dotted.rsplit(".", 1)[0] + ".initialize", ())), None) if singleton(self.p, s) else None
        if expr in KEYWORDS and (expr != "match" or lang in ("rust", "scala", "python")) \
                or (expr == s.short and lang not in ("c", "cpp", "java", "csharp", "kotlin")):  # (ts-pattern's `match(x)`)
            return None  # a recursive call; in C++, Java, C# and Kotlin the same name may be another overload
        parts = (expr := this_alias(expr, self.code or "", lang)).split(".")  # (`var self = this`)
        if len(parts) == 1 and lang in LOCAL_LANGS and s.rel and (loc := in_scope(self.p, s, expr)) is not None:
            return loc  # a function the body (or an enclosing one) declares: yargs-parser's `setArg`
        if lang == "rust" and bang:
            return self._rust_macro(parts[-1]) if len(parts) == 1 else None
        hit = self._common(parts, expr, args)
        if len(hit) > 1 and lang == "kotlin":  # (before _near: the `expect` is often beside its caller)
            hit = source_set(s, hit)
        if len(parts) == 2:  # two types of one name in two crates or packages (env_logger's `Builder` and env_filter's)
            hit = _near(s, rust_type_narrowed(self.p, s, parts[0], hit))
        if not hit and len(parts) == 2 and parts[0] in self.param_types():
            hit = _near(s, list(self.by_dotted.get(f"{self.param_types()[parts[0]]}.{parts[1]}", ())))  # (its package's)
        if not hit and len(parts) == 2 and lang == "java" and self._is_type(self.variables().get(parts[0], "")):
            hit = list(self.by_dotted.get(f"{self.variables()[parts[0]]}.{parts[1]}", ()))  # a typed local
        if not hit and len(parts) == 2 and parts[0] in self.element_locals():  # `root := r.trees[m]; root.getValue(`
            hit = list(self.by_dotted.get(f"{self.element_locals()[parts[0]]}.{parts[1]}", ()))
        if not hit and len(parts) == 2 and lang in ("javascript", "typescript"):  # `adapters.getAdapter(`: a module's
            hit = imported_definition(self.p, s.rel, parts[0], parts[1]) or imported_definition(self.p, s.rel, expr) \
                or self._mixed_in(parts[0], parts[1])  # (`request.Request = require('./request')`)
        if not hit and len(parts) == 2 and lang == "python":  # `checker.Checker(` after `from pyflakes import checker`
            hit = self._python_module_member(parts[0], parts[1])
        if not hit and len(parts) == 3:  # `mx.tree.FindRoute(`: a field whose declared type is a project type
            hit = self._field_call(parts[0], parts[1], parts[2])
        if not hit and lang == "rust" and len(parts) == 2:
            hit = self._rust_module(parts[0], parts[1])
        if not hit and lang == "ruby" and len(parts) >= 2:
            hit = self._ruby_constant(parts)
        if not hit and len(parts) >= 2 and lang not in ("c", "cpp"):  # `md.convert(`, `self.parser.parseDocument(`
            typ = self.typer().expr_type(s, ".".join(parts[:-1]))
            hit = _near(s, self.typer().member(typ, parts[-1])) if typ else []  # (an inherited method: its base's)
            if not hit and typ and len(parts) == 2 and parts[0] in ("self", "this"):  # (a mixin's: its user's)
                hit = self._in_subclasses(typ, parts[-1])
            if not hit and not typ and lang in _DUCK:
                hit = duck_call(self.by_short, self.typer(), parts[-2], parts[-1])
        if not hit and lang in ("c", "cpp"):
            if len(parts) == 1 or (lang == "cpp" and len(parts) >= 2 and not self._is_type(parts[-2])):
                hit = c_global(self.p, s, self.by_short, parts[-1], args)
        if lang == "csharp" and len(parts) >= 2 and not any(_takes_count(x, _arity(args)) and not is_extension(self.p, x) for x in hit) and \
                (typ := self.typer().expr_type(s, ".".join(parts[:-1]))):  # (an extension method: `client.GetAsync(r)`)
            hit = with_extensions(self.p, self.typer().bases, typ, parts[-1], args, hit, f"{raw}<" in (self.code or ""))
        if expr == s.short and lang in ("csharp", "kotlin"):
            # another overload, never itself (`Validate(T instance) => Validate(new ValidationContext<T>(…))`);
            # Java keeps itself among the candidates: gson's `toJson(Object)` calls the `toJson(JsonElement)`
            # of its null case by the same count, and that is not its way
            hit = [x for x in hit if x is not s]
        if len(hit) > 1 and lang == "ruby":  # `Document.parse(` the class's, `self.parse(` in an instance method its own
            from .ruby_mixins import class_or_instance, singleton

            hit = class_or_instance(self.p, hit, parts[0][:1].isupper() or (parts[0] in ("self", raw) and singleton(self.p, s)))
        if len(hit) > 1 and lang in ("java", "csharp") and len(parts) >= 2 and parts[-2][:1].islower() \
                and not self._is_type(parts[-2]):
            hit = [x for x in hit if not _static(x)] or hit  # on a value, its instance's method (`app.ExecuteAsync(…)`)
        hit = self.overload(hit, args)
        if len(hit) > 1 and lang == "kotlin":
            hit = source_set(s, hit)
        hit = [x for x in hit if x.kind != "macro" or lang != "rust"]
        if lang in ("c", "cpp"):
            hit = [x for x in hit if not (x.kind == "macro" and _OBJECT_MACRO.match(x.d.signature))]
        return hit[0] if len(hit) == 1 else None

    def _common(self, parts: list[str], expr: str, args: str = "") -> list[Sym]:
        s, p = self.s, self.p
        me = top(p, s) if s.lang in LOCAL_LANGS else s  # (a local function's `this` is its enclosing method's)
        me_owner = me.dotted.rsplit(".", 1)[0] if "." in me.dotted else me.dotted if me.kind == "function" and parts[0] == "this" \
            else ""  # (an ES5 constructor's `this` is its own: request's `function Request (options) { … self.init(options) }`)
        from .signature import receiver

        if len(parts) == 2 and parts[0] in (receiver(s), "self", "Self", "this", "cls") and me_owner:
            return list(self.by_dotted.get(f"{me_owner}.{parts[1]}", ())) or [x for o in same_object(p, me_owner) for x in self.by_dotted.get(f"{o}.{parts[1]}", ())]
        if len(parts) == 2 and parts[0] in ("base", "super") and me_owner:  # C#'s `base.Render(`: the base type's
            return [x for b in self.typer().bases(me_owner) for x in self.typer().member(b, parts[1])][:1]
        if len(parts) == 2:
            hit = [x for x in self.by_dotted.get(expr, ()) if s.lang != "go" or posixpath.dirname(x.rel) == self.here]
            if not hit and s.lang == "go":  # pkg.Name: a definition of another package, reached by its qualifier
                hit = [x for x in self.by_short.get(parts[1], ()) if "." not in x.dotted
                       and (posixpath.dirname(x.rel) != self.here or not s.rel)  # (the README's `goquery.New…`)
                       and p.go_package(x.rel) == p.go_import_package(s.rel, parts[0])
                       and p.reaches(s.rel, x.rel, x.short)]
            return hit
        if len(parts) == 1 and me_owner and s.lang in ("java", "cpp"):  # an implicit `this`
            n = _arity(args)  # of the type's own overloads, one that takes these arguments; else a free function
            mine = [x for x in self.by_dotted.get(f"{me_owner}.{expr}", ()) if _param_count(x) == n]
            if mine:
                return mine
        if len(parts) == 1 and me_owner and s.lang in _IMPLICIT_SELF:  # Ruby's `route(…)`, Elixir's `resp(…)`
            mine = list(self.by_dotted.get(f"{me_owner}.{expr}", ())) or \
                (self._in_subclasses(me_owner, expr) if s.lang == "ruby" else [])  # (a mixin's: http.rb's Verbs' `request`)
            # (or one of the modules it mixes in: multi_xml's `class << self⏎ include ParseSupport`)
            mine = mine or ([x for x in self.typer().member(me_owner, expr) if x.kind == "method"] if s.lang == "ruby" else [])
            if mine:
                return mine  # (overloads: resolve() picks by the number of arguments)
        if len(parts) == 1 and me_owner and s.lang in ("java", "csharp", "kotlin"):
            # a method the type has from its base, called with an implicit `this` (feign's `build()` in a
            # `Feign.Builder`, from `BaseBuilder`)
            from .arity import inherited

            if hit := inherited(self.typer(), me_owner, self.supers(me_owner.rsplit(".", 1)[-1]), expr, _arity(args)):
                return hit
        if len(parts) == 1 and me_owner and s.lang == "kotlin":
            # a call in a lambda with a receiver: kotlin-csv's `open(br) { readAllAsSequence() }`, where
            # `open` takes `read: CsvFileReader.() -> T`, runs `CsvFileReader.readAllAsSequence`
            lam = [x for t in lambda_receivers(p, self.by_dotted, me_owner) for x in self.typer().member(t, expr)
                   if x.kind == "method"]
            if len({x.dotted for x in lam}) == 1:
                return lam
        if len(parts) == 1:
            named = [x for x in self.by_short.get(expr, ()) if "." not in x.dotted]
            if s.lang in ("c", "cpp"):
                return []  # one global namespace: c_global decides
            if s.lang == "rust":
                named = [x for x in named if x.kind != "macro"]
                if s.rel and (used := rust_used(p, s.rel, expr, self.by_short)):  # `use html::format_document as format_html`
                    return used
            if s.lang in ("javascript", "typescript"):  # an object literal's member (`get URL ()`, `parse: (s) =>`)
                named = [x for x in named if not _MEMBER_SIG.match(x.d.signature)]  # is in scope by no bare name
                named = [x for x in named if not x.rel.endswith(".d.ts")] or named  # (the code, not its declaration: ora's)
            same = [x for x in named if x.rel == s.rel or (s.lang in ("go", "rust") and posixpath.dirname(x.rel) == self.here)]
            same = [x for x in same if x.rel == s.rel] if len(same) > 1 and s.lang == "rust" else same  # (its own module's:
            if len(same) == 1:  # textwrap's `wrap_single_line` of wrap.rs, not the fuzzing module's of that name)
                return same
            if not same:
                anywhere = [x for x in named if x.kind in ("function", "class", "macro", "struct")]
                if len(anywhere) == 1 and (not s.rel or s.lang == "python" and python_imports(p, s.rel, expr)  # (not s.rel:
                                           or s.lang == "rust" and rust_uses(p, s.rel, expr)):
                    return anywhere  # the README's example, whose imports are the project's names)
                if s.lang in ("javascript", "typescript") and not s.rel and expr == package_binding(p, self.code or "") and (f := package_function(p)):
                    return [f]  # the package itself, a function: the README's `prompts({…})` after `require('prompts')`
                if s.lang in ("javascript", "typescript"):  # `import { compose } from './compose'`
                    return imported_definition(p, s.rel, expr)
        return []

    def _mixed_in(self, obj: str, name: str) -> list[Sym]:
        """`app.handle(` where the enclosing function mixed an object's members into `app` (connect's
        `merge(app, proto)`, `Object.assign(app, proto)`): that object's `handle`."""
        outer = top(self.p, self.s)
        body = "\n".join(self.p.lines_of(outer.rel)[outer.d.start_line - 1:outer.d.end_line])
        src = re.findall(rf"\b(?:merge|mixin|assign|extend)\s*\(\s*{re.escape(obj)}\s*,\s*([A-Za-z_$][\w$]*)", body)
        return [x for o in src for x in self.by_dotted.get(f"{o}.{name}", ())][:1]

    def _python_module_member(self, module: str, name: str) -> list[Sym]:
        """The top-level definition `name` of the project's module the caller imports as `module`
        (`from pyflakes import checker`, `import pyflakes.checker as checker`)."""
        from .references import _top_defs, imports, module_file

        got = imports(self.p, self.s.rel).get(module)
        if got is None:
            return []
        mod, is_mod, there = got
        target = module_file(self.p, self.s.rel, f"{mod.rstrip('.')}.{there}" if there and not is_mod else mod)
        return [x for x in _top_defs(self.p, target) if x.short == name] if target else []

    def _in_subclasses(self, typ: str, name: str) -> list[Sym]:
        """The one definition of `name` the project's classes that extend `typ` have, a few levels down,
        when `typ` has none itself: a mixin calling what the class that combines it gives (pyyaml's
        `Constructor.construct_document` ← `self.get_single_node()`, which `Loader(…, Composer,
        Constructor, …)` takes from `Composer`); [] when they disagree. As deep as Typer.member looks up."""
        found: dict[tuple[str, int], Sym] = {}
        todo, seen = self.typer().subclasses(typ), {typ}
        for _ in range(8):
            todo = [t for t in todo if t not in seen]
            seen.update(todo)
            for t in todo:
                found.update({(x.rel, x.d.start_line): x for x in self.typer().member(t, name)})
            todo = [] if found else [u for t in todo for u in self.typer().subclasses(t)]  # (the nearest that has it)
        return list(found.values()) if len(found) == 1 else []

    def _field_call(self, obj: str, fld: str, method: str) -> list[Sym]:
        """`self.field.method(` where the owner type declares `field` with one type of the project."""
        from .signature import receiver

        s = self.s
        me = top(self.p, s) if s.lang in LOCAL_LANGS else s
        me_owner = me.dotted.rsplit(".", 1)[0] if "." in me.dotted else ""
        if not me_owner or obj not in (receiver(s), "self", "this"):
            return []
        rx = _FIELD_DECL.get(s.lang)
        if rx is None:
            return []
        types: set[str] = set()
        for owner in self.by_dotted.get(me_owner, ()):
            if owner.kind not in _TYPES:
                continue
            code = "\n".join(self.p.lines_of(owner.rel)[owner.d.start_line - 1:owner.d.end_line])
            types |= {t for t in re.findall(rx.replace("FIELD", re.escape(fld)), code) if self._is_type(t)}
            if s.lang == "python":  # `self._storage = storage`, with `storage: Storage` a parameter of `__init__`
                init = [x for x in self.by_dotted.get(f"{me_owner}.__init__", ()) if x.rel == owner.rel]
                params = {prm.name: prm.type for x in init for prm in signature_parts(x)[0]}
                for src in re.findall(rf"\bself\.{re.escape(fld)}\s*=\s*([A-Za-z_]\w*)\s*$", code, re.M):
                    types |= {w for w in _IDENT.findall(params.get(src, "")) if self._is_type(w)}
        if len(types) != 1:
            return []
        typ = types.pop()
        if self.typer()._abstract(typ):  # declared as an interface: what it is filled with (pebble's `rootNode`, a `RootNode`)
            held = self.typer().field_type(me_owner, fld, s.lang)
            typ = held if held and self.by_dotted.get(f"{held}.{method}") else typ
        return list(self.by_dotted.get(f"{typ}.{method}", ()))

    def element_locals(self) -> dict[str, str]:
        """Local name → the project type of the elements of the caller's own container field it is bound from."""
        if self._elems is None:
            from .elements import element_locals

            self._elems = element_locals(self.p, self.s, self.code, self.by_dotted) if self.code else {}
        return self._elems

    # ------------------------------------------------------------------ Java overloads

    def variables(self) -> dict[str, str]:
        """Name → declared type of the caller's parameters and locals (`JsonWriter w = …`, `for (T x : xs)`)."""
        if self._vars is None:
            found = {prm.name: _base(prm.type) for prm in signature_parts(self.s)[0] if prm.type}
            for typ, name in _JAVA_LOCAL.findall(self.code):
                found.setdefault(name, _base(typ))
            for name, typ in _VAR_NEW.findall(self.code):  # C#'s and Java's `var context = new DefaultContext(…)`
                found.setdefault(name, _base(typ))
            self._vars = found
        return self._vars

    def arg_type(self, arg: str) -> str | None:
        """The static type of one argument, when the code says it; else None (it then fits any parameter)."""
        a = arg.strip()
        if a.startswith(('"', '@"', '$"')):  # (C#'s `string`: LiteDB's `GetCollection<Customer>("customers")`)
            return "string" if self.s.lang == "csharp" else "String"
        if re.fullmatch(r"-?\d+", a):
            return "int"
        if a.endswith(".getClass()"):
            return "Class"
        m = re.match(r"^new\s+([A-Za-z_][\w.]*)", a) or re.match(r"^\(\s*([A-Z]\w*)(?:<[^()]*>)?\s*\)\s*\S", a)
        if m:
            return _base(m.group(1))
        if a == "this" and "." in self.s.dotted:
            return self.s.dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        if re.fullmatch(r"[A-Za-z_]\w*", a):  # (a local, or a field of its type: jayway's `path.read(json, configuration)`)
            return self.variables().get(a) or (self.typer().declared_field(self.s.dotted.rsplit(".", 1)[0], a, self.s.lang) or None if "." in self.s.dotted else None)
        m = re.match(r"^(?:([A-Z]\w*)\.)?([A-Za-z_]\w*)\s*\(", a)  # a static call or its class's own: its declared result
        if m and (owner := m.group(1) or (self.s.dotted.rsplit(".", 1)[0] if "." in self.s.dotted else "")):
            rets = {_java_result(x) for x in self.by_dotted.get(f"{owner}.{m.group(2)}", ())}
            return rets.pop() if len(rets) == 1 and "" not in rets else None
        return None

    def overload(self, hit: list[Sym], args: str) -> list[Sym]:
        """Of overloads, those these arguments fit: by their number, then in Java and C# by the types the code declares."""
        if len(hit) <= 1 or self.s.lang in ("python", "javascript"):
            return hit
        n = _arity(args)
        # the overloads that take that many arguments, counting defaults and a `params` array (C#'s
        # `ExecuteAsync<T>(context)` is `ExecuteAsync<T>(CommandLineContext, CancellationToken = default)`)
        hit = [x for x in hit if _takes_count(x, n)]
        if len(hit) > 1 and self.s.lang in ("java", "csharp", "kotlin"):
            hit = self._by_argument_types(hit, args)
        exact = [x for x in hit if _param_count(x) == n]  # of those left, the one of that many parameters
        hit = exact if len(hit) > 1 and exact else hit
        return funnel(self.p, hit) if len(hit) > 1 else hit

    def _by_argument_types(self, hit: list[Sym], args: str) -> list[Sym]:
        # C#'s named arguments name the overload's parameters (dotliquid's `this.Render(writer: w, parameters: p)`)
        named = {m.group(1) for a in _split_args(args) if (m := re.match(r"\s*([A-Za-z_]\w*)\s*:(?!:)", a))}
        hit = [x for x in hit if named <= {prm.name for prm in signature_parts(x)[0]}] or hit
        known = [self.arg_type(a) for a in _split_args(args)]
        fits: list[tuple[int, Sym]] = []
        for x in hit:
            params = [_base(prm.type) for prm in signature_parts(x)[0]]
            if not _takes_count(x, len(known)):
                continue
            if all(k is None or _assignable(self, k, prm) for k, prm in zip(known, params)):
                fits.append((sum(1 for k, prm in zip(known, params) if k == prm), x))
        if not fits:
            return []
        best = max(n for n, _ in fits)
        hit = [x for n, x in fits if n == best]
        # C# prefers a method's normal form to its `params` expansion (`EncodeLong(number)`: `EncodeLong(long)`)
        plain = [x for x in hit if not any(prm.type.startswith("params ") for prm in signature_parts(x)[0])]
        return plain if self.s.lang == "csharp" and plain else hit

    def supers(self, name: str) -> set[str]:
        """The types `name` extends or implements: the project's declarations, and a few of the JDK's."""
        out: set[str] = set()
        todo = [name]
        while todo:
            cur = todo.pop()
            nxt = set(STDLIB_SUPERS.get(cur, ()))
            for x in self.by_dotted.get(cur, ()):
                head = " ".join(x.d.signature.split()).split("{", 1)[0]
                m = re.search(r"\b(?:extends|implements)\s+(.+)$", head) or (  # C#'s and Kotlin's `class A : Base, IB`
                    re.search(r"\bclass\s+\w+\s*(?:<[^:]*?>)?\s*(?:\([^)]*\))?\s*:\s*(.+?)(?:\bwhere\b.*)?$", head)
                    if x.lang in ("csharp", "kotlin") else None)
                if m:
                    nxt |= {_base(w) for w in re.split(r",|\bimplements\b|\bextends\b", m.group(1)) if w.strip()}
            for n in nxt - out:
                out.add(n)
                todo.append(n)
        return out

    # ------------------------------------------------------------------ Rust

    def _rust_macro(self, name: str) -> Sym | None:
        """`name!(`: the crate's `macro_rules! name` (variants under `#[cfg]` in one file are one macro)."""
        macros = [x for x in self.by_short.get(name, ()) if x.kind == "macro" and x.lang == "rust"]
        if macros and len({x.rel for x in macros}) == 1 and macros[0].name != self.s.name:
            return min(macros, key=lambda x: x.d.start_line)
        return None

    def _rust_module(self, module: str, name: str) -> list[Sym]:
        """`module::name(`: the function `name` of `module.rs` or `module/mod.rs` (crate paths)."""
        return [x for x in self.by_short.get(name, ()) if "." not in x.dotted and x.kind != "macro" and x.lang == "rust"
                and posixpath.basename(posixpath.dirname(x.rel) if posixpath.basename(x.rel) == "mod.rs"
                                       else x.rel.rsplit(".", 1)[0]) == module]

    def _ruby_constant(self, parts: list[str]) -> list[Sym]:
        """`Utils.deep_merge(` inside `module Faraday` is `Faraday::Utils.deep_merge` (Ruby looks a
        constant up through the modules the code is written in, innermost first); `Connection.new(`
        runs `Connection#initialize`."""
        name = "initialize" if parts[-1] == "new" else parts[-1]
        scope = self.s.dotted.split(".")[:-1]
        for k in range(len(scope), -1, -1):
            hit = list(self.by_dotted.get(".".join(scope[:k] + parts[:-1] + [name]), ()))
            if hit:
                return hit
        from .ruby_mixins import constant  # a method the class has from a module it mixes in

        owner = constant(self.by_dotted, scope, ".".join(parts[:-1]))
        return self.typer().member(owner, name) if owner else []

    # ------------------------------------------------------------------ C and C++

    def _is_type(self, name: str) -> bool:
        return any(x.kind in _TYPES for x in self.by_dotted.get(name, ()))


_VAR_NEW = re.compile(r"\bvar\s+([a-z_]\w*)\s*=\s*new\s+([A-Z][\w.]*)")
_JAVA_LOCAL = re.compile(r"(?<![\w.])((?:[A-Z]\w*(?:\.[A-Z]\w*)*)(?:<[^;=()]*>)?(?:\[\])?|int|long|boolean|double|float|char|byte"
                         r"|short)\s+([a-z_]\w*)\s*(?:=|;|:(?!:))")


def _assignable(res: Resolver, arg: str, param: str) -> bool:
    if arg == param or param in ("Object", "object") or re.fullmatch(r"[A-Z]", param):  # `T`: a type variable
        return True
    if param in WIDENS.get(arg, "").split():
        return True
    return param in res.supers(arg)


_TYPES = frozenset({"class", "struct", "interface", "trait", "type", "enum", "type alias"})
