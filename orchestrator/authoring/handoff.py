"""Where a body hands its work on (issue 35): the call it makes last on its main line, leaving out
error handling, trace prints and short details, or the object it hands the work to outside the map.
mainpath follows these hand-offs from the README's first call down to where the work is done."""

from __future__ import annotations

import re

from .facts import all_calls, hand_off, side_calls
from .project import Project, Sym
from .sideroads import side_road
from .subtypes import bodiless, implementations

NOT_STEPS = ("class", "struct", "interface", "trait", "type", "enum", "type alias", "constant", "variable", "module",
             "impl")  # a type's body is no call: a path goes through functions, methods and macros
WORK_LINES = 30  # a body this long that calls nothing further is where the work is done, not a last detail
SMALL_REACH = 4  # a call that reaches this few definitions (three calls deep) is a detail after one that reaches twice as many

# a trace or debug print (urfave/cli's `tracef`, called twenty times in `Command.run`): never where the work goes
LOGGER = re.compile(r"(?i)^_?(?:trace|tracing|debug|debugging|dbg|log|logging|logger|print)f?$")  # (tablewriter's `twwidth.Debugging()`)
# a logging method of the project itself (logrus's `Logger.Info` → `Logger.Log` → `Entry.Log`): its log call is its work
# (`Infof`, `logArgs`, color's `colorPrint`)
_LOGS = re.compile(r"(?i)^_?(?:trace|debug|info|warn|error|fatal|panic|log|print)|[a-z_](?-i:Trace|Debug|Info|Warn|Error|Fatal|Panic|Log|Print)(?![a-z])|_(?:log|print)(?![a-z])")


def trace_print(caller: Sym, name: str) -> bool:
    """A call of `name` from `caller` is a trace or debug print, no step of the operation."""
    return bool(LOGGER.match(name)) and not _LOGS.search(caller.short)


def next_steps(p: Project, s: Sym) -> list[Sym]:
    """What `s` calls: the calls the map resolves, then the conventions' hops (hops.py)."""
    from .hops import hops

    found = all_calls(p, s)
    side = side_calls(p, s)  # (`raise BadParameter(…)` in an error's branch: no construction to follow)
    found += [x for x in _constructors(p, [c for c in found if (c.rel, c.d.start_line) not in side]) if x not in found]
    return found + [h.callee for h in hops(p, s) if h.callee not in found]


_CONSTRUCTOR = {"python": "__init__", "javascript": "constructor", "typescript": "constructor"}


def _constructors(p: Project, calls: list[Sym]) -> list[Sym]:
    """The constructors of the classes a body makes, where making one does the work (pyflakes's
    `checker.Checker(tree, …)`: its `__init__` walks the tree): a constructor that calls on."""
    out = []
    for c in calls:
        name = _CONSTRUCTOR.get(c.lang)
        if c.kind == "class" and name and not _raised(p, c):
            out += [x for x in p.symbols(within=[c.rel]) if x.dotted == f"{c.dotted}.{name}" and x.lines >= 5
                    and _goes_on(p, x)]
    return out


def _raised(p: Project, c: Sym, depth: int = 4) -> bool:
    """`c` is an exception type: its name says so, or a base its declaration names is one (click's
    `BadParameter(UsageError)`, `UsageError(ClickException)`, `ClickException(Exception)`)."""
    if depth == 0:
        return False
    if re.search(r"(?:Error|Exception|Warning|Exit|Abort)$", c.short):
        return True
    bases = re.search(r"\(([^)]*)\)", c.d.signature)
    for b in re.findall(r"[A-Za-z_]\w*", bases.group(1) if bases else ""):
        if re.search(r"(?:Error|Exception|Warning)$", b) or any(_raised(p, x, depth - 1) for x in p.find(b) if x.kind == "class" and x.short == b):
            return True
    return False


