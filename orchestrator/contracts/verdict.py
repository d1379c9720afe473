"""The verdict, computed in code from all findings: the deterministic checks', the model's and
a person's. A model's `Verdict:` line is never read as the verdict; a person's `Verdict:
blocked` is a person's decision and holds the chapter even without a finding to show for it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from .findings import Finding

PERSON_BLOCKED = "a person marked it blocked"
_RANK = {"blocking": 0, "major": 1, "minor": 2}


def verdict(findings: Iterable[Finding], person_verdict: str | None = None) -> Literal["clean", "blocked"]:
    """'blocked' when any finding is blocking, or a person wrote `Verdict: blocked`."""
    if person_verdict == "blocked":
        return "blocked"
    return "blocked" if any(f.severity == "blocking" for f in findings) else "clean"


def shown_verdict(findings: Iterable[Finding]) -> str:
    """The `Verdict:` line a review file shows, from its findings: `blocked` (a blocking one),
    `revise` (a major one: the chapter goes on, but it is not clean), else `clean`."""
    fs = list(findings)
    if any(f.severity == "blocking" for f in fs):
        return "blocked"
    return "revise" if any(f.severity == "major" for f in fs) else "clean"


def blocked_reason(findings: Iterable[Finding], person_verdict: str | None = None) -> str | None:
    """Why the chapter is held, for needs-human.md and the exit message; None when clean."""
    for f in findings:
        if f.severity == "blocking":
            where = " ".join(x for x in (f.chapter or "", f"line {f.line}" if f.line else "") if x)
            where += f"-{f.end_line}" if f.end_line else ""
            return f"{f.check}{' ' + where if where else ''}: {f.message}"
    return PERSON_BLOCKED if person_verdict == "blocked" else None


def merge_findings(*groups: Iterable[Finding]) -> tuple[Finding, ...]:
    """All findings of several sources, each once, blocking first, then by chapter and line.
    The deterministic checks' findings reach the verdict this way, not through a model's copy."""
    seen: dict[tuple, Finding] = {}
    for g in groups:
        for f in g:
            key = (f.check, f.severity, f.chapter, f.line, f.end_line, f.message)
            if key not in seen or (f.quote and not seen[key].quote):
                seen[key] = f
    return tuple(sorted(seen.values(), key=lambda f: (_RANK[f.severity], f.chapter or "", f.line, f.check, f.message)))


@dataclass(frozen=True)
class ReviewState:
    findings: tuple[Finding, ...]
    person_verdict: str | None  # the file's `Verdict:` line, if any

    @property
    def verdict(self) -> str:
        return verdict(self.findings, self.person_verdict)

    @property
    def reason(self) -> str | None:
        return blocked_reason(self.findings, self.person_verdict)
