"""A merged review as the runner reads it: the findings a file holds (strictly parsed) plus the
deterministic findings of the same draft, and the person's `Verdict:` line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .findings import Finding
from .parse import parse_merged
from .verdict import ReviewState, merge_findings


def read_merged_review(source: str | Path, *, file: str | None = None) -> tuple[tuple[Finding, ...], str | None]:
    """(findings, person_verdict | None) of a merged review, from its path or its text. Anything
    in its findings that cannot be read raises ContractError naming the file and line."""
    if isinstance(source, Path):
        text = source.read_text(encoding="utf-8")
        file = file or str(source)
    else:
        text = source
    p = parse_merged(text, file=file or "merged review")
    return p.merged.findings, p.person_verdict


def review_state(source: str | Path, *, file: str | None = None, also: Iterable[Finding] = ()) -> ReviewState:
    """The merged review's findings plus `also` (the deterministic checks' findings of the same
    draft), with the person's verdict line: what the runner's guard needs in one call."""
    findings, pv = read_merged_review(source, file=file)
    return ReviewState(merge_findings(findings, also), pv)
