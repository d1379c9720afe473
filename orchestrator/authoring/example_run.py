"""Which call of the README example is the run chapter 1 follows (issue 35): the serving call (`app.listen(3000)`,
`http.ListenAndServe(":3000", r)`), the last call on the value the example built (`template.render(…)`), the loop
that runs it, the chain's last link; and what the example called before it to set that value up (setup_path's
starts). What it decided is kept on the project for chapter 1 to say (`served_by`, `made_by`, `exported_fetch`,
`ghost_call`, `invoked_call`, `package_made`)."""

from __future__ import annotations

import re

from .codetext import call_args
from .entry import TYPE_ARGS, foreign_imports
from .example_calls import (
    BLOCK_LANGS,
    SETUP_NAMES,
    block_run,
    built_by,
    built_type,
    chain_member,
    chain_of,
    consuming_call,
    final_call,
    given_names,
    in_loop,
    iterated_value,
    linked,
    made_here,
    made_with,
    printed_value,
)
from .js_values import instance_sites, package_instance
from .project import Project, Sym, project_name
from .servers import node_server, own_runs, wrapping_method

_SETUP = re.compile(rf"(?i)^(?:{SETUP_NAMES})$")
SERVING_BONUS = 2.0  # above any set-up call, however early the example makes it (1 at most)


