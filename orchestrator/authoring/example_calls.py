"""What a README's example calls (issue 35): the object it builds and runs last, which overloads its
arguments can reach, whether it makes one call of the project. The main path starts from these
(mainpath._starts and central_path)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .codetext import call_args
from .entry import PRINTS as _PRINTS, TYPE_ARGS, foreign_imports
from .example_args import takes
from .made_members import made_members
from .overview import example_of
from .project import Project, Sym
from .ruby_mixins import missing

if TYPE_CHECKING:
    from .valuetypes import Typer


def built_type(p: Project, code: str, var: str, lang: str = "") -> str:
    """The project class an example's variable is built from (`JavaFile javaFile = …`, `x = T(…)`,
    `let x = T::new(…)`, `let x = krate::T::new(…)`, `x = Liquid::Template.parse(…)`, or a class the example defines on one: `class CustomerValidator :
    AbstractValidator<Customer>`), or what the code's own types say it holds (`let template =
    env.get_template(…).unwrap()` with `env = Environment::new()`: a `Template`), or ''."""
    def is_class(name: str) -> bool:  # (or a JS constructor function with methods: turndown's `TurndownService.prototype = {…}`)
        return any(x.kind in ("class", "struct") or x.kind == "function" and x.lang in ("javascript", "typescript")
                   and any(m.kind == "method" and m.dotted.startswith(name + ".") for m in p.symbols(within=[x.rel]))
                   for x in p.find(name) if x.dotted == name)

    v = re.escape(var)  # (a declared type is on the variable's line: an import's last name `SchemaError` is not one)
    # the class constructed is the one that runs, whatever the variable is declared as (easy-rules'
    # `RulesEngine rulesEngine = new DefaultRulesEngine();`), when the statement is only that construction
    made = re.search(rf"\b{v}\s*=\s*new\s+((?:\w+\.)*)([A-Z]\w*)\s*(?:<[^>\n]*>)?\s*\(", code)
    if made and (is_class(made.group(2)) or is_class(made.group(1) + made.group(2))):  # (showdown's `new showdown.Converter()`)
        after = re.match(r"\s*(?://[^\n]*\s*)*(\S?)", code[made.end() + len(call_args(code, made.end() - 1)) + 1:])
        if after is None or after.group(1) != ".":  # (not a builder the statement goes on to call: `new X()⏎.Build()`)
            return made.group(2) if is_class(made.group(2)) else made.group(1) + made.group(2)
    # (a module's class: Python's `patch = jsonpatch.JsonPatch(…)`; Ruby's `Terminal::Table.new :rows => rows`)
    typ = re.search(rf"\b([A-Z]\w*)(?:<[^>\n]*>)?[ \t]+{v}\s*=|\b{v}\s*:?=\s*(?:new\s+|&)?(?:[a-z_]\w*(?:::|\.))*((?:[A-Z]\w*::)*[A-Z]\w*)\s*(?:[({{]|::|\.\s*(\w+)\s*\(|\.new\b)", code)
    name = (typ.group(1) or typ.group(2)).replace("::", ".") if typ else ""  # (Ruby's `Liquid::Template`: `Liquid.Template`)
    if typ and typ.group(3):  # `KotlinLogging.logger(…)` declares what it gives back: a `KLogger`, not a `KotlinLogging`
        from .signature import java_result

        said = {r for x in p.find(typ.group(3)) if x.dotted == f"{name}.{typ.group(3)}" and (r := java_result(x))
                and any(t.kind in ("class", "struct", "interface") for t in p.find(r) if t.dotted == r)}
        if len(said) == 1 and (r := said.pop()) != name:
            return r
    chained = _chain_result(p, code, typ.end(), name) if typ and typ.group(2) else ""
    if chained:
        return chained
    if typ and typ.group(1) and any(x.kind == "interface" and x.dotted == name for x in p.find(name)):
        return name  # declared as the project's interface (pebble's `PebbleTemplate compiledTemplate = engine.getTemplate(…)`)
    if name and not is_class(name):
        base = re.search(rf"\bclass\s+{re.escape(name)}\b[^{{:\n]*?(?::|\bextends\b|<(?!\w+>)|\()\s*([A-Z]\w*)", code)
        name = base.group(1) if base else ""
    if name and is_class(name):
        return name
    if lang in ("javascript", "typescript") and not name:
        from .js_values import exported_value_class, package_instance
        from .made_members import exported_call_class

        # (tsyringe's `import {container} from "tsyringe"`, re-exported; mime's `import mime from 'mime'`, its default
        # instance; consola's `import { consola } from "consola"`, made by `export const consola = createConsola()`)
        named = re.search(rf"\bimport\s*\{{[^}}]*\b{v}\b[^}}]*\}}", code)
        if cls := (exported_value_class(p, var) or exported_call_class(p, var, _typer(p).result_type)) if named \
                else package_instance(p, code, var) if var not in foreign_imports(p, code) else "":
            return cls
    return example_type(p, code, var, lang) if lang else ""


def _chain_result(p: Project, code: str, at: int, name: str) -> str:
    """What a builder's chain gives back (YamlDotNet's `var deserializer = new DeserializerBuilder()
    .WithNamingConvention(…).Build();` holds what `DeserializerBuilder.Build` declares, an `IDeserializer`),
    when the statement that makes `name` at `at` ends in a call the type declares a project result for; ''."""
    from .signature import java_result

    k, last = at - 1, ""
    while True:
        if k < len(code) and code[k] == "(":
            k += len(call_args(code, k)) + 2
        nxt = re.compile(r"\s*(?://[^\n]*\s*)*\.\s*([A-Za-z_]\w*)\s*(?:<[^<>()]*>)?\s*(?=\()").match(code, k)
        if nxt is None:
            break
        last, k = nxt.group(1), nxt.end()
    said = {r for x in p.find(last) if last and x.dotted == f"{name}.{last}" and (r := java_result(x))}
    r = said.pop() if len(said) == 1 else ""
    return r if r and any(t.kind in ("class", "struct", "interface") for t in p.find(r) if t.dotted == r) else ""


def example_type(p: Project, code: str, var: str, lang: str, expr: str = "") -> str:
    """The project type of a variable of the example's code (or of the expression `expr` written in it),
    read by valuetypes as if the example were a function of the project (its locals, their constructions
    and calls)."""
    from ..repo.parse import Definition
    from .callres import Resolver
    from .codeinfo import _sym_index
    from .valuetypes import Typer

    by_dotted, by_short = _sym_index(p)
    if lang == "go":
        code = _go_unaliased(p, code)
    if lang not in ("python", "ruby"):  # (a comment after the statement is none of its value: neverthrow's `// instance of `Ok``)
        code = re.sub(r"(?m)(^|\s)//[^\n]*", r"\1", code)
    lines = code.count("\n") + 2
    fake = Sym("", Definition(kind="function", name="__example__", qualified_name="__example__", signature="",
                              doc="", start_line=1, end_line=lines, exported=False, aliases=[]), 0.0, lang)
    body = "\n" + code  # (a definition's first line is its head)
    res = Resolver(p, fake, by_dotted, by_short, body)
    typer = Typer(p, by_dotted, lambda s: res if s is fake else res._resolver_for(s), {id(fake): body})
    typ = typer.expr_type(fake, expr) if expr else typer.local_type(fake, var)
    # (a Go type defined on another, squirrel's `type SelectBuilder builder.Builder`, has methods as a struct does; an
    # interface a call declares it gives, LiteDB's `var col = db.GetCollection<Customer>(…)`, its implementation's)
    # (or a JS constructor function with methods: multer's `function Multer (options)`, `Multer.prototype.single = …`)
    return typ if any(x.kind in ("class", "struct") or x.kind == "type" and lang == "go"
                      or x.kind == "interface" and lang in ("java", "csharp", "kotlin")
                      or x.kind == "function" and lang in ("javascript", "typescript")
                      and any(m.kind == "method" and m.dotted.startswith(typ + ".") for m in p.symbols(within=[x.rel]))
                      for x in by_dotted.get(typ, ())) else ""