def handed_to(p: Project, s: Sym) -> tuple[str, int] | None:
    """Where `s` hands its work on: the call it makes last on its main line (not in an error's
    branch nor a `finally` that restores state: gson's `toJson` hands to `adapter.write`, then resets
    the writer's settings), no trace print; or a hop made on a later line (express's `app.listen`
    ends by handing itself to `http.createServer`)."""
    from .hops import _body, _receiver, hops
    from .sideroads import (
        branch_lines,
        cond_depths,
        default_cases,
        either_branch,
        hook_loops,
        optional_params,
    )

    key = ("handed", s.rel, s.d.start_line)
    if key in p._keys:
        return p._keys[key]
    body = _body(p, s)
    code = "\n".join([""] + [t for _, t in body])
    from .codeinfo import options_side

    all_calls(p, s)  # (it tells whether a branch on a setting is a side road here)
    side = {body[0][0] + k - 1 for k in branch_lines(code, s.lang, (_receiver(s),), options_side(p, s), optional_params(p, s))} \
        if body else set()
    side |= {body[0][0] + k - 1 for k in hook_loops(code) | default_cases(p, s, code)[1]} if body else set()
    if s.lang == "go":  # a deferred call is the clean-up (color's `Printf`: `c.Set()`, `defer c.unset()`, then print)
        side |= {n for n, t in body if re.match(r"\s*defer\s+(?!func\b)", t)}
    # so is giving back what the body took from a pool (fastjson's `GetInt`: `p := handyPool.Get()`, … `handyPool.Put(p)`)
    taken = {m.group(1) for _n, t in body for m in re.finditer(r"(?<![\w$.])([\w$.]+)\s*\.\s*(?:Get|Acquire|Borrow|Rent)\s*\(\s*\)", t)}
    side |= {n for n, t in body if any(re.search(rf"(?<![\w$.]){re.escape(r)}\s*\.\s*(?:Put|Release|Return|Free)\s*\(", t) for r in taken)}
    # a call under fewer conditions first: marshmallow's `dump` hands to `self._serialize(…)`, not to
    # the post-dump processors it runs only `if self._hooks[POST_DUMP]`
    depth = {body[0][0] + k - 1: d for k, d in enumerate(cond_depths(code, s.lang))} if body else {}
    # (-depth, line, order on the line, callee): of calls on one line, the outermost runs last
    # (`f(g(x))`), but of a chain's links the rightmost (`Parser().parse(e).search(d)` hands to `search`)
    # a small helper that calls nothing further is no hand-off while a call that goes on is made (httparse's
    # `parse_with_config_and_uninit_headers` ends in `assume_init_slice(headers)` after its real last step)
    calls = [c for c in all_calls(p, s) if not trace_print(s, c.short) and not side_road(c)]
    # an if/else whose every branch makes a call runs one of them: no condition (color's `colorPrint` ends
    # in `c.Print(format)` or `c.Printf(format, a...)`)
    lines = code.splitlines()
    for k in default_cases(p, s, code)[0] if body else ():  # (the case a parameter's default selects: the way taken)
        depth[body[0][0] + k - 1] = max(0, depth.get(body[0][0] + k - 1, 0) - 1)
    for chain in either_branch(code, s.lang) if body else []:
        called = r"(?![\w!?])" if s.lang == "ruby" else r"\s*\("  # (Ruby's without parentheses: highline's `….ask_once`)
        if all(any(re.search(rf"(?<![\w$]){re.escape(c.short)}{called}", lines[k]) for k in b for c in calls) for b in chain):
            for k in (k for b in chain for k in b):
                depth[body[0][0] + k - 1] = max(0, depth.get(body[0][0] + k - 1, 0) - 1)
    # (an abstract method several types implement goes on too, at run time: YamlDotNet's `valueDeserializer.DeserializeValue`)
    going = [c for c in calls if (c.lines >= WORK_LINES or _goes_on(p, c) or _open(p, c)) and not _guard(p, c)]
    best = _last_call(going or calls, body, side, depth)  # (gin's `handleHTTPRequest` ends in `serveError(c, 404, …)`)
    if best is not None:  # a wrapper handed the work as a function (`Backoff(func() { … r.client.execute(r) … })`)
        closed = _in_function_argument(body, best, going)
        best = (best[0], best[1], best[2], closed) if closed is not None else best
    # a call that reaches only a few short definitions, made on a line of its own after a call that reaches many,
    # is a detail after the work (tomli's `loads` loop ends each line in `skip_comment` → `skip_until`, after
    # `key_value_rule` did the line; sinatra's `call!` ends in `@response.finish` after `dispatch!`); a chain's last
    # link on the big call's own line is not (jmespath's `Parser().parse(e).search(d)` hands to `search`)
    from .hops import implemented

    # (an abstract method's reach is its implementation's: it is no small detail; what a call hands to
    # implementations chosen at run time is what the largest of them reaches: serilog's `Dispatch` to each
    # `ILogEventSink.Emit` is no detail after `Process`, YamlDotNet's `state.OnDeserialization()` one after
    # `valueDeserializer.DeserializeValue(…)`)
    # (a call that delegates to callbacks no type of the project implements is a detail after such a dispatch)
    # (a Go interface's method its one implementation answers for weighs what that one does: gomarkdown's `Render`
    # ends in `renderer.RenderFooter(…)`, 1 definition deep, after the `renderer.RenderNode(…)` of each node, 77)
    if best and best[3].lines < WORK_LINES and _run_weight(p, best[3]) <= SMALL_REACH \
            and (not implemented(p, best[3]) or best[3].lang == "go") and not _dispatches(p, best[3]) \
            and (not _delegates(p, best[3]) or (not _weight(p, best[3]) and any(_open(p, c) and _weight(p, c) >= 3 for c in going))):
        big = [c for c in going if _run_weight(p, c) >= max(3, 2 * _run_weight(p, best[3]) + 1) and not _makes_owner(c, best[3])]
        wide = _last_call(big, body, side, depth)
        # (on the big call's own line too when the last link only reads what it made: public_suffix's `domain` is
        # `parse(name, **options).domain`, a three-line reader of the `Domain` that `parse` built)
        # (or in its arguments: remarkable's `this.renderer.render(this.parse(str, env), …)`, where parsing is the work)
        if wide and (wide[1] != best[1] or best[3].lines <= 3 and _run_weight(p, best[3]) <= 1 or wide[2] < best[2] < 0):
            # (and the work of a function literal it is handed: `ast.WalkFunc(doc, func…`)
            closed = _in_function_argument(body, wide, big)
            best = (wide[0], wide[1], wide[2], closed) if closed is not None else wide
    if best and not implemented(p, best[3]):
        # nor is a long body that reaches little after a call that reaches ten times as much (comrak's `parse`
        # runs `process_line` over each line, 82 definitions deep, then `postprocess_text_nodes`, 5)
        w = _weight(p, best[3])
        # (or five times as much from a body twice as long: superjson's `serialize` runs `walker`, 106 lines and 22
        # definitions deep, then `generateReferentialEqualityAnnotations`, 42 and 3; or three times as much from one
        # ten times as long: fast-xml-parser's `parse` runs `parseXml`, 315 lines and 17 deep, then `prettify`, 3 and 5)
        long = best[3].lines >= WORK_LINES
        wide = _last_call([c for c in going if not _makes_owner(c, best[3]) and (long and (_weight(p, c) >= max(20, 10 * (w + 1))
                           or _weight(p, c) >= max(20, 5 * (w + 1)) and c.lines >= 2 * best[3].lines)
                           or _weight(p, c) >= max(10, 3 * w) and c.lines >= 10 * max(best[3].lines, 10))],
                          body, side, depth)
        # (not past a chain's last link on the big call's own line: reqwest's `get` is
        # `Client::builder().build()?.get(url).send().await`, and `send` is where it goes)
        best = wide if wide and wide[1] != best[1] else best
    if best and not reach(p, best[3]) and not _delegates(p, best[3]) and not implemented(p, best[3]):
        # `self._cast(self._handle(environ))`: a call that goes no further is given what a call that goes on makes
        # (bottle's `wsgi`): that one does the work
        inner = _last_call([c for c in going if len(reach(p, c)) >= 3], [(n, t) for n, t in body if n == best[1]], side, depth)
        # (or made before it, by a call the standard library's parser runs back into the class: html2text's `handle`
        # ends in `self.optwrap(self.finish())` after `self.feed(data)`, whose `handle_starttag` does the work)
        back = _last_call([c for c in calls if any(h.how == "callback" for h in hops(p, c))], body, side, depth)
        best = inner or back or best
    h = (best[3].rel, best[3].d.start_line) if best else hand_off(p, s)
    last = best[1] if best else 0
    # (a hop on the last call's own line says what that call does: echo's `sc.Start(e)` serves `e`;
    # tenacity's `return copy(f, …)` calls the object `copy` holds, not the method `copy`; turndown's
    # `process.call(this, new RootNode(…))` runs `process`, given what the constructor made)
    # (not a function bound on that line for the call to run later: multer's `makeMiddleware(setup.bind(this))`)
    later = [x for x in hops(p, s) if x.at > last or (x.at == last and x.how in ("served", "called", "apply", "yielded")
                                                    and not (x.how == "apply" and x.via.endswith(".bind") and best))]
    if later:  # (one named to run after the work is not where it goes: turndown's `postProcess.call(this, output)`
        # after `process.call(this, …)`)
        x = max([y for y in later if not _AFTER.match(y.callee.short)] or later, key=lambda x: x.at)
        h = (x.callee.rel, x.callee.d.start_line)
    p._keys[key] = h
    return h


