"""The main path chapter 1 traces (issue 35): where a user's call begins (the README example's
serving call before its set-up calls), and the chain of calls from there down to where the work
is done, through the calls the map resolves and the conventions a call graph cannot see
(hops.py: a server calling the handler it is given, a field holding a method)."""

from __future__ import annotations

import posixpath
import re

from .bound_names import bound_methods
from .codetext import call_args
from .entry import TYPE_ARGS
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
    fitting_overloads,
    given_names,
    in_loop,
    inside_blocks,
    iterated_value,
    linked,
    made_from,
    made_here,
    made_with,
    one_call,
    printed_value,
)
from .facts import side_calls
from .handoff import NOT_STEPS, WORK_LINES, handed_out, handed_to, next_steps, side_road, trace_print
from .local_defs import parent, returned, weight
from .overview import MAX_PATH, example_of
from .project import Project, Sym, project_name
from .servers import node_server, own_runs, wrapping_method

RANK_SHARE = 2.0  # a path through the best-ranked code is worth up to two more calls of depth
HAND_OFF = 1.0  # a step that follows the body's last call on its main line: where the work is handed on
DEPTH_SHARE = 1.0  # each call deeper counts whole (0.6 chose put → index.remember over put → log.append → encode)
FIRST_STEPS = 3  # a path from the README's first call this long is the main one
START_SHARE = 3.0  # a start the README calls first is worth three calls more than one it never writes


def _rank_pct(p: Project) -> dict[tuple[str, int], float]:
    """(file, line) of each definition -> its place in the ranking, 1 for the best, towards 0."""
    key = ("rank_pct",)
    if key not in p._keys:
        syms = p.symbols()
        n = max(1, len(syms))
        p._keys[key] = {(s.rel, s.d.start_line): 1.0 - k / n for k, s in enumerate(syms)}
    return p._keys[key]


# a module of general helpers (qs's and axios's `utils.js`: `merge`, `forEach`): a call into it is a side
# step of the operation, not where its work goes on
_UTILITY = re.compile(r"(?i)^(?:utils?|helpers?)\.\w+$")
# (Rust's `as_parts`, `as_bytes`: a cheap view of what the value holds)
# (`fullPath`, `baseName`; not a verb's work on one: sjson's `parsePath`)
_WORK_ON = (r"(?!(?:parse|split|resolve|join|normalize|clean|match|find|build|make|create|load|read|write|walk|expand|format|"
            r"render|encode|decode|escape|compile)[NP])")
_ACCESSOR = re.compile(rf"^_?(?:get|is|has)(?:_|[A-Z])|^(?:Get|Is|Has)[A-Z]|^{_WORK_ON}[A-Z]?[a-z]*(?:Name|Path)$|^as_[a-z]")
# a constructor by its name: Rust's `new`/`with_capacity`/`default`, Python's `__init__`
_MAKER = re.compile(r"^(?:new|with_capacity|default|__init__|__new__)$")
_GETTER = re.compile(r"(?:get|set|is|has)[A-Z_]|(?:Get|Set)$")  # (C#'s and Go's bare `Get()` of a pool too)
def _maker(s: Sym) -> bool:
    """A constructor: by its name, or named as its type (Java's, C#'s), or Go's `NewX`."""
    return bool(_MAKER.match(s.short)) or ("." in s.dotted and s.short == s.dotted.rsplit(".", 2)[-2]) \
        or s.lang == "go" and s.kind == "function" and re.match(r"New[A-Z]", s.short) is not None  # (Go's `NewBlockReader`)


def _node_value(p: Project, s: Sym) -> float:
    v = _rank_pct(p).get((s.rel, s.d.start_line), 0.0)
    up = parent(p, s)
    if up is not None:  # a function declared inside another (local_defs): its rank, as often as that body calls it
        v = _node_value(p, up) * weight(p, s)
    if s.short.startswith("_") and not s.short.startswith("__"):
        v *= 0.3  # a private helper
    if s.lines <= 4 and _GETTER.match(s.short):
        v *= 0.4  # an accessor: a leaf, not the core
    return v