def _go_unaliased(p: Project, code: str) -> str:
    """Go code with the project's packages it imports under another name called by their own (squirrel's README:
    `import sq "github.com/Masterminds/squirrel"`, then `sq.Select(…)`, read as `squirrel.Select(…)`)."""
    from .project import _GO_ALIAS_RE

    own = p.go_packages()
    for alias, pkg in _GO_ALIAS_RE.findall(code):
        if pkg in own and alias != pkg and alias not in ("_", "import", "."):
            code = re.sub(rf"(?<![\w.]){re.escape(alias)}\s*\.", pkg + ".", code)
    return code


def ruby_locals(code: str) -> str:
    """The example's code with the instance variables it assigns read as locals (liquid's `@template =
    Liquid::Template.parse(…)`, then `@template.render(…)`): to an example they are its values."""
    for v in dict.fromkeys(re.findall(r"(?m)^\s*@([a-z_]\w*)\s*=(?!=)", code)):
        code = re.sub(rf"(?<![\w@])@{v}\b", v, code)
    return code


def built_by(p: Project, code: str, var: str, lang: str = "", depth: int = 0) -> str:
    """The call an example's value is made by, as `Type.name` where the example says the type
    (`@template = Liquid::Template.parse(…)`: `Liquid.Template.parse`; `let template =
    env.get_template(…)` with `env = Environment::new()`: `Environment.get_template`), else its name; or ''.
    A call on the class itself is marked `::` (`Liquid.Template::parse`: Ruby's class method, not the instance's)."""
    m = re.search(rf"(?m)^\s*(?:[\w<>\[\],.? ]+\s+)?@?{re.escape(var)}(?:\s*,\s*\w+)*\s*:?=\s*(?:new\s+)?((?:[\w$]+\s*(?:\.|::)\s*)*?)"
                  rf"([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", code)
    if m is None:  # a value taken from another (yaml-rust's `let doc = &docs[0];`, `docs = YamlLoader::load_from_str(s)`)
        of = re.search(rf"(?m)^\s*(?:let\s+(?:mut\s+)?|(?:var|const)\s+)?{re.escape(var)}\s*:?=\s*&?(?:mut\s+)?([A-Za-z_$][\w$]*)\s*[\[.;\n]", code)
        return built_by(p, code, of.group(1), lang, depth + 1) if of and of.group(1) != var and depth < 2 else ""
    # a chain (jmustache's `Template tmpl = Mustache.compiler().compile(text);`): the value is made by its last
    # link, on what the links before it return
    # (its links may have comments between them: Bogus' `//Pick some fruit from a basket` before a `.RuleFor(…)`)
    link = re.compile(rf"(?:\s*//[^\n]*)*\s*\.\s*([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(")
    at = m.end() - 1
    links = []
    while nxt := link.match(code, at + len(call_args(code, at)) + 2):
        links.append(nxt)
        at = nxt.end() - 1
    # a fluent chain's link it repeats most sets the value up (Bogus' eleven `.RuleFor(…)` before a `.FinishWith(…)`)
    names = [x.group(1) for x in links]
    most = max(names, key=names.count, default="")
    last = next(x for x in links if x.group(1) == most) if names.count(most) > 1 else links[-1] if links else None
    if last is not None and lang:
        made = "new " if re.search(r"\bnew\s+$", code[:m.start(1)]) else ""  # (C#'s `new Faker<User>()`)
        typ = example_type(p, code, var, lang, made + code[m.start(1):last.start()])
        if typ and any(x.dotted == f"{typ}.{last.group(1)}" for x in p.find(last.group(1))):
            return f"{typ}.{last.group(1)}"
    recv = re.sub(r"\s*(?:\.|::)\s*$", "", m.group(1)).replace("::", ".")
    if any(x.dotted == recv and x.kind in ("class", "struct") for x in p.find(recv.rsplit(".", 1)[-1])):
        return f"{recv}::{m.group(2)}"
    typ = built_type(p, code, recv, lang) if re.fullmatch(r"[A-Za-z_$][\w$]*", recv) else ""
    return f"{typ}.{m.group(2)}" if typ else m.group(2)