def _makes_owner(c: Sym, run: Sym) -> bool:
    """`c` constructs the object `run` is a method of: its set-up, however much it reaches (node-semver's
    `satisfies`: `range = new Range(range, options)`, then `return range.test(version)`)."""
    typ = run.dotted.rsplit(".", 1)[0] if "." in run.dotted else ""
    return bool(typ) and (c.kind in ("class", "struct") and c.dotted == typ
                          or c.short in ("constructor", "__init__", "initialize", "new") and c.dotted.rsplit(".", 1)[0] == typ)


_AFTER = re.compile(r"(?:post|after)(?:[A-Z_]|$)")
_BLOCK_AFTER = re.compile(r"\s*(?:\((?:[^()]|\([^()]*\))*\))?\s*(?:\{|do\b)")


# a line that opens an `if`: a call in its condition tests, the block does the work (a loop's condition is no
# test: `while (parser.Read())` reads each record, the loop's work)
_CONDITION = re.compile(r"^\s*(?:\}\s*)?(?:if|elif|else\s+if|unless)\b")


def _last_call(calls: list[Sym], body: list[tuple[int, str]], side: set[int],
               depth: dict[int, int]) -> tuple[int, int, int, Sym] | None:
    """(-condition depth, line, order on the line, callee) of the call of `calls` that runs last on the main line."""
    from .tracing import constructed
    from .valuetypes import call_args

    best: tuple[int, int, int, Sym] | None = None
    tests: tuple[int, int, int, Sym] | None = None  # a call in a condition (`if logger.IsLevelEnabled(level) {`): a test
    keys: list[tuple[int, int, int]] = [(0, 0, 0), (0, 0, 0)]  # (the order of `tests`, of `best`)
    joined = "\n".join(t for _n, t in body)
    starts = [0]
    for _n, t in body:
        starts.append(starts[-1] + len(t) + 1)

    def ends(k: int, m: re.Match[str]) -> int:
        """The line a call ends on: a call written in another's arguments over several lines (mako's
        `_render_context(⏎ …, ⏎ **_kwargs_for_callable(callable_, data),⏎ )`) runs before it."""
        if not m.group().endswith("("):
            return body[k][0]
        at = starts[k] + m.end() - 1
        return body[k][0] + joined.count("\n", at, at + len(call_args(joined, at)) + 1)

    for c in calls:
        made = constructed(c)  # (Ruby's `Connection.new(` for `Connection#initialize`)
        # (Ruby calls without parentheses too: `invoke { dispatch! }`, `content_type default`)
        bare = r"|(?<![\w$@:])(?<!def )" + re.escape(c.short) + r"(?=\s*$|\s*[}.]|\s+[\w@:'\"\[{(-])" if c.lang == "ruby" else ""
        names = "|".join(re.escape(n) for n in c.names)  # (by its other names too: pyparsing's `self._parse(`)
        lam = rf"|(?<=\.)\s*(?:{names})\s*(?=\{{)" if c.lang in ("kotlin", "swift", "scala") else ""  # (`loader().get { … }`)
        rx = re.compile(rf"(?<![\w$])(?:{names})\s*(?:!\s*)?(?:<[^()]*>)?\s*\(" + bare + lam + (f"|{made}" if made else ""))
        for k, (n, text) in enumerate(body):
            m = rx.search(text) if n not in side else None
            if m is None or (c.lang == "ruby" and _BLOCK_AFTER.match(text, m.end() - (m.group().endswith("(")))):
                continue  # (a Ruby call given a block runs the block: `invoke { dispatch! }` hands to `dispatch!`)
            # (a chain's link: after `).`, or in Ruby after a method called bare: csv's `parser.parse` hands to `parse`)
            # (Rust's `?` and a `.await` between links: sqlparser's `Parser::new(d).try_with_sql(sql)?.parse_statements()`)
            chained = r"(?:\)|\.await)\s*[?!]?\s*\.\s*$" + (rf"|(?<![\w$@:.])(?:{'|'.join(re.escape(x.short) for x in calls if x is not c)})\s*\.\s*$"
                                         if c.lang == "ruby" and len(calls) > 1 else "")
            order = m.start() if re.search(chained, text[:m.start()]) else -m.start()
            if _gives_receiver(text, m.end() - 1) and not any(x is not c and _called_on(x, text, m.start()) for x in calls):
                continue  # it only gets the object a call the map cannot follow runs on (picocli's
                # `enrichForBackwardsCompatibility(getExecutionStrategy()).execute(parseResult[0])`): no hand-off
            key = (-depth.get(n, 0), ends(k, m), order)  # (the call's own line is what is told: `n`)
            if _CONDITION.match(text):
                if tests is None or key > keys[0]:
                    tests, keys[0] = (-depth.get(n, 0), n, order, c), key
            elif best is None or key > keys[1]:
                best, keys[1] = (-depth.get(n, 0), n, order, c), key
    return best or tests


