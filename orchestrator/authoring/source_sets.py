"""Kotlin Multiplatform's source sets (`src/commonMain/`, `src/jvmMain/`, …): one declaration is an
`expect` in the common code and an `actual` per platform; a call of it runs the platform's. callres
reads which one."""

from __future__ import annotations

import re

from .project import Sym

_KMP_SET = re.compile(r"(?:^|/)src/(\w+?)Main/")


def source_set(s: Sym, hit: list[Sym]) -> list[Sym]:
    """Of a Kotlin Multiplatform declaration's `expect` and its `actual`s (one name in several
    `src/<set>Main/` trees: kotlin-logging's `KLoggerFactory.logger`), the one of the caller's own
    source set, else the JVM's (the target most readers run), else the common `expect`."""
    if len({x.dotted for x in hit}) != 1 or not all(_KMP_SET.search(x.rel) for x in hit):
        return hit
    own = _KMP_SET.search(s.rel)
    for want in ((own.group(1),) if own and own.group(1) != "common" else ()) + ("jvm", "java", "common"):
        pick = [x for x in hit if (m := _KMP_SET.search(x.rel)) and m.group(1) == want]
        if pick:
            return pick
    return hit