# the names of calls that only set a value up (mainpath's `configure(…)` before a run), and a builder's `with…`
SETUP_NAMES = r"configure|config|setup|init|use|register\w*|set[A-Z_]\w*|add[A-Z_]\w*|options?"
_CONFIGURES = re.compile(rf"(?i)^(?:{SETUP_NAMES}|with\w*)$")
_LISTENS = re.compile(r"^(?:on|once|addEventListener|addListener)$")  # (ws' `ws.on('open', function open() { … })`)
_ENDS = re.compile(r"(?i)^(?:stop|close|shutdown|dispose|quit|release|cancel|destroy|teardown|cleanup)(?:all|now)?$"
                   r"|^(?:off|removeListener|removeAllListeners|unsubscribe|unlisten)$")  # (nor undoing what it set up:
# eventemitter3's `EE.removeListener(…)` after `EE.on(…)`)
# the languages whose calls take a trailing block (`test { … }`, `each do … end`)
BLOCK_LANGS = ("kotlin", "swift", "scala", "ruby")


def final_call(p: Project, code: str, lang: str = "") -> list[Sym]:
    """The method (its overloads) an example ends with on an object it built (javapoet's
    `javaFile.writeTo(System.out)` after `JavaFile javaFile = JavaFile.builder(…).build()`), when it
    calls it only there: the object was set up to be run by that call. Not a call on what another
    call returned (`r.json()`)."""
    # the last statement that calls a method on a value the example built, its result kept or not
    # (FluentValidation's `ValidationResult results = validator.Validate(customer);`, then only reads;
    # java-diff-utils' `rows = generator.generateDiffRows(⏎ Arrays.asList(…), …)` over three lines,
    # then a `System.out.println(…)` of the result); the calls inside its arguments are not statements
    code = ruby_locals(code)
    # (a statement may print the call's result: `println!("{}", template.render(…))`, `print(s.dumps(x))`)
    stmts: list[re.Match[str]] = []
    end = 0
    # (a resource a block holds is kept too: Java's `try (Response response = client.newCall(…)`, C#'s `using (var …`;
    # and what JS destructures: formidable's `[fields, files] = await form.parse(req);`)
    for m in re.finditer(r"(?m)^\s*(?:>>>\s*)?(?:(?:try|using)\s*\(\s*|using\s+)?(?P<kept>(?:[\w<>\[\],.? ]+\s+)?(?:[A-Za-z_]\w*|\[[\w\s,]+\]|\{[\w\s,:]+\})\s*:?=\s*)?(?:await\s+)?"
                         r"(?P<printed>(?:print|println!?|puts|console\.log|System\.out\.println|Console\.WriteLine|fmt\.Println"
                         r"|assert(?:!|_eq!)?)"  # (what an example asserts of a call is its result too: `assert!(req.matches(&v))`)
                         r"\s*\(\s*(?:\"[^\"\n]*\"\s*,\s*)?!?|puts\s+|if\s*\(?\s*!?\s*)?"  # (or tests: go-version's `if v1.LessThan(v2) {`)
                         rf"(?P<recv>[A-Za-z_]\w*)\s*\.\s*(?P<meth>[A-Za-z_]\w*){TYPE_ARGS}\s*\(", code):
        # a printed call only when it is all the example does with its value (minijinja's `template`);
        # `print(store.get(k))` after `store.put(k, v)` reads back what the example did
        if m.group("printed") and not m.group("printed").startswith(("assert", "if")) and len(re.findall(rf"(?<![\w$.]){re.escape(m.group('recv'))}\s*\.\s*\w+\s*\(", code)) > 1:
            continue
        if m.start() >= end:
            stmts.append(m)
            args = call_args(code, m.end() - 1)  # (not past a function it is given: its statements are the example's,
            # formidable's `http.createServer(async (req, res) => { … form.parse(req) … })`)
            end = m.end() + (0 if _FUNCTION_ARG.search(args) else len(args) + 1)
    # (what ends the value's life is no run of it: cron's `c.Stop()` after `c.Start()` and more `c.AddFunc(…)`)
    stmts = [m for m in stmts if not _ENDS.match(m.group("meth"))]
    for m in reversed(stmts):
        name = built_type(p, code, m.group("recv"), lang)
        if name:
            break
    else:
        return []
    # calls side by side on the value (Cronos' `expression.GetNextOccurrence(…)`, then `…GetPreviousOccurrence(…)`):
    # the first that does more than set it up is the run, the others its variants
    # (a bare call another call on the value follows feeds the value: tablewriter's `table.Header(…)`,
    # `table.Bulk(…)`, then `table.Render()`)
    same = [x for x in stmts if x.group("recv") == m.group("recv")]
    m = next((x for x in same if not _CONFIGURES.match(x.group("meth")) and not x.group("printed")
              and (x.group("kept") or x is same[-1])), m)
    # (calls most of which are members the value's constructor made, consola's `consola.info(…)`, `consola.warn(…)`, …,
    # `consola.prompt(…)`: one made function shown several ways; the first is the run)
    ghosts = [x for x in same if not _typer(p).member(name, x.group("meth"))] if made_members(p, name) else []
    m = ghosts[0] if len(ghosts) * 2 > len(same) else m
    if _LISTENS.match(m.group("meth")):  # (what runs is no listener's registration: ws' `ws.send(…)` in its `open` listener)
        m = next((x for x in reversed(same) if not _LISTENS.match(x.group("meth")) and not _CONFIGURES.match(x.group("meth"))), m)
    # (or one before them, inside another package's call: multer's `app.post('/profile', upload.single('avatar'), …)`)
    m = next((x for x in re.finditer(rf"(?<![\w$.])(?P<recv>{re.escape(m.group('recv'))})\s*\.\s*(?P<meth>[A-Za-z_]\w*){TYPE_ARGS}\s*\(",
                                     code[:same[0].start()])
              if code.count("(", 0, x.start()) > code.count(")", 0, x.start()) and not _CONFIGURES.match(x.group("meth"))), m)
    meth = m.group("meth")
    # (goquery's `s.Find("a")` in the callback is another value's; markdown2's `markdowner.convert(…)` twice is
    # another way than its first call; semver's two `assert!(req.matches(&version))` check one run)
    again = [ln for ln in code.splitlines() if re.search(rf"(?<![\w$.]){re.escape(m.group('recv'))}\s*\.\s*{meth}\s*\(", ln)]
    if len(again) > 1 and not all(re.match(r"\s*assert", ln) for ln in again):
        return []
    # every overload of that name (`generateDiffRows(List, List)` hands to `generateDiffRows(List, Patch)`
    # through `DiffUtils.diff`): the path that goes deepest is the one central_path follows; of those the
    # arguments can be given to (`gson.toJson(1)`: a number is no `JsonElement`)
    found = [x for x in p.find(meth) if x.dotted == f"{name}.{meth}" and x.kind == "method"]
    if not found:  # an inherited or embedded one (goquery's `Document` embeds `*Selection`)
        found = [x for x in _typer(p).member(name, meth) or missing(_typer(p).member, name, meth) if x.kind == "method"]
    if not found and (made := made_members(p, name)):  # (a member the constructor made: the method its function calls)
        p._keys[("ghost_call", made[1].rel, made[1].d.start_line)] = f"{m.group('recv')}.{meth}"
        return [made[1]]
    fits = [x for x in found if takes(p, x, call_args(code, m.end() - 1), code, "<" in m.group(0))]
    # a call that makes what the statement runs next (okhttp's `client.newCall(request).execute()`, handlebars'
    # `handlebars.compileInline("…").apply(ctx)`): the last link is the run, of the type the chain gives
    close = m.end() - 1 + len(call_args(code, m.end() - 1)) + 1
    link = re.compile(r"\s*\.\s*([A-Za-z_]\w*)\s*\(").match(code, close + 1) if _MAKER.match(meth) else None
    ran = chain_member(p, code, close, link.group(1), lang) if link else []
    return ran or fits or found