def path_value(p: Project, path: list[Sym]) -> float:
    """Depth first (each call one point), then the ranks of the nodes (their mean, up to RANK_SHARE)."""
    if not path:
        return 0.0
    # an overload handing to another of its name (`AutoBuild` → `AutoBuild`, `toJson` ×4) is one operation, not depth
    return len({s.dotted for s in path}) + RANK_SHARE * sum(_node_value(p, s) for s in path) / len(path)


def call_path(p: Project, start: Sym, limit: int = MAX_PATH) -> list[Sym]:
    """From `start`, the chain of calls the map resolves (facts.all_calls), at most `limit` long,
    of the best path_value: as deep as the code goes, through its best-ranked definitions. At each
    step the best-ranked few callees are tried; a type is never a step (its body calls nothing)."""
    def callees(cur: Sym, seen: set[tuple[str, int]]) -> list[Sym]:
        if cur is not start and handed_out(p, cur):
            return []  # its work goes on outside the map: what it calls before is preparation
        if cur is not start and _maker(cur) and cur.lines < 15 and cur.short not in ("__init__", "constructor"):
            # a short constructor makes a value: what it calls sets the value up (goldmark's `NewBlockReader`); an
            return []  # `__init__` on the path is there because making the object does the work (handoff._constructors)
        side = side_calls(p, cur)  # an operation's path, not its error handling
        h = handed_to(p, cur)  # where the body hands the work on is always tried, however it ranks
        found = [c for c in next_steps(p, cur) if (c.rel, c.d.start_line) not in seen and c.kind not in NOT_STEPS
                 and (c.rel, c.d.start_line) not in side and not side_road(c) and not trace_print(cur, c.short)]
        # a utility module's helper is a side step, unless the body hands the work to it and has no other way
        # (superstruct's `validate` hands to `run` of utils.ts; axios's `utils.merge` after `getAdapter` is a detail)
        util = [c for c in found if _UTILITY.match(posixpath.basename(c.rel)) and c.rel != cur.rel]
        # (or hands it to no step: ts-pattern's `with` makes a `MatchExpression`, its matching is `helpers.ts`' `matchPattern`)
        steps = {(c.rel, c.d.start_line) for c in found}
        found = [c for c in found if c not in util or (len(util) == len(found) and ((c.rel, c.d.start_line) == h or h not in steps))]
        ranked = sorted(found, key=lambda c: (-_node_value(p, c), c.rel, c.d.start_line))
        # (and, where the body hands its work to no step that goes on, a long body it calls, where work is done, however
        # it ranks: goldmark's `Parse` ends handing the tree to each `ASTTransformer`, after `parseBlocks`)
        dead = not any((c.rel, c.d.start_line) == h and next_steps(p, c) for c in found)
        return ranked[:5] + [c for c in ranked[5:] if (c.rel, c.d.start_line) == h or dead and c.lines >= WORK_LINES]

    def value(path: list[Sym]) -> float:
        # from a method, a helper function is a side step: the operation goes on through the objects;
        off = sum(1 for a, b in zip(path, path[1:]) if "." in a.dotted and "." not in b.dotted and b.kind == "function")
        # the call a body makes last on its main line hands the work on: the way the operation flows
        # a hand-off to code that goes on calling is the work moving on; to a leaf, a last detail
        # (not a getter the body calls last: hashids' `StringBuilderPool.Get()` after its shuffles)
        on = sum(1 for a, b in zip(path, path[1:]) if handed_to(p, a) == (b.rel, b.d.start_line)
                 and (next_steps(p, b) or b is path[-1] and not (_GETTER.match(b.short) and b.lines <= 4)))
        # an accessor (`get_params`, `DisplayName`) is a place the work passes by, not where it is done:
        # most of a step's depth is taken back
        # so is a constructor (`StringRecord::new` → `ByteRecord::with_capacity`): making a value, not using it
        leaf = sum(0.7 if _ACCESSOR.match(x.short) or _maker(x)
                   else 1.0 if x.lines <= 5 and re.match(rf"(?:set|{_WORK_ON}[A-Z]?[a-z]*[Nn]ame$)", x.short)
                   else 0.0 for x in path[1:])
        return path_value(p, path) - (1 - DEPTH_SHARE) * len(path) - 0.75 * off + HAND_OFF * on - leaf

    # the main line first: while each body hands the work on (its last call on the main line) to
    # code that goes on calling, the path follows it (click's `main` hands to `invoke`, not to
    # `make_context`, however deep that goes); the search below goes on from where it stops
    line = [start]
    seen0 = {(start.rel, start.d.start_line)}
    while len(line) < limit - 1:
        h = handed_to(p, line[-1])
        nxt = next((c for c in callees(line[-1], seen0) if (c.rel, c.d.start_line) == h), None)
        if nxt is None or (_ACCESSOR.match(nxt.short) and nxt.lines < WORK_LINES) or _maker(nxt) \
                or (not next_steps(p, nxt) and nxt.lines < WORK_LINES and not handed_out(p, nxt)):
            break  # (one that hands the work to an object the map cannot follow is the way on, and its end)
        line.append(nxt)
        seen0.add((nxt.rel, nxt.d.start_line))
        if not next_steps(p, nxt):
            break  # handed to a long body that calls nothing the map knows: where the work is done (gin's `getValue`)
    best: list[Sym] = list(line)

    def walk(path: list[Sym], seen: set[tuple[str, int]]) -> None:
        nonlocal best
        if value(path) > value(best):
            best = list(path)
        if len(path) >= limit:
            return
        for c in callees(path[-1], seen):
            walk(path + [c], seen | {(c.rel, c.d.start_line)})

    walk(line, seen0)
    return best


