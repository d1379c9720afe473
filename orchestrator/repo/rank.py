"""The reference graph of a repository and its ranking (personalised PageRank).

Files are nodes. File A has an edge to file B when A references a name that B defines; the
weight grows with how often A uses the name (square root, so one chatty file does not
dominate) and shrinks for names that say little: generic method names (`get`, `new`), names
defined in many files, private names. Tests and examples are sources of edges only: they
hold rank and pass it to the code they use, but define nothing a reader should be pointed to.

A definition's score is the rank its file receives through that definition's name, so "the
code that matters" is what the most important files use most, measured, not guessed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .parse import FileMap

# Method and function names so generic that a reference to them says little about which
# file it means. Names not defined in the repository never make edges, so std types
# (`String`, `Error` from a standard library) need no entry here.
COMMON_NAMES = frozenset({
    "get", "set", "new", "init", "run", "add", "update", "len", "close", "open", "read", "write",
    "call", "apply", "from", "into", "clone", "fmt", "default", "eq", "hash", "next", "iter",
    "to_string", "main", "test", "setup", "value", "name", "data", "type", "id", "key", "items",
    "keys", "values", "copy", "reset", "start", "stop", "load", "save", "parse", "format",
    "string", "error", "result", "err", "ctx", "config", "options", "args", "kwargs", "self",
    "push", "pop", "append", "remove", "delete", "list", "map", "filter", "count", "size",
    "length", "toString", "constructor", "__init__", "__call__", "__repr__", "__str__",
    "__eq__", "__hash__", "__iter__", "__len__", "__enter__", "__exit__",
})

TARGET_KINDS = frozenset({"code"})   # file kinds whose definitions can be ranked
DAMPING = 0.85


def pagerank(nodes: Iterable[str], edges: Mapping[str, Mapping[str, float]], *,
             personalization: Mapping[str, float] | None = None, damping: float = DAMPING,
             tol: float = 1e-10, max_iter: int = 200) -> dict[str, float]:
    """Personalised PageRank by power iteration; the result sums to 1.

    A walker follows an out-edge with probability ``damping`` (choosing by weight) and
    otherwise jumps to a node drawn from ``personalization`` (uniform if None). A node
    without out-edges (a "dangling" node) always jumps, so no rank leaks away.
    """
    order = list(dict.fromkeys(nodes))
    if not order:
        return {}
    p_raw = {v: max(0.0, float((personalization or {}).get(v, 0.0))) for v in order}
    total_p = sum(p_raw.values())
    p = {v: (w / total_p if total_p > 0 else 1.0 / len(order)) for v, w in p_raw.items()}
    out_sum = {v: sum(w for u, w in edges.get(v, {}).items() if u in p and w > 0) for v in order}
    rank = dict(p)
    for _ in range(max_iter):
        dangling = sum(rank[v] for v in order if out_sum[v] <= 0)
        new = {v: (1.0 - damping) * p[v] + damping * dangling * p[v] for v in order}
        for v in order:
            if out_sum[v] > 0:
                share = damping * rank[v] / out_sum[v]
                for u, w in edges[v].items():
                    if u in new and w > 0:
                        new[u] += share * w
        delta = sum(abs(new[v] - rank[v]) for v in order)
        rank = new
        if delta < tol * len(order):
            break
    return rank


@dataclass
class Graph:
    """Edges between files, and which names carry each edge (for definition scores)."""

    edges: dict[str, dict[str, float]] = field(default_factory=dict)       # src → dst → weight
    carried: dict[str, dict[tuple[str, str], float]] = field(default_factory=dict)  # src → (dst, name) → w
    out_total: dict[str, float] = field(default_factory=dict)   # src → all weight incl. self use


def name_weight(name: str, count: int, n_definers: int, *, private: bool, api: bool = False) -> float:
    """How much one file's ``count`` uses of ``name`` say about the file(s) defining it.

    ``api``: the package's entry point re-exports the name (Flask's `g`), so it is not the
    throwaway short or generic name it looks like."""
    weight = math.sqrt(count) / n_definers
    if not api and (name in COMMON_NAMES or len(name) <= 2):
        weight *= 0.1
    if private or name.startswith("_"):
        weight *= 0.3
    if n_definers > 5:
        weight *= 0.1
    if len(name) >= 8 and ("_" in name or name != name.lower()):
        weight *= 2.0  # a long specific name (`dispatch_request`, `URLParam`) is a real link
    return weight


def build_graph(files: Mapping[str, FileMap], kinds: Mapping[str, str], *,
                local_modules: Iterable[str] = (), api_names: Iterable[str] = ()) -> Graph:
    definers: dict[str, list[str]] = defaultdict(list)   # name → code files defining it
    private: dict[str, bool] = {}
    for rel, fm in files.items():
        if kinds.get(rel) not in TARGET_KINDS:
            continue
        for d in fm.definitions:
            if d.kind == "impl":
                continue  # `impl Display for Value` uses Value; the struct defines it
            for name in (d.name, *d.aliases):  # `struct redisReader` names the typedef `redisReader`
                if not definers[name] or definers[name][-1] != rel:
                    definers[name].append(rel)
                private[name] = private.get(name, True) and not d.exported
    local = local_module_names(files) | set(local_modules)
    api = set(api_names)
    graph = Graph()
    for src, fm in files.items():
        own = {d.name for d in fm.definitions}
        # Names imported from another project (`from typing import Any`, `import {x} from
        # 'react'`) are that project's, whatever this repository happens to define alike.
        foreign = {name for name, module in fm.imported.items() if not is_local_module(module, local)}
        edges: dict[str, float] = defaultdict(float)
        carried: dict[tuple[str, str], float] = {}
        total = 0.0
        for name, count in fm.references.items():
            targets = definers.get(name)
            if not targets or name in foreign:
                continue
            w = name_weight(name, count, len(targets), private=private.get(name, False), api=name in api)
            for dst in targets:
                # A file that defines the name itself most likely means its own.
                wd = w if dst == src or name not in own else w * 0.1
                carried[(dst, name)] = carried.get((dst, name), 0.0) + wd
                total += wd
                if dst != src:
                    edges[dst] += wd
        graph.edges[src] = dict(edges)
        graph.carried[src] = carried
        graph.out_total[src] = total
    return graph


def local_module_names(files: Mapping[str, FileMap]) -> set[str]:
    """Top-level package and module names of the repository (`src/`, `lib/` looked through):
    an import whose first component is one of them is the repository's own. Deeper names
    do not count: SQLAlchemy's `util/typing.py` does not make `from typing import Any` local."""
    names: set[str] = set()
    for rel in files:
        parts = rel.split("/")
        while len(parts) > 1 and parts[0] in ("src", "lib", "source", "python"):
            parts = parts[1:]
        names.add(parts[0].split(".", 1)[0])
    return names