def _gives_receiver(text: str, open_paren: int) -> bool:
    """The call whose `(` is at `open_paren` gives the object of a further call on the line (`f(x).run(…)`)."""
    from .valuetypes import call_args

    if open_paren >= len(text) or text[open_paren] != "(":
        return False
    end = open_paren + len(call_args(text, open_paren)) + 2
    return bool(re.match(r"\s*\.\s*[A-Za-z_$][\w$]*\s*(?:<[^<>()]*>)?\s*\(", text[end:]))


def _called_on(x: Sym, text: str, after: int) -> bool:
    """`x` is the further call on the line after `after` (a chain's next link the map follows)."""
    return bool(re.search(rf"\.\s*{re.escape(x.short)}\s*(?:<[^<>()]*>)?\s*\(", text[after:]))


def _goes_on(p: Project, c: Sym) -> bool:
    """`c`'s body calls a definition of the project (its resolved calls only: no hop, no recursion into handed_to)
    that is a step: not a type nor an error (tomli's `skip_until` only makes a `TOMLDecodeError`); or it hands
    the call on to another object's method of its own name (liquid's `Document#render_to_output_buffer` is
    `@body.render_to_output_buffer(context, output)`), which the project defines elsewhere too."""
    if c.kind in NOT_STEPS:
        return False
    from .hops import implemented

    # an abstract method goes on in the one implementation the code runs (feign's `Feign.newInstance`
    # is `ReflectiveFeign.newInstance`, the builder's product)
    return any(x.kind not in NOT_STEPS and not side_road(x) and not trace_print(c, x.short)
               for x in all_calls(p, c)) or _delegates(p, c) or bool(implemented(p, c))