def _starts(p: Project, entries: list[Sym]) -> list[tuple[Sym, float]]:
    """Where a user's call begins, with a bonus for what the README's code calls: the entry points
    (a type through its public methods, those the README calls first), the object an entry point
    returns when calling it runs code (Python: `command(...) -> Command`, and a decorated function
    is called: `Command.__call__`), and the public methods of the best-ranked types a user imports."""
    from .codeinfo import signature_parts
    from .entry import claimed, foreign_values, own_names, readme_code, readme_names, root_files
    from .js_values import object_members
    from .source_sets import actual_of

    written, called = (names := readme_names(p))[0], dict(names[1])  # (a copy: readme_names' answer is kept for every caller)
    ex = example_of(p, entries)
    if ex is not None:  # the example chapter 1 quotes (gson's is in UserGuide.md): its calls, earliest first
        size = max(1, len(ex.as_calls))
        other = foreign_values(p, ex.code)
        calls = [m for m in re.finditer(rf"(?:([A-Za-z_$][\w$]*)\s*)?(?:\.|::)([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", ex.as_calls)
                 if m.group(1) not in other]  # (Rust's `Url::parse(`)
        first = next((m.start(2) for m in calls if p.find(m.group(2))), 0)  # (its first call of the project weighs 1: fastjson's `GetInt`)
        for m in calls:
            called[m.group(2)] = max(called.get(m.group(2), 0.0), 1.0 / (1.0 + 3.0 * max(0, m.start(2) - first) / size))
    top = max(called.values(), default=1.0)
    called = {n: w / top for n, w in called.items()}  # the README's first call 1, later ones less
    code = readme_code(p) + "\n" + (ex.as_calls if ex is not None else "")
    # (not a value the example makes and then calls: handlebars' `var template = Handlebars.compile(…); template(data)`)
    # (a `require` binds the package itself: request's `const request = require('request')`, then `request(url, cb)`)
    bound = set(re.findall(r"(?m)^\s*(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=(?!\s*require\s*\()", ex.code)) if ex is not None else set()
    times = {e.short: 0 if e.short in bound else len(re.findall(rf"(?<![\w$]){re.escape(e.short)}\s*!?\s*\(", code)) for e in entries}
    most = max(times.values(), default=0) or 1
    for e in entries:  # a function the README calls bare (`redisCommand(c, "PING")`, `info!(…)`): how often
        if times[e.short] and e.kind not in NOT_STEPS:
            called[e.short] = max(called.get(e.short, 0.0), 0.5 * written.get(e.short, 0.0) + 0.5 * times[e.short] / most)
    if ex is not None and ex.lang in BLOCK_LANGS:
        inside_blocks(ex.as_calls, called)
    out: list[tuple[Sym, float]] = []

    def add(s: Sym, bonus: float) -> None:
        if (s := actual_of(p, s)).kind not in NOT_STEPS and all(o is not s for o, _ in out):  # (a Kotlin `expect`: its JVM `actual`)
            out.append((s, bonus))

    def methods(t: Sym) -> list[Sym]:
        # (a C# `partial class` has its members in several files: hashids' `Encode` is not beside the type)
        where = None if re.search(r"\bpartial\b", t.d.signature) else [t.rel]
        ms = [m for m in p.symbols(within=where) if m.dotted.startswith(t.dotted + ".") and m.kind == "method"
              and (not m.short.startswith("_") or m.short == "__call__") and (m.lang != "go" or m.short[:1].isupper())]  # (`__call__`: what calling the object runs)
        ms += [m for m in object_members(p, t) if m not in ms]  # (json5's `const JSON5 = { parse, stringify }`)
        return sorted(ms, key=lambda m: (m.short != "__call__", -called_as(m), -m.score))[:8]

    def called_as(m: Sym) -> float:  # by any of its names (money's `Money.from_cents`, Ruby's alias of `new`)
        return max(called.get(n, 0.0) for n in (*m.names, m.dotted))  # (json5's `module.exports = function parse`)

    runs = re.compile(r"(?i)^(?:execute|run|serve|handle|dispatch|invoke|main|call|listen|process|send|request)$")
    for t in [e for e in entries[:5] if e.kind in NOT_STEPS]:  # a type's own way to run (`Command.Execute`)
        for ms in p.symbols(within=[t.rel]):
            if ms.kind == "method" and ms.dotted.startswith(t.dotted + ".") and runs.match(ms.short):
                called.setdefault(ms.short, 0.5)
    roots = {e.rel for e in entries} | root_files(p)
    types = [s for s in p.symbols(within=sorted(roots)) if s.kind in ("class", "struct") and s.d.exported][:3]
    # `Handlebars.Compile(source)`: the README's call is the method of the type it names, not another
    # entry point's method of that name (`HandlebarsCompiler.Compile`)
    on_type: dict[str, set[str]] = {}
    for m in re.finditer(rf"(?<![\w$.])([A-Z][\w$]*)\s*(?:\.|::)\s*([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", ex.as_calls if ex else ""):
        if any(x.kind in NOT_STEPS for x in p.find(m.group(1)) if x.short == m.group(1)):
            on_type.setdefault(m.group(2), set()).add(m.group(1))

    # `reqwest::get(…)`, `sq.Select(…)`: the package's own function, not a method of that name (blocking `Client.get`)
    # (in Rust and Go only: JS's `superjson.stringify` is a default export's method)
    qualified = ex.as_calls if ex is not None and ex.lang in ("rust", "go") else ""
    own = own_names(p, ex.code) if ex is not None and qualified else set()
    pkg = {m.group(2) for m in re.finditer(rf"(?<![\w$.])([a-z_][\w$]*)\s*(?:\.|::)\s*([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(", qualified)
           if m.group(1) in own}

    def elsewhere(s: Sym) -> float:  # 0.5 for a method the README calls on another type (or on the package), else 1
        owner = re.split(r"\.|::", s.dotted)[-2:-1]
        return 0.5 if (s.short in on_type and owner and owner[0] not in on_type[s.short]) or (s.kind == "method" and s.short in pkg) else 1.0

    for e in entries[:5]:
        said = max((called.get(n, 0.0) for n in e.names if n != e.short or not claimed(p, n)), default=0.0)  # (`Papa.parse`)
        bonus = (said or 0.5 * bool(written.get(e.short) and e.short not in bound)) * elsewhere(e)
        maker = made_from(p, e)
        inner = returned(p, maker) if maker is not None else None
        if inner is not None and ex is not None and re.search(rf"(?<![\w$.]){re.escape(e.short)}\s*\(", ex.as_calls):
            # `export const ofetch = createFetch(…)`, called as `ofetch(url)`: the function `createFetch` returns runs
            p._keys[("made_fn", inner.rel, inner.d.start_line)] = (e, maker)
            add(inner, max(bonus, 0.5))
        if maker is not None:  # `const ky = createInstance()`: what a user calls on `ky` is what the maker built
            add(maker, max(bonus, 0.5 if written.get(e.short) else 0.0) * (0.5 if inner else 1.0))
        if e.kind in NOT_STEPS:
            if ex is not None and re.search(rf"\bnew\s+{re.escape(e.short)}\s*\(|\b{re.escape(e.short)}\s*(?:\.|::)\s*new\b"
                                            + (rf"|(?<![\w.]){re.escape(e.short)}\s*\(" if e.lang == "python" else ""), ex.as_calls):
                for ctor in p.find(e.short) + p.find("constructor") + p.find("initialize") + p.find("__init__"):  # `new Hashids("salt")`,
                    # Ruby's `Terminal::Table.new do … end`, Python's `Lark(grammar)`: its constructor sets up
                    if ctor.dotted in (f"{e.dotted}.{e.short}", f"{e.dotted}.constructor", f"{e.dotted}.initialize", f"{e.dotted}.__init__") \
                            and ctor.kind == "method":
                        add(ctor, 0.5)
            for ms in methods(e):  # the earlier the README calls it, the more (`store.put` before `store.get`)
                add(ms, called_as(ms) * elsewhere(ms) if called_as(ms) else 1.0 if ms.short == "__call__" else bonus * 0.5)
            continue
        add(e, bonus)
        # what a server or caller runs on the object an entry point returns: Python's `__call__`
        # (click's `command(...) -> Command`), Go's `ServeHTTP` (chi's `NewRouter() *Mux` handed to
        # `http.ListenAndServe`), a Rust service's `call`
        runs_on = {"python": "__call__", "go": "ServeHTTP", "rust": "call"}.get(e.lang)
        if runs_on:
            ret = signature_parts(e)[1]
            made = [t for t in p.symbols() if t.kind in ("class", "struct")
                    and re.search(rf"(?<![\w.]){re.escape(t.short)}\b", ret)]
            if len({t.dotted for t in made}) == 1:
                for ms in (x for x in p.symbols(within=[made[0].rel]) if x.dotted == made[0].dotted + "." + runs_on):
                    add(ms, max(bonus, 0.75))
                    p._keys[("made_by", ms.rel, ms.d.start_line)] = (e, made[0])
    for t in types:
        for ms in methods(t):
            add(ms, 0.5 if called.get(ms.short) else 0.0)
    # a DSL the README writes on a class (sinatra's `get '/' do`) sets up an app a Rack server runs
    # through the class's `call(env)`, as a WSGI server runs a Python app's `__call__`
    rack = {"ruby": ("call", "env"), "python": ("__call__", "environ")}
    for e in entries[:5]:
        serve = rack.get(e.lang)
        if e.kind == "method" and "." in e.dotted and serve:
            owner = e.dotted.rsplit(".", 1)[0]
            for ms in p.find(serve[0]):
                if ms.dotted == f"{owner}.{serve[0]}" and ms.kind == "method" and \
                        [prm.name for prm in signature_parts(ms)[0]][:1] == [serve[1]]:
                    bonus = max(0.75, called.get(e.short, 0.0))
                    out[:] = [(o, max(b, bonus) if o is ms else b) for o, b in out]  # (found before as a type's method)
                    add(ms, bonus)
    by_alias = bound_methods(p)  # (pyjwt's `jwt.encode` is `PyJWT.encode`, bound at module level: not `PyJWS.encode`)
    out = [(s, 0.0 if s.kind == "method" and s.short in by_alias and s is not by_alias[s.short] else b) for s, b in out]
    out = fitting_overloads(p, ex.as_calls, out) if ex is not None else out
    return _serving_first(p, ex.calls_code if ex is not None else "", out, ex.lang if ex is not None else "")


