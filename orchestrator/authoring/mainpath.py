"""The main path chapter 1 traces (issue 35): where a user's call begins (the README example's
serving call before its set-up calls), and the chain of calls from there down to where the work
is done, through the calls the map resolves and the conventions a call graph cannot see
(hops.py: a server calling the handler it is given, a field holding a method)."""

from __future__ import annotations

import re

from .facts import all_calls, hand_off, side_calls
from .overview import MAX_PATH, first_example
from .project import Project, Sym

_NOT_STEPS = ("class", "struct", "interface", "trait", "type", "enum", "type alias", "constant", "variable", "module",
              "impl")  # a type's body is no call: a path goes through functions, methods and macros
RANK_SHARE = 2.0  # a path through the best-ranked code is worth up to two more calls of depth
HAND_OFF = 1.0  # a step that follows the body's last call on its main line: where the work is handed on
DEPTH_SHARE = 1.0  # each call deeper counts whole (0.6 chose put → index.remember over put → log.append → encode)
START_SHARE = 3.0  # a start the README calls first is worth three calls more than one it never writes


def _rank_pct(p: Project) -> dict[tuple[str, int], float]:
    """(file, line) of each definition -> its place in the ranking, 1 for the best, towards 0."""
    key = ("rank_pct",)
    if key not in p._keys:
        syms = p.symbols()
        n = max(1, len(syms))
        p._keys[key] = {(s.rel, s.d.start_line): 1.0 - k / n for k, s in enumerate(syms)}
    return p._keys[key]


_ACCESSOR = re.compile(r"^_?(?:get|is|has)(?:_|[A-Z])|^(?:Get|Is|Has)[A-Z]|^[A-Z]?[a-z]*(?:Name|Path)$")
# the side roads of an operation: cleaning up, reporting an error, warning of a deprecation
_SIDE_ROADS = re.compile(r"(?i)free|err|fail|close|destroy|deprecat|warn|cleanup|teardown|abort|panic|dispose|exception")


def _node_value(p: Project, s: Sym) -> float:
    v = _rank_pct(p).get((s.rel, s.d.start_line), 0.0)
    if s.short.startswith("_") and not s.short.startswith("__"):
        v *= 0.3  # a private helper
    if s.lines <= 4 and re.match(r"(?:get|set|is|has)[A-Z_]", s.short):
        v *= 0.4  # an accessor: a leaf, not the core
    return v


def path_value(p: Project, path: list[Sym]) -> float:
    """Depth first (each call one point), then the ranks of the nodes (their mean, up to RANK_SHARE)."""
    if not path:
        return 0.0
    return len(path) + RANK_SHARE * sum(_node_value(p, s) for s in path) / len(path)


