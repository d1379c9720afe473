"""The run's generate → commit: one model step, from the context it gathers to the file
committed with its marker, through the .partial the answer streams into; retries with
backoff, validation feedback, and what an interrupted generation left (continued with
`--strategy aggressive`, otherwise set aside, never deleted). Built with the run's shared
state (run_state.py), the budget that admits and logs each call (budget.py), the provider and
the batch wave when the run sends Message Batches (batch_wave.py)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import TYPE_CHECKING, Any

from .. import agents
from ..agents import smaller_ask
from ..agents.structured import structured
from ..contracts.errors import ContractError
from ..errors import BudgetSpent, Refused, RunStopped, StepFailed, ValidationFailed
from ..signals import check_stop, in_daemon_thread
from ..state import commit
from ..state.fsio import Lock, PartialWriter, _mutate, backup, partial_path
from ..state.markers import compose, short_hash
from ..state.memory import read_body
from ..steps import BOOK, Node, spec
from . import answers, batch_wave, review_verdict, section_redo
from .answers import version
from .outcomes import Outcome

if TYPE_CHECKING:
    from ..providers.base import Provider
    from .batch_wave import BatchWave
    from .budget import Budget
    from .run_state import RunState


class Generator:
    def __init__(self, rs: RunState, budget: Budget, provider: Provider, batch: BatchWave | None = None):
        self.rs, self.book, self.budget, self.provider, self.batch = rs, rs.book, budget, provider, batch
        self._started_ever: set[Node] | None = None  # the steps the ledger saw start, ever (read once)

    def _previous_partial(self, n: Node) -> str:
        """The text an interrupted generation left: the half-finished file or its .partial."""
        path = self.book.ws.path(self.rs.rel(n))
        for p in (partial_path(path), path):
            try:
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if text.strip():
                return text
        return ""

    def set_aside(self, n: Node) -> None:
        """Before a fresh generation: keep what an interrupted one left (never delete it)."""
        path = self.book.ws.path(self.rs.rel(n))
        part = partial_path(path)
        if part.exists():
            backup(part)
        st = self.rs.state(n)
        if self._saved_during_run(n):
            self.rs.seen[n] = commit.FOREIGN
            return
        if st.status == "half_finished":
            # only the version the run decided on: a file saved since is a person's, and stays
            dest, self.rs.seen[n] = commit.move_aside(path, self.rs.seen.get(n) or commit.observe(path, version(st)))
            if dest is None:
                return
            if not self._ledger_started(n):
                self.rs.warn(f"{st.path} has no marker and book never started writing it: it may be yours; "
                          f"it is kept as a .bak file beside it (next time, `book accept {n[0]} {n[1]}` keeps it)")
            self.book.ledger.event("recovered", self.rs.run_id, *self.rs._ev(n), action="backed_up", to=dest.name)

    def _saved_during_run(self, n: Node) -> bool:
        """A marker-less file at the step's path saved since the command began: a person's (our
        writer never makes one), kept in place by every strategy."""
        st = self.rs.state(n)
        return st.status == "half_finished" and st.mtime_ns >= self.rs.started_ns

    def tidy_partial(self, n: Node) -> None:
        """A .partial beside a fresh file: a crash came between the commit and its cleanup. If
        the final file holds all of it, it is redundant and goes; otherwise it is backed up."""
        path = self.book.ws.path(self.rs.rel(n))
        part = partial_path(path)
        if not part.exists():
            return
        try:
            partial = part.read_text(encoding="utf-8", errors="replace").rstrip()
            final = read_body(self.book.root, self.rs.rel(n))
        except OSError:
            return
        if final.startswith(partial):
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
        path = book.ws.path(self.rs.rel(n))
        # what the path holds as the run starts the step: the commit replaces nothing else
        self.rs.seen[n] = commit.observe(path, version(self.rs.state(n)))
        # a vouched-for .partial; a batch
        done, feedback = await batch_wave.before_generate(self.rs, self.batch, self.set_aside, n, why)
        if done is not None:
            return Outcome(done[0], ran=done[0] == "ok", reason=done[1])
        prefix = ""
        if why in ("half-finished",) or why.startswith("interrupted"):
            if self._saved_during_run(n):  # a person's, whatever the strategy: not continued, not replaced
                self.rs.seen[n] = commit.FOREIGN
            elif self.rs.opts.strategy == "aggressive" and not structured(step):  # JSON is asked afresh, never continued
                prefix = self._previous_partial(n)
                if prefix:
                    led.event("recovered", self.rs.run_id, ch, step, action="continue", chars=len(prefix))
            if not prefix:
                self.set_aside(n)
            if self.rs.seen[n].foreign and path.exists():  # a person's file, saved during this run: it stays
                reason = (f"{self.rs.rel(n)} was saved by a person during this run, without a {self.rs.marker(n)} marker: "
                          "kept as it is")
                return Outcome("needs_human", reason=reason, hint=f"`book accept {n[0]} {n[1]}` adopts it, "
                               f"`book redo {n[0]} {n[1]}` replaces it")
        elif path.with_name(path.name + ".partial").exists():
            backup(path.with_name(path.name + ".partial"))
        if spec(n).sources and "project_front" not in book.memo:
            # the walk, the map and the front matter: seconds on a huge tree, never on the loop's
            # thread, so that a stop signal ends the run at once
            await in_daemon_thread(agents.warm, book)
        attempts = max(1, book.cfg.retries)
        last = ""
        hint: str | None = None
        rejected = 0  # answers that failed validation: after a failed re-ask the ask gets smaller
        for attempt in range(1, attempts + 1):
            smaller = smaller_ask.level_after(step, rejected)
            if smaller:
                led.event("smaller_ask", self.rs.run_id, ch, step, attempt=attempt, level=smaller)
            check_stop()  # the request's context (checks, memory, source) is seconds of work on a loaded machine
            try:
                g, req = answers.request_for(self.rs, n, feedback, smaller)
            except StepFailed as e:  # an input a person broke (a memory file): this step fails, naming it; the rest goes on
                led.event("step_failed", self.rs.run_id, ch, step, error=str(e))
                where = e.file if isinstance(e, ContractError) and e.file else "that input"
                return Outcome("failed", reason=str(e), hint=f"fix {where}, then `book run`")
            req.prefix = prefix
            if self.budget.api_stop:  # the API said no request can succeed now: none is sent
                return Outcome("stopped", reason=self.budget.api_stop)
            over = self.budget.over_budget(req)
            if over:
                return Outcome("needs_human", reason=over)
            led.event("step_start", self.rs.run_id, ch, step, attempt=attempt, why=why)
            if self._started_ever is not None:
                self._started_ever.add(n)
            pw = PartialWriter(path, prefix)
            t0 = time.monotonic()
            try:
                try:
                    async with self.rs.slots.slot(self.rs.rank.get(n, 0)):
                        if led.failed is not None:  # the ledger failed while this call waited: it would go unrecorded
                            pw.close()
                            led.check()
                        result = await self.provider.generate(req, self.budget.sink(pw))
                finally:  # logged (or failed): its cost is in the ledger now, not in flight
                    self.budget.release(req)
            except RunStopped as e:  # a spend limit, `x-should-retry: false`: the run stops, this step is not failed
                pw.close()
                self.budget.log_call(req, None, t0, error=str(e))
                if isinstance(e, BudgetSpent):  # the budget, not the API: a person raises budget_usd
                    return Outcome("needs_human", reason=self.budget.budget_stop or str(e))
                if not self.budget.api_stop:
                    self.budget.api_stop = str(e)
                    led.event("api_stop", self.rs.run_id, ch, step, error=str(e))
                    self.rs.warn("stopping: " + str(e))
                return Outcome("stopped", reason=self.budget.api_stop)
            except StepFailed as e:
                pw.close()
                last = str(e)
                if isinstance(e, Refused):
                    hint = (f"a refusal, not an error: reword what {spec(n).role} is asked (the chapter's outline "
                            f"entry, or `book redo {n[0]} {n[1]}` after a `book modify`), or name another model in "
                            "book.yaml's fallback_model, then `book run`")
                self.budget.log_call(req, None, t0, error=last)
                # A provider that retries its own calls (anthropic) has spent its attempts; an overload is
                # tried again once its shared slow-down has ended (a provider without one: never)
                final = not e.retryable or self.provider.capabilities.retries_itself
                final = final and not (e.overload and attempt < attempts and await self.provider.wait_slowdown())
                led.event("step_retry" if attempt < attempts and not final else "step_failed", self.rs.run_id, ch, step,
                          attempt=attempt, error=last)
                if final:
                    break
                await self._backoff(attempt)
                continue
            except asyncio.CancelledError:
                pw.close()  # the .partial stays for `book resume --strategy aggressive`
                raise
            pw.close()
            self.budget.log_call(req, result, t0)
            if result.stop_reason != "end_turn":
                last = f"the answer ended with stop reason {result.stop_reason!r}, not end_turn"
                led.event("step_retry", self.rs.run_id, ch, step, attempt=attempt, error=last)
                await self._backoff(attempt)
                continue
            trimmed: list[str] = []
            try:
                text = agents.clean_and_validate(step, result.text, g.context, trimmed)
            except ValidationFailed as e:
                last = f"the answer did not pass validation: {e}"
                rejected += 1
                feedback = f"Your previous answer was rejected: {e}. Answer again, fixing that."
                prefix = ""
                led.event("step_retry", self.rs.run_id, ch, step, attempt=attempt, error=last)
                continue
            if trimmed:  # what the model said around the answer: never committed, noted here
                led.event("answer_trimmed", self.rs.run_id, ch, step, attempt=attempt, removed=trimmed)
            inputs = {k: v for k, v in g.inputs.items() if v is not None} | (
                {"instructions": short_hash(g.context["instructions"])} if g.context.get("instructions") else {})
            extra: dict[str, Any] | None = None
            if spec(n).verdict:  # the verdict is the planner's, from the findings; kept in the marker so a scan need not parse
                extra = {"verdict": review_verdict.chapter_verdict(book, n[0], text).verdict}
            if spec(n).answer == "chapter":  # each section's hash, and what a section rewrite started from
                extra = section_redo.marker_extra(g.context, text)
            composed = compose(text, self.rs.marker(n), inputs, self.rs.run_id, extra)
            Lock.verify_held()  # still the one writer (its lock file may have been deleted meanwhile)
            # its fsyncs in a worker thread: other steps' calls and commits go on meanwhile
            placed = await asyncio.to_thread(commit.commit, path, composed, self.rs.seen.get(n) or commit.FOREIGN)
            if not placed.written:  # a person's file is there: it stays, the answer is in the .partial
                led.event("step_end", self.rs.run_id, ch, step, attempt=attempt, chars=len(text), kept="person")
                return answers.kept_for_person(self.rs, n)
            pw.retire()
            answers.say_redone(self.rs, n, placed)
            book.scanner.invalidate(self.rs.rel(n))
            if spec(n).replans:
                book.scanner.invalidate()
            led.event("step_end", self.rs.run_id, ch, step, attempt=attempt, chars=len(text))
            section_redo.note_rewrite(book, self.rs.run_id, n, g.context)
            self.rs.generated.append(n)
            return Outcome("ok", ran=True)
        led.event("step_failed", self.rs.run_id, ch, step, error=last)
        return Outcome("failed", reason=last or "failed", hint=hint)

    async def _backoff(self, attempt: int) -> None:
        if self.rs.opts.retry_delay > 0:
            await asyncio.sleep(self.rs.opts.retry_delay * (2 ** (attempt - 1)) * (1 + random.random() / 4))