_SETUP = re.compile(rf"(?i)^(?:{SETUP_NAMES})$")
SERVING_BONUS = 2.0  # above any set-up call, however early the example makes it (1 at most)


def _serving_first(p: Project, code: str, starts: list[tuple[Sym, float]], lang: str = "") -> list[tuple[Sym, float]]:
    """Where the example both sets up and runs (`app.get(…); app.listen(3000)`, `r.Get(…);
    http.ListenAndServe(":3000", r)`, `cmd.Run(ctx, os.Args)`), the run is the call to follow: its
    start (the method or function of that name, or, when another package's server is handed a value
    of the project, what the server runs on it: `made_by`'s `ServeHTTP`) outweighs the set-up calls."""
    # Go's `http.Handle("/", r)` registers the value with the default server; a project's own `r.Handle` is set-up
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
    final = final_call(p, code, lang)
    # (or on what the value's maker gives: okhttp's `client.newCall(request).execute()`)
    calls = list(re.finditer(rf"(@?[A-Za-z_$][\w$]*)\s*(?:\.\s*\w+\s*\([^()]*\)\s*)?\.\s*{re.escape(final[0].short)}{TYPE_ARGS}\s*\(",
                             code)) if final else []
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
        p._keys[("setup_calls",)] = [n for n in [built_by(p, code, v, lang) for v in [last.group(1).lstrip("@"), *given_to]] if n] + \
            ([maker.group(1)] if maker and maker.group(1) != final[0].short else [])
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


