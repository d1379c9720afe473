"""The reader panel's answer: for each persona, a verdict, a score, the questions the chapter
leaves open and the places where the reader got confused."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import ContractError
from .findings import _norm_range
from .jsonread import Reader, load, one_line, s_arr, s_int, s_obj, s_str
from .mdtext import normalise_block

NONE_RE = re.compile(r"^\(?\s*(?:none|nothing|n/a|无|没有)\s*\)?\.?$", re.I)  # what a list says when empty
VERDICTS = ("ready", "revise")  # ready: this reader follows the chapter; revise: the editor must act


def persona_problem(name: str) -> str | None:
    """A persona's name is a `## ` heading of the panel file: it must read back as itself."""
    if not name or name.startswith("#") or re.search(r"(^|[ \t])#+$", name):
        return f"the persona {name!r} must be a name (not empty, not starting or ending with `#`)"
    return None


@dataclass(frozen=True)
class Confusion:
    message: str  # what got in the way (one line)
    line: int = 0
    end_line: int | None = None
    quote: str = ""
    suggestion: str = ""  # what would help (one line)

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_line(self.message))
        if not self.message:
            raise ValueError("a confusion needs a message")
        object.__setattr__(self, "suggestion", one_line(self.suggestion))
        object.__setattr__(self, "quote", normalise_block(self.quote))
        object.__setattr__(self, "end_line", _norm_range(self.line, self.end_line))


@dataclass(frozen=True)
class ReaderFeedback:
    persona: str  # the persona's name as book.yaml gives it
    verdict: str  # "ready" | "revise"
    score: int  # 1..5: how well the chapter served this reader
    questions: tuple[str, ...] = ()
    confusions: tuple[Confusion, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "persona", one_line(self.persona))
        object.__setattr__(self, "questions", tuple(one_line(q) for q in self.questions))
        if problem := persona_problem(self.persona):
            raise ValueError(problem)
        for q in self.questions:
            if not q or NONE_RE.match(q):
                raise ValueError(f"the question {q!r} is not a question (leave the list empty instead)")
        object.__setattr__(self, "confusions", tuple(self.confusions))
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        if not 1 <= self.score <= 5:
            raise ValueError(f"score {self.score} is not 1..5")


@dataclass(frozen=True)
class PanelFeedback:
    readers: tuple[ReaderFeedback, ...]

    SCHEMA: ClassVar[dict[str, Any]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "readers", tuple(self.readers))

    def to_json(self) -> dict[str, Any]:
        out = []
        for r in self.readers:
            cs = []
            for c in r.confusions:
                d: dict[str, Any] = {"message": c.message}
                if c.line:
                    d["line"] = c.line
                if c.end_line:
                    d["end_line"] = c.end_line
                if c.quote:
                    d["quote"] = c.quote
                if c.suggestion:
                    d["suggestion"] = c.suggestion
                cs.append(d)
            out.append({"persona": r.persona, "verdict": r.verdict, "score": r.score,
                        "questions": list(r.questions), "confusions": cs})
        return {"readers": out}

    @classmethod
    def from_json(cls, obj: Any, path: str = "$", *, personas: list[str] | None = None) -> PanelFeedback:
        """`personas`: the names the panel must answer for, in order (book.yaml's personas)."""
        root = Reader(load(obj, "panel feedback"), path)
        readers = []
        for p, x in root.items("readers"):
            r = Reader(x, p)
            persona = r.text("persona", line=True)
            if problem := persona_problem(persona):
                raise r.fail("persona", problem)
            verdict = r.choice("verdict", VERDICTS)
            score = r.integer("score", low=1, high=5)
            questions = r.strings("questions")
            for i, q in enumerate(questions):
                if NONE_RE.match(q):
                    raise ContractError("not a question: leave the array empty instead", path=f"{p}.questions[{i}]")
            confusions = []
            for cp, cx in r.items("confusions"):
                c = Reader(cx, cp)
                message = c.text("message", line=True)
                line = c.integer("line", required=False) or 0
                end = c.integer("end_line", required=False) or None
                if end is not None and (not line or end < line):
                    raise c.fail("end_line", "a range needs `line` and must not run backwards")
                quote = c.text("quote", required=False)
                suggestion = c.text("suggestion", required=False, line=True)
                c.done()
                confusions.append(Confusion(message, line, end, quote, suggestion))
            r.done()
            readers.append(ReaderFeedback(persona, verdict, score or 1, questions, tuple(confusions)))
        root.done()
        if personas is not None:
            want = [one_line(n) for n in personas]
            got = [r.persona for r in readers]
            if got != want:
                raise root.fail("readers", f"expected one entry per reader, in this order: {', '.join(want)}; "
                                           f"found: {', '.join(got) or 'none'}")
        elif len({r.persona for r in readers}) != len(readers):
            raise root.fail("readers", "a persona appears twice")
        return cls(tuple(readers))


PanelFeedback.SCHEMA = s_obj({
    "readers": s_arr(s_obj({
        "persona": s_str("the reader's name, exactly as listed"),
        "verdict": s_str("ready: this reader can follow the chapter and would read on; revise: they stumbled "
                         "enough that the editor must act", VERDICTS),
        "score": s_int("1 (lost) to 5 (served perfectly): how well the chapter served this reader"),
        "questions": s_arr(s_str("one question, one sentence"),
                           "questions this reader is left with after the chapter, most important first"),
        "confusions": s_arr(s_obj({
            "line": s_int("first line (as numbered in the prompt); omit for the whole chapter"),
            "end_line": s_int("last line of the range"),
            "quote": s_str("the words that lost the reader, copied exactly"),
            "message": s_str("what got in the way and why, for this reader"),
            "suggestion": s_str("what would help, in one sentence"),
        }, ["message"]), "places where this reader stumbled, at most eight, most important first"),
    }, ["persona", "verdict", "score", "questions", "confusions"]), "one entry per reader, in the order given"),
}, ["readers"])
