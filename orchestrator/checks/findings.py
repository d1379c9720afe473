"""The finding: what a check or a reviewer reports, and its one-line Markdown form
(`- **blocking** `r1.code` line 12: ...`) that review files carry and the orchestrator parses back."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..text.markdown import section

SEVERITIES = ("blocking", "major", "minor")


@dataclass(frozen=True)
class Finding:
    check: str  # e.g. "r1.code", "r2.xref", "r3.length", "audit.link"
    severity: str  # "blocking" | "major" | "minor"
    line: int  # 1-based line in the checked markdown; 0 = the whole file
    message: str  # one sentence a person can act on
    chapter: str | None = None  # set by audit_book



class Collected(list[Finding]):
    """Findings being collected (keeps each check's call on one line)."""

    def add(self, check: str, severity: str, line: int, message: str) -> None:
        self.append(Finding(check, severity, line, message))


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(dict.fromkeys(findings), key=lambda f: (f.line, f.message, f.check, f.severity))



_FINDING_RE = re.compile(r"^\s*[-*+]\s+\*\*(blocking|major|minor)\*\*\s+`([^`]+)`(?:\s+(ch\d+))?"
                         r"(?:\s+line\s+(\d+))?:\s?(.*)$", re.IGNORECASE)


def blocking(findings: Iterable[Finding]) -> bool:
    """True when any finding blocks the chapter (R1 found code that is not in the source, ...)."""
    return any(f.severity == "blocking" for f in findings)


def format_findings(findings: Iterable[Finding]) -> str:
    """A Markdown bullet list, one finding a line, `- **blocking** `r1.code` line 12: ...`
    (the chapter before the line when set; no line for whole-file findings); `- none` if empty."""
    rows = []
    for f in findings:
        where = (f" {f.chapter}" if f.chapter else "") + (f" line {f.line}" if f.line else "")
        message = re.sub(r"[\r\n]+", " ", f.message)  # a finding is one line
        rows.append(f"- **{f.severity}** `{f.check}`{where}: {message}")
    return "\n".join(rows) or "- none"


def parse_findings(text: str) -> list[Finding]:
    """The findings of `format_findings` lists anywhere in a text (a review file); other lines
    are ignored. Round-trips: parse_findings(format_findings(fs)) == fs for one-line messages."""
    out = []
    for ln in text.split("\n"):
        if m := _FINDING_RE.match(ln.removesuffix("\r")):
            out.append(Finding(m.group(2), m.group(1).lower(), int(m.group(4) or 0), m.group(5), m.group(3)))
    return out


def findings_in(md: str) -> list[Finding]:
    return parse_findings(section(md, "Findings"))