def is_local_module(module: str, local: set[str]) -> bool:
    if module.startswith((".", "/", "~", "@/", "crate::", "self::", "super::")):
        return True  # relative imports, and the common `@/` alias for the project's own src
    first = module.replace("::", ".").replace("/", ".").replace("\\", ".").lstrip("@").split(".", 1)[0]
    return first in local


def definition_scores(graph: Graph, rank: Mapping[str, float], *,
                      usage_share: float = 0.5) -> dict[tuple[str, str], float]:
    """(file, name) → how much that name of that file matters, as a blend of two measures,
    each normalised to sum 1 over all (file, name) pairs:

    * flow: the rank that reaches the file through that name (each file splits its rank
      over everything it references, as in PageRank; its own use of its names included);
    * usage: how widely the name is used by other files, tests and examples included,
      by the same damped weights as the edges, whatever the rank of the user.

    Flow finds the foundations (what the important code stands on), usage finds the API
    (what callers and tests touch): a maintainer's "core" is both.
    """
    flow: dict[tuple[str, str], float] = defaultdict(float)
    usage: dict[tuple[str, str], float] = defaultdict(float)
    for src, carried in graph.carried.items():
        total = graph.out_total.get(src, 0.0)
        if total <= 0 or src not in rank:
            continue
        for key, w in carried.items():
            flow[key] += rank[src] * w / total
            if key[0] != src:
                usage[key] += w
    flow_sum = sum(flow.values()) or 1.0
    usage_sum = sum(usage.values()) or 1.0
    keys = set(flow) | set(usage)
    return {k: (1 - usage_share) * flow.get(k, 0.0) / flow_sum + usage_share * usage.get(k, 0.0) / usage_sum
            for k in keys}
