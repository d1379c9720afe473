"""The review verdict, computed in code (issue 11): from the merged review's findings (read
strictly: the model's, rendered, or a person's in their own words), plus the deterministic
findings of the current draft computed directly (R1's code check, R2's consistency, R3's
structure — never through a model's copy), plus a person's `Verdict: blocked`, which always
holds the chapter for a person.

A merged review that cannot be read (a finding the parser does not understand) is not a
silent skip: `chapter_verdict` raises ContractError naming the file and line; the runner
holds that chapter for a person with that message (exit 3, the chapter named in
needs-human.md), since only a person can say what their edit meant."""

from __future__ import annotations

from ..agents.context import review_findings
from ..agents.structured import deterministic
from ..contracts import Finding, review_state
from ..contracts.verdict import ReviewState
from ..errors import ValidationFailed
from ..state.memory import read_body
from ..steps import REVIEW, STEPS


def deterministic_findings(book, ch: str) -> list[Finding]:
    """The deterministic checks' findings of the chapter's current draft, as each reviewer's
    prompt gets them (agents.gather runs the checks)."""
    return deterministic({"findings": review_findings(book, ch)})


def chapter_verdict(book, ch: str, text: str | None = None) -> ReviewState:
    """The chapter's review state: its merged review (the file, or `text`, its body) with the
    draft's deterministic findings. ContractError (naming file and line) if unreadable."""
    rel = STEPS[REVIEW].file(ch)
    if text is None:
        text = read_body(book.root, rel)
    return review_state(text, file=rel, also=deterministic_findings(book, ch))


def held_reason(book, ch: str) -> str:
    """Why the runner's guard holds the chapter for a person ("" when it may go on): a blocked
    verdict, or a merged review that cannot be read (the message names file and line)."""
    try:
        state = chapter_verdict(book, ch)
    except ValidationFailed as e:  # a review nobody can read: only a person can say what it meant
        return f"the merged review cannot be read: {e}"
    return f"review blocked: {state.reason}" if state.verdict == "blocked" else ""


def is_blocked(book, ch: str) -> bool:
    """A blocked verdict (an automatic revision may fix it); unreadable is the guard's to report."""
    return held_reason(book, ch).startswith("review blocked")
