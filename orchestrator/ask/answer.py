"""An answer from the retrieved passages: extractive (no model) or written by a model. Either way
every `source:` citation printed has been checked at the book's revision (source.check_citations):
an extractive answer leaves out a passage's citation that does not hold; a written answer whose
citation does not hold is asked again once, naming the problems, and what still does not hold is
dropped from the text and said."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..evidence.cite import CITE_RE, citation_link
from .index import Passage, query_words, split_words
from .source import SourceAt, check_citations

EXCERPT_LINES = 40  # source lines shown to the model per cited range, at most
MAX_PASSAGES = 6
SHORT = 8  # a definition this long is shown by its citation alone
MATCH_LINES = 4  # the lines of a long definition an answer points at
EXCERPT_CHARS = 16_000  # of source shown to the model in all (~4.5k tokens: a local model's small window)
PASSAGE_CHARS = 1_500  # of one passage of the book shown to it


@dataclass
class Answer:
    question: str
    text: str  # Markdown
    passages: list[Passage]
    provider: str  # offline | the model's name
    citations: list[tuple[str, int, int]] = field(default_factory=list)  # checked, in order
    dropped: list[str] = field(default_factory=list)  # citations left out, and why
    asked_again: int = 0
    record: str = ""  # where it was kept (output/asked/NNNN.md), once it was

    def chapters(self) -> list[dict[str, str]]:
        out: dict[tuple[str, str], dict[str, str]] = {}
        for p in self.passages:
            if p.chapter and (p.chapter, p.section) not in out:
                out[(p.chapter, p.section)] = {"id": p.chapter, "title": p.title, "section": p.section, "link": p.link}
        return list(out.values())

    def as_json(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.text,
                "citations": [{"path": p, "lines": [a, z]} for p, a, z in self.citations],
                "chapters": self.chapters(), "provider": self.provider, "dropped": self.dropped,
                "asked_again": self.asked_again, "record": self.record}


def _weight(p: Passage) -> float:
    """How much a passage is worth in an answer beside its match: one that cites nothing can only
    repeat the book; a table (a chapter's reference table) lists names, it explains none."""
    w = 1.0 if p.cites else 0.5
    if p.kind == "source":  # raw lines: the book's words and the map's names say more, when they match
        w *= 0.6
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    if lines and all(ln.lstrip().startswith("|") for ln in lines):
        w *= 0.3
    return w


def choose(found: list[Passage], n: int = MAX_PASSAGES) -> list[Passage]:
    """The passages an answer is made of: the best matches, weighed by what they are worth in one."""
    return sorted(found, key=lambda p: -p.score * _weight(p))[:n]


def _where(p: Passage) -> str:
    if p.kind in ("map", "source"):
        what = "repository map" if p.kind == "map" else "source"
        return what + (f" — {p.chapter}: {p.title}" if p.chapter else "")
    if p.kind == "glossary":
        return "glossary" + (f" — {p.chapter}: {p.title}" if p.chapter else "")
    head = f" › {p.section}" if p.section else ""
    return f"{p.chapter}: {p.title}{head} ({p.link})"


def extractive(question: str, found: list[Passage], files: SourceAt) -> Answer:
    """The passages that answer the question, in order, each with where it is in the book; a
    citation whose lines do not hold at the revision is taken out of the passage and listed."""
    picked = choose(found)
    if not picked:
        return Answer(question, "The book has nothing that matches this question.", [], "offline")
    parts: list[str] = []
    cites: list[tuple[str, int, int]] = []
    dropped: list[str] = []
    words = query_words(question)
    for i, p in enumerate(picked, 1):
        text = _keep_holding(p.text, files, cites, dropped, f" ({p.chapter or p.kind})")
        if p.kind in ("map", "source"):  # its citation is its own lines, checked like any other
            (path, a, z), = p.cites
            link = citation_link(path, a, z)
            ok = check_citations(f"`{p.name or path}` {link}", files)  # a definition's name is in its lines
            if ok and ok[0].problem is None:
                cites.append((path, a, z))
                text = f"{text} {link}" + (_code(files, path, a, z) if p.kind == "source" else "")
                if p.kind == "map" and z - a + 1 > SHORT:  # a long body: point at its lines that match
                    where = matching_lines(files, path, a, z, words)
                    if where:
                        x, y = where
                        cites.append((path, x, y))
                        text += (f"\n\nIts lines that match the question {citation_link(path, x, y)}:"
                                 + _code(files, path, x, y, numbered=True))
            else:
                dropped.append(f"{path}#L{a}-L{z} ({p.kind}): {ok[0].problem if ok else 'not checked'}")
        parts.append(f"{i}. {_where(p)}\n\n{_indent(text)}")
    body = "\n\n".join(parts)
    if dropped:
        body += "\n\n" + _dropped_note(dropped)
    return Answer(question, body, picked, "offline", list(dict.fromkeys(cites)), dropped)


def _code(files: SourceAt, path: str, a: int, z: int, numbered: bool = False) -> str:
    lines = files.lines(path)
    if isinstance(lines, str):
        return ""
    shown = [f"{n:>5}  {lines[n - 1]}" if numbered else lines[n - 1] for n in range(a, z + 1)]
    return "\n\n```\n" + "\n".join(shown) + "\n```"


def _same(word: str, token: str) -> bool:
    """A question's word and a token of code, as a person would match them: `parsed` is `parse`,
    `raises` is `raise`."""
    if word == token:
        return True
    short, long_ = sorted((word, token), key=len)
    return len(short) >= 4 and long_.startswith(short[:max(4, len(short) - 2)])


_NOT_CODE = ("#", "//", "*", "/*", "--", '"', "'", 'f"', "f'", 'r"', "r'", "@")


def _body_lines(lines: list[str], a: int, z: int) -> list[int]:
    """The lines of a definition that do its work: after its head (up to the line that ends the
    signature with `:` or `{`), without its doc string and comments, which only repeat its name."""
    out, in_doc, head = [], False, True
    for n in range(a, min(z, len(lines)) + 1):
        t = lines[n - 1].strip()
        if head:
            head = not t.endswith((":", "{", "=>")) and n - a < 10
            continue
        quotes = t.count('"""') + t.count("\'\'\'")
        # a comment, a string's line, a nested definition's head: words about the code, not the code
        prose = (in_doc or quotes > 0 or not t or t.startswith(_NOT_CODE)
                 or re.match(r"^(?:async\s+)?(?:def|class|function|func|fn|pub fn)\s", t) is not None)
        if quotes % 2:
            in_doc = not in_doc
        if not prose:
            out.append(n)
    return out


def matching_lines(files: SourceAt, path: str, a: int, z: int, words: list[str]) -> tuple[int, int] | None:
    """The few lines (at most MATCH_LINES) of a long definition's body that hold the most of the
    question's words, at least two of them (one for a one-word question), or None."""
    lines = files.lines(path)
    if isinstance(lines, str) or not words:
        return None
    body = _body_lines(lines, a, z)
    hits = {n: {w for w in words if any(_same(w, t) for t in split_words(lines[n - 1]))} for n in body}
    best: tuple[int, int, int] = (0, 0, 0)  # (words matched, first, last)
    for i, n in enumerate(body):
        run = [m for m in body[i:i + MATCH_LINES] if m - n < MATCH_LINES + 2]
        got = set().union(*(hits[m] for m in run))
        if len(got) > best[0]:
            matched = [m for m in run if hits[m]]
            best = (len(got), matched[0], matched[-1])
    return (best[1], best[2]) if best[0] >= min(2, len(words)) else None


def _indent(text: str) -> str:
    return "\n".join(("   " + ln) if ln.strip() else "" for ln in text.splitlines())


def _link_text(text: str, ref: str) -> str:
    for m in CITE_RE.finditer(text):
        a, z = m.group(3), m.group(4) or m.group(3)
        if f"{m.group(2).removeprefix('./')}#L{a}-L{z}" == ref:
            return m.group(0)
    return "\x00"  # nothing to replace


def _keep_holding(text: str, files: SourceAt, cites: list[tuple[str, int, int]], dropped: list[str],
                  where: str = "") -> str:
    """The text with every citation whose lines do not hold at the revision taken out (and listed
    in `dropped`, `where` after its reference); the ones that hold are added to `cites`."""
    for c in check_citations(text, files):
        if c.problem:
            dropped.append(f"{c.citation.ref}{where}: {c.problem}")
            text = _without(text, c.citation.ref)
        else:
            cites.append((c.citation.path, c.citation.first, c.citation.last))
    return text


def _without(text: str, ref: str) -> str:
    """The text with the citation `ref` taken out, and the empty parentheses and the space before
    a stop it leaves."""
    text = text.replace(_link_text(text, ref), "")
    text = re.sub(r"(?<=\))[ \t]*,[ \t]*(?=\))|(?<=\()[ \t]*,[ \t]*", "", text)  # ([a](…), ) → ([a](…))
    text = re.sub(r"[ \t]*(?<![\w`\]])\(\s*\)", "", text)  # not a call's `f()`
    return re.sub(r"[ \t]+([.,;:])", r"\1", text)


def _dropped_note(dropped: list[str]) -> str:
    return "Citations left out because their lines do not hold at the book's revision:\n" + "\n".join(
        f"- {d}" for d in dropped)


# ------------------------------------------------------------------ with a model

SYSTEM = """You answer questions about a codebase from a book written about it. Use only the passages \
and source excerpts given. Answer in a few short paragraphs of Markdown. Every sentence that says \
something about the code ends with one or more citations written exactly as \
[path:first-last](source:path#Lfirst-Llast), where the lines are lines of the source excerpts you \
were shown and hold the code the sentence names (put code names in backticks). Cite nothing you \
were not shown. If the passages do not answer the question, say so in one sentence."""


def excerpts(picked: list[Passage], files: SourceAt, words: list[str]) -> str:
    """The cited source lines, numbered, so that the model cites what it has seen: a long range by
    its lines that match the question (and those around them), the whole within a budget that a
    small local model's window takes."""
    out: list[str] = []
    seen: set[tuple[str, int, int]] = set()
    size = 0
    for p in picked:
        for path, a, z in p.cites:
            if (path, a, z) in seen:
                continue
            seen.add((path, a, z))
            lines = files.lines(path)
            if isinstance(lines, str) or a > len(lines):
                continue
            z = min(z, len(lines))
            if z - a + 1 > EXCERPT_LINES:
                hit = matching_lines(files, path, a, z, words)
                if hit:
                    a = max(a, hit[0] - EXCERPT_LINES // 3)
                z = min(z, a + EXCERPT_LINES - 1)
            body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(a, z + 1))
            piece = f"source:{path} lines {a}-{z}\n```\n{body}\n```"
            if size + len(piece) > EXCERPT_CHARS:
                return "\n\n".join(out)
            out.append(piece)
            size += len(piece)
    return "\n\n".join(out)


def prompt(question: str, picked: list[Passage], files: SourceAt) -> str:
    ps = "\n\n".join(f"[{_where(p)}]\n{_cut(p.text, PASSAGE_CHARS)}" for p in picked)
    return (f"Passages of the book:\n\n{ps}\n\nSource at the book's revision:\n\n"
            f"{excerpts(picked, files, query_words(question))}\n\nQuestion: {question}")


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n].rsplit("\n", 1)[0] + "\n…"


def again(first_prompt: str, answer: str, problems: list[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems)
    return (f"{first_prompt}\n\nYour previous answer was:\n\n{answer}\n\nThese citations in it do not hold "
            f"against the source:\n{listed}\n\nWrite the answer again, citing only lines of the excerpts "
            "above that hold the code each sentence names.")


async def written(question: str, found: list[Passage], files: SourceAt, call: Callable[[str], Any],
                  model: str) -> Answer:
    """A model's answer from the passages. `call(prompt)` is awaited and returns the text."""
    picked = choose(found)
    if not picked:
        return Answer(question, "The book has nothing that matches this question.", [], model)
    first = prompt(question, picked, files)
    text = (await call(first)).strip()
    asked = 0
    bad = [c for c in check_citations(text, files) if c.problem]
    if bad:
        asked = 1
        text = (await call(again(first, text, [f"{c.citation.ref}: {c.problem}" for c in bad]))).strip()
    dropped: list[str] = []
    cites: list[tuple[str, int, int]] = []
    text = _keep_holding(text, files, cites, dropped)
    if dropped:
        text += "\n\n" + _dropped_note(dropped)
    return Answer(question, text, picked, model, list(dict.fromkeys(cites)), dropped, asked)