def central_path(p: Project, entries: list[Sym]) -> list[Sym]:
    """The operation the overview follows: of the call paths from where a user's call begins
    (_starts), the best by path_value, with a point for a start the README's code writes."""
    key = ("central_path", tuple((e.rel, e.d.start_line) for e in entries))
    if key not in p._keys:
        best: list[Sym] = []
        best_value = 0.0
        starts = _starts(p, entries)
        bonus_of = {(s.rel, s.d.start_line): b for s, b in starts}
        top = max(bonus_of.values(), default=0.0)
        tried = []
        for s, bonus in starts:
            if bonus < 0.5 and _ACCESSOR.match(s.short) and any(b >= 0.5 for _s, b in starts):
                continue  # an accessor the example never calls (axios's `Axios.getUri`) starts no operation
            path = call_path(p, s)
            if any(bonus_of.get((x.rel, x.d.start_line), 0.0) > bonus for x in path[1:]):
                continue  # a wrapper of a call the README makes itself (`dumps` → `dump`): that call's own path
            tried.append((path, path_value(p, path) + START_SHARE * bonus if len(path) > 1 else 0.0, bonus))
        # the call that runs what the example sets up (or the one call it makes) is the main path when
        # the map follows it a few steps (jmespath's `search`, however deep its `compile` goes)
        if (top >= SERVING_BONUS or one_call(p, entries)) and \
                any(b >= top > 0 and len(path) >= FIRST_STEPS for path, _v, b in tried):
            tried = [t for t in tried if t[2] >= top and len(t[0]) >= FIRST_STEPS]
        elif any(b >= 1.0 and len(path) >= FIRST_STEPS for path, _v, b in tried):
            # no start the example never names outweighs its first call's path (handlebars' runtime `template`)
            tried = [t for t in tried if t[2] > 0]
        for path, value, _b in tried:
            if value > best_value:
                best, best_value = path, value
        if not best:  # no start makes a call the map resolves: the first entry point alone
            best = [e for e in entries if e.kind not in NOT_STEPS][:1] or entries[:1]
        p._keys[key] = best
    return list(p._keys[key])


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


def made_fn(p: Project, start: Sym) -> tuple[Sym, Sym] | None:
    """(entry point, maker) when the path's start is the function the maker returns and the example calls the
    entry point it made (ofetch's `ofetch = createFetch(…)`, whose `$fetch` runs); None otherwise."""
    return p._keys.get(("made_fn", start.rel, start.d.start_line))


def made_by(p: Project, start: Sym) -> tuple[Sym, Sym] | None:
    """(entry point, type) when the path's start is the `__call__` of the type an entry point returns
    (click's `command` returns a `Command`; the README calls the decorated function, which runs
    `Command.__call__`); None when a user calls the start itself. Known once central_path ran."""
    return p._keys.get(("made_by", start.rel, start.d.start_line))
