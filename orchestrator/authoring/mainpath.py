"""The main path chapter 1 traces (issue 35): where a user's call begins (the README example's
run before its set-up calls: example_run.py), and the chain of calls from there down to where the work
is done, through the calls the map resolves and the conventions a call graph cannot see
(hops.py: a server calling the handler it is given, a field holding a method)."""

from __future__ import annotations

import posixpath
import re

from .bound_names import bound_methods
from .entry import TYPE_ARGS
from .example_calls import BLOCK_LANGS, fitting_overloads, inside_blocks, one_call
from .example_run import SERVING_BONUS, made_function, serving_first
from .facts import side_calls
from .handoff import NOT_STEPS, WORK_LINES, handed_out, handed_to, next_steps, side_road, trace_print
from .local_defs import parent, weight
from .overview import MAX_PATH, example_of
from .project import Project, Sym

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
        maker, inner, name = made_function(p, e, ex.as_calls if ex is not None else "")
        if name and inner is not None:  # `export const ofetch = createFetch(…)`, called as `ofetch(url)`; p-limit's
            # `const limit = pLimit(1)`, then `limit(() => …)`: the function the maker returns runs
            p._keys[("made_fn", inner.rel, inner.d.start_line)] = (name, maker)
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
    return serving_first(p, ex.calls_code if ex is not None else "", out, ex.lang if ex is not None else "")


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
        run = [s for s, b in starts if b >= SERVING_BONUS]
        if run and best and (_maker(best[0]) or best[0].short in ("constructor", "initialize")) and best[0].dotted.rsplit(".", 1)[0] == run[0].dotted.rsplit(".", 1)[0]:
            best = []  # the constructor of the value the example runs sets it up: it is no main path (mime's `new Mime(…)`)
        if not best:  # no start makes a call the map resolves: the example's run alone (mime's `mime.getExtension(…)`),
            # else the first entry point
            best = run[:1] or [e for e in entries if e.kind not in NOT_STEPS][:1] or entries[:1]
        p._keys[key] = best
    return list(p._keys[key])
