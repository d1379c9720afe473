"""Structured answers (issue 11): a step with a contract (the outline, R1–R3, the merged
review, the reader panel, the memory keeper, the audit) answers JSON matching its schema on
the Claude path; the orchestrator reads it with `contracts.schemas.from_answer` and renders
the human-facing Markdown file deterministically with `contracts.render`. The offline
provider writes that Markdown directly (through the same render functions); such an answer
is read back with the strict parser, so both paths obey one grammar.

The deterministic findings of the step (`ctx["findings"]`: R1's code check, R2's
consistency, R3's structure, the merge of all three, the book audit) are merged into the
rendered file directly, so they never depend on a model copying them (the prompts tell the model
not to; a copy it makes anyway, even reworded, is dropped: `_own`)."""

from __future__ import annotations

from typing import Any

from ..contracts import ContractError, Finding, merge_findings, parse as P, render as R
from ..contracts.findings import MergedReview, Review
from ..contracts.schemas import CONTRACTS, from_answer
from ..steps import AUDIT, MEMORY, OUTLINE, PANEL, R1, R2, R3, REVIEW

HEADINGS = {
    "en": {R1: "R1 code review", R2: "R2 consistency review", R3: "R3 content review", REVIEW: "Merged review",
           PANEL: "Reader panel", AUDIT: "Book audit"},
    "zh": {R1: "R1 代码审查", R2: "R2 一致性审查", R3: "R3 内容审查", REVIEW: "合并审查", PANEL: "读者评审",
           AUDIT: "全书审计"},
}


def structured(step: str) -> bool:
    """True when the step's answer is a JSON contract (the request carries its schema)."""
    return step in CONTRACTS


def _looks_json(text: str) -> bool:
    s = text.lstrip()
    return s.startswith(("{", "```json", "```JSON"))


def persona_names(ctx: dict[str, Any]) -> list[str]:
    return [p.partition(":")[0].strip() for p in ctx.get("personas", [])]


def deterministic(ctx: dict[str, Any]) -> list[Finding]:
    """The context's deterministic findings as contract Findings."""
    return [Finding(f["check"], f["severity"], int(f.get("line") or 0), f["message"], f.get("chapter"))
            for f in ctx.get("findings", [])]


def _own(model: tuple[Finding, ...], given: list[Finding]) -> tuple[Finding, ...]:
    """The model's findings without its copies of the given ones. The prompt says the tool adds
    the given findings itself; a model that copies one anyway often rewords its message, and an
    exact-key merge would then list the problem twice. A finding with the same check, chapter and
    line as a given one is that copy (the given wording wins, the model's quote is kept)."""
    at = {(f.check, f.chapter, f.line) for f in given}
    return tuple(f for f in model if (f.check, f.chapter, f.line) not in at)


def _heading(step: str, ctx: dict[str, Any]) -> str:
    h = HEADINGS.get(ctx.get("language", "en"), HEADINGS["en"])[step]
    if step == AUDIT:
        return f"{h}: {ctx['book']['title']}"
    ch = ctx.get("chapter") or {}
    return f"{h}: {ch.get('id', '')} — {ch.get('title', '')}"


def render_contract(step: str, obj: Any, ctx: dict[str, Any]) -> str:
    """The Markdown file body of a step's contract object (without the completion marker)."""
    if step in (R1, R2, R3, AUDIT):
        given = deterministic(ctx)
        review = Review(merge_findings(_own(obj.findings, given), given), obj.notes)
        return R.render_review(review, heading=_heading(step, ctx))
    if step == REVIEW:
        given = deterministic(ctx)
        merged = MergedReview(merge_findings(_own(obj.findings, given), given), obj.actions, obj.notes)
        return R.render_merged(merged, heading=_heading(step, ctx))
    if step == PANEL:
        desc = {p.partition(":")[0].strip(): p.partition(":")[2].strip() for p in ctx.get("personas", [])}
        return R.render_panel(obj, heading=_heading(step, ctx), descriptions=desc)
    if step == MEMORY:
        ch = ctx["chapter"]
        return R.render_memory(obj, chapter=ch["id"], title=ch["title"])
    if step == OUTLINE:
        return R.render_outline(obj)
    raise KeyError(f"no contract for the step {step!r}")


def _kw(step: str, ctx: dict[str, Any]) -> dict[str, Any]:
    if step == PANEL:
        return {"personas": persona_names(ctx)}
    if step == MEMORY and ctx.get("chapter"):
        return {"chapter": ctx["chapter"]["id"]}
    if step == OUTLINE and ctx.get("sources"):
        return {"source_files": set(ctx["sources"])}
    return {}


def read_markdown(step: str, text: str, file: str = "the answer") -> None:
    """Read a Markdown answer (the offline provider's, or a person's file) with the strict parser
    of its step; ContractError (a ValidationFailed) names the line and what was expected."""
    if step in (R1, R2, R3, AUDIT):
        P.parse_review(text, file=file)
    elif step == REVIEW:
        P.parse_merged(text, file=file)
    elif step == PANEL:
        P.parse_panel(text, file=file)
    elif step == MEMORY:
        P.parse_memory(text, file=file)
    elif step == OUTLINE:
        P.parse_outline(text, file=file)


def structured_answer(step: str, text: str, ctx: dict[str, Any]) -> str:
    """The file body for a contract step's answer: JSON → contract → rendered Markdown; a
    Markdown answer is read strictly and kept as written. ContractError when it does not fit."""
    if _looks_json(text):
        try:
            obj = from_answer(step, text, **_kw(step, ctx))
        except ContractError:
            raise
        except (TypeError, ValueError) as e:  # a contract's own invariant (a range, a persona name)
            raise ContractError(f"the answer does not fit the {step} contract: {e}") from None
        if step == OUTLINE:  # a model's chapters are ideas, not an inventory of modules (issue 35)
            from ..contracts.outline import inventory_titles

            problem = inventory_titles(obj)
            if problem is not None:
                raise problem
        return render_contract(step, obj, ctx)
    read_markdown(step, text)
    return text