_FUNCTION_ARG = re.compile(r"(?:^|,)\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")
# the names of calls that make the value a chain then runs (`newCall`, `compileInline`, `createParser`)
_MAKER = re.compile(r"(?:new|create|make|build|prepare|compile|open)(?:[A-Z_]\w*)?$")


def _typer(p: Project) -> Typer:
    from .callres import Resolver
    from .codeinfo import _sym_index

    return Resolver(p, p.symbols()[0], *_sym_index(p)).typer()


def chain_member(p: Project, code: str, close: int, name: str, lang: str) -> list[Sym]:
    """The methods `name` of the type a chain gives back, the chain written up to its `)` at `close` (java-jwt's
    `JWT.create().withIssuer("auth0")` is a `JWTCreator.Builder`: its `.sign(algorithm)`, not `Algorithm.sign`)."""
    at = close
    while at >= 0 and code[at] == ")":  # back over each link: its arguments, its name, its dot
        depth = 0
        for k in range(at, -1, -1):
            depth += {")": 1, "(": -1}.get(code[k], 0)
            if depth == 0:
                break
        head = re.search(r"[A-Za-z_$][\w$]*\s*(?:<[^<>()]*>)?\s*$", code[:k])
        if head is None:
            return []
        at = head.start()
        dot = re.search(r"(?:\.|::)\s*$", code[:at])
        if dot is None:
            break
        at = dot.start() - 1
        while at >= 0 and code[at].isspace():
            at -= 1
        if at >= 0 and code[at] != ")":  # `JWT.create()`: the chain starts at the class's name
            head = re.search(r"[A-Za-z_$][\w$.]*$", code[:at + 1])
            at = head.start() if head else at + 1
            break
    typ = example_type(p, code, "", lang, code[max(at, 0):close + 1]) if at < close else ""
    return [x for x in _typer(p).member(typ, name) if x.kind == "method"] if typ else []