def serving_first(p: Project, code: str, starts: list[tuple[Sym, float]], lang: str = "") -> list[tuple[Sym, float]]:
    """Where the example both sets up and runs (`app.get(…); app.listen(3000)`, `r.Get(…);
    http.ListenAndServe(":3000", r)`, `cmd.Run(ctx, os.Args)`), the run is the call to follow: its
    start (the method or function of that name, or, when another package's server is handed a value
    of the project, what the server runs on it: `made_by`'s `ServeHTTP`) outweighs the set-up calls."""
    # Go's `http.Handle("/", r)` registers the value with the default server; a project's own `r.Handle` is set-up
    p._keys[("setup_before",)] = []
    if lang == "ruby":  # a call written without parentheses at a line's end: optparse's `end.parse!`
        code = re.sub(r"(?m)(\.\s*[a-z_]\w*[!?]?)[ \t]*$", r"\1()", code)
    runs = own_runs(code)
    exported = re.search(r"(?m)^\s*export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$", code)
    typ = built_type(p, code, exported.group(1)) if exported and not runs else ""
    fetch = [x for x in p.find("fetch") if typ and x.dotted == f"{typ}.fetch" and x.kind == "method"]
    if len(fetch) == 1 and exported is not None:  # `export default app`: a runtime of fetch handlers (Workers, Bun, Deno) calls `app.fetch`
        p._keys[("exported_fetch", fetch[0].rel, fetch[0].d.start_line)] = typ
        _setup_calls(p, code, exported.start(1), {exported.group(1)})
        return [(x, b) for x, b in starts if x is not fetch[0]] + [(fetch[0], SERVING_BONUS)]
    block = block_run(p, code, [x for x, _b in starts]) if lang in BLOCK_LANGS else None
    if block is not None:  # `flowOf(…).test { awaitItem() }`: `test` sets up, the block's calls run
        p._keys[("setup_calls",)] = [block[0]]
        return [(x, b) for x, b in starts if x is not block[1]] + [(block[1], SERVING_BONUS)]
    invoked = invoked_value(p, code, lang)
    if invoked:  # Kotlin's `validateUser(invalidUser)`: the value's `operator fun invoke`; what made the value sets up
        p._keys[("setup_calls",)] = [invoked[0].dotted]
        return [(x, b) for x, b in starts if all(x is not i for i in invoked)] + [(x, SERVING_BONUS) for x in invoked]
    final = final_call(p, code, lang)
    # (or on what the value's maker gives: okhttp's `client.newCall(request).execute()`)
    # (what a Ruby value's `method_missing` answers is any name the example calls on a value: pastel's `pastel.red(…)`)
    # (or a function the value's constructor made: consola's `consola.info(…)` runs what `_wrapLogFn` made, `_logFn`)
    recv, said = (r"(?<![\w:])@?[a-z_]\w*", r"[a-z_]\w*[!?]?") if final and (final[0].short == "method_missing" or ghost_call(p, final[0])) else (r"@?[A-Za-z_$][\w$]*", re.escape(final[0].short) if final else "")
    calls = list(re.finditer(rf"({recv})\s*(?:\.\s*\w+\s*\([^()]*\)\s*)?\.\s*{said}{TYPE_ARGS}\s*\(", code)) if final else []
    # (not one inside another call's arguments: Bogus' `.RuleFor(u => u.Orders, f => testOrders.Generate(3))`)
    calls = [m for m in calls if code.count("(", 0, m.start()) == code.count(")", 0, m.start())] or calls
    last = [m for m in calls if m.group(1) == calls[0].group(1)][-1] if calls else None  # (the last on that value: semver's)
    given = consuming_call(p, code, lang)
    if given is not None and given[1] > max(last.start() if last else -1, runs[-1].start() if runs else -1):
        # it ends by handing what it built to a function of the project (pulldown-cmark's `push_html(&mut out,
        # parser)`): that function runs it, and the call that built the value is its set-up
        p._keys[("setup_calls",)] = [n for n in [built_by(p, code, v, lang) for v in given[2]] if n]
        return [(x, b) for x, b in starts if x is not given[0]] + [(given[0], SERVING_BONUS)]
    shown = printed_value(p, code, lang) if not runs else None
    if shown is not None and last is not None and code.rfind(shown[1]) > last.end():
        last = None  # it prints what it built after the calls that set it up (comfy-table's `println!("{table}")`)
    if last is not None and (not runs or last.end() > runs[-1].start()):  # (a run in its chain too)
        # the example ends by running what it built (liquid's `@template.render(…)` after the `parse` that made it):
        # that run is the path, and the call that built the value its set-up
        # (and the calls that made what it is given: commonmark's `renderer.render(document)`, `document = parser.parse(…)`)
        given_to = given_names(call_args(code, last.end() - 1)) + made_with(code, last.group(1))  # (`HtmlGenerator(src, tree)`)
        maker = re.match(r"@?[\w$]+\s*\.\s*(\w+)\s*\(", last.group())  # (`client.newCall(request)`: it sets up `execute()`)
        # (and what it calls on the value before: hookable's `hooks.hook("hello", …)` before `hooks.callHook("hello")`)
        before = [m.group(1) for m in re.finditer(rf"(?m)^\s*{re.escape(last.group(1))}\s*\.\s*(\w+)\s*\(", code[:last.start()])]
        p._keys[("setup_calls",)] = [n for n in [built_by(p, code, v, lang) or _instance_made(p, code, v, lang)
                                                 for v in [last.group(1).lstrip("@"), *given_to]] if n] + \
            ([maker.group(1)] if maker and maker.group(1) != final[0].short else [])
        p._keys[("setup_before",)] = [n for n in before if n != final[0].short]  # (tried when what made the value sets up nothing)
        if final[0].short == "method_missing":  # (chapter 1 says which call of the example Ruby sends to it)
            p._keys[("ghost_call", final[0].rel, final[0].d.start_line)] = re.sub(r"\s*\($", "", last.group()).strip()
        out = [(x, b) for x, b in starts if all(x is not f for f in final)]
        return out + [(f, SERVING_BONUS) for f in final]
    looped = iterated_value(p, code, lang) if not runs else None
    if looped is not None and last is None:
        # `for i in tqdm(range(10000)):` runs `tqdm.__iter__`, set up by `tqdm.__init__`
        p._keys[("setup_calls",)] = [looped[1].dotted] if looped[1] else []
        p._keys[("looped",)] = (looped[0].rel, looped[0].d.start_line)  # (chapter 1 says the loop runs it)
        ctor = [(looped[1], 0.5)] if looped[1] and all(x is not looped[1] for x, _b in starts) else []
        return [(x, b) for x, b in starts if x is not looped[0]] + ctor + [(looped[0], SERVING_BONUS)]
    if shown is not None:  # `puts user_table`: its `to_s`
        p._keys[("setup_calls",)] = [n for n in [built_by(p, code, shown[1], lang)] if n]
        return [(x, b) for x, b in starts if x is not shown[0]] + [(shown[0], SERVING_BONUS)]
    if not runs:
        # the last call runs after calls that only configure (`nunjucks.configure({…}); nunjucks.renderString(…)`),
        # or in the program's main loop (schedule's `while True: schedule.run_pending()` after
        # `schedule.every(10)…do(job)`); the first call is its set-up
        named = {x.short: x for x, _b in starts}
        if len(re.findall(r"(?m)^\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*\.\s*[A-Za-z_]\w*\s*\(", code)) >= 3:
            return starts  # a showcase of calls on literals (colored's `"this is blue".blue();`, one per line): no run, the first
        calls = [m for m in re.finditer(r"(?<![\w$.])[A-Za-z_$][\w$]*\s*\.\s*([A-Za-z_$][\w$]*)\s*\(", code) if m.group(1) in named]
        seq = [m.group(1) for m in calls]
        links = list(re.finditer(rf"\)\s*\.\s*([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", code))
        if links and links[-1].group(1) in named and len(set(seq[1:]) - set(seq[:1])) <= 1 \
                and all(c.start() < links[-1].start() for c in calls) and linked(code, links):
            # a builder's chain ends in the call that makes or runs what the links configured (feign's `Feign.builder()
            # .decoder(…).target(GitHub.class, url)`; resty's `client.R().SetHeader(…).Get(url)`): the last link is the run
            p._keys[("setup_calls",)] = []
            chained = chain_member(p, code, links[-1].start(), links[-1].group(1), lang)  # (the chain's own type's)
            if chained:
                return [(x, b) for x, b in starts if x not in chained] + [(x, SERVING_BONUS) for x in chained]
            return [(x, SERVING_BONUS if x.short == links[-1].group(1) else b) for x, b in starts]
        if links and linked(code, links) and links[-1].group(1) not in named:
            # a fluent chain on what a function of the project gives back (ts-pattern's `match(x).with(…).with(…)
            # .exhaustive()`): each link is a method of that type the example runs; the path goes deepest from one
            ran = list({id(x): x for ln in chain_of(code, links)
                        for x in chain_member(p, code, ln.start(), ln.group(1), lang)}.values())
            if ran:
                p._keys[("setup_calls",)] = []
                return [(x, b) for x, b in starts if all(x is not r for r in ran)] + [(x, SERVING_BONUS) for x in ran]
        if len(set(seq)) >= 2 and (all(_SETUP.match(n) for n in seq[:-1]) or in_loop(code, calls[-1].start())):
            p._keys[("setup_calls",)] = [seq[0]] if seq[0] != seq[-1] else []
            return [(x, SERVING_BONUS if x.short == seq[-1] else b) for x, b in starts]
        return starts
    m, verb = runs[-1], runs[-1].group(2)
    # `http.createServer(app).listen(3000)`: Node's server calls what the project made
    if (handed := node_server(p, code, m.start(), starts) if lang in ("javascript", "typescript") else None) is not None:
        _setup_calls(p, code, m.start(), {handed[1]})
        return [(s, SERVING_BONUS if s is handed[0] else b) for s, b in starts]

    args = set(re.findall(r"(?<![\w.$\"'])([A-Za-z_$][\w$]*)\s*(?:,|$)", call_args(code, m.end() - 1)))
    _setup_calls(p, code, m.start(), ({m.group(1)} if m.group(1) else set()) | args)
    # and the calls that made what it is given (expr's `program, err := expr.Compile(…)` before `expr.Run(program, env)`)
    p._keys[("setup_calls",)] += [n for n in (built_by(p, code, v, lang) for v in sorted(args)) if n and n not in p._keys[("setup_calls",)]]
    for arg in re.findall(r"[A-Za-z_]\w*", call_args(code, m.end() - 1)):  # `serve(listener, app)`: `let app = Router::new()`
        made = re.search(rf"\blet\s+(?:mut\s+)?{arg}\s*=\s*([A-Z]\w*)::", code)
        if made and any(x.kind in ("struct", "class", "enum") for x in p.find(made.group(1))):
            p._keys[("served_type",)] = made.group(1)
    own = {s.short for s, _ in starts} - {"Handle"}  # (`http.Handle` is always the other package's)
    out = list(starts)
    on = m.group(1) or made_here(code, m.start())
    typed = [x for x in p.find(verb) if on and (x.kind == "method" and x.short == verb and re.split(r"\.|::", x.dotted)[-2:-1] == [on]
                                                or f"{on}.{verb}" in x.d.aliases)]  # (`Papa.parse = CsvToJson`)
    close = code.rfind(")", 0, m.start())
    if not typed and not m.group(1) and close >= 0 and code[close + 1:m.start()].strip() == ".":
        typed = chain_member(p, code, close, verb, lang)  # on what a function of the project gives: ora's `ora(…).start()`
    if len(typed) == 1:  # `Url::parse(…)`: that type's `parse`, not every `parse` of the project (`Host::parse`)
        return [(s, b) for s, b in out if s is not typed[0]] + [(typed[0], SERVING_BONUS)]
    if typed and not m.group(1):  # picocli's `new CommandLine(new Example()).execute(args)`: that class's overloads
        return [(s, b) for s, b in out if s.short != verb] + [(x, SERVING_BONUS) for x in typed]
    if verb in own:
        out = [(s, SERVING_BONUS if s.short == verb else b) for s, b in out]
    elif m.group(1):  # another package's server (`http.ListenAndServe`) serving a value of the project
        wrap = wrapping_method(code, call_args(code, m.end() - 1), out)
        out = [(s, SERVING_BONUS if (s is wrap if wrap else made_by(p, s)) else b) for s, b in out]
        p._keys[("served_by",)] = f"{m.group(1)}.{verb}"  # chapter 1 says who calls the start
    if verb not in own:
        fn = [x for x in p.find(verb) if x.kind == "function" and x.d.exported and x.short == verb]
        if len(fn) == 1 and m.group(1) and m.group(1).lower() in (p.root.name.lower(), project_name(p.root).lower()):
            out.append((fn[0], SERVING_BONUS))  # `axum::serve(listener, app)`: the project's own server
    return out


