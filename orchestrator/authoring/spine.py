"""The spine of a large type: the methods through which its work flows.

Rank measures how much the rest of the code (and the tests) touch a name, so a large class is
taught through its most used methods (`Flask.test_client`), while the methods that carry a
request through it (`wsgi_app` → `full_dispatch_request` → `dispatch_request`) are called
once, from inside, and rank low. Those are what a maintainer explains first. They are read
from the type's own calls: a method that calls at least two of its siblings (through `self`,
`this`, `Self::` or the Go receiver) and, directly or not, reaches several of them, is a step
of the type's flow; a one-line delegation (`__call__` → `wsgi_app`) is not."""

from __future__ import annotations

import re
from collections import defaultdict

from .codeinfo import receiver
from .project import Project, Sym

MIN_METHODS = 8  # a type with fewer methods is read whole; its ranked methods suffice
MIN_DIRECT = 2  # a method that calls one sibling delegates; it does not orchestrate
MIN_REACH = 2  # with MIN_DIRECT: a method that calls two of its siblings already orchestrates them


def own_calls(p: Project, methods: dict[str, Sym]) -> dict[str, set[str]]:
    """method -> the sibling methods its body calls through its own object."""
    out: dict[str, set[str]] = {}
    for name, s in methods.items():
        lines = p.lines_of(s.rel)
        body = "\n".join(lines[s.d.start_line - 1:s.d.end_line])
        recv = sorted({receiver(s), "self", "this", "Self", "cls"} - {""})
        who = "|".join(map(re.escape, recv))
        rx = re.compile(r"(?<![\w$])(?:" + who + r")\s*(?:\.|::)\s*(#?[A-Za-z_$][\w$]*)\s*\(")  # `this.#retry(`: a private TS method
        out[name] = {c for c in rx.findall(body) if c in methods and c != name}
    return out


def spines(p: Project, rel: str) -> dict[str, list[Sym]]:
    """type (dotted name) -> its spine methods in `rel`, the ones reaching most siblings first."""
    key = ("spine", rel)
    if key not in p._keys:
        p._keys[key] = _spines(p, rel)
    return dict(p._keys[key])


def _spines(p: Project, rel: str) -> dict[str, list[Sym]]:
    by_owner: dict[str, dict[str, Sym]] = defaultdict(dict)
    for s in p.symbols(within=[rel]):
        if s.kind == "method" and "." in s.dotted:
            by_owner[s.dotted.rsplit(".", 1)[0]].setdefault(s.short, s)
    out: dict[str, list[Sym]] = {}
    for owner, methods in by_owner.items():
        if len(methods) < MIN_METHODS:
            continue
        calls = own_calls(p, methods)

        def reach(m: str, calls: dict[str, set[str]] = calls) -> int:
            seen: set[str] = set()
            stack = [m]
            while stack:
                for c in calls[stack.pop()]:
                    if c not in seen and c != m:
                        seen.add(c)
                        stack.append(c)
            return len(seen)

        reached = {m: reach(m) for m in methods}
        # `_name` is internal by the language's convention (Python, JavaScript): explained where
        # a public step leads to it; Go's lowercase and TypeScript's `#` steps are the type's own work
        spine = {m for m in methods if len(calls[m]) >= MIN_DIRECT and reached[m] >= MIN_REACH
                 and not m.startswith("_")}
        if not spine:
            continue
        by_reach = sorted(spine, key=lambda m: (-reached[m], methods[m].d.start_line))
        # the path a call takes: from the widest step, into the widest step it calls, and on
        chain = [by_reach[0]]
        while True:
            nxt = sorted((c for c in calls[chain[-1]] if c in spine and c not in chain),
                         key=lambda m: (-reached[m], methods[m].d.start_line))
            if not nxt:
                break
            chain.append(nxt[0])
        out[owner] = [methods[m] for m in chain + [m for m in by_reach if m not in chain]]
    return out