def call_path(p: Project, start: Sym, limit: int = MAX_PATH) -> list[Sym]:
    """From `start`, the chain of calls the map resolves (facts.all_calls), at most `limit` long,
    of the best path_value: as deep as the code goes, through its best-ranked definitions. At each
    step the best-ranked few callees are tried; a type is never a step (its body calls nothing)."""
    def callees(cur: Sym, seen: set[tuple[str, int]]) -> list[Sym]:
        side = side_calls(p, cur)  # an operation's path, not its error handling
        found = [c for c in all_calls(p, cur) if (c.rel, c.d.start_line) not in seen and c.kind not in _NOT_STEPS
                 and (c.rel, c.d.start_line) not in side and not _SIDE_ROADS.search(c.short)]
        return sorted(found, key=lambda c: (-_node_value(p, c), c.rel, c.d.start_line))[:5]

    def value(path: list[Sym]) -> float:
        # from a method, a helper function is a side step: the operation goes on through the objects;
        off = sum(1 for a, b in zip(path, path[1:]) if "." in a.dotted and "." not in b.dotted and b.kind == "function")
        # the call a body makes last on its main line hands the work on: the way the operation flows
        on = sum(1 for a, b in zip(path, path[1:]) if hand_off(p, a) == (b.rel, b.d.start_line))
        # a hand-off to code that goes on calling is the work moving on; to a leaf, a last detail
        on = sum(1 for a, b in zip(path, path[1:]) if hand_off(p, a) == (b.rel, b.d.start_line)
                 and (b is path[-1] or all_calls(p, b)))
        # an accessor (`get_params`, `DisplayName`) is a place the work passes by, not where it is done:
        # most of a step's depth is taken back
        leaf = sum(0.7 if _ACCESSOR.match(x.short) else 1.0 if x.lines <= 5 and re.match(r"(?:set|[A-Z]?[a-z]*[Nn]ame$)", x.short)
                   else 0.0 for x in path[1:])
        return path_value(p, path) - (1 - DEPTH_SHARE) * len(path) - 0.75 * off + HAND_OFF * on - leaf

    # the main line first: while each body hands the work on (its last call on the main line) to
    # code that goes on calling, the path follows it (click's `main` hands to `invoke`, not to
    # `make_context`, however deep that goes); the search below goes on from where it stops
    line = [start]
    seen0 = {(start.rel, start.d.start_line)}
    while len(line) < limit - 1:
        h = hand_off(p, line[-1])
        nxt = next((c for c in callees(line[-1], seen0) if (c.rel, c.d.start_line) == h), None)
        if nxt is None or _ACCESSOR.match(nxt.short) or not all_calls(p, nxt):
            break
        line.append(nxt)
        seen0.add((nxt.rel, nxt.d.start_line))
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
    from .entry import readme_code, readme_names, root_files

    written, called = readme_names(p)
    called = dict(called)  # (readme_names' answer is kept for every caller)
    ex = first_example(p, {e.short for e in entries})
    if ex is not None:  # the example chapter 1 quotes (gson's is in UserGuide.md): its calls, earliest first
        size = max(1, len(ex.code))
        for m in re.finditer(r"\.([A-Za-z_$][\w$]*)\s*\(", ex.code):
            called[m.group(1)] = max(called.get(m.group(1), 0.0), 1.0 / (1.0 + 3.0 * m.start() / size))
    top = max(called.values(), default=1.0)
    called = {n: w / top for n, w in called.items()}  # the README's first call 1, later ones less
    code = readme_code(p) + "\n" + (ex.code if ex is not None else "")
    times = {e.short: len(re.findall(rf"(?<![\w$]){re.escape(e.short)}\s*!?\s*\(", code)) for e in entries}
    most = max(times.values(), default=0) or 1
    for e in entries:  # a function the README calls bare (`redisCommand(c, "PING")`, `info!(…)`): how often
        if times[e.short] and e.kind not in _NOT_STEPS:
            called[e.short] = max(called.get(e.short, 0.0), 0.5 * written.get(e.short, 0.0) + 0.5 * times[e.short] / most)
    out: list[tuple[Sym, float]] = []

    def add(s: Sym, bonus: float) -> None:
        if s.kind not in _NOT_STEPS and all(o is not s for o, _ in out):
            out.append((s, bonus))

    def methods(t: Sym) -> list[Sym]:
        ms = [m for m in p.symbols(within=[t.rel]) if m.dotted.startswith(t.dotted + ".") and m.kind == "method"
              and (not m.short.startswith("_") or m.short == "__call__")]
        # `__call__` is what calling the object runs (a WSGI server calls the Flask app)
        return sorted(ms, key=lambda m: (m.short != "__call__", -called.get(m.short, 0.0), -m.score))[:8]

    runs = re.compile(r"(?i)^(?:execute|run|serve|handle|dispatch|invoke|main|call|listen|process|send|request)$")
    for t in [e for e in entries[:5] if e.kind in _NOT_STEPS]:  # a type's own way to run (`Command.Execute`)
        for ms in p.symbols(within=[t.rel]):
            if ms.kind == "method" and ms.dotted.startswith(t.dotted + ".") and runs.match(ms.short):
                called.setdefault(ms.short, 0.5)
    roots = {e.rel for e in entries} | root_files(p)
    types = [s for s in p.symbols(within=sorted(roots)) if s.kind in ("class", "struct") and s.d.exported][:3]
    for e in entries[:5]:
        bonus = called.get(e.short) or (0.5 if written.get(e.short) else 0.0)
        if e.kind in _NOT_STEPS:
            for ms in methods(e):  # the earlier the README calls it, the more (`store.put` before `store.get`)
                add(ms, called[ms.short] if called.get(ms.short) else 1.0 if ms.short == "__call__" else bonus * 0.5)
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
    return out


def central_path(p: Project, entries: list[Sym]) -> list[Sym]:
    """The operation the overview follows: of the call paths from where a user's call begins
    (_starts), the best by path_value, with a point for a start the README's code writes."""
    key = ("central_path", tuple((e.rel, e.d.start_line) for e in entries))
    if key not in p._keys:
        best: list[Sym] = []
        best_value = 0.0
        for s, bonus in _starts(p, entries):
            path = call_path(p, s)
            value = path_value(p, path) + START_SHARE * bonus if len(path) > 1 else 0.0
            if value > best_value:
                best, best_value = path, value
        if not best:  # no start makes a call the map resolves: the first entry point alone
            best = [e for e in entries if e.kind not in _NOT_STEPS][:1] or entries[:1]
        p._keys[key] = best
    return list(p._keys[key])


def made_by(p: Project, start: Sym) -> tuple[Sym, Sym] | None:
    """(entry point, type) when the path's start is the `__call__` of the type an entry point returns
    (click's `command` returns a `Command`; the README calls the decorated function, which runs
    `Command.__call__`); None when a user calls the start itself. Known once central_path ran."""
    return p._keys.get(("made_by", start.rel, start.d.start_line))