def _delegates(p: Project, c: Sym) -> bool:
    """A short method that calls its own name on another object, a name the project defines elsewhere too."""
    body = "\n".join(p.lines_of(c.rel)[c.d.start_line:c.d.end_line])
    return c.lines < WORK_LINES and bool(re.search(rf"[\w)\]]\s*\.\s*{re.escape(c.short)}\s*\(", body)) \
        and any(x is not c and x.kind == "method" for x in p.find(c.short))


def reach(p: Project, c: Sym, levels: int = 3) -> set[tuple[str, int]]:
    """The project's definitions `c` calls, `levels` calls deep (resolved calls that are steps: no type, no error)."""
    key = ("reach", c.rel, c.d.start_line, levels)
    if key not in p._keys:
        out: set[tuple[str, int]] = set()
        todo = [c]
        for _ in range(levels):
            nxt = []
            for x in todo:
                for y in all_calls(p, x):
                    at = (y.rel, y.d.start_line)
                    if at not in out and y is not c and y.kind not in NOT_STEPS and not side_road(y) and not trace_print(x, y.short):
                        out.add(at)
                        nxt.append(y)
            todo = nxt
        p._keys[key] = out
    return p._keys[key]


_FUNC_LITERAL = re.compile(r"\bfunc\s*\(|=>|\blambda\b|\bfunction\s*\(|\|[\w\s,&:]*\|\s*\{?|->\s*\{|\bdo\s*\|")