def _setup_calls(p: Project, code: str, at: int, values: set[str]) -> None:
    """The methods the example calls on the values its serving call runs (`values`), before it and
    at the serving call's own indentation (`router.GET(…)` before `http.ListenAndServe(":8080", router)`,
    `app.get(…)` before `app.listen(3000)` or `export default app`; not `res.send(…)` inside a
    handler): setup_path's starts."""
    line_start = code.rfind("\n", 0, at) + 1
    indent = len(code[line_start:at]) - len(code[line_start:at].lstrip())
    names: list[str] = []
    for ln in code[:line_start].splitlines():
        if len(ln) - len(ln.lstrip()) != indent:
            continue
        for v in values:
            names += re.findall(rf"^\s*(?:let\s+\w+\s*=\s*)?{re.escape(v)}\s*\.\s*([A-Za-z_$][\w$]*)\s*\(", ln)
    p._keys[("setup_calls",)] = names


def served_by(p: Project, start: Sym) -> str:
    """The other package's server the example hands the start's object to (`http.ListenAndServe`), or ''."""
    return p._keys.get(("served_by",), "") if made_by(p, start) else ""


def exported_fetch(p: Project, start: Sym) -> str:
    """The type whose `fetch` the runtime calls, when the example exports its value as the module's
    default (hono's `export default app`, `const app = new Hono()`); '' otherwise."""
    return p._keys.get(("exported_fetch", start.rel, start.d.start_line), "")


