"""Marker text in a model's answer is a validation failure, never something to neutralise.

Only the orchestrator writes completion markers. An answer that contains anything in its prose
that looks like one — `<!-- DRAFT_COMPLETE -->`, a marker with attributes, the neutralised
`<!-- (quoted) DRAFT_COMPLETE -->` of earlier runs, `CHAPTER_FINAL` or `NEEDS_HUMAN_REVIEW` as
bare words, in any case or spacing — is rejected with the reasons, so the agents layer can re-ask
the model with them. Nothing is rewritten: what a model wrote is published as written, or not at all.

Inside a closed fenced code block, or an inline code span, the same text is quoted source, not a
forged marker (a span is never a line of its own, so it cannot be read as a file's marker line): a book
about a repository whose code holds these words (this one) must be able to quote that code, and
a file's marker is trusted only on its last line with a matching body hash (state/markers), so
quoted text can never pass for one. An unclosed fence runs to the end of the answer and proves
nothing: its text is scanned as prose. A JSON answer is scanned string by string, each with its
own fences. The reasons never repeat the marker text itself (they reach needs-human.md and
checkpoint.md, and a message must not look like a marker there): they describe it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from .errors import ContractError
from .mdtext import fence_spans, split_lines

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


def _describe(body: str) -> str:
    """What a marker-like comment names, in words that are not a marker themselves."""
    for n in MARKER_NAMES:
        if re.search(r"(?<![A-Za-z0-9])" + _SEP.join(re.escape(p) for p in n.split("_")) + r"(?![A-Za-z0-9])",
                     body, re.I):
            return "the " + n.lower().replace("_", " ") + " marker"
    return "a completion marker"


_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")  # an inline code span, on one line


def _prose(text: str) -> str:
    """`text` with closed fenced code blocks and inline code spans blanked (same offsets, same
    line numbers)."""
    lines = split_lines(text)
    out = text.split("\n")
    for a, b in fence_spans(lines):
        if b < len(lines):  # an unclosed fence is prose
            for k in range(a, b + 1):
                out[k] = " " * len(out[k])
    return "\n".join(_SPAN_RE.sub(lambda m: " " * len(m.group()), ln) for ln in out)


def _text_problems(text: str) -> list[tuple[int, str]]:
    prose = _prose(text)
    out: list[tuple[int, str]] = []
    comments = list(_COMMENT_RE.finditer(prose))
    for m in comments:
        body = m.group("body")
        if any(rx.search(body) for rx in _NAME_RES) or _GENERIC_RE.match(body):
            out.append((_line_of(prose, m.start()), f"an HTML comment shaped like {_describe(body)}"))
    covered = [(m.start(), m.end()) for m in comments]
    for m in _BARE_RE.finditer(prose):
        if any(a <= m.start() < b for a, b in covered):
            continue  # already reported with its comment
        words = " ".join(re.split(r"[\s_\-]+", m.group().lower()))
        out.append((_line_of(prose, m.start()), f"the marker word \"{words}\" written as an identifier"))
    return out


def _strings(obj: object, path: str = "$") -> Iterator[tuple[str, str]]:
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, f"{path}[{i}]")


def marker_problems(text: str) -> list[str]:
    """Every place in the prose of `text` that looks like one of our completion markers, as
    "line N: ..." reasons (empty when there is none). Closed fenced code blocks are quoted
    source and are not scanned; a JSON answer is scanned field by field."""
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return [f"{path} line {n}: {why}" for path, s in _strings(obj) for n, why in sorted(_text_problems(s))]
    return [f"line {n}: {why}" for n, why in sorted(_text_problems(text))]


def check_no_markers(text: str, what: str = "the answer") -> None:
    """Raise ContractError (a ValidationFailed: the runner re-asks with the reason) on marker text."""
    problems = marker_problems(text)
    if problems:
        raise ContractError(f"{what} contains marker text outside code blocks ({'; '.join(problems)}): only the "
                            "orchestrator writes markers; leave it out, describe it in words (\"the draft's "
                            "completion marker\"), or quote it inside a fenced code block")
