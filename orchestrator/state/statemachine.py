"""The chapter state machine: an explicit transition table, phase × event →
phase, with guards. The planner asks it before a step starts; an event the table does not
allow is refused and written to the ledger with the reason. The state itself is derived
from the files and the gate decisions (`derive`), so a scan shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..errors import IllegalTransition
from ..steps import CHAPTER_GATES, DRAFT, FINAL, HTML, ORDER, PANEL, REVIEW, STEPS

# The phase a chapter is in while a step is its next piece of work (the step registry says).
STEP_PHASE = {k: s.state for k, s in STEPS.items()}
START, DONE, NEEDS_HUMAN = "pending", "done", "needs_human"
PHASES = (START, *dict.fromkeys(STEP_PHASE.values()), DONE, "failed", NEEDS_HUMAN)



def _gate_before() -> dict[str, str]:
    """phase -> the last gate a chapter must have passed to be in it."""
    out: dict[str, str] = {}
    gate = ""
    for k in ORDER:
        if gate:
            out.setdefault(STEP_PHASE[k], gate)
        gate = k if k in CHAPTER_GATES else gate
    out["done"] = gate
    return out


GATE_BEFORE = _gate_before()


@dataclass
class ChapterState:
    phase: str = "pending"
    review: str = "clean"  # clean | blocked
    approval: str = "not_required"  # not_required | pending | approved | rejected
    delivery: str = "not_started"  # not_started | passed | failed
    retries: int = 0
    blocked_reason: str = ""
    last_stable_phase: str = "pending"  # advanced only when a step's output passed validation
    evidence: str = "uncovered"  # uncovered | partial | covered: its claims' citations (evidence.chapter)
    evidence_reason: str = ""  # why the evidence holds the chapter before its final ("" when it does not)

    def with_approval(self, approval: str) -> ChapterState:
        """A gate's decision: waiting or rejected means a person must act."""
        self.approval = approval
        if approval in ("pending", "rejected"):
            self.phase = "needs_human"
        return self

    def as_dict(self) -> dict:
        # Not dataclasses.asdict: its recursive deep copy is most of `book scan`'s time per chapter.
        return {f: getattr(self, f) for f in _FIELDS}


_FIELDS = ("phase", "review", "approval", "delivery", "retries", "blocked_reason", "last_stable_phase", "evidence")

Guard = Callable[[ChapterState], str | None]  # None: allowed; else why not


def _not_blocked(s: ChapterState) -> str | None:
    return f"the review is blocked: {s.blocked_reason}" if s.review == "blocked" else None


def _approved(s: ChapterState) -> str | None:
    return None if s.approval in ("not_required", "approved") else f"waiting at a gate (approval {s.approval})"


def _evidence(s: ChapterState) -> str | None:
    """A chapter reaches its final only with its evidence covered (or a person's acceptance)."""
    return s.evidence_reason or None


def _both(*gs: Guard) -> Guard:
    def g(s: ChapterState) -> str | None:
        for x in gs:
            why = x(s)
            if why:
                return why
        return None
    return g


# What a step needs to start, beyond its phase (the others start in their phase unasked).
GUARDS: dict[str, Guard] = {
    DRAFT: _approved,
    PANEL: _both(_not_blocked, _approved),
    FINAL: _evidence,
    HTML: _both(_approved, _evidence),
}


def _transitions() -> dict[tuple[str, str], tuple[str, Guard | None]]:
    """(phase, event) -> (next phase, guard), from the registry's order and phases.
    `start_<step>` events ask whether a step may begin, in its phase (the first also from
    `pending`); `<step>_done` events move the chapter on once the step's output passed
    validation: the last step of a phase to the next phase, the last of all to `done`."""
    out: dict[tuple[str, str], tuple[str, Guard | None]] = {(START, f"start_{ORDER[0]}"): (STEP_PHASE[ORDER[0]], None)}
    for i, k in enumerate(ORDER):
        ph = STEP_PHASE[k]
        out[(ph, f"start_{k}")] = (ph, GUARDS.get(k))
        nxt = STEP_PHASE[ORDER[i + 1]] if i + 1 < len(ORDER) else DONE
        if nxt != ph:
            out[(ph, f"{k}_done")] = (nxt, None)
    draft, review = STEP_PHASE[DRAFT], STEP_PHASE[REVIEW]
    out[(review, f"start_{DRAFT}")] = (draft, None)  # a revision of a blocked or rejected draft
    out[(review, f"{REVIEW}_blocked")] = (NEEDS_HUMAN, None)
    out[(STEP_PHASE[HTML], "delivery_failed")] = (STEP_PHASE[FINAL], None)  # back to the editor
    out[(DONE, f"start_{HTML}")] = (STEP_PHASE[HTML], None)
    return out


TRANSITIONS = _transitions()
# Any phase may fail, wait for a person, or be rolled back by a person's decision.
for _p in PHASES:
    TRANSITIONS.setdefault((_p, "fail"), ("failed", None))
    TRANSITIONS.setdefault((_p, "gate_pending"), ("needs_human", None))
    TRANSITIONS.setdefault((_p, "reject"), ("needs_human", None))
for _p in ("failed", "needs_human"):
    for _step, _ph in STEP_PHASE.items():
        TRANSITIONS.setdefault((_p, f"start_{_step}"), (_ph, None))  # a retry, or after a decision
for _p in PHASES:
    for _step, _ph in STEP_PHASE.items():
        TRANSITIONS.setdefault((_p, f"redo_{_step}"), (_ph, None))  # `book redo`: a person's explicit request


def apply(state: ChapterState, event: str) -> ChapterState:
    """The state after `event`, or IllegalTransition saying why not."""
    rule = TRANSITIONS.get((state.phase, event))
    if rule is None:
        raise IllegalTransition(f"{event} is not allowed in phase {state.phase}")
    nxt, guard = rule
    why = guard(state) if guard else None
    if why:
        raise IllegalTransition(f"{event} refused in phase {state.phase}: {why}")
    new = replace(state)
    new.phase = nxt
    if event.endswith("_done"):
        new.last_stable_phase = state.phase
    return new


def derive(steps: dict, *, review_blocked: str = "", approval: str = "not_required", needs_human: str = "",
           retries: int = 0, delivery_failed: str = "", evidence: str = "uncovered",
           evidence_reason: str = "") -> ChapterState:
    """A chapter's state from its files (StepState per step) and the decisions around it.
    `evidence_reason`: why its evidence is not enough for a final (evidence.chapter says)."""
    s = ChapterState(retries=retries, approval=approval, evidence=evidence, evidence_reason=evidence_reason)
    stable = "pending"
    phase = "done"
    for key, ph in STEP_PHASE.items():
        st = steps[key]
        if not st.fresh:
            phase = "pending" if key == ORDER[0] and st.status == "missing" else ph
            break
        stable = ph
    s.last_stable_phase = stable
    s.phase = phase
    if review_blocked:
        s.review, s.blocked_reason = "blocked", review_blocked
    if steps[HTML].fresh:
        s.delivery = "passed"
    elif delivery_failed:
        s.delivery, s.blocked_reason = "failed", delivery_failed
    if evidence_reason and phase in ("finalizing", "publishing") and not review_blocked:  # publishing: a final's edit
        s.blocked_reason = evidence_reason
        s.phase = "needs_human"
    if needs_human or review_blocked:
        s.phase = "needs_human"
    return s.with_approval(approval)