_BOUND_FUNC = re.compile(r"\s*(?:(?:const|let|var)\s+)?([A-Za-z_$][\w$]*)\s*=\s*(?=lambda\b|function\s*\(|\([^()]*\)\s*=>|[\w$]+\s*=>)")


def _in_function_argument(body: list[tuple[int, str]], best: tuple[int, int, int, Sym], going: list[Sym]) -> Sym | None:
    """The work a call's function-literal argument does, when the call only wraps it (resty's `Execute` hands
    `Backoff` a closure that runs `r.client.execute(r)`: the retries are the manner, `execute` the work)."""
    from .codetext import closing

    text = "\n".join(t for n, t in body if n >= best[1])
    m = re.search(rf"(?<![\w$]){re.escape(best[3].short)}\s*\(", text)
    end = closing(text, m.end() - 1) if m else -1
    args = text[m.end():end] if m and end > 0 else ""
    # (or a local the body bound to one: pystache's `render_func = lambda engine, stack: engine.render(…)`,
    # then `self._render_final(render_func, …)`)
    bound = {m.group(1): n for n, t in body if n < best[1] for m in [_BOUND_FUNC.match(t)] if m}
    args += "".join("\n" + t for n, t in body if n in {at for v, at in bound.items() if re.search(rf"(?<![\w$.]){re.escape(v)}(?![\w$])", args)})
    if not _FUNC_LITERAL.search(args):
        return None
    found = [(k.start(), c) for c in going if c is not best[3]
             for k in re.finditer(rf"(?<![\w$]){re.escape(c.short)}\s*\(", args)]
    # (a call in an `if`'s condition tests what the work made: unified's `self.run(…, function (…) {` ends in
    # `self.stringify(…)`, then `if (looksLikeAValue(result))`)
    work = [(at, c) for at, c in found if not _CONDITION.match(args[args.rfind("\n", 0, at) + 1:at + 1])]
    return max(work or found, key=lambda x: x[0])[1] if found else None


