"""What the example sets up before the call chapter 1's main path follows (issue 35): the calls that made the
value the run is on (`router.GET(…)` before the server serves it, `jwt.NewWithClaims(…)` before
`token.SignedString(…)`), told as a short path of their own before the main one."""

from __future__ import annotations

import re

from .example_run import SERVING_BONUS, made_by, made_fn
from .mainpath import START_SHARE, _maker, _starts, call_path, central_path, path_value
from .project import Project, Sym
from .ruby_mixins import class_or_instance

SETUP_LIMIT = 4  # the set-up is told in a few calls: the path the book widens is the main one


def setup_path(p: Project, entries: list[Sym], path: list[Sym]) -> list[Sym]:
    """What the example sets up before the call the main path follows, when that call runs what
    was set up (httprouter's `router.GET("/", Index)` before the server it is handed to serves
    `ServeHTTP`; chi's `r.Get`; express's `app.get` before `app.listen`): of the methods it calls
    on the value it runs (_setup_calls), the best call path of at least one call, not through
    the main path; [] otherwise."""
    central_path(p, entries)  # (it records the example's set-up calls)
    if not path:
        return []
    if (made := made_fn(p, path[0])) is not None:
        return [made[1]]  # `ofetch = createFetch(…)` made the function the example calls
    starts = _starts(p, entries)
    at = {(s.rel, s.d.start_line): b for s, b in starts}
    if at.get((path[0].rel, path[0].d.start_line), 0.0) < SERVING_BONUS and made_by(p, path[0]) is None:
        return []
    main = {(x.rel, x.d.start_line) for x in path}
    # what made the value; else what the example called on it before the run (hookable's `hooks.hook(…)`)
    return _chosen(p, path, starts, main, p._keys.get(("setup_calls",), [])) or \
        _chosen(p, path, starts, main, p._keys.get(("setup_before",), []))


def _chosen(p: Project, path: list[Sym], starts: list[tuple[Sym, float]], main: set[tuple[str, int]],
            names: list[str]) -> list[Sym]:
    """Of the starts `names` names, the set-up path of the best value (setup_path)."""
    on_class = {n.replace("::", ".") for n in names if "::" in n}  # (a call on the class: Ruby's class method)
    named = [s for s, _b in starts if s.short in names or s.dotted in names or s.dotted in on_class
             or s.short in ("constructor", "__init__") and s.dotted.rsplit(".", 1)[0] in names  # (`new MarkdownIt()`, `Lark(…)`)
             or s.short == "initialize" and s.dotted.rsplit(".", 1)[0] + ".new" in on_class]  # (`Terminal::Table.new`)
    named = [s for s in named if s.dotted not in on_class] + class_or_instance(p, [s for s in named if s.dotted in on_class], True)
    # a function of the project that made the value, though no entry point (jwt's `jwt.NewWithClaims(…)`)
    # (or a method of the type the example names, though an interface's is the entry point: Bogus' `Faker.RuleFor`,
    # not `IRuleSet.RuleFor`; its overloads all)
    free = [[x for x in p.find(n) if x.dotted == n and (x.kind == "function" or x.kind == "method" and "." in n)]
            for n in names if n not in {s.short for s in named}]
    free = [f for f in free if len(f) == 1 or f and f[0].kind == "method"]
    starts = starts + [(x, 0.5) for f in free for x in f if all(x is not s for s, _b in starts)]
    named += [x for f in free for x in f]
    best: list[Sym] = []
    best_value = 0.0
    maker: list[Sym] = []
    run_type = path[0].dotted.rsplit(".", 1)[0].rsplit(".", 1)[-1] if "." in path[0].dotted else ""

    def makes_run(s: Sym) -> bool:
        from .codeinfo import signature_parts

        # (a function, or a method: okhttp's `fun newCall(request: Request): Call`, then `.execute()` on the `Call`)
        return bool(run_type) and s.kind in ("function", "method") and bool(re.search(rf"\b{re.escape(run_type)}\b", signature_parts(s)[1]))

    for s, bonus in starts:
        if all(s is not x for x in named) or bonus >= SERVING_BONUS or (s.rel, s.d.start_line) in main:
            continue
        cand = call_path(p, s, SETUP_LIMIT)
        # (one call into a one-liner is no way through the code); a way into the main path is the main path, but for a
        # constructor's: it prepares what the run uses (hashids' `Hashids(salt)` shuffles the alphabet `Encode` shuffles again)
        if len(cand) < 2 or (len(cand) == 2 and cand[1].lines < 4) or \
                any((x.rel, x.d.start_line) in main for x in ([] if _maker(cand[0]) else cand)):
            if not maker and makes_run(s):  # (`jwt.NewWithClaims(…) *Token`, then `token.SignedString`: a set-up of one call)
                maker = [s]
            continue
        # (the value the run is on before what it is given: semver's `req = VersionReq::parse(…)` before
        # `version = Version::parse(…)` in `req.matches(&version)`)
        value = path_value(p, cand) + START_SHARE * bonus + (1.0 if names and names[0].replace("::", ".") in (s.short, s.dotted) else 0.0)
        if value > best_value:
            best, best_value = cand, value
    return best or maker
