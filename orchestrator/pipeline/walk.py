"""The runner's walk: the two phases of the plan, each walked with asyncio as one task per
node that starts when its dependencies have finished; a node's bug or I/O error fails that
node, never the others. Before each phase, a person's rejected gate becomes a redo."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, cast

from ..agents.context import refresh_quality
from ..errors import BookError, NeedsHuman
from ..signals import check_stop, in_daemon_thread
from ..state.evidence_view import follow_source
from ..steps import BOOK, OUTLINE, Node
from . import batch_wave, derived, gates
from .outcomes import Outcome, RunSummary
from .plan import NodeSpec, chapter_graph, check_scope, phase12, remaining_calls, topo
from .retire import retire_deleted
from .run_state import RunState

if TYPE_CHECKING:
    from .runner import Runner


class GraphWalk(RunState):
    async def run(self) -> RunSummary:
        if self.opts.dry_run:
            return self.dry_run()
        return await self._run()

    async def _run(self) -> RunSummary:
        led = self.book.ledger
        led.event("run_start", self.run_id, strategy=self.opts.strategy, provider=self.provider.name,
                  scope={k: v for k, v in vars(self.opts.scope).items() if v is not None})
        if self.book.scanner.outline is None and self.book.scanner.outline_error:
            raise self.book.scanner.outline_error  # a person's broken edit: say where, change nothing
        snap = self.book.snapshot()
        self.unsettled_at_start = set(snap.half_finished + snap.stale)  # finish() names what a person changed meanwhile
        try:
            # `book resume`: the batches in flight first, never sent twice (cast: this part is one of Runner's)
            await batch_wave.start(cast("Runner", self))
            self.apply_rejections()
            await self.walk(phase12(self.gates))
            o = self.book.scanner.outline
            if o is None:
                if self.book.scanner.outline_error:
                    raise self.book.scanner.outline_error
                if self.outcomes.get(Node(BOOK, OUTLINE), Outcome("ok")).status != "ok":
                    return self.finish()
                raise BookError("the outline is missing after phase 1")
            retire_deleted(self)  # chapters deleted from the outline: their files moved aside
            if moved := follow_source(self.book):  # the source moved on: citations follow it (evidence)
                led.event("citations_moved", self.run_id, chapters=moved)
            # an audit whose figures may have moved: measured now (the map, off the loop's thread),
            # so that its staleness says whether they did, and an unchanged figure costs no audit
            if await in_daemon_thread(refresh_quality, self.book):
                led.event("quality_measured", self.run_id)
            derived.sync_memory(self.book)
            check_scope(o, self.opts.scope, self.chapter_complete)
            self.apply_rejections()
            await self.walk(chapter_graph(o, self.opts.scope, self.gates, self.book.cfg.gate_grain))
            return self.finish()
        except asyncio.CancelledError:
            led.event("interrupted", self.run_id)
            self.finish(interrupted=True)
            raise

    def apply_rejections(self) -> None:
        """A rejected (or modified) card whose artifact is still the one it judged: redo the
        gate's rollback step, with the person's reason as instructions."""
        o = self.book.scanner.outline
        chapters = [c.id for c in o.chapters] if o else []
        for gate in self.gates:
            for ch in gates.units(gate, chapters):
                card = gates.read_card(self.book, gate, ch)
                if not card or card.decision not in ("rejected", "modified"):
                    continue
                if gates.current_hash(self.book, gate, ch) != card.artifact_hash:
                    continue  # already redone: the card is remade when the gate is reached
                if gates.rollback_done(self.book, card):  # redone, and the same artifact came back
                    self.settle(card)
                    continue
                node = Node(ch or BOOK, gates.GATES[gate][1])
                why = gates.rollback_instructions(self.book, card)
                if node not in self.redo:
                    self.redo.add(node)
                    self.instructions[node] = why
                    self.book.ledger.event("rollback", self.run_id, ch, node[1], gate=gate, decision=card.decision)

    async def walk(self, graph: dict[Node, NodeSpec]) -> None:
        self.book.ledger.set_todos({n: ("pending", "") for n in graph},
                                   {n: spec.hard + spec.settle for n, spec in graph.items()})
        tasks: dict[Node, asyncio.Task] = {}
        self.rank = remaining_calls(graph)

        async def one(n: Node) -> Outcome:
            spec = graph[n]
            for d in spec.hard + spec.settle:
                if d in tasks:
                    await tasks[d]
            bad = [d for d in spec.hard if self.outcomes.get(d, Outcome("ok")).status != "ok"]
            if bad:
                out = Outcome("skipped", reason=f"{bad[0][0]} {bad[0][1]} did not complete")
                self.outcomes[n] = out
                self.book.ledger.event("step_skipped", self.run_id, *self._ev(n), reason=out.reason)
                self.book.ledger.set_todo(*self._ev(n), "skipped", out.reason)
                if self.outcomes[bad[0]].status == "failed":  # not the steps behind a gate or a skip
                    self.report("skip", n, out.reason)
                return out
            try:
                check_stop()  # a signal already arrived: this node's synchronous work is not begun
                out = await self.node(n)
            except (asyncio.CancelledError, NeedsHuman):
                raise
            except Exception as e:  # one node's bug or I/O error must not stop the others
                if os.environ.get("BOOK_DEBUG"):
                    raise
                out = Outcome("failed", reason=f"{type(e).__name__}: {e}")
                self.live[(n[0], n[1])] = "failed"
                self.needs_human(n, out.reason)
                self.book.ledger.event("step_failed", self.run_id, *self._ev(n), error=out.reason)
                self.report("fail", n, out.reason)
            self.outcomes[n] = out
            self.book.ledger.set_todo(*self._ev(n), out.status, out.reason)
            return out

        for n in topo(graph):
            tasks[n] = asyncio.ensure_future(one(n))
        try:
            await asyncio.gather(*tasks.values())
        except BaseException:
            for t in tasks.values():
                t.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            raise