_GUARD_LINE = re.compile(r"\s*(?:raise|throw)\b|\s*(?:\}\s*)?(?:if|unless|elif|else|end)\b.*?(?::|\{|\bthen)?\s*$|\s*[{}]\s*$")


def _guard(p: Project, c: Sym) -> bool:
    """`c` only checks and raises (i18n's `enforce_available_locales!`: `raise InvalidLocale.new(…) if …`):
    however much its error's class reaches, the work is not there."""
    from .hops import _body

    body = [t for _n, t in _body(p, c) if t.strip() and t.strip() != "end"]
    return bool(body) and any(re.match(r"\s*(?:raise|throw)\b", t) for t in body) \
        and all(_GUARD_LINE.match(t) and not re.match(r"\s*(?:if|unless|elif)\b.*\b(?:return|yield)\b", t) for t in body)


def _holds_class(p: Project, s: Sym, fld: str) -> bool:
    """`s`'s own object holds a class of the project in its field `fld` (arrow's `self.type = type`, `type: Type[Arrow]`)."""
    from .callres import Resolver
    from .codeinfo import _sym_index
    from .valuetypes import owner

    own = owner(s)
    typ = Resolver(p, s, *_sym_index(p)).typer().field_type(own, fld, s.lang) if own else ""
    return bool(typ) and any(x.kind == "class" for x in p.find(typ.rsplit(".", 1)[-1]) if x.dotted == typ)


def _run_weight(p: Project, c: Sym) -> int:
    """_weight of what a call of `c` runs: the one implementation of an interface method, else `c` itself."""
    from .hops import implemented

    hop = implemented(p, c) if c.kind == "method" and bodiless(p, c) else []
    return _weight(p, hop[0].callee) if hop else _weight(p, c)


def _open(p: Project, c: Sym) -> bool:
    """`c` is an abstract method that no one implementation answers for (which runs is the run's choice)."""
    from .hops import implemented

    return c.kind == "method" and bodiless(p, c) and not implemented(p, c)


def _dispatches(p: Project, s: Sym) -> bool:
    """`s` hands its work to an abstract method that types of the project implement (serilog's sinks)."""
    return any(_open(p, c) and _beside(s, implementations(p, c)) for c in all_calls(p, s))


def _beside(s: Sym, impls: list[Sym]) -> list[Sym]:
    """The implementations in `s`'s own part of the repository: not an extension's, which runs only where a
    user adds it (commonmark-java's `postProcess` runs the post-processors of `commonmark-ext-autolink`)."""
    def part(rel: str) -> str:  # (a file at the root is in every part)
        return rel.split("/", 1)[0] if "/" in rel else ""

    return [x for x in impls if not part(x.rel) or not part(s.rel) or part(x.rel) == part(s.rel)]


def _weight(p: Project, c: Sym) -> int:
    """How much a call reaches, an abstract method's by the most any of its implementations reaches."""
    from .hops import hops

    opened = [o for o in [c] + all_calls(p, c) if _open(p, o)]
    # (and what a standard library parser calls back: html2text's `feed` runs `handle_starttag` for each tag; and a
    # function run by its `.call`: ajv's `_compileSchemaEnv` is `compileSchema.call(this, sch)`, 93 lines)
    back = max((len(reach(p, h.callee)) + 1 for h in hops(p, c) if h.how in ("callback", "apply")), default=0)
    return len(reach(p, c)) + back + max((len(reach(p, x)) + 1 for o in opened for x in _beside(c, implementations(p, o))), default=0)