def printed_value(p: Project, code: str, lang: str) -> tuple[Sym, str] | None:
    """(the method, the variable) when the example ends by printing a value it built, whose type defines what
    printing runs (terminal-table's `puts user_table` after `user_table = Terminal::Table.new do … end` runs
    `Table#to_s`, an alias of `render`); None otherwise."""
    if lang not in _PRINTS:
        return None
    rx, meth = _PRINTS[lang]
    # (the last line that does something: not the `}` closing Rust's `fn main`; a comment that shows it typed at a
    # console is one, terminal-table's `# > puts table` above what it prints)
    last = [ln for ln in re.sub(r"(?m)^(\s*)(?:#|//)\s*>\s+(?=\S)", r"\1", code.strip()).splitlines()
            if ln.strip() and not ln.strip().startswith(("#", "//")) and not re.fullmatch(r"\s*[})\]]+;?\s*", ln)][-1:]
    m = re.fullmatch(rf"\s*{rx}\s*;?\s*", last[0]) if last else None
    var = next((g for g in m.groups() if g), "") if m else ""
    typ = built_type(p, code, var, lang) if var else ""
    hit = [x for x in _typer(p).member(typ, meth) if x.kind == "method"] if typ else []
    return (hit[0], var) if len(hit) == 1 else None


