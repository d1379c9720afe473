"""Findings and reviews: what R1, R2, R3 (and the auditor) answer, and the merged review.

`Finding` keeps the fields of today's `checks.Finding` in the same order (check, severity,
line, message, chapter), so `checks.Finding` can become an alias of this class; what is new
has defaults: `end_line` (a range `line..end_line`) and `quote` (the text objected to).
A review's verdict is never part of the answer: `verdict.verdict()` computes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..steps import REVIEW
from .errors import ContractError
from .jsonread import CHAPTER_RE, CHECK_RE, SEVERITIES, Reader, load, one_line, s_arr, s_int, s_obj, s_str
from .mdtext import block_problem, normalise_block


def _norm_range(line: int, end_line: int | None) -> int | None:
    if line < 0:
        raise ValueError(f"line must be >= 0, not {line}")
    if end_line is not None:
        if line == 0:
            raise ValueError("a line range needs its first line")
        if end_line < line:
            raise ValueError(f"the line range {line}-{end_line} runs backwards")
        if end_line == line:
            return None
    return end_line


@dataclass(frozen=True)
class Finding:
    check: str  # "r1.code", "r2.glossary", "r3.structure", "audit.link", or "person"
    severity: str  # "blocking" | "major" | "minor"
    line: int  # 1-based first line in the checked text; 0 = the whole text
    message: str  # one sentence a person can act on (one line)
    chapter: str | None = None  # set by the whole-book audit, or when a person names one
    end_line: int | None = None  # last line of a range; None for a single line
    quote: str = ""  # the text objected to, verbatim (may span lines)

    def __post_init__(self) -> None:
        # Normalised here, once, so that a finding and its rendering agree on what it says.
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r} is not one of {', '.join(SEVERITIES)}")
        if not CHECK_RE.match(self.check):
            raise ValueError(f"check id {self.check!r} is not like r1.code, r2.glossary, audit.link or person")
        if self.chapter is not None and not CHAPTER_RE.match(self.chapter):
            raise ValueError(f"chapter {self.chapter!r} is not like ch03")
        object.__setattr__(self, "message", one_line(self.message))
        if not self.message:
            raise ValueError("a finding needs a message")
        object.__setattr__(self, "end_line", _norm_range(self.line, self.end_line))
        object.__setattr__(self, "quote", normalise_block(self.quote))

    @property
    def lines(self) -> tuple[int, int] | None:
        """(first, last) line, or None for the whole text."""
        return (self.line, self.end_line or self.line) if self.line else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"severity": self.severity, "check": self.check, "message": self.message}
        if self.chapter:
            out["chapter"] = self.chapter
        if self.line:
            out["line"] = self.line
        if self.end_line:
            out["end_line"] = self.end_line
        if self.quote:
            out["quote"] = self.quote
        return out

    @classmethod
    def from_json(cls, obj: Any, path: str = "$") -> Finding:
        r = Reader(load(obj, "finding"), path)
        severity = r.choice("severity", SEVERITIES)
        check = r.text("check", line=True)
        if not CHECK_RE.match(check):
            raise r.fail("check", f"{check!r} is not a check id like r1.code, r2.glossary, r3.structure or person")
        message = r.text("message", line=True)
        chapter = r.text("chapter", required=False, line=True) or None
        if chapter is not None and not CHAPTER_RE.match(chapter):
            raise r.fail("chapter", f"{chapter!r} is not a chapter id like ch03")
        line = r.integer("line", required=False) or 0
        end = r.integer("end_line", required=False)
        if end is not None and end != 0:
            if not line:
                raise r.fail("end_line", "a range needs `line` too")
            if end < line:
                raise r.fail("end_line", f"the range {line}-{end} runs backwards")
        quote = r.text("quote", required=False)
        r.done()
        return cls(check, severity, line, message, chapter, end or None, quote)

    SCHEMA: ClassVar[dict[str, Any]]  # the JSON Schema, set below


Finding.SCHEMA = s_obj({
    "severity": s_str("blocking: the chapter must not go on as it is (code not in the source, a false statement "
                      "about the code, a broken structure); major: a real problem a reader would notice; minor: polish",
                      SEVERITIES),
    "check": s_str("the check id: your role's prefix and a name, e.g. r1.code, r1.symbol, r2.glossary, r2.xref, "
                   "r3.sections, r3.clarity"),
    "chapter": s_str("the chapter id the finding concerns (ch03); only in the whole-book audit"),
    "line": s_int("first line (1-based, as numbered in the prompt) of the text objected to; omit for the whole chapter"),
    "end_line": s_int("last line of the range, when the problem spans several lines"),
    "quote": s_str("the exact text objected to, copied from the draft (one line or a few)"),
    "message": s_str("one sentence: what is wrong and how to fix it"),
}, ["severity", "check", "message"])


@dataclass(frozen=True)
class Action:
    """One edit the merged review asks of the editor."""

    change: str  # what to change and how (one line)
    line: int = 0
    end_line: int | None = None
    checks: tuple[str, ...] = ()  # the findings this edit settles, by check id

    def __post_init__(self) -> None:
        object.__setattr__(self, "change", one_line(self.change))
        if not self.change:
            raise ValueError("an action needs a change")
        object.__setattr__(self, "end_line", _norm_range(self.line, self.end_line))
        object.__setattr__(self, "checks", tuple(self.checks))
        for c in self.checks:
            if not CHECK_RE.match(c):
                raise ValueError(f"check id {c!r} is not like r1.code")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"change": self.change, "settles": list(self.checks)}
        if self.line:
            out["line"] = self.line
        if self.end_line:
            out["end_line"] = self.end_line
        return out

    @classmethod
    def from_json(cls, obj: Any, path: str = "$") -> Action:
        r = Reader(obj, path)
        change = r.text("change", line=True)
        line = r.integer("line", required=False) or 0
        end = r.integer("end_line", required=False) or None
        if end is not None and (not line or end < line):
            raise r.fail("end_line", "a range needs `line` and must not run backwards")
        checks = r.strings("settles")
        for i, c in enumerate(checks):
            if not CHECK_RE.match(c):
                raise ContractError(f"{c!r} is not a check id like r1.code", path=f"{path}.settles[{i}]")
        r.done()
        return cls(change, line, end, checks)

    SCHEMA: ClassVar[dict[str, Any]]


Action.SCHEMA = s_obj({
    "change": s_str("the edit: where, what to change and how, in one or two sentences the editor can follow "
                    "without the source"),
    "line": s_int("first line of the draft the edit concerns; omit for the whole chapter"),
    "end_line": s_int("last line of that range"),
    "settles": s_arr(s_str("a check id"), "the check ids of the findings this edit settles"),
}, ["change", "settles"])


def _clean_notes(notes: str) -> str:
    notes = normalise_block(notes)
    notes = "" if notes == "(none)" else notes
    if problem := block_problem(notes, "notes"):
        raise ValueError(problem)
    return notes


def _findings(r: Reader, key: str = "findings") -> tuple[Finding, ...]:
    return tuple(Finding.from_json(x, p) for p, x in r.items(key))


def _notes(r: Reader, key: str = "notes", required: bool = True) -> str:
    notes = normalise_block(r.text(key, required=required))
    if notes == "(none)":
        notes = ""
    if problem := block_problem(notes, key):
        raise r.fail(key, problem)
    return notes


@dataclass(frozen=True)
class Review:
    """R1, R2, R3 or the book audit: findings and a few sentences of notes."""

    findings: tuple[Finding, ...]
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))
        object.__setattr__(self, "notes", _clean_notes(self.notes))

    def to_json(self) -> dict[str, Any]:
        return {"findings": [f.to_json() for f in self.findings], "notes": self.notes}

    @classmethod
    def from_json(cls, obj: Any, path: str = "$") -> Review:
        r = Reader(load(obj, REVIEW), path)
        out = cls(_findings(r), _notes(r))
        r.done()
        return out

    SCHEMA: ClassVar[dict[str, Any]]


Review.SCHEMA = s_obj({
    "findings": s_arr(Finding.SCHEMA, "your own findings; the tool adds the deterministic check results given in "
                                      "the prompt itself, so never copy them; empty when you have none"),
    "notes": s_str("two to five sentences: what you checked and your overall judgement (Markdown, no headings)"),
}, ["findings", "notes"])


@dataclass(frozen=True)
class MergedReview:
    """The merger's answer: all findings (deduplicated) and the actions for the editor."""

    findings: tuple[Finding, ...]
    actions: tuple[Action, ...]
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))
        object.__setattr__(self, "actions", tuple(self.actions))
        object.__setattr__(self, "notes", _clean_notes(self.notes))

    def to_json(self) -> dict[str, Any]:
        return {"findings": [f.to_json() for f in self.findings], "actions": [a.to_json() for a in self.actions],
                "notes": self.notes}

    @classmethod
    def from_json(cls, obj: Any, path: str = "$") -> MergedReview:
        r = Reader(load(obj, "merged review"), path)
        findings = _findings(r)
        actions = tuple(Action.from_json(x, p) for p, x in r.items("actions"))
        notes = _notes(r, required=False)
        r.done()
        return cls(findings, actions, notes)

    SCHEMA: ClassVar[dict[str, Any]]


MergedReview.SCHEMA = s_obj({
    "findings": s_arr(Finding.SCHEMA, "only a problem a review's notes reveal that no collected finding lists (the "
                                      "tool keeps every collected finding itself); usually empty"),
    "actions": s_arr(Action.SCHEMA, "the edits for the editor, most important first; empty when nothing is to change"),
    "notes": s_str("where reviewers disagreed and which to follow, in a few sentences; empty if nothing to add"),
}, ["findings", "actions", "notes"])
