"""A chapter written one section at a time, when a whole one keeps failing validation (a weak
local model, issue 27 item 4): the last rejected answer gives the chapter's shape (its title,
opening and `## ` headings), and the writer (or the editor) is asked for each section in turn,
with the chapter as it stands so far as context: the same request, prompt and section contract
as a section rewrite at a new revision (pipeline/section_redo.py), so a model that cannot hold a
whole chapter in one answer still writes one. Every call goes through the run's budget check,
slots and call log (budget.py, the run's slots); nothing is committed until the whole chapter is assembled and passes the
chapter's own validation, then it is committed like any answer (state/commit.py). The decisions
(decisions.py) call `by_sections` once, after `generate` failed on validation."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .. import agents
from ..errors import RunStopped, StepFailed, ValidationFailed
from ..evidence import sections as S
from ..state import commit
from ..state.fsio import Lock, PartialWriter, backup, partial_path
from ..state.markers import compose
from ..steps import Node, spec
from .outcomes import Outcome

if TYPE_CHECKING:
    from ..providers.base import Provider
    from .budget import Budget
    from .run_state import RunState

MIN_SECTIONS = 2  # a rejected answer with fewer `## ` sections gives no shape to write by


def shape(text: str) -> str | None:
    """The chapter's shape from a rejected answer: its text from the `# ` title on, when it has a
    title and at least MIN_SECTIONS sections with distinct headings; else None."""
    at = text.find("# ")
    while at > 0 and text[at - 1] != "\n":
        at = text.find("# ", at + 1)
    if at < 0:
        return None
    body = text[at:].strip() + "\n"
    heads = [h for h in S.heads(body) if h != S.OPENING]
    if len(heads) < MIN_SECTIONS or S.duplicated(body):
        return None
    return body


def applies(n: Node, out: Outcome) -> bool:
    """A chapter text whose every answer failed validation (not a refusal, an outage, a budget)."""
    return spec(n).answer == "chapter" and out.status == "failed" and out.reason.startswith(
        "the answer did not pass validation")


async def by_sections(rs: RunState, budget: Budget, provider: Provider, n: Node, out: Outcome) -> Outcome:
    """Write the chapter text of `n` one section at a time; `out` (the whole answer's failure) when
    that cannot be tried or does not succeed either (its reason then says both)."""
    if not applies(n, out):
        return out
    book, ch, step = rs.book, n[0], n[1]
    path = book.ws.path(rs.rel(n))
    try:
        rejected = partial_path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    text = shape(rejected)
    if text is None:
        return out
    book.ledger.event("sections_one_by_one", rs.run_id, ch, step, sections=len(S.heads(text)) - 1)
    rs.warn(f"{rs.rel(n)}: the whole chapter failed validation; writing it one section at a time")
    scratch = path.with_name(path.name + ".sections")  # its .partial streams each section's answer
    g = None
    for head in [h for h in S.heads(text) if h != S.OPENING]:
        extra: dict[str, Any] = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.shown_source,
                                 "rewrite_sections": [head], "current_text": text, "_assembling": True}
        g = agents.gather(book, step, ch, extra)
        req = agents.build_request(book, step, ch, g, spec(n).role)
        req.cache_ttl, req.material_ttl = rs.cache_ttl, rs.material_ttl
        answer, why = await _ask(rs, budget, provider, n, req, scratch, g.context)
        if answer is None:
            return Outcome(out.status if why == out.reason else "failed",
                           reason=f"{out.reason}; written one section at a time, § {head} failed too: {why}", hint=out.hint)
        text = S.splice(text, answer)
    assert g is not None
    ctx = {k: v for k, v in g.context.items() if k not in ("rewrite_sections", "current_text", "_assembling")}
    try:
        whole = agents.clean_and_validate(step, text, ctx)
    except ValidationFailed as e:
        return Outcome("failed", reason=f"{out.reason}; written one section at a time, the chapter still fails: {e}",
                       hint=out.hint)
    inputs = {k: v for k, v in g.inputs.items() if v is not None}
    from .section_redo import marker_extra

    composed = compose(whole, rs.marker(n), inputs, rs.run_id, marker_extra({}, whole))
    Lock.verify_held()
    seen = rs.seen.get(n) or commit.FOREIGN
    placed = commit.commit(path, composed, seen)
    if not placed.written:
        from .answers import kept_for_person

        return kept_for_person(rs, n)
    backup(partial_path(path))  # the rejected whole answer: kept beside it, never deleted
    book.scanner.invalidate(rs.rel(n))
    book.ledger.event("step_end", rs.run_id, ch, step, chars=len(whole), by_sections=True)
    rs.generated.append(n)
    return Outcome("ok", ran=True, reason="written one section at a time")


async def _ask(rs: RunState, budget: Budget, provider: Provider, n: Node, req, scratch,
               ctx: dict[str, Any]) -> tuple[str | None, str]:
    """One section's answer, validated (the section contract), with the step's retries: (the
    section, "") or (None, why not)."""
    book, ch, step = rs.book, n[0], n[1]
    last, feedback = "", ""
    for attempt in range(1, max(1, book.cfg.retries) + 1):
        req.feedback = feedback
        if budget.api_stop:
            return None, budget.api_stop
        if over := budget.over_budget(req):
            return None, over
        book.ledger.event("step_start", rs.run_id, ch, step, attempt=attempt, why="one section at a time")
        pw = PartialWriter(scratch)
        t0 = time.monotonic()
        try:
            try:
                async with rs.slots.slot(rs.rank.get(n, 0)):
                    result = await provider.generate(req, budget.sink(pw))
            finally:
                budget.release(req)
        except RunStopped as e:
            pw.close()
            budget.log_call(req, None, t0, error=str(e))
            return None, str(e)
        except StepFailed as e:
            pw.close()
            budget.log_call(req, None, t0, error=str(e))
            last = str(e)
            if not e.retryable:
                break
            continue
        pw.close()
        budget.log_call(req, result, t0)
        if result.stop_reason != "end_turn":
            last = f"the answer ended with stop reason {result.stop_reason!r}, not end_turn"
            continue
        try:
            text = agents.clean_and_validate(step, result.text, ctx)
        except ValidationFailed as e:
            last = f"the answer did not pass validation: {e}"
            feedback = f"Your previous answer was rejected: {e}. Answer again, fixing that."
            book.ledger.event("step_retry", rs.run_id, ch, step, attempt=attempt, error=last)
            continue
        pw.retire()
        return text, ""
    return None, last or "failed"


__all__ = ["applies", "by_sections", "shape"]