def iterated_value(p: Project, code: str, lang: str) -> tuple[Sym, Sym | None] | None:
    """(its `__iter__`, its `__init__` or None) when a Python example loops over an object of a project class it
    makes in the loop's head or before it (tqdm's `for i in tqdm(range(10000)):`): iterating runs `__iter__`."""
    if lang != "python":
        return None
    m = re.search(r"(?m)^\s*(?:async\s+)?for\s+[\w\s,()]+?\s+in\s+([A-Za-z_][\w.]*)\s*(\()?", code)
    if m is None:
        return None
    name = m.group(1).rsplit(".", 1)[-1]
    typ = name if m.group(2) and any(x.kind == "class" for x in p.find(name) if x.short == name) else \
        "" if m.group(2) else built_type(p, code, name, lang)
    typer = _typer(p)
    it = [x for x in typer.member(typ, "__iter__") if x.kind == "method"] if typ else []
    if len(it) != 1:
        return None
    init = [x for x in typer.member(typ, "__init__") if x.kind == "method"]
    return it[0], (init[0] if len(init) == 1 else None)


def given_names(args: str) -> list[str]:
    """The plain names among a call's arguments (`doc`, `renderer`; not `f(x)` nor `a.b`)."""
    return re.findall(r"(?<![\w$.])[A-Za-z_$][\w$]*(?![\w$]*\s*[.(])", args)


def made_with(code: str, var: str) -> list[str]:
    """The plain names given to the call that made `var` (`_made2 = HtmlGenerator(src, parsedTree, flavour)`)."""
    m = re.search(rf"(?m)^\s*(?:[\w<>\[\],.? ]+\s+)?{re.escape(var)}\s*:?=\s*(?:new\s+)?[\w$.:]+\s*\(", code)
    return given_names(call_args(code, m.end() - 1)) if m else []


def linked(code: str, links: list[re.Match[str]]) -> bool:
    """Whether the example's last link (`).target(`) follows another link of its chain (`).decoder(…)`): a
    builder's chain, not one call on what a call made (money's `Money.from_cents(1000, "USD").with_currency("EUR")`,
    one line of a showcase)."""
    return len(links) >= 2 and links[-2].end() + len(call_args(code, links[-2].end() - 1)) == links[-1].start()


