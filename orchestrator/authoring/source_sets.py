"""Kotlin's scopes a call is read in. Kotlin Multiplatform's source sets (`src/commonMain/`,
`src/jvmMain/`, …): one declaration is an `expect` in the common code and an `actual` per platform;
a call of it runs the platform's. A lambda with a receiver (`read: CsvFileReader.() -> T`): a bare
call in it is the receiver's. callres reads which one."""

from __future__ import annotations

import re

from .project import Project, Sym

_KMP_SET = re.compile(r"(?:^|/)src/(\w+?)Main/")


def source_set(s: Sym, hit: list[Sym]) -> list[Sym]:
    """Of a Kotlin Multiplatform declaration's `expect` and its `actual`s (one name in several
    `src/<set>Main/` trees: kotlin-logging's `KLoggerFactory.logger`), the one of the caller's own
    source set, else the JVM's (the target most readers run), else the common `expect`."""
    if len({x.dotted for x in hit}) != 1 or not all(_KMP_SET.search(x.rel) for x in hit):
        return hit
    for want in _platforms(s) + ("common",):
        pick = [x for x in hit if (m := _KMP_SET.search(x.rel)) and m.group(1) == want]
        if pick:
            return pick
    return hit


def one_platform(s: Sym, hit: list[Sym]) -> list[Sym]:
    """Of implementations each in a platform's source set (fuel's `JVMHttpLoader.get`, `AppleHttpLoader.get`,
    `WasmHttpLoader.get` of the common `HttpLoader.get`), the caller's platform's, else the JVM's; else all."""
    sets = [m.group(1) if (m := _KMP_SET.search(x.rel)) and x.lang == "kotlin" else "" for x in hit]
    if "" in sets or "common" in sets or len(set(sets)) != len(sets):
        return hit
    for want in _platforms(s):
        if want in sets:
            return [hit[sets.index(want)]]
    return hit


def _platforms(s: Sym) -> tuple[str, ...]:
    """The source sets whose code a call from `s` runs, in order: its own platform's, else the JVM's."""
    own = _KMP_SET.search(s.rel)
    return ((own.group(1),) if own and own.group(1) != "common" else ()) + ("jvm", "java")


def actual_of(p: Project, s: Sym) -> Sym:
    """A common `expect` declaration's JVM `actual` (kotlin-csv's `CsvReader.readAll(data: String)`,
    whose body is in `src/jvmMain/`): where a path starts at a declaration, it starts where the code runs."""
    own = _KMP_SET.search(s.rel)
    if s.lang != "kotlin" or own is None or own.group(1) != "common":
        return s
    same = [x for x in p.find(s.short) if x.dotted == s.dotted and x is not s and _KMP_SET.search(x.rel)]
    for want in ("jvm", "java"):
        pick = [x for x in same if (m := _KMP_SET.search(x.rel)) and m.group(1) == want]
        # of the platform's overloads, the `actual` one (`readAll(file: File)` is the JVM's own, and
        # kotlin-logging's `KotlinLogging.logger(underlyingLogger)` an extension, no `actual`)
        pick = [x for x in pick if re.search(r"\bactual\b", x.d.signature)]
        if pick:
            return pick[0]
    return s


def lambda_receivers(p: Project, by_dotted: dict[str, list[Sym]], owner: str) -> list[str]:
    """The receiver types of the lambdas a Kotlin type's methods take (`read: CsvFileReader.() -> T`)."""
    key = ("kt_lambda_receivers", owner)
    if key not in p._keys:
        files = sorted({t.rel for t in by_dotted.get(owner, ())})
        p._keys[key] = sorted({m.group(1) for x in p.symbols(within=files) if x.dotted.startswith(owner + ".")
                               for m in re.finditer(r"\b([A-Z]\w*)(?:<[^>]*>)?\.\(\)\s*->", x.d.signature)})
    return p._keys[key]