def made_function(p: Project, e: Sym, code: str) -> tuple[Sym | None, Sym | None, str]:
    """(the function that makes the entry point `e`, the local function that maker returns, the name the example's `code`
    calls that one by): ofetch's `export const ofetch = createFetch(…)`, called as `ofetch(url)`; or `e` itself a maker
    the example binds and calls (p-limit's `const limit = pLimit(1)`, then `limit(() => …)`); the name '' when the example
    calls no function so made."""
    from .example_calls import made_from
    from .local_defs import returned

    maker = made_from(p, e)
    inner = returned(p, maker) if maker is not None else None
    if inner is not None and re.search(rf"(?<![\w$.]){re.escape(e.short)}\s*\(", code):
        return maker, inner, e.short
    bound = re.search(rf"(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?{re.escape(e.short)}\s*\(", code) if e.kind == "function" else None
    made = returned(p, e) if bound is not None else None
    if bound is not None and made is not None and re.search(rf"(?<![\w$.]){re.escape(bound.group(1))}\s*\(", code):
        return e, made, bound.group(1)
    return maker, inner, ""


def made_fn(p: Project, start: Sym) -> tuple[str, Sym] | None:
    """(the name the example calls it by, maker) when the path's start is the function the maker returns and the example
    calls what it made (ofetch's `ofetch = createFetch(…)`, whose `$fetch` runs; p-limit's `limit`); None otherwise."""
    return p._keys.get(("made_fn", start.rel, start.d.start_line))