def chain_of(code: str, links: list[re.Match[str]]) -> list[re.Match[str]]:
    """The links of the example's last chain: the last link and each before it that ends where the next begins."""
    out = links[-1:]
    for ln in reversed(links[:-1]):
        if ln.end() + len(call_args(code, ln.end() - 1)) != out[0].start():
            break
        out.insert(0, ln)
    return out


def consuming_call(p: Project, code: str, lang: str = "") -> tuple[Sym, int, list[str]] | None:
    """The project function an example hands a value it built, the last one it calls so
    (pulldown-cmark's `html::push_html(&mut html_output, parser)` after `let parser = Parser::new(…)`):
    (that function, where the call is, the names of the values it is given: gomarkdown's `markdown.Render(doc,
    renderer)` after `doc := p.Parse(md)` and `renderer := html.NewRenderer(opts)`); None if there is none."""
    from .arity import split_args as _split_args

    code = ruby_locals(code)
    found = None
    for m in re.finditer(rf"(?<![\w$.:])(?:[A-Za-z_]\w*\s*(?:::|\.)\s*)*([A-Za-z_]\w*){TYPE_ARGS}\s*\(", code):
        fn = [x for x in p.find(m.group(1)) if x.kind == "function" and x.short == m.group(1) and "." not in x.dotted]
        args = [re.sub(r"^&\s*(?:mut\s+)?", "", a.strip()) for a in _split_args(call_args(code, m.end() - 1))]
        made = [a for a in args if re.fullmatch(r"[A-Za-z_]\w*", a) and built_type(p, code, a, lang)]
        if len(fn) == 1 and made:  # (of a value of an interface, what made it: `doc := p.Parse(md)`)
            found = (fn[0], m.start(), [a for a in args if a in made or re.fullmatch(r"[A-Za-z_]\w*", a) and "." in built_by(p, code, a, lang)])
    return found


