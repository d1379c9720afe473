"""The long-memory keeper's answer for one chapter: summary, terms, metaphors, cross references.
Rendered into `output/memory/chapters/chNN.md` in today's format (memoryfiles.render)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from .jsonread import CHAPTER_RE, Reader, load, one_line, s_arr, s_obj, s_str


def _label_problem(s: str, what: str) -> str | None:
    """A term or phrase is written `**term**`: it must survive that (and the `**term:**` variant)."""
    if not s:
        return f"the {what} must not be empty"
    if "**" in s or s.startswith("*") or s.endswith("*"):
        return f"the {what} {s!r} must not contain `**` or start or end with `*` (it is written in bold)"
    if s.endswith((":", "：")):
        return f"the {what} {s!r} must not end with a colon"
    return None


def _summary(s: str) -> str:
    s = " ".join(s.split())
    return "" if s == "(none)" else s


def _summary_problem(s: str) -> str | None:
    if s.startswith("#"):
        return "the summary must not start with `#` (it would read as a heading)"
    if re.match(r"^(`{3,}|~{3,})", s):
        return "the summary must not start with a code fence"
    return None


@dataclass(frozen=True)
class Term:
    term: str
    definition: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "term", one_line(self.term))
        object.__setattr__(self, "definition", one_line(self.definition))
        if p := _label_problem(self.term, "term"):
            raise ValueError(p)
        if not self.definition:
            raise ValueError(f"the term {self.term!r} needs a definition")


@dataclass(frozen=True)
class Metaphor:
    phrase: str  # as the chapter writes it
    meaning: str  # what it stands for

    def __post_init__(self) -> None:
        object.__setattr__(self, "phrase", one_line(self.phrase))
        object.__setattr__(self, "meaning", one_line(self.meaning))
        if p := _label_problem(self.phrase, "phrase"):
            raise ValueError(p)
        if not self.meaning:
            raise ValueError(f"the metaphor {self.phrase!r} needs its meaning")


@dataclass(frozen=True)
class CrossRef:
    chapter: str
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", one_line(self.reason))
        if not CHAPTER_RE.match(self.chapter):
            raise ValueError(f"chapter {self.chapter!r} is not like ch03")
        if not self.reason:
            raise ValueError(f"the cross reference to {self.chapter} needs a reason")


@dataclass(frozen=True)
class MemoryUpdate:
    summary: str  # one paragraph
    terms: tuple[Term, ...] = ()
    metaphors: tuple[Metaphor, ...] = ()
    cross_references: tuple[CrossRef, ...] = ()

    SCHEMA: ClassVar[dict[str, Any]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", _summary(self.summary))
        if problem := _summary_problem(self.summary):
            raise ValueError(problem)
        for k in ("terms", "metaphors", "cross_references"):
            object.__setattr__(self, k, tuple(getattr(self, k)))

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary, "terms": [{"term": t.term, "definition": t.definition} for t in self.terms],
                "metaphors": [{"phrase": m.phrase, "meaning": m.meaning} for m in self.metaphors],
                "cross_references": [{"chapter": x.chapter, "reason": x.reason} for x in self.cross_references]}

    @classmethod
    def from_json(cls, obj: Any, path: str = "$", *, chapter: str | None = None) -> MemoryUpdate:
        """`chapter`: the chapter the memory is of; a cross reference to itself is an error."""
        r = Reader(load(obj, "memory update"), path)
        summary = _summary(r.text("summary"))
        if not summary:
            raise r.fail("summary", "must not be empty")
        if problem := _summary_problem(summary):
            raise r.fail("summary", problem)
        terms, seen = [], set()
        for p, x in r.items("terms"):
            t = Reader(x, p)
            term, definition = t.text("term", line=True), t.text("definition", line=True)
            if problem := _label_problem(term, "term"):
                raise t.fail("term", problem)
            if term.lower() in seen:
                raise t.fail("term", f"{term!r} is listed twice")
            seen.add(term.lower())
            t.done()
            terms.append(Term(term, definition))
        metaphors = []
        for p, x in r.items("metaphors"):
            t = Reader(x, p)
            phrase, meaning = t.text("phrase", line=True), t.text("meaning", line=True)
            if problem := _label_problem(phrase, "phrase"):
                raise t.fail("phrase", problem)
            t.done()
            metaphors.append(Metaphor(phrase, meaning))
        xrefs = []
        for p, x in r.items("cross_references"):
            t = Reader(x, p)
            ch, reason = t.text("chapter", line=True), t.text("reason", line=True)
            if not CHAPTER_RE.match(ch):
                raise t.fail("chapter", f"{ch!r} is not a chapter id like ch03")
            if chapter and ch == chapter:
                raise t.fail("chapter", "a chapter does not refer to itself")
            t.done()
            xrefs.append(CrossRef(ch, reason))
        r.done()
        return cls(summary, tuple(terms), tuple(metaphors), tuple(xrefs))


MemoryUpdate.SCHEMA = s_obj({
    "summary": s_str("three to five sentences, one paragraph: what the chapter explains and the main code it covers "
                     "(symbols in inline code)"),
    "terms": s_arr(s_obj({"term": s_str("the term exactly as the chapter spells it"),
                          "definition": s_str("a one-sentence definition")}, ["term", "definition"]),
                   "the terms this chapter defines (not those of earlier chapters)"),
    "metaphors": s_arr(s_obj({"phrase": s_str("the metaphor as the chapter writes it"),
                              "meaning": s_str("what it stands for")}, ["phrase", "meaning"]),
                       "the chapter's own metaphors"),
    "cross_references": s_arr(s_obj({"chapter": s_str("an outline chapter id, like ch03, never this chapter's"),
                                     "reason": s_str("why this chapter refers to it, in a few words")},
                                    ["chapter", "reason"]),
                              "the other chapters this one links to or builds on"),
}, ["summary", "terms", "metaphors", "cross_references"])