def made_by(p: Project, start: Sym) -> tuple[Sym, Sym] | None:
    """(entry point, type) when the path's start is the `__call__` of the type an entry point returns
    (click's `command` returns a `Command`; the README calls the decorated function, which runs
    `Command.__call__`); None when a user calls the start itself. Known once central_path ran."""
    return p._keys.get(("made_by", start.rel, start.d.start_line))


def ghost_call(p: Project, start: Sym) -> str:
    """The example's call (`pastel.red`) that reaches the path's start because the value's class defines no such
    method and Ruby sends it to the class's `method_missing`, or a JS/TS constructor made the member (consola's
    `consola.info`: made_members); '' otherwise."""
    return p._keys.get(("ghost_call", start.rel, start.d.start_line), "")


def invoked_value(p: Project, code: str, lang: str) -> list[Sym]:
    """The `operator fun invoke` a Kotlin example runs by calling a value it made of a project type (konform's
    `val validateUser = Validation<UserProfile> { … }`, then `validateUser(invalidUser)`): of the type's `invoke`s, those
    that take no builder lambda (the companion's `invoke(init: ValidationBuilder<T>.() -> Unit)` made the value); []
    when the example calls no such value."""
    if lang != "kotlin":
        return []
    made = dict(re.findall(r"(?m)^\s*va[lr]\s+([a-z_]\w*)\s*(?::[^=\n]+)?=\s*(?:[a-z_]\w*\.)*([A-Z]\w*)\s*(?:<[^<>\n]*>)?\s*[({]", code))
    for m in reversed(list(re.finditer(r"(?<![\w$.])([a-z_]\w*)\s*\(", code))):
        typ = made.get(m.group(1), "")
        runs = [x for x in p.find("invoke") if typ and x.dotted == f"{typ}.invoke" and "->" not in x.d.signature]
        if runs:  # (chapter 1 says the example calls the value)
            p._keys.update({("invoked_call", x.rel, x.d.start_line): m.group(1) for x in runs})
            return runs
    return []


def _instance_made(p: Project, code: str, var: str, lang: str) -> str:
    """`X.constructor` when the example's value is the instance its package exports as its default (mime's `import mime
    from 'mime'`: `export default new Mime(…)`), which the package made before the example's first line; ''."""
    cls = package_instance(p, code, var) if lang in ("javascript", "typescript") and var not in foreign_imports(p, code) else ""
    ctor = next((x for x in p.find("constructor") if cls and x.dotted == f"{cls}.constructor"), None)
    if ctor is None:
        return ""
    p._keys[("package_made", ctor.rel, ctor.d.start_line)] = (var, cls, *instance_sites(p)[cls])  # (chapter 1 says so)
    return ctor.dotted


def package_made(p: Project, start: Sym) -> tuple[str, str, str, int] | None:
    """(the example's name, class, index file, line) when the set-up's start is the constructor of the instance the
    package exports as its default (`_instance_made`): the package runs it, not the example. None otherwise."""
    return p._keys.get(("package_made", start.rel, start.d.start_line))


def invoked_call(p: Project, start: Sym) -> str:
    """The example's value whose call runs the path's start, its type's `operator fun invoke` (konform's
    `validateUser`); '' otherwise."""
    return p._keys.get(("invoked_call", start.rel, start.d.start_line), "")