def one_call(p: Project, entries: list[Sym]) -> bool:
    """The first example calls one function or method of the project (`jmespath.search(…)`)."""
    ex = example_of(p, entries)
    if ex is None:
        return False
    names = {m.group(1) for m in re.finditer(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*\(", ex.as_calls)}
    return len([n for n in names if any(x.kind in ("function", "method") for x in p.find(n))]) == 1


def made_here(code: str, at: int) -> str:
    """The class a run at `at` is called on when it is made right there (`new CommandLine(new Example()).execute(args)`,
    `Parser::new(src).parse()`), or ''."""
    k = at - 1
    while k >= 0 and code[k] in " \t\n.:":
        k -= 1
    if k < 0 or code[k] != ")":
        return ""
    depth = 0
    for j in range(k, -1, -1):
        depth += {")": 1, "(": -1}.get(code[j], 0)
        if depth == 0:
            made = re.search(r"(?:\bnew\s+)?(?:[\w$]+\.)*([A-Z][\w$]*)\s*(?:<[^<>()]*>)?\s*(?:::\s*new\s*)?$", code[:j])
            return made.group(1) if made else ""
    return ""


def in_loop(code: str, at: int) -> bool:
    """The line at `at` is in an endless loop's body (a program's main loop: `while True:`, `loop {`, Go's
    `for {`), by its indentation; not a loop over items (click's `for x in range(count): click.echo(…)`)."""
    lines = code[:at].split("\n")
    indent = len(lines[-1]) - len(lines[-1].lstrip())
    for ln in reversed(lines[:-1]):
        if ln.strip() and len(ln) - len(ln.lstrip()) < indent:
            return bool(re.match(r"\s*(?:while\s*\(?\s*(?:True|true|1)\s*\)?\s*[:{]|loop\s*\{|for\s*\{)", ln))
    return False


def made_from(p: Project, e: Sym) -> Sym | None:
    """The project's function a constant is made by (ky's `const ky = createInstance();`), or None."""
    m = re.match(r"\s*(?:export\s+)?(?:const|let|var|static|final|pub\s+static)?\s*[\w$]+\s*(?::[^=]+)?=\s*([A-Za-z_$][\w$]*)\s*\(",
                 e.d.signature)
    if m is None or e.kind not in ("constant", "variable"):
        return None
    hit = [x for x in p.find(m.group(1)) if x.short == m.group(1) and x.kind == "function" and "." not in x.dotted]
    same = [x for x in hit if x.rel == e.rel]
    return (same or hit)[0] if len(same or hit) == 1 else None


def blocks(code: str) -> list[tuple[str, int, int]]:
    """(the call's name, where its block's text starts, where it ends) of each call the example gives a block
    (Kotlin's `flowOf(…).test { … }`, Ruby's `rows.each do … end`)."""
    out = []
    for m in re.finditer(r"(?:\.|^|\s)([A-Za-z_]\w*)\s*(?:\([^()\n]*\))?\s*(?:\{|\bdo\b)", code, re.M):
        depth, end = 1, len(code)  # the block's end: its `}` (or, for `do`, the next `end` at its depth, roughly)
        closer = "}" if code[m.end() - 1] == "{" else "end"
        for k in re.finditer(r"\{|\}" if closer == "}" else r"\bdo\b|\bend\b", code[m.end():]):
            depth += 1 if k.group(0) in ("{", "do") else -1
            if depth == 0:
                end = m.end() + k.start()
                break
        out.append((m.group(1), m.end(), end))
    return out


def inside_blocks(code: str, called: dict[str, float]) -> None:
    """A call the example makes inside the block it gives another call (turbine's `flowOf(…).test { awaitItem() }`,
    Ruby's `x.each do … end`) runs within that call: it weighs less than the call that runs the block."""
    for name, start, end in blocks(code):
        owner = called.get(name, 0.0)
        if not owner:
            continue
        for n in set(re.findall(r"([A-Za-z_]\w*)\s*[({]", code[start:end])) - {name}:
            if called.get(n, 0.0) >= owner:
                called[n] = 0.9 * owner


def block_run(p: Project, code: str, starts: list[Sym]) -> tuple[str, Sym] | None:
    """(the call, the first call of its block) when the example ends in a call of the project given a block that
    calls the project (turbine's `flowOf(…).test { assertEquals("one", awaitItem()) … }`): the call prepares what
    the block then runs, its set-up; the block's first call is the run (a start, or a function it calls bare)."""
    named = {x.short: x for x in starts}
    for n in set(re.findall(r"([A-Za-z_]\w*)\s*\(", code)) - set(named):
        if len(hit := [x for x in p.find(n) if x.short == n and x.kind in ("function", "method")]) == 1:
            named[n] = hit[0]
    last = [b for b in blocks(code) if b[0] in named and not re.sub(r"[\s;)}\]]|\bend\b", "", code[b[2] + 1:])]
    if not last:
        return None
    name, start, end = last[0]
    inner = [m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", code[start:end]) if m.group(1) in named and m.group(1) != name]
    return (name, named[inner[0]]) if inner else None


def fitting_overloads(p: Project, code: str, starts: list[tuple[Sym, float]]) -> list[tuple[Sym, float]]:
    """`starts` without the overloads the example's calls of their name cannot reach (`toJson(JsonElement)` for
    `toJson(1)`), on a value it built or on the class itself (jayway's `JsonPath.read(json, "$.store…")`: a static
    `read(String json, String jsonPath, …)`); those that can, and were not among the starts, join them."""
    given: dict[str, list[str]] = {}  # `Type.name` → the arguments the example gives it
    for m in re.finditer(rf"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", code):
        typ = built_type(p, code, m.group(1)) or next((x.dotted for x in p.find(m.group(1)) if x.kind == "class"
                                                       and x.dotted == m.group(1)), "")
        if typ:
            given.setdefault(f"{typ}.{m.group(2)}", []).append(call_args(code, m.end() - 1))
    out = [(s, 0.0 if s.dotted in given and not any(takes(p, s, a, code) for a in given[s.dotted]) else b) for s, b in starts]
    for key, calls in given.items():  # (the type's first eight methods may not hold the one it calls)
        if any(s.dotted == key for s, _b in starts) and not any(s.dotted == key and b > 0 for s, b in out):
            out += [(x, 1.0) for x in p.find(key.rsplit(".", 1)[-1]) if x.dotted == key and x.kind == "method"
                    and any(takes(p, x, a, code) for a in calls) and all(x is not s for s, _b in out)]
    return out
