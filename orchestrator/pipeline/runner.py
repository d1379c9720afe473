"""The runner: walks the plan with asyncio, doing each node's work through the write protocol.

A node, when its dependencies have finished, looks at its own file: fresh (done with the
same inputs, or edited by a person) → nothing to do; otherwise it is (re)generated. So a
first run, a second run, and a resume after a crash are the same code path, and only what
is missing, half-finished or stale is ever redone."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import agents
from ..errors import BookError, NeedsHuman, StepFailed, UsageError, ValidationFailed
from ..providers.base import Provider
from ..state.board import CheckpointWriter, write_needs_human
from ..state.fsio import PartialWriter, atomic_write, backup, partial_path, utc_stamp
from ..state.markers import compose, short_hash
from ..state.memory import read_body
from ..state.ready import ready_chapters
from ..state.scan import StepState
from ..steps import (
    AUDIT,
    BOOK,
    GATES,
    HTML,
    INDEX,
    OUTLINE,
    REVIEW,
    REVISION,
    SOURCE_MAP,
    STEPS,
    STYLE_GUIDE,
    Node,
    spec,
)
from . import batch_wave, derived, review_verdict
from .accept import failed_last
from .plan import NodeSpec, Scope, chapter_graph, check_scope, is_gate, phase3_complete, phase12, topo
from .retire import retire_deleted

STRATEGIES = ("conservative", "aggressive", "ask")


@dataclass
class RunOptions:
    scope: Scope = field(default_factory=Scope)
    strategy: str = "conservative"
    concurrency: int | None = None
    dry_run: bool = False
    retry_delay: float = 1.0  # seconds before the first retry of a failed step; doubles
    redo: set[Node] = field(default_factory=set)  # nodes to regenerate even when fresh
    instructions: dict[Node, str] = field(default_factory=dict)  # extra instructions for a redo
    message_batches: bool = False  # `--message-batches`: model steps go out as Message Batches (batch_wave.py)


@dataclass
class Outcome:
    status: str  # ok | failed | skipped | needs_human
    ran: bool = False
    reason: str = ""


@dataclass
class RunSummary:
    run_id: str
    outcomes: dict[Node, Outcome]
    generated: list[Node]
    needs_human: dict[str, str]
    plan: list[tuple[Node, str]] = field(default_factory=list)  # dry run: what would run and why
    waiting: list[str] = field(default_factory=list)  # gate cards waiting for a person

    @property
    def ok(self) -> bool:
        return all(o.status == "ok" for o in self.outcomes.values())

    @property
    def exit_code(self) -> int:
        return 0 if self.ok and not self.needs_human else 3


def new_run_id() -> str:
    return f"{utc_stamp()[:13]}Z-{os.urandom(2).hex()}"


class Runner:
    def __init__(self, book, provider: Provider, opts: RunOptions, report: Callable[[str, Node, str], None] | None = None):
        self.book = book
        self.provider = provider
        self.opts = opts
        self.report = report or (lambda kind, node, msg: None)
        self.run_id = new_run_id()
        self.sem = asyncio.Semaphore(opts.concurrency or book.cfg.concurrency)
        if opts.concurrency and hasattr(provider, "set_concurrency"):
            provider.set_concurrency(opts.concurrency)  # --concurrency reaches the provider's own limit
        self.outcomes: dict[Node, Outcome] = {}
        self.generated: list[Node] = []
        self.live: dict[tuple[str, str], str] = {}
        self.needs = dict(book.needs_human())
        self.warn: Callable[[str], None] = lambda m: self.report("warning", Node("", ""), m)
        self._started_ever: set[Node] | None = None
        self._kept_noted: set[Node] = set()
        self._blocked_noted: set[Node] = set()
        self.budget_stop: str | None = None
        self.in_flight_usd = 0.0  # estimates of the calls started and not yet logged: the cap counts them
        self._reserved: dict[int, float] = {}  # id(request) -> its estimate, while in flight
        self.waiting: list[str] = []  # gate cards this run stopped at
        self.revising: dict[str, int] = {}  # chapter -> automatic revisions of a blocked draft so far
        self.redelivered: set[str] = set()  # chapters sent back to the editor by the delivery check
        self._site, self.board = None, CheckpointWriter(book)  # the site (built once per run); checkpoint.md
        self.batch = batch_wave.setup(self)  # Message Batches (batch_wave.py); a 1-hour cache TTL before a gate
        # A provider that makes several HTTP attempts per step logs each one itself; it logs
        # into the ledger through us, with this run's id (every model call logged from the core).
        if hasattr(provider, "on_call") and provider.on_call is None:
            provider.on_call = lambda row: book.ledger.log_call(run=self.run_id, **row)

    # ------------------------------------------------------------ the walk

    async def run(self) -> RunSummary:
        led = self.book.ledger
        if self.opts.dry_run:
            return self.dry_run()
        led.event("run_start", self.run_id, strategy=self.opts.strategy, provider=self.provider.name,
                  scope={k: v for k, v in vars(self.opts.scope).items() if v is not None})
        if self.book.scanner.outline is None and self.book.scanner.outline_error:
            raise self.book.scanner.outline_error  # a person's broken edit: say where, change nothing
        try:
            await batch_wave.start(self)  # `book resume`: the batches in flight first, never sent twice
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
            derived.sync_memory(self.book)
            check_scope(o, self.opts.scope, self.chapter_complete)
            self.apply_rejections()
            await self.walk(chapter_graph(o, self.opts.scope, self.gates))
            return self.finish()
        except asyncio.CancelledError:
            led.event("interrupted", self.run_id)
            self.finish(interrupted=True)
            raise

    @property
    def gates(self) -> tuple[str, ...]:
        from .gates import active

        return active(self.book.cfg.gates)

    def apply_rejections(self) -> None:
        """A rejected (or modified) card whose artifact is still the one it judged: redo the
        gate's rollback step, with the person's reason as instructions."""
        from . import gates

        o = self.book.scanner.outline
        chapters = [c.id for c in o.chapters] if o else []
        for gate in self.gates:
            for ch in gates.units(gate, chapters):
                card = gates.read_card(self.book, gate, ch)
                if not card or card.decision not in ("rejected", "modified"):
                    continue
                if gates.current_hash(self.book, gate, ch) != card.artifact_hash:
                    continue  # already redone: the card is remade when the gate is reached
                node = Node(ch or BOOK, gates.GATES[gate][1])
                why = f"the {gate} gate was {card.decision}: {card.reason}"
                if GATES[gate].verdict:  # the findings a rejected review asks to address
                    why += "\n\nThe merged review to address:\n\n" + read_body(self.book.root, card.artifact)
                if node not in self.opts.redo:
                    self.opts.redo.add(node)
                    self.opts.instructions[node] = why
                    self.book.ledger.event("rollback", self.run_id, ch, node[1], gate=gate, decision=card.decision)

    def chapter_complete(self, ch: str) -> bool:
        sc = self.book.scanner
        return phase3_complete({k: sc.step(ch, k) for k in STEPS})

    async def walk(self, graph: dict[Node, NodeSpec]) -> None:
        self.book.ledger.set_todos({n: ("pending", "") for n in graph},
                                   {n: spec.hard + spec.settle for n, spec in graph.items()})
        tasks: dict[Node, asyncio.Task] = {}

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

    @staticmethod
    def _ev(n: Node) -> tuple[str | None, str]:
        return (None if n[0] == BOOK else n[0]), n[1]

    # ------------------------------------------------------------ one node

    def state(self, n: Node) -> StepState:
        sc = self.book.scanner
        return sc.book_step(n[1]) if n[0] == BOOK else sc.step(n[0], n[1])

    def rel(self, n: Node) -> str:
        return spec(n).file(None if n[0] == BOOK else n[0])

    def marker(self, n: Node) -> str:
        return spec(n).marker

    def why(self, n: Node) -> str | None:
        """Why node `n` has work to do, or None when its file is fresh."""
        if n in self.opts.redo:
            return "asked to redo it"
        if is_gate(n):
            return self._gate_why(n)
        st = self.state(n)
        part = self.book.root / (self.rel(n) + ".partial")
        if st.status == "edited":
            if st.stale and n not in self._kept_noted:
                self._kept_noted.add(n)
                self.warn(f"{st.path} was edited by hand and is kept; it is stale ({', '.join(st.stale)} changed): "
                          f"`book redo {n[0]} {n[1]}` regenerates it")
            return None
        if st.status == "done" and not st.stale:
            return None
        if st.status == "done":
            return "stale: " + ", ".join(st.stale) + " changed"
        if st.status == "half_finished":
            return "half-finished"
        return ("missing" if not part.exists() else f"failed last time (its last answer is kept in {self.rel(n)}.partial)"
                if failed_last(self.book, *self._ev(n)) else "interrupted (.partial left)")

    async def node(self, n: Node) -> Outcome:
        if is_gate(n):
            return self.gate(n)
        self.book.scanner.invalidate(self.rel(n))
        why = self.why(n)
        if why is None:
            self._tidy_partial(n)
            if spec(n).long_memory:
                derived.sync_memory(self.book)
            return self.guard(n, Outcome("ok"))
        if why == "half-finished" or why.startswith("interrupted"):
            if self.opts.strategy == "ask":
                reason = (f"{self.rel(n)} is half-finished (no marker); waiting for a person: if it is yours, "
                          f"`book accept {n[0]} {n[1]}` keeps it; `book resume --strategy conservative` redoes it")
                self.needs_human(n, reason)
                return Outcome("needs_human", reason=reason)
        refused = self.refused(n)
        if refused:
            return Outcome("needs_human", reason=refused)
        if n in (Node(BOOK, AUDIT), Node(BOOK, INDEX)) and not ready_chapters(self.book.scanner):
            return Outcome("skipped", reason="no chapter is final yet")
        self.report("start", n, why)
        self.live[(n[0], n[1])] = "running"
        self.checkpoint()
        try:
            if not spec(n).model:  # the step table says the orchestrator derives this file itself
                out = await self.derive(n)
                if out.status == "failed" and out.reason.startswith("delivery check") and n[0] not in self.redelivered:
                    out = await self.back_to_editor(n, out)
            else:
                out = await self.generate(n, why)
                if spec(n).verdict and out.status == "ok":
                    out = await self.revise(n[0], out)
        finally:
            self.live.pop((n[0], n[1]), None)
        out = self.guard(n, out)
        if out.status == "ok":
            if n[0] != BOOK and n[0] in self.needs:
                del self.needs[n[0]]
            if spec(n).long_memory:
                derived.sync_memory(self.book)
            self.report("done", n, out.reason)
        elif out.reason == self.budget_stop:
            self.report("skip", n, "budget reached")
        else:
            self.live[(n[0], n[1])] = "failed"
            self.needs_human(n, out.reason)
            self.report("fail", n, out.reason)
        self.checkpoint()
        return out

    def refused(self, n: Node) -> str | None:
        """Ask the state machine whether this chapter step may start now (the plan's order
        should always satisfy it: this is the guard that keeps anything from skipping a
        step or a gate). A refusal is written to the ledger with the reason."""
        if n[0] == BOOK or n[1] not in STEPS:
            return None
        from ..state.book import chapter_state
        from ..state.statemachine import IllegalTransition, apply

        sc = self.book.scanner
        steps = {k: sc.step(n[0], k) for k in STEPS}
        event = f"{'redo' if n in self.opts.redo else 'start'}_{n[1]}"
        state = chapter_state(self.book, n[0], steps)
        if n in self.opts.redo or self.revising.get(n[0]):
            state.approval = "not_required"  # a person's redo or rollback, or an automatic revision
        try:
            apply(state, event)
        except IllegalTransition as e:
            self.book.ledger.event("illegal_transition", self.run_id, n[0], n[1], event=event, reason=str(e))
            return str(e)
        return None

    # ------------------------------------------------------------ gates

    def _gate_args(self, n: Node) -> tuple[str, str | None]:
        return n[1].split(":", 1)[1], (None if n[0] == BOOK else n[0])

    def _gate_why(self, n: Node) -> str | None:
        from . import gates

        gate, ch = self._gate_args(n)
        card = gates.read_card(self.book, gate, ch)
        if card and card.decision == "approved" and card.artifact_hash == gates.current_hash(self.book, gate, ch):
            return None
        return f"waiting for a person at the {gate} gate"

    def gate(self, n: Node) -> Outcome:
        """Approved (for this very artifact) → go on; otherwise make sure the card exists and
        stop this chapter for a person. A model never passes a gate."""
        from . import gates

        gate, ch = self._gate_args(n)
        card = gates.ensure_card(self.book, gate, ch, warn=self.warn)
        if card.decision == "approved":
            return Outcome("ok")
        if card.decision == "pending":
            reason = f"waiting at the {gate} gate: {card.path} — `book approve {gate}{' ' + ch if ch else ''}`"
        else:
            reason = f"the {gate} gate was {card.decision}; the rollback runs on the next `book resume`"
        self.waiting.append(card.path)
        if ch:  # the matrix shows the chapter waiting where it will go on after the decision
            from .plan import CHAPTER_GATES

            self.live[(ch, CHAPTER_GATES[gate])] = "needs_human"
        self.book.ledger.event("gate_pending", self.run_id, ch, gate, card=card.path, confirmation=card.confirmation)
        self.checkpoint(force=True)
        self.report("skip", n, reason)
        return Outcome("needs_human", reason=reason)

    async def back_to_editor(self, n: Node, out: Outcome) -> Outcome:
        """A final chapter whose links do not resolve goes back to the editor once, with the
        problems as instructions; if the page still fails, a person decides."""
        ch = n[0]
        src = Node(ch, spec(n).needs[0])  # the step the page is published from
        self.redelivered.add(ch)
        if self.book.scanner.step(ch, src.step).status == "edited":
            return out  # a person's final: tell them, never rewrite it
        self.book.ledger.event("delivery_failed", self.run_id, ch, n[1], reason=out.reason)
        self.opts.instructions[src] = ("The published page failed its link check; fix these links "
                                       "(link only to chapters and sections that exist):\n\n" + out.reason)
        redo = await self.generate(src, "delivery check failed")
        self.opts.instructions.pop(src, None)
        if redo.status != "ok":
            return redo
        self._site = None  # the site is rebuilt from the new final
        return await self.derive(n)

    def _blocking(self, ch: str) -> bool:
        return review_verdict.is_blocked(self.book, ch)

    async def revise(self, ch: str, out: Outcome) -> Outcome:
        """A blocked review: rewrite the draft with the merged review as instructions, review it
        again, up to `max_revisions` times, before a person is asked. A draft a person edited
        is theirs: it is never rewritten automatically."""
        draft = REVISION[0][0]
        while self._blocking(ch) and self.revising.get(ch, 0) < self.book.cfg.max_revisions:
            if self.book.scanner.step(ch, draft).status == "edited":
                break
            self.revising[ch] = self.revising.get(ch, 0) + 1
            review = read_body(self.book.root, STEPS[REVIEW].file(ch))
            self.book.ledger.event("revision", self.run_id, ch, draft, round=self.revising[ch])
            self.opts.instructions[Node(ch, draft)] = (
                "The merged review found blocking problems in your draft. Rewrite it, fixing every blocking "
                "finding (quote code only exactly as it is in the source):\n\n" + review)
            for group in REVISION:
                outs = await asyncio.gather(*(self.generate(Node(ch, k), f"revision {self.revising[ch]}") for k in group))
                bad = [o for o in outs if o.status != "ok"]
                if bad:
                    return bad[0]
            self.opts.instructions.pop(Node(ch, draft), None)
        return out

    def guard(self, n: Node, out: Outcome) -> Outcome:
        """The planner, not a model, decides whether a chapter moves on: a merged review
        with a blocking finding (e.g. code that is not in the source) stops the chapter."""
        if out.status != "ok" or n[0] == BOOK or not spec(n).verdict:
            return out
        reason = review_verdict.held_reason(self.book, n[0])  # all findings, and a person's verdict
        if reason:
            if n not in self._blocked_noted:
                self._blocked_noted.add(n)
                self.needs_human(n, reason)
                self.report("fail", n, reason)
            return Outcome("needs_human", reason=reason)
        return out

    def needs_human(self, n: Node, reason: str) -> None:
        from .accept import how_to_fix

        key = n[0] if n[0] != BOOK else f"book {n[1]}"
        hint = how_to_fix(n) if not is_gate(n) and spec(n).model and "book accept" not in reason else ""
        self.needs[key] = f"{n[1]}: {reason}" + (f" — {hint}" if hint else "")
        try:
            write_needs_human(self.book, {k: v for k, v in self.needs.items() if k.startswith("ch")})
        except OSError as e:
            self.warn(f"could not write needs-human.md: {e}")

    def checkpoint(self, force: bool = False) -> None:
        try:  # coalesced (twice a second at most); at once when forced: end of run, signal, gate stop
            self.board.request(self.live, force)
        except (OSError, BookError) as e:
            self.warn(f"could not rewrite checkpoint.md: {e}")

    # ------------------------------------------------------------ model steps

    def _previous_partial(self, n: Node) -> str:
        """The text an interrupted generation left: the half-finished file or its .partial."""
        path = self.book.ws.path(self.rel(n))
        for p in (partial_path(path), path):
            try:
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if text.strip():
                return text
        return ""

    def _set_aside(self, n: Node) -> None:
        """Before a fresh generation: keep what an interrupted one left (never delete it)."""
        path = self.book.ws.path(self.rel(n))
        part = partial_path(path)
        if part.exists():
            backup(part)
        st = self.state(n)
        if st.status == "half_finished":
            if not self._ledger_started(n):
                self.warn(f"{st.path} has no marker and book never started writing it: it may be yours; "
                          f"it is kept as a .bak file beside it (next time, `book accept {n[0]} {n[1]}` keeps it)")
            dest = backup(path)
            self.book.ledger.event("recovered", self.run_id, *self._ev(n), action="backed_up",
                                   to=dest.name if dest else None)

    def _tidy_partial(self, n: Node) -> None:
        """A .partial beside a fresh file: a crash came between the commit and its cleanup. If
        the final file holds all of it, it is redundant and goes; otherwise it is backed up."""
        path = self.book.ws.path(self.rel(n))
        part = partial_path(path)
        if not part.exists():
            return
        try:
            partial = part.read_text(encoding="utf-8", errors="replace").rstrip()
            final = read_body(self.book.root, self.rel(n))
        except OSError:
            return
        if final.startswith(partial):
            from ..state.fsio import _mutate

            _mutate("remove-partial", part)
            part.unlink(missing_ok=True)
        else:
            backup(part)

    def _ledger_started(self, n: Node) -> bool:
        if self._started_ever is None:
            self._started_ever = {Node(e["chapter"] or BOOK, e["step"]) for e in self.book.ledger.events(type="step_start")}
        return n in self._started_ever

    async def generate(self, n: Node, why: str) -> Outcome:
        book, led = self.book, self.book.ledger
        ch = None if n[0] == BOOK else n[0]
        step = n[1]
        role = spec(n).role
        path = book.ws.path(self.rel(n))
        done, feedback = await batch_wave.before_generate(self, n, why)  # a vouched-for .partial; a batch
        if done is not None:
            return Outcome(done[0], ran=done[0] == "ok", reason=done[1])
        prefix = ""
        if why in ("half-finished",) or why.startswith("interrupted"):
            if self.opts.strategy == "aggressive":
                prefix = self._previous_partial(n)
                if prefix:
                    led.event("recovered", self.run_id, ch, step, action="continue", chars=len(prefix))
            if not prefix:
                self._set_aside(n)
        elif path.with_name(path.name + ".partial").exists():
            backup(path.with_name(path.name + ".partial"))
        attempts = max(1, book.cfg.retries)
        last = ""
        for attempt in range(1, attempts + 1):
            ctx_extra: dict[str, Any] = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source}
            if n in self.opts.instructions:
                ctx_extra["instructions"] = self.opts.instructions[n]
            g = agents.gather(book, step, ch, ctx_extra)
            req = agents.build_request(book, step, ch, g, role)
            req.prefix, req.feedback = prefix, feedback
            over = self._over_budget(req)
            if over:
                return Outcome("needs_human", reason=over)
            led.event("step_start", self.run_id, ch, step, attempt=attempt, why=why)
            if self._started_ever is not None:
                self._started_ever.add(n)
            pw = PartialWriter(path, prefix)
            req.context["on_reset"] = pw.reset
            t0 = time.monotonic()
            try:
                try:
                    async with self.sem:
                        if led.failed is not None:  # the ledger failed while this call waited: it would go unrecorded
                            pw.close()
                            led.check()
                        result = await self.provider.generate(req, pw.write)
                finally:  # logged (or failed): its cost is in the ledger now, not in flight
                    self.in_flight_usd -= self._reserved.pop(id(req), 0.0)
            except StepFailed as e:
                pw.close()
                last = str(e)
                self._log_call(req, None, t0, error=last)
                # A provider that retries its own calls (anthropic) has spent its attempts; overload: once its
                final = not e.retryable or getattr(self.provider, "retries_itself", False)  # slow-down ends, again
                wait = getattr(self.provider, "wait_slowdown", None)  # only a provider with a shared slow-down has one
                final = final and not (getattr(e, "overload", False) and attempt < attempts and wait is not None
                                       and await wait())
                led.event("step_retry" if attempt < attempts and not final else "step_failed", self.run_id, ch, step,
                          attempt=attempt, error=last)
                if final:
                    break
                await self._backoff(attempt)
                continue
            except asyncio.CancelledError:
                pw.close()  # the .partial stays for `book resume --strategy aggressive`
                raise
            pw.close()
            self._log_call(req, result, t0)
            if result.stop_reason != "end_turn":
                last = f"the answer ended with stop reason {result.stop_reason!r}, not end_turn"
                led.event("step_retry", self.run_id, ch, step, attempt=attempt, error=last)
                await self._backoff(attempt)
                continue
            try:
                text = agents.clean_and_validate(step, result.text, g.context)
            except ValidationFailed as e:
                last = f"the answer did not pass validation: {e}"
                feedback = f"Your previous answer was rejected: {e}. Answer again, fixing that."
                prefix = ""
                led.event("step_retry", self.run_id, ch, step, attempt=attempt, error=last)
                continue
            inputs = {k: v for k, v in g.inputs.items() if v is not None} | (
                {"instructions": short_hash(g.context["instructions"])} if g.context.get("instructions") else {})
            extra: dict[str, Any] | None = None
            if spec(n).verdict:  # the verdict is the planner's, from the findings; kept in the marker so a scan need not parse
                extra = {"verdict": review_verdict.chapter_verdict(book, n[0], text).verdict}
            if path.exists():
                backup(path)
            atomic_write(path, compose(text, self.marker(n), inputs, self.run_id, extra))
            pw.retire()
            book.scanner.invalidate(self.rel(n))
            if spec(n).replans:
                book.scanner.invalidate()
            led.event("step_end", self.run_id, ch, step, attempt=attempt, chars=len(text))
            self.generated.append(n)
            return Outcome("ok", ran=True)
        led.event("step_failed", self.run_id, ch, step, error=last)
        return Outcome("failed", reason=last or "failed")

    async def _backoff(self, attempt: int) -> None:
        if self.opts.retry_delay > 0:
            await asyncio.sleep(self.opts.retry_delay * (2 ** (attempt - 1)) * (1 + random.random() / 4))

    def _over_budget(self, req) -> str | None:
        """Stop before a call that could cross `budget_usd` (the estimate is an upper bound).
        Calls in flight count with their estimates, so concurrent calls cannot cross it together.
        Once hit, no further call starts in this run; what is in flight finishes."""
        cap = self.book.cfg.budget_usd
        if self.budget_stop or cap <= 0:
            return self.budget_stop
        spent = self.book.ledger.spent() + self.in_flight_usd
        est = self.provider.estimate_cost(req)
        lost = self.book.ledger.spend_unknown() if est else None
        if lost:  # the ledger was rebuilt and the spend before is unknown: the cap cannot be checked
            self.budget_stop = (f"budget: the spend recorded before the ledger was rebuilt is unknown ({lost}), so the "
                                f"cap of ${cap:.2f} cannot be checked; enter it with `book cost --lost-spend USD` or set "
                                "budget_usd: 0 in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(spent, 4),
                                   estimate=round(est, 4), cap=cap, spend_unknown=lost)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est and spent + est > cap:
            self.budget_stop = (f"budget: spent ${spent:.2f} of ${cap:.2f} and the next call may cost up to "
                                f"${est:.2f}; raise budget_usd in book.yaml, then `book resume`")
            self.book.ledger.event("budget_stop", self.run_id, req.chapter, req.step, spent=round(spent, 4),
                                   estimate=round(est, 4), cap=cap)
            self.needs["budget"] = self.budget_stop
            self.warn("stopping: " + self.budget_stop)
        elif est:
            self._reserved[id(req)] = est
            self.in_flight_usd += est
        return self.budget_stop

    def _log_call(self, req, result, t0: float, error: str | None = None) -> None:
        if getattr(self.provider, "on_call", None) is not None:
            return  # the provider logs each HTTP attempt itself
        u = result.usage if result else None
        self.book.ledger.log_call(run=self.run_id, role=req.role, chapter=req.chapter, step=req.step,
                                  provider=self.provider.name, model=(result.model if result else req.model),
                                  input_tokens=u.input_tokens if u else 0, output_tokens=u.output_tokens if u else 0,
                                  cache_creation_tokens=u.cache_creation_tokens if u else 0,
                                  cache_read_tokens=u.cache_read_tokens if u else 0,
                                  cost_usd=result.cost_usd if result else 0.0,
                                  latency_ms=int((time.monotonic() - t0) * 1000),
                                  stop_reason=result.stop_reason if result else None,
                                  request_id=result.request_id if result else None, error=error)

    # ------------------------------------------------------------ derived steps

    async def derive(self, n: Node) -> Outcome:
        """A step the orchestrator writes itself (the registry's `model=False`)."""
        try:
            out = self._DERIVERS[n[1]](self, n)
        except BookError as e:
            return Outcome("failed", reason=str(e))
        if out is not None:
            return out
        self.generated.append(n)
        self.book.scanner.invalidate(self.rel(n))
        return Outcome("ok", ran=True)

    def _source_map(self, n: Node) -> Outcome | None:
        book = self.book
        body = derived.source_map(book.scanner.outline, book.cfg.source_dir)
        derived.write_derived(book, self.rel(n), body, self.marker(n), book.scanner.book_input_hashes(n[1]),
                              self.warn)
        return None

    def _style_guide(self, n: Node) -> Outcome | None:
        book = self.book
        if self.state(n).status == "edited":
            return Outcome("ok")
        derived.write_derived(book, self.rel(n), derived.style_guide(book.cfg), self.marker(n),
                              book.scanner.book_input_hashes(n[1]), self.warn)
        derived.sync_memory(book)  # the empty long-memory files belong to phase 2 as well
        return None

    def _page(self, n: Node) -> Outcome | None:
        from . import publishing

        problems = publishing.publish_chapter(self, n[0])
        if problems:
            return Outcome("failed", reason="delivery check: " + "; ".join(problems[:5]))
        return None

    def _index(self, n: Node) -> Outcome | None:
        from . import publishing

        publishing.publish_index(self)
        return None

    # step key -> how the orchestrator writes that file
    _DERIVERS: dict[str, Callable[[Runner, Node], Outcome | None]] = {
        SOURCE_MAP: _source_map, STYLE_GUIDE: _style_guide, HTML: _page, INDEX: _index}

    # ------------------------------------------------------------ end of a run

    def finish(self, interrupted: bool = False) -> RunSummary:
        from ..state.resume_md import write_resume

        book = self.book
        led = book.ledger
        chapter_needs = {k: v for k, v in self.needs.items() if k.startswith("ch")}
        try:
            write_needs_human(book, chapter_needs)
        except OSError as e:
            self.warn(f"could not write needs-human.md: {e}")
        self.live = {k: v for k, v in self.live.items() if v != "running"}
        self.checkpoint(force=True)  # also cancels a deferred write
        summary = RunSummary(self.run_id, self.outcomes, self.generated, dict(self.needs), waiting=sorted(set(self.waiting)))
        try:
            write_resume(book, summary, strategy=self.opts.strategy, interrupted=interrupted)
        except (OSError, BookError) as e:
            self.warn(f"could not write RESUME.md: {e}")
        led.event("run_end", self.run_id, status="interrupted" if interrupted else ("ok" if summary.ok else "needs_human"),
                  generated=len(self.generated), failed=sorted(f"{n[0]} {n[1]}" for n, o in self.outcomes.items()
                                                               if o.status == "failed"))
        return summary

    # ------------------------------------------------------------ dry run

    def dry_run(self) -> RunSummary:
        """What would run, in what order, and why; changes nothing."""
        plan: list[tuple[Node, str]] = []
        graph = phase12()
        o = self.book.scanner.outline
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


def validate_strategy(s: str) -> str:
    if s not in STRATEGIES:
        raise UsageError(f"unknown strategy {s!r}: choose one of {', '.join(STRATEGIES)}")
    return s
