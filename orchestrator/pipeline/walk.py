"""The run's walk: the two phases of the plan, each walked with asyncio as one task per
node that starts when its dependencies have finished, and handed to the decisions
(decisions.py); a node's bug or I/O error fails that node, never the others. Before each
phase, a person's rejected gate becomes a redo. Built with the run's shared state, the
decisions, the batch wave (re-attached before anything else) and the provider (named in
the ledger); the end of the run (finish.py) is the runner's, after the walk."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, cast

from ..agents.context import refresh_quality
from ..errors import BookError, NeedsHuman, UsageError
from ..signals import check_stop, in_daemon_thread
from ..state.evidence_view import follow_source
from ..state.fsio import explain_os_error, unwritable
from ..steps import BOOK, OUTLINE, Node
from . import batch_wave, derived, gates
from .outcomes import Outcome
from .plan import NodeSpec, chapter_graph, check_scope, phase12, remaining_calls, topo
from .retire import retire_deleted

if TYPE_CHECKING:
    from ..providers.base import Provider
    from .batch_wave import BatchWave
    from .decisions import Decisions
    from .run_state import RunState


class Walk:
    def __init__(self, rs: RunState, decisions: Decisions, batch: BatchWave | None, provider: Provider):
        self.rs, self.book, self.decisions, self.batch, self.provider = rs, rs.book, decisions, batch, provider

    async def run(self) -> None:
        """Both phases; returns when the walk is over (or stopped for a person before phase 2)."""
        led = self.book.ledger
        led.event("run_start", self.rs.run_id, strategy=self.rs.opts.strategy, provider=self.provider.name,
                  scope={k: v for k, v in vars(self.rs.opts.scope).items() if v is not None})
        if self.book.scanner.outline is None and self.book.scanner.outline_error:
            raise self.book.scanner.outline_error  # a person's broken edit: say where, change nothing
        snap = self.book.snapshot()
        self.rs.unsettled_at_start = set(snap.half_finished + snap.stale)  # finish() names what a person changed meanwhile
        # `book resume`: the batches in flight first, never sent twice
        await batch_wave.start(self.rs, self.batch)
        self.apply_rejections()
        await self.walk(phase12(self.rs.gates))
        o = self.book.scanner.outline
        if o is None:
            if self.book.scanner.outline_error:
                raise self.book.scanner.outline_error
            if self.rs.outcomes.get(Node(BOOK, OUTLINE), Outcome("ok")).status != "ok":
                return  # the outline's failure is said by the end of the run
            raise BookError("the outline is missing after phase 1")
        retire_deleted(self.rs)  # chapters deleted from the outline: their files moved aside
        if moved := follow_source(self.book):  # the source moved on: citations follow it (evidence)
            led.event("citations_moved", self.rs.run_id, chapters=moved)
        # an audit whose figures may have moved: measured now (the map, off the loop's thread),
        # so that its staleness says whether they did, and an unchanged figure costs no audit
        if await in_daemon_thread(refresh_quality, self.book):
            led.event("quality_measured", self.rs.run_id)
        derived.sync_memory(self.book)
        check_scope(o, self.rs.opts.scope, self.rs.chapter_complete)
        self.apply_rejections()
        await self.walk(chapter_graph(o, self.rs.opts.scope, self.rs.gates, self.book.cfg.gate_grain))

    def apply_rejections(self) -> None:
        """A rejected (or modified) card whose artifact is still the one it judged: redo the
        gate's rollback step, with the person's reason as instructions."""
        o = self.book.scanner.outline
        chapters = [c.id for c in o.chapters] if o else []
        for gate in self.rs.gates:
            for ch in gates.units(gate, chapters):
                card = gates.read_card(self.book, gate, ch)
                if not card or card.decision not in ("rejected", "modified"):
                    continue
                if gates.current_hash(self.book, gate, ch) != card.artifact_hash:
                    continue  # already redone: the card is remade when the gate is reached
                if gates.rollback_done(self.book, card):  # redone, and the same artifact came back
                    self.decisions.settle(card)
                    continue
                node = Node(ch or BOOK, gates.GATES[gate][1])
                why = gates.rollback_instructions(self.book, card)
                if node not in self.rs.redo:
                    self.rs.redo.add(node)
                    self.rs.instructions[node] = why
                    self.book.ledger.event("rollback", self.rs.run_id, ch, node[1], gate=gate, decision=card.decision)

    async def walk(self, graph: dict[Node, NodeSpec]) -> None:
        self.book.ledger.set_todos({n: ("pending", "") for n in graph},
                                   {n: spec.hard + spec.settle for n, spec in graph.items()})
        tasks: dict[Node, asyncio.Task] = {}
        self.rs.rank = remaining_calls(graph)

        async def one(n: Node) -> Outcome:
            spec = graph[n]
            for d in spec.hard + spec.settle:
                if d in tasks:
                    await tasks[d]
            bad = [d for d in spec.hard if self.rs.outcomes.get(d, Outcome("ok")).status != "ok"]
            if bad:
                out = Outcome("skipped", reason=f"{bad[0][0]} {bad[0][1]} did not complete")
                self.rs.outcomes[n] = out
                self.book.ledger.event("step_skipped", self.rs.run_id, *self.rs._ev(n), reason=out.reason)
                self.book.ledger.set_todo(*self.rs._ev(n), "skipped", out.reason)
                if self.rs.outcomes[bad[0]].status == "failed":  # not the steps behind a gate or a skip
                    self.rs.report("skip", n, out.reason)
                return out
            try:
                check_stop()  # a signal already arrived: this node's synchronous work is not begun
                out = await self.decisions.node(n)
            except (asyncio.CancelledError, NeedsHuman):
                raise
            except Exception as e:  # one node's bug or I/O error must not stop the others
                if os.environ.get("BOOK_DEBUG"):
                    raise
                if unwritable(e):  # ...but a folder no step can write to stops the run: exit 2, one message
                    raise UsageError(explain_os_error(cast(OSError, e))) from None
                out = Outcome("failed", reason=f"{type(e).__name__}: {e}")
                self.rs.live[(n[0], n[1])] = "failed"
                self.rs.needs_human(n, out.reason)
                self.book.ledger.event("step_failed", self.rs.run_id, *self.rs._ev(n), error=out.reason)
                self.rs.report("fail", n, out.reason)
            self.rs.outcomes[n] = out
            self.book.ledger.set_todo(*self.rs._ev(n), out.status, out.reason)
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
