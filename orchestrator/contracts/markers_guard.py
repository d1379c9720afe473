"""Marker text in a model's answer is a validation failure, never something to neutralise.

Only the orchestrator writes completion markers. An answer that contains anything
that looks like one — `<!-- DRAFT_COMPLETE -->`, a marker with attributes, the neutralised
`<!-- (quoted) DRAFT_COMPLETE -->` of earlier runs, `CHAPTER_FINAL` or `NEEDS_HUMAN_REVIEW`
as bare words, in any case or spacing, inside code blocks too (the published page shows
code blocks) — is rejected with the reasons, so the agents layer can re-ask the model with
them. Nothing is rewritten: what a model wrote is published as written, or not at all."""

from __future__ import annotations

import re

from .errors import ContractError

# Names of our markers: the step table's (steps.py) plus the two words with a meaning of their
# own. Listed here so the guard needs no import of the step table (it runs on every answer).
MARKER_NAMES = ("RESEARCH_COMPLETE", "DRAFT_COMPLETE", "R1_CODE_REVIEW_COMPLETE", "R2_CONSISTENCY_REVIEW_COMPLETE",
                "R3_CONTENT_REVIEW_COMPLETE", "REVIEW_COMPLETE", "READER_PANEL_COMPLETE", "MEMORY_COMPLETE",
                "CHAPTER_FINAL", "HTML_COMPLETE", "OUTLINE_COMPLETE", "BOOK_AUDIT_COMPLETE", "NEEDS_HUMAN_REVIEW")
_SEP = r"[\s_\-]*"  # `DRAFT COMPLETE`, `draft-complete`, `Draft_Complete`
# Any HTML comment whose first word (after an optional "(quoted)"-like prefix) is an
# upper-case-with-underscores word ending in COMPLETE/FINAL/REVIEW, or one of our names.
_COMMENT_RE = re.compile(r"<!--(?P<body>.*?)(?:-->|$)", re.S)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:" + _SEP + r"[A-Za-z0-9]+)*")
_NAME_RES = [re.compile(r"(?<![A-Za-z0-9])" + _SEP.join(re.escape(p) for p in n.split("_")) + r"(?![A-Za-z0-9])", re.I)
             for n in MARKER_NAMES]
# Outside a comment the two bare words count in their identifier forms only (any case with
# underscores, or upper case with spaces), so that prose like "needs human review" stays prose.
_BARE_RE = re.compile(r"(?<![A-Za-z0-9_])(?:(?i:chapter_+final|needs_+human_+review)"
                      r"|CHAPTER[\s-]+FINAL|NEEDS[\s-]+HUMAN[\s-]+REVIEW)(?![A-Za-z0-9_])")
_GENERIC_RE = re.compile(r"^\s*(?:\(\s*[a-z ]+\s*\)\s*)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:COMPLETE|FINAL|DONE)\b")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def marker_problems(text: str) -> list[str]:
    """Every place in `text` that looks like one of our completion markers, as
    "line N: ..." reasons (empty when there is none)."""
    out: list[tuple[int, str]] = []
    for m in _COMMENT_RE.finditer(text):
        body = m.group("body")
        named = any(rx.search(body) for rx in _NAME_RES) or _GENERIC_RE.match(body)
        if named:
            snippet = " ".join(m.group().split())[:80]
            out.append((_line_of(text, m.start()),
                        f"the HTML comment {snippet!r} looks like a completion marker"))
    covered = [(m.start(), m.end()) for m in _COMMENT_RE.finditer(text)]
    for m in _BARE_RE.finditer(text):
        if any(a <= m.start() < b for a, b in covered):
            continue  # already reported with its comment
        out.append((_line_of(text, m.start()), f"{m.group()!r} is one of the orchestrator's marker words"))
    out.sort()
    return [f"line {n}: {why}" for n, why in out]


def check_no_markers(text: str, what: str = "the answer") -> None:
    """Raise ContractError (a ValidationFailed: the runner re-asks with the reason) on marker text."""
    problems = marker_problems(text)
    if problems:
        raise ContractError(f"{what} contains marker text ({'; '.join(problems)}): only the orchestrator writes "
                            "markers; leave it out, or describe it in words (\"the draft's completion marker\")")