def arrange(p: Project, chosen: list[Sym], n: int) -> list[Sym]:
    """The ranked key symbols as a chapter teaches them: a type before its methods (so a type
    that came in through its methods is known), its spine among them, and the type first again."""
    return with_owners(p, with_spines(p, with_owners(p, chosen, n), n), n)


def with_spines(p: Project, chosen: list[Sym], n: int) -> list[Sym]:
    """`chosen` (ranked key symbols, at most n) with the spine of each large type among them:
    up to a third of the slots (three at most), never the first symbol, replacing the lowest ranked methods
    of the same type first, then the tail."""
    budget = max(1, min(3, n // 3))
    wanted: list[Sym] = []
    names = {s.name for s in chosen}
    for s in chosen:
        if s.kind not in ("class", "struct", "interface", "trait", "impl"):
            continue
        for m in spines(p, s.rel).get(s.dotted, []):
            if m.name not in names and len(wanted) < budget:
                wanted.append(m)
                names.add(m.name)
    if not wanted:
        return chosen
    owners = {m.dotted.rsplit(".", 1)[0] for m in wanted}
    out = list(chosen)
    room = n - len(out)
    drop = max(0, len(wanted) - room)
    # the lowest ranked plain methods of those types go first, then the lowest ranked of the rest
    keep = {m.name for s in chosen for m in spines(p, s.rel).get(s.dotted, [])[:budget]}
    # the top half of the ranking stays (a type's most used method, Ky.create, is what callers meet)
    tail = out[max(1, (len(out) + 1) // 2):]
    victims = [s for s in reversed(tail) if s.kind == "method" and s.dotted.rsplit(".", 1)[0] in owners
               and s.name not in keep]
    # a type stays: it is a subject of the chapter (Session beside Query), a method is one step
    victims += [s for s in reversed(tail) if s not in victims and s.name not in keep and s.kind not in CONTAINERS]
    if drop > len(victims):  # no room without dropping the top half: fewer spine methods
        wanted = wanted[:room + len(victims)]
        drop = len(victims)
        if not wanted:
            return chosen
    for v in victims[:drop]:
        out.remove(v)
    # each spine method after its type and the methods already there of that type
    for m in wanted:
        owner = m.dotted.rsplit(".", 1)[0]
        at = max((i for i, s in enumerate(out) if s.dotted == owner or s.dotted.startswith(owner + ".")), default=len(out) - 1)
        out.insert(at + 1, m)
    return out


def with_owners(p: Project, chosen: list[Sym], n: int) -> list[Sym]:
    """A chapter that teaches two or more methods of a type defined in its files teaches the type first:
    `Mux` before `Mux.ServeHTTP` (the type's doc says what the methods are for). The owner goes
    before its first method; the lowest ranked symbol leaves when the list is full."""
    out = list(chosen)
    names = {s.dotted for s in out}
    for s in list(out):
        if s.kind != "method" or "." not in s.dotted or s not in out:  # popped to make room
            continue
        owner = s.dotted.rsplit(".", 1)[0]
        if owner in names:
            there = next(o for o in out if o.dotted == owner)
            if out.index(there) > out.index(s) and there.kind in CONTAINERS:  # the type before its methods
                out.remove(there)
                out.insert(out.index(s), there)
            continue
        found = [o for o in p.symbols(within=[s.rel]) if o.dotted == owner and o.kind in CONTAINERS]
        if not found or sum(1 for o in out if o.dotted.startswith(owner + ".")) < 2:
            continue  # one method of a type is a name among others; two or more make the type a subject
        if len(out) >= n:  # room is made by the lowest ranked symbol that is not a type
            victim = next((o for o in reversed(out) if o is not s and o.kind not in CONTAINERS), None)
            if victim is None:
                continue
            out.remove(victim)
        out.insert(out.index(s), found[0])
        names.add(owner)
    return out[:n] if len(out) > n else out


CONTAINERS = ("class", "struct", "interface", "trait", "enum", "type")
