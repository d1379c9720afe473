"""The dry run: what would run, in what order, and why, from the files as they are. Plain
functions over the plan: `session` and `recovery` call them without building a Runner (whose
own dry run asks its decisions why, the same question with its redos)."""

from __future__ import annotations

from collections.abc import Callable

from ..state.gatecards import active
from ..state.scan import StepState
from ..steps import AUDIT, BOOK, INDEX, Node
from . import freshness
from .outcomes import RunOptions, RunSummary, new_run_id
from .plan import Scope, chapter_graph, check_scope, phase12, topo


def plan(book, scope: Scope, why: Callable[[Node], str | None] | None = None) -> list[tuple[Node, str]]:
    """What would run, in what order, and why; changes nothing. `why` is the runner's own
    question when it has one (a redo, its warnings); otherwise the files alone decide."""
    ask = why or (lambda n: freshness.why(book, n))
    out: list[tuple[Node, str]] = []
    gates = active(book.cfg.gates)  # the run's graph, gates and all: a step behind one says so
    graph = phase12(gates)
    o = book.scanner.outline
    if o is None and book.scanner.outline_error:
        raise book.scanner.outline_error  # as the run would: not "planned once the outline exists"
    if o is not None:
        check_scope(o, scope, lambda ch: freshness.chapter_complete(book, ch))
        graph.update(chapter_graph(o, scope, gates, book.cfg.gate_grain))
    will_run: set[Node] = set()
    behind: dict[Node, str] = {}  # node -> the gate that holds it: a run stops there for a person
    for n in topo(graph):
        reason = ask(n)
        # the audit and the index read every final and page: they wait on them (settle), and follow them
        reads = graph[n].hard + (graph[n].settle if n in ((BOOK, AUDIT), (BOOK, INDEX)) else [])
        upstream = [d for d in reads if d in will_run]
        if reason is None and upstream:
            reason = f"after {upstream[0][0]} {upstream[0][1]}, if that changes what it reads"
        gate = next((behind[d] for d in graph[n].hard if d in behind), None)
        if gate is None and reason and n[1].startswith("gate:"):
            behind[n] = gate = f"{n[1].split(':', 1)[1]} gate{'' if n[0] == BOOK else ' of ' + n[0]}"
            if ask(n) is None:  # an approved card: it asks again only if the artifact comes back changed
                behind[n] = gate = f"{gate} if {upstream[0][0]} {upstream[0][1]} changes" if upstream else gate
        elif gate is not None:
            behind[n] = gate
            if reason:
                reason += f" — waits for a decision at the {gate}"
        if reason:
            will_run.add(n)
            out.append((n, reason))
    if o is None:
        out.append((Node(BOOK, "chapters"), "planned once the outline exists"))
    return out


def dry_run(book, opts: RunOptions, warn: Callable[[str], None] | None = None) -> RunSummary:
    """`book run --dry-run` without a runner: the plan for `opts`, with a warning (once per
    file) for each stale file a person edited, which a run would keep."""
    noted: set[Node] = set()

    def kept(n: Node, st: StepState) -> None:
        if warn is not None and n not in noted:
            noted.add(n)
            warn(freshness.kept_stale_warning(n, st))

    return RunSummary(new_run_id(), {}, [], {}, plan(book, opts.scope, lambda n: freshness.why(book, n, opts.redo, kept)))
