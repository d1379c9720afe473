"""State → what runs next. The plan is a graph of nodes (one per book-level step and per
chapter × step) with the dependencies the step registry declares; it is a pure function of the outline and
the options, and the runner walks it. Whether a node actually has work to do is decided
when it is reached, from the files (a node whose file is fresh is a no-op).

Two kinds of dependency:
- hard: must have succeeded (a chapter's own earlier steps, its `depends_on` chapters);
- settle: must have finished, whatever the outcome (the long memory of every chapter of an
  earlier batch: a chapter reads what exists, so one failure does not stop the book)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UsageError
from ..outline import Outline
from ..state.gatecards import holds
from ..steps import (
    ALL_STEPS,
    AUDIT,
    BOOK,
    CHAPTER_GATES,
    FINAL,
    HTML,
    INDEX,
    MEMORY,
    ORDER,
    OUTLINE,
    PHASE3,
    SOURCE_MAP,
    STEPS,
    STYLE_GUIDE,
    Node,
)

PHASE12: tuple[Node, ...] = (Node(BOOK, OUTLINE), Node(BOOK, SOURCE_MAP), Node(BOOK, STYLE_GUIDE))


@dataclass
class NodeSpec:
    hard: list[Node] = field(default_factory=list)
    settle: list[Node] = field(default_factory=list)


@dataclass
class Scope:
    batch: int | None = None
    phase: int | None = None  # run phases up to and including this one
    chapter: str | None = None


def gate_node(gate: str) -> str:
    return f"gate:{gate}"


def is_gate(n: Node) -> bool:
    return n[1].startswith("gate:")


def phase12(gates: tuple[str, ...] = ()) -> dict[Node, NodeSpec]:
    after = [Node(BOOK, OUTLINE)]
    g = {Node(BOOK, OUTLINE): NodeSpec()}
    if OUTLINE in gates:
        g[Node(BOOK, gate_node(OUTLINE))] = NodeSpec(hard=[Node(BOOK, OUTLINE)])
        after = [Node(BOOK, gate_node(OUTLINE))]
    g[Node(BOOK, SOURCE_MAP)] = NodeSpec(hard=list(after))
    g[Node(BOOK, STYLE_GUIDE)] = NodeSpec(hard=list(after))
    return g


def chapter_graph(o: Outline, scope: Scope, gates: tuple[str, ...] = (), grain: str = "chapter") -> dict[Node, NodeSpec]:
    """The nodes of phases 3–5 that the scope asks for, in a valid order. `grain` (book.yaml's
    gate_grain): with a card per batch or per phase, a chapter's gate node also waits for the
    other chapters of its card to reach the gate (the card shows them all), and a phase-grained
    research or review gate holds the final rather than the next step (gatecards.holds)."""
    max_phase = scope.phase or 5
    if scope.chapter and scope.chapter not in o.by_id:
        raise UsageError(f"{scope.chapter} is not in the outline (chapters: {', '.join(c.id for c in o.chapters)})")
    if scope.batch is not None and scope.batch not in o.batches:
        raise UsageError(f"there is no batch {scope.batch} in the outline (batches: {', '.join(map(str, o.batches))})")
    g: dict[Node, NodeSpec] = {}
    chosen = [c for c in o.chapters
              if (scope.chapter is None or c.id == scope.chapter) and (scope.batch is None or c.batch == scope.batch)]
    whole_book = scope.chapter is None and scope.batch is None
    for c in chosen:
        earlier = [Node(e.id, MEMORY) for e in o.chapters if e.batch < c.batch]
        for key in ORDER:
            s = STEPS[key]
            if s.phase > max_phase:
                continue
            if key == HTML and not whole_book:
                continue  # pages link to each other: publish the whole book at once
            if key == FINAL and scope.batch is not None:
                continue  # `--batch N` is phase 3 of that batch
            spec = NodeSpec(hard=[Node(c.id, n) for n in s.needs])
            if not s.needs:  # the chapter's first step waits for the book-level files and its dependencies
                spec.hard += [Node(BOOK, STYLE_GUIDE), Node(BOOK, SOURCE_MAP)] + [Node(d, MEMORY) for d in c.depends_on]
                spec.settle += [n for n in earlier if n[0] not in c.depends_on]
            if key == HTML:  # after the audit, whatever its outcome: a failed audit does not unpublish
                spec.settle += [Node(BOOK, AUDIT)]
            for gate in CHAPTER_GATES:
                if gate in gates and holds(gate, grain) == key and Node(c.id, gate) in g:
                    gn = Node(c.id, gate_node(gate))
                    g[gn] = NodeSpec(hard=[Node(c.id, gate)])
                    if Node(c.id, gate) in spec.hard:
                        spec.hard = [gn if d == Node(c.id, gate) else d for d in spec.hard]
                    else:  # a phase-grained gate holds a later step than the next
                        spec.hard.append(gn)
            g[Node(c.id, key)] = spec
    for c in chosen:  # a phase-grained gate whose final is out of scope (`--phase 3`) still asks
        for gate in CHAPTER_GATES:
            if gate in gates and holds(gate, grain) != CHAPTER_GATES[gate] and Node(c.id, gate) in g \
                    and Node(c.id, gate_node(gate)) not in g:
                g[Node(c.id, gate_node(gate))] = NodeSpec(hard=[Node(c.id, gate)])
    if whole_book and max_phase >= 4:
        if FINAL in gates and max_phase < 5:  # the final gate still asks, without publishing
            for c in o.chapters:
                g[Node(c.id, gate_node(FINAL))] = NodeSpec(hard=[Node(c.id, FINAL)])
        # A partial book: the audit covers the chapters that are final once every final has
        # settled (done, failed, blocked or waiting at its gate); one chapter stops nothing else.
        finals = [Node(c.id, FINAL) for c in o.chapters]
        g[Node(BOOK, AUDIT)] = NodeSpec(settle=finals + [n for n in (Node(c.id, gate_node(FINAL)) for c in o.chapters)
                                                         if n in g])
    if grain != "chapter":  # a card per batch or phase: made once every chapter of it reached the gate
        leaning = _leaning(o) if grain == "batch" else set()
        for n, spec in g.items():
            if is_gate(n) and n[0] != BOOK:
                gate = n[1].split(":", 1)[1]
                mine = o.by_id[n[0]].batch
                spec.settle += [Node(m.id, gate) for m in o.chapters if m.id != n[0] and Node(m.id, gate) in g
                                and (grain == "phase" or (m.batch == mine and m.id not in leaning))]
    if whole_book and max_phase >= 5:
        # the index lists every chapter, the ones not ready as such: it waits for the pages, not on them
        g[Node(BOOK, INDEX)] = NodeSpec(settle=[Node(c.id, HTML) for c in o.chapters] + [Node(BOOK, AUDIT)])
    return g


def _leaning(o: Outline) -> set[str]:
    """The chapters that build on another chapter of their own batch: they wait for its memory,
    behind its gates, so no card of the batch can wait for them (it is remade when they arrive).
    Waiting only for the others (whose work depends on nothing in the batch) makes no cycle."""
    return {c.id for c in o.chapters
            if any(d in o.by_id and o.by_id[d].batch == c.batch for d in c.depends_on)}


def check_scope(o: Outline, scope: Scope, complete) -> None:
    """Refuse a batch or chapter whose prerequisites are not done (exit 2).
    `complete(ch)` says whether a chapter's phase-3 work is done."""
    if scope.chapter is not None and scope.chapter not in o.by_id:
        raise UsageError(f"{scope.chapter} is not in the outline (chapters: {', '.join(c.id for c in o.chapters)})")
    if scope.batch is not None and scope.batch not in o.batches:
        raise UsageError(f"there is no batch {scope.batch} in the outline (batches: {', '.join(map(str, o.batches))})")
    if scope.batch is not None:
        missing = [c.id for c in o.chapters if c.batch < scope.batch and not complete(c.id)]
        if missing:
            first = min(o.by_id[m].batch for m in missing)
            raise UsageError(f"batch {scope.batch} needs the earlier batches first; not done yet: {', '.join(missing)}; "
                             f"run `book run --batch {first}` first")
    if scope.chapter is not None:
        c = o.by_id[scope.chapter]
        missing = [d for d in c.depends_on if not complete(d)]
        if missing:
            raise UsageError(f"{c.id} depends on {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} "
                             f"not done yet; run them first (or `book run --batch {o.by_id[missing[0]].batch}`)")


def topo(graph: dict[Node, NodeSpec]) -> list[Node]:
    """Nodes in an order where every node comes after its dependencies (stable)."""
    out: list[Node] = []
    seen: set[Node] = set()

    def visit(n: Node) -> None:
        if n in seen or n not in graph:
            return
        seen.add(n)
        for d in graph[n].hard + graph[n].settle:
            visit(d)
        out.append(n)

    for n in graph:
        visit(n)
    return out


def remaining_calls(graph: dict[Node, NodeSpec]) -> dict[Node, int]:
    """Each node's longest chain of model calls from it to the end of the graph, itself included:
    the runner's slots go to the longest first (slots.py). Gates and derived steps weigh nothing."""
    after: dict[Node, list[Node]] = {n: [] for n in graph}
    for n, s in graph.items():
        for d in s.hard + s.settle:
            if d in after:
                after[d].append(n)
    rank: dict[Node, int] = {}
    for n in reversed(topo(graph)):
        own = 0 if is_gate(n) or not ALL_STEPS[n[1]].model else 1
        rank[n] = own + max((rank[m] for m in after[n]), default=0)
    return rank


def phase3_complete(snapshot_row) -> bool:
    return all(snapshot_row[k].fresh for k in PHASE3)
