"""The finding: what a check or a reviewer reports. It is the contracts' Finding (one model for
the checks, the reviewers' JSON, the files people edit); its Markdown form is
`contracts.render.render_findings`, read back strictly by `contracts.parse.parse_findings`."""

from __future__ import annotations

from collections.abc import Iterable

from ..contracts.findings import SEVERITIES, Finding

__all__ = ["SEVERITIES", "Collected", "Finding", "blocking", "findings_in", "format_findings", "parse_findings",
           "sorted_findings"]


class Collected(list[Finding]):
    """Findings being collected (keeps each check's call on one line)."""

    def add(self, check: str, severity: str, line: int, message: str) -> None:
        self.append(Finding(check, severity, line, message))


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(dict.fromkeys(findings), key=lambda f: (f.line, f.message, f.check, f.severity))


def blocking(findings: Iterable[Finding]) -> bool:
    """True when any finding blocks the chapter (R1 found code that is not in the source, ...)."""
    return any(f.severity == "blocking" for f in findings)


def format_findings(findings: Iterable[Finding]) -> str:
    """A Markdown list, one finding an item (`- **blocking** `r1.code` line 12: ...`); `- none` if empty."""
    from ..contracts.render import render_findings

    return render_findings(findings)


def parse_findings(text: str, file: str = "findings") -> list[Finding]:
    """The findings of a findings list, read strictly: an item that is not a finding raises
    ContractError (a ValidationFailed) naming `file` and the line."""
    from ..contracts.parse import parse_findings as strict

    return strict(text, file=file)


def findings_in(md: str, file: str = "the review") -> list[Finding]:
    """The findings of a review's `## Findings` section (strict; see parse_findings). The line
    numbers of errors are those of the section, so the file's own parser is preferred where
    the whole file is at hand (contracts.parse.parse_review/parse_merged)."""
    from ..contracts.parse import parse_review

    return list(parse_review(md, file=file).review.findings)
