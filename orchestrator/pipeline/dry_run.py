"""The dry run: what would run, in what order, and why, from the files as they are."""

from __future__ import annotations

from ..steps import BOOK, Node
from .outcomes import RunSummary
from .plan import chapter_graph, check_scope, phase12, topo
from .run_state import RunState


class DryRun(RunState):
    def dry_run(self) -> RunSummary:
        """What would run, in what order, and why; changes nothing."""
        plan: list[tuple[Node, str]] = []
        graph = phase12()
        o = self.book.scanner.outline
        if o is None and self.book.scanner.outline_error:
            raise self.book.scanner.outline_error  # as the run would: not "planned once the outline exists"
        if o is not None:
            check_scope(o, self.opts.scope, self.chapter_complete)
            graph.update(chapter_graph(o, self.opts.scope))
        will_run: set[Node] = set()
        for n in topo(graph):
            why = self.why(n)
            upstream = [d for d in graph[n].hard if d in will_run]
            if why is None and upstream:
                why = f"after {upstream[0][0]} {upstream[0][1]}, if that changes what it reads"
            if why:
                will_run.add(n)
                plan.append((n, why))
        if o is None:
            plan.append((Node(BOOK, "chapters"), "planned once the outline exists"))
        return RunSummary(self.run_id, {}, [], {}, plan)
