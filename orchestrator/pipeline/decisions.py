"""The run's per-node decisions: why a node has work to do (or none), what one node does
(derive, generate, revise, go back to the editor), the state machine's refusal, the gates a
model never passes, and the guard that holds a chapter whose merged review blocks it. Built
with the run's shared state, the budget (whose stop is no step's failure), the generator and
the deriver it hands a node to, and the provider (whether it follows instructions); it keeps
its own count of revisions, deliveries sent back and warnings already given."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..state.book import chapter_state
from ..state.human_text import say
from ..state.memory import read_body
from ..state.ready import complete_finals, ready_chapters
from ..state.scan import StepState
from ..state.statemachine import IllegalTransition, apply
from ..steps import AUDIT, BOOK, INDEX, REVIEW, REVISION, STEPS, STYLE_GUIDE, Node, spec
from . import freshness, gates, review_verdict, section_redo, section_writer
from .outcomes import Outcome
from .plan import is_gate

if TYPE_CHECKING:
    from ..providers.base import Provider
    from .budget import Budget
    from .derived_steps import Deriver
    from .generation import Generator
    from .run_state import RunState


class Decisions:
    def __init__(self, rs: RunState, budget: Budget, generator: Generator, deriver: Deriver, provider: Provider):
        self.rs, self.book, self.budget, self.provider = rs, rs.book, budget, provider
        self.generator, self.deriver = generator, deriver
        self._kept_noted: set[Node] = set()
        self._blocked_noted: set[Node] = set()
        self.revising: dict[str, int] = {}  # chapter -> automatic revisions of a blocked draft so far
        self.redelivered: set[str] = set()  # chapters sent back to the editor by the delivery check

    def why(self, n: Node) -> str | None:
        """Why node `n` has work to do, or None when its file is fresh (freshness.py); a stale
        file a person edited is kept, and said once per run."""
        return freshness.why(self.book, n, self.rs.redo, self._kept_stale)

    def _kept_stale(self, n: Node, st: StepState) -> None:
        if n not in self._kept_noted:
            self._kept_noted.add(n)
            self.rs.warn(freshness.kept_stale_warning(n, st))

    async def node(self, n: Node) -> Outcome:
        if is_gate(n):
            return self.gate(n)
        if "glossary" in spec(n).reads:  # the aggregates are an input: bring them up to date first
            self.rs.sync_memory()
        self.book.scanner.invalidate(self.rs.rel(n))
        why = self.why(n)
        if why is None:
            self.generator.tidy_partial(n)
            if spec(n).long_memory:
                self.rs.memory_dirty = True  # checked when the aggregates are next needed
            return self.guard(n, Outcome("ok"))
        if why == "half-finished" and (spec(n).model or n == Node(BOOK, STYLE_GUIDE)):  # what a person writes
            from ..state.reconcile import kept_for_person

            held = kept_for_person(self.book.root, self.rs.rel(n), n[0], n[1])
            if held:  # a person's paste (no marker line), whatever the strategy: never moved aside unasked
                reason = f"{self.rs.rel(n)} has no {spec(n).marker} marker but {held}"
                self.rs.needs_human(n, reason)
                self.rs.report("fail", n, reason)
                return Outcome("needs_human", reason=reason)
        if why == "half-finished" or why.startswith("interrupted"):
            if self.rs.opts.strategy == "ask":
                reason = (f"{self.rs.rel(n)} is half-finished (no marker); waiting for a person: if it is yours, "
                          f"`book accept {n[0]} {n[1]}` keeps it; `book resume --strategy conservative` redoes it")
                self.rs.needs_human(n, reason)
                return Outcome("needs_human", reason=reason)
        refused = self.refused(n)
        if refused:
            # the plan said it could start, so its files changed under the run (a hand edit):
            # say so, rather than stop the chapter without a word
            reason = (f"not started ({refused}): its files changed during this run (a hand edit?); "
                      "`book scan` shows them, `book run` again picks them up")
            self.rs.needs_human(n, reason)
            self.rs.report("fail", n, reason)
            return Outcome("needs_human", reason=reason)
        if n == Node(BOOK, AUDIT) and not complete_finals(self.book.scanner):
            return Outcome("skipped", reason="no chapter is final yet")
        if n == Node(BOOK, INDEX) and not ready_chapters(self.book.scanner):
            return Outcome("skipped", reason="no chapter is ready yet")
        self.rs.report("start", n, why)
        self.rs.live[(n[0], n[1])] = "running"
        self.rs.checkpoint()
        try:
            if not spec(n).model:  # the step table says the orchestrator derives this file itself
                out = await self.deriver.derive(n)
                if out.status == "failed" and out.reason.startswith("delivery check") and n[0] not in self.redelivered:
                    out = await self.back_to_editor(n, out)
            elif (followed := section_redo.follow(self.rs, n)) is not None:  # a draft rewritten by section
                out = followed
            else:
                out = await self.generator.generate(n, why)
                if section_writer.applies(n, out) and section_redo.whole_instead(self.rs, n):  # sections not rewritable
                    out = await self.generator.generate(n, "its stale sections could not be rewritten: whole")
                if section_writer.applies(n, out) and not section_redo.asked_sections(self.rs, n):
                    # a whole chapter kept failing: one section at a time (never from a section rewrite's answer)
                    out = await section_writer.by_sections(self.rs, self.budget, self.provider, n, out)
                if spec(n).verdict and out.status == "ok":
                    out = await self.revise(n[0], out)
        finally:
            self.rs.live.pop((n[0], n[1]), None)
        out = self.guard(n, out)
        if out.status == "ok":
            if n[0] != BOOK and n[0] in self.rs.needs:
                del self.rs.needs[n[0]]
            if spec(n).long_memory:
                self.rs.memory_dirty = True  # the aggregates follow when read (run_state.RunState.sync_memory)
            self.rs.report("done", n, out.reason)
        elif out.reason == self.budget.budget_stop:
            self.rs.report("skip", n, "budget reached")
        elif out.status == "stopped":  # the API stopped the run: not this step's failure
            self.rs.report("skip", n, "stopped: the API accepts no request now")
        else:
            self.rs.live[(n[0], n[1])] = "failed"
            self.rs.needs_human(n, out.reason, out.hint)
            self.rs.report("fail", n, out.reason)
        self.rs.checkpoint()
        return out

    def refused(self, n: Node) -> str | None:
        """Ask the state machine whether this chapter step may start now (the plan's order
        should always satisfy it: this is the guard that keeps anything from skipping a
        step or a gate). A refusal is written to the ledger with the reason."""
        if n[0] == BOOK or n[1] not in STEPS:
            return None

        sc = self.book.scanner
        steps = {k: sc.step(n[0], k) for k in STEPS}
        # a text a person edited has work only when some of its other sections went stale (freshness.why): a redo
        redo = n in self.rs.redo or steps[n[1]].status == "edited"
        event = f"{'redo' if redo else 'start'}_{n[1]}"
        state = chapter_state(self.book, n[0], steps)
        if redo or self.revising.get(n[0]):
            state.approval = "not_required"  # a person's redo or rollback, or an automatic revision
        try:
            apply(state, event)
        except IllegalTransition as e:
            self.book.ledger.event("illegal_transition", self.rs.run_id, n[0], n[1], event=event, reason=str(e))
            return str(e)
        return None

    # ------------------------------------------------------------ gates

    def gate(self, n: Node) -> Outcome:
        """Approved (for this very artifact) → go on; otherwise make sure the card exists and
        stop this chapter for a person. A model never passes a gate."""
        gate, ch = freshness.gate_args(n)
        card = gates.ensure_card(self.book, gate, ch, warn=self.rs.warn)
        if card.decision == "pending" and self._persons(gate, ch):
            # the gate is there for a person to check a model's work; a person's own edit is
            # that person's decision already (`book reject` still undoes it)
            lang = self.book.cfg.language
            gates.decide(self.book, gate, ch, "approved", say(lang, "g_own"))
            self.rs.warn(say(lang, "g_own_warn", artifact=card.artifact, gate=gate))
            return Outcome("ok")
        if card.decision == "approved":
            return Outcome("ok")
        if card.decision != "pending" and gates.rollback_done(self.book, card):
            card = self.settle(card)  # redone in this run, and the same artifact came back
        lang = self.book.cfg.language
        if card.decision == "pending":  # a group card is approved by naming its group
            reason = say(lang, "nh_gate", gate=gate, card=card.path,
                         cmd=f"book approve {gate}{' ' + (card.group or ch) if ch else ''}")
        else:
            reason = say(lang, "nh_rollback", gate=gate, decision=card.decision, step=gates.GATES[gate][1])
        self.rs.waiting.append(card.path)
        if ch:  # the matrix shows the chapter waiting where it will go on after the decision
            self.rs.live[(ch, gates.holds(gate, self.book.cfg.gate_grain))] = "needs_human"
        self.book.ledger.event("gate_pending", self.rs.run_id, ch, gate, card=card.path, confirmation=card.confirmation)
        self.rs.checkpoint(force=True)
        self.rs.report("skip", n, reason)
        return Outcome("needs_human", reason=reason)

    def _persons(self, gate: str, ch: str | None) -> bool:
        sc, step = self.book.scanner, gates.GATES[gate][0]
        return (sc.step(ch, step) if ch else sc.book_step(step)).status == "edited"

    def settle(self, card):
        """A rejection or modification carried out that gave back the same artifact: say so,
        and ask for a decision on it afresh (never redo it again and again)."""
        lang = self.book.cfg.language
        why = say(lang, "g_same_offline") if not self.provider.capabilities.follows_instructions else ""
        self.rs.warn(say(lang, "g_same", artifact=card.artifact, gate=card.gate, decision=card.decision, why=why))
        return gates.renew_card(self.book, card)

    async def back_to_editor(self, n: Node, out: Outcome) -> Outcome:
        """A final chapter whose links do not resolve goes back to the editor once, with the
        problems as instructions; if the page still fails, a person decides."""
        ch = n[0]
        src = Node(ch, spec(n).needs[0])  # the step the page is published from
        self.redelivered.add(ch)
        if self.book.scanner.step(ch, src.step).status == "edited":
            return out  # a person's final: tell them, never rewrite it
        self.book.ledger.event("delivery_failed", self.rs.run_id, ch, n[1], reason=out.reason)
        self.rs.instructions[src] = ("The published page failed its link check; fix these links "
                                       "(link only to chapters and sections that exist):\n\n" + out.reason)
        redo = await self.generator.generate(src, "delivery check failed")
        self.rs.instructions.pop(src, None)
        if redo.status != "ok":
            return redo
        self.rs.site.drop()  # the site is rebuilt from the new final
        return await self.deriver.derive(n)

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
            self.book.ledger.event("revision", self.rs.run_id, ch, draft, round=self.revising[ch])
            self.rs.instructions[Node(ch, draft)] = (
                "The merged review found blocking problems in your draft. Rewrite it, fixing every blocking "
                "finding (quote code only exactly as it is in the source):\n\n" + review)
            for group in REVISION:
                outs = await asyncio.gather(*(self.generator.generate(Node(ch, k), f"revision {self.revising[ch]}") for k in group))
                bad = [o for o in outs if o.status != "ok"]
                if bad:
                    return bad[0]
            self.rs.instructions.pop(Node(ch, draft), None)
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
                self.rs.needs_human(n, reason)
                self.rs.report("fail", n, reason)
            return Outcome("needs_human", reason=reason)
        return out