def handed_out(p: Project, s: Sym) -> tuple[str, int] | None:
    """(call, line) when `s` ends by handing its work to an object it holds that the map cannot
    follow (express's `app.handle` ends in `this.router.handle(…)`, another package's router; urfave/cli's
    `Command.run` in `cmd.Action(ctx, cmd)`, the user's function): the last call of its main line,
    through a field of its own object. The path ends there (what it calls before is preparation:
    express's `app.enabled`), and the docs take over from the field."""
    from .hops import _body, _receiver

    key = ("handed_out", s.rel, s.d.start_line)
    if key not in p._keys:
        from .sideroads import branch_lines

        found = None
        me = _receiver(s)
        body = _body(p, s)
        side = {body[0][0] + k - 1 for k in branch_lines("\n".join([""] + [t for _, t in body]), s.lang, (me,))}  # (0-based)
        calls = [(n, m) for n, text in body if n not in side for m in re.finditer(r"(@?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(",
                                                                          text)]
        calls = [(n, m) for n, m in calls if not trace_print(s, m.group(1).rsplit(".", 1)[-1])]
        from .hops import hops

        known = {c.short for c in all_calls(p, s)} | {h.callee.short for h in hops(p, s)}
        # (Ruby's own fields are `@body`: liquid's `Document#render_to_output_buffer` is `@body.render_to_output_buffer(…)`)
        mine = r"@\w+\.\w+" if s.lang == "ruby" else rf"{re.escape(me)}\.\w+(?:\.\w+)?"
        if calls and re.fullmatch(mine, calls[-1][1].group(1)):
            n, m = calls[-1]
            name = m.group(1).rsplit(".", 1)[-1]
            sent = re.match(r"\s*:(\w+[!?]?)", m.string[m.end():]) if s.lang == "ruby" and name in ("send", "public_send", "__send__") else None
            if sent and any(x.kind == "method" for x in p.find(sent.group(1))):
                name = sent.group(1)  # `@highline.send(:confirm, question)` calls the project's `confirm`: no object it cannot follow
                known |= {name}
            # `self.resolve_redirects(…)` is an inherited method, not a field holding a function
            method = s.lang != "ruby" and m.group(1).count(".") == 1 and any(x.kind == "method" for x in p.find(name)
                                                                            if x.short == name)
            hopped = any(h.at == n for h in hops(p, s))  # a field the map follows (echo's `e.serveHTTPFunc` ← `e.serveHTTP`)
            # (or one that holds a class of the project: arrow's `self.type(*args)` makes an `Arrow`)
            hopped = hopped or bool(m.group(1).count(".") == 1 and _holds_class(p, s, name))
            # the work handed on takes what the method was given (`this.router.handle(req, res, done)`);
            # gin's `engine.pool.Put(c)` after `engine.handleHTTPRequest(c)` only gives back a pooled value
            from .signature import signature_parts
            from .valuetypes import call_args

            params = {prm.name for prm in signature_parts(s)[0]}
            given = set(re.findall(r"[A-Za-z_$][\w$]*", call_args(m.string, m.end() - 1)))
            if name not in known and not method and not hopped and (not params or params & given):
                found = (m.group(1), n)
        # or it returns what a function it got at run time gives (axios's `return adapter(config).then(…)`,
        # `const adapter = adapters.getAdapter(…)`): the first return at the body's own indentation
        base = next((len(t) - len(t.lstrip()) for n, t in body if t.strip()), 0)
        code = "\n".join(t for _, t in body)
        for n, t in body:
            r = re.match(r"(\s*)return\s+([A-Za-z_$][\w$]*)\s*\(", t)
            if found is None and r and len(r.group(1)) == base and n not in side and r.group(2) not in known \
                    and re.search(rf"\b(?:const|let|var)\s+{re.escape(r.group(2))}\s*=|^\s*{re.escape(r.group(2))}\s*:?=", code, re.M):
                found = (r.group(2), n)
                break
        p._keys[key] = found
    return p._keys[key]
