"""The planner's answer: the book's title, a short intro for people, and the book's parts,
each with its title and its chapters (batch, dependencies, source files and goals). The fields
of the outline (`orchestrator/outline.py`: id, title, batch, summary, depends_on, sources) are
kept; `goals` (what the reader can do after the chapter) is new. An answer, or an outline file,
with a flat `chapters` list and no parts still reads (its parts are derived, as before)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from ..outline import find_cycle
from ..steps import OUTLINE
from .errors import ContractError
from .jsonread import CHAPTER_RE, Reader, load, one_line, s_arr, s_int, s_obj, s_str
from .mdtext import block_problem, normalise_block
from .title_shape import name_title

# of the chapters after the first, the share of titles that only name code an answer may have: more is an
# inventory (issue 35 measured 91 % before), asked again; each such title is also a risk on the outline's card
MAX_NAME_TITLES = 1 / 3


def path_problem(p: str) -> str | None:
    """A source path from a model: relative, inside the source tree, no `..` (as steps.check_relpath)."""
    q = p.replace("\\", "/")
    if not q or q.startswith("/") or re.match(r"^[A-Za-z]:", q) or ".." in q.split("/"):
        return f"{p!r} must be a relative path inside the source tree, without `..`"
    return None


@dataclass(frozen=True)
class PlannedChapter:
    id: str
    title: str
    batch: int
    summary: str = ""
    goals: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", one_line(self.title))
        object.__setattr__(self, "summary", one_line(self.summary))
        for k in ("goals", "depends_on", "sources"):
            object.__setattr__(self, k, tuple(one_line(x) for x in getattr(self, k)))

    def entry(self) -> dict[str, Any]:
        """The YAML entry, in today's field order; `goals` only when there are some."""
        out: dict[str, Any] = {"id": self.id, "title": self.title, "batch": self.batch, "summary": self.summary}
        if self.goals:
            out["goals"] = list(self.goals)
        out["depends_on"] = list(self.depends_on)
        out["sources"] = list(self.sources)
        return out


@dataclass(frozen=True)
class PlannedPart:
    title: str
    chapters: tuple[str, ...]  # the ids of its chapters, as listed

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", " ".join(self.title.split()))
        object.__setattr__(self, "chapters", tuple(self.chapters))


@dataclass(frozen=True)
class OutlinePlan:
    title: str
    intro: str  # a short paragraph for people, above the YAML block
    chapters: tuple[PlannedChapter, ...]  # every chapter, in the order listed
    parts: tuple[PlannedPart, ...] = ()  # () for a plan without parts

    SCHEMA: ClassVar[dict[str, Any]]

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", one_line(self.title))
        object.__setattr__(self, "intro", normalise_block(self.intro).strip())
        object.__setattr__(self, "chapters", tuple(self.chapters))
        object.__setattr__(self, "parts", tuple(self.parts))

    def grouped(self, entry) -> dict[str, Any]:
        """`parts` (each with its chapters, as `entry` gives them) or, without parts, `chapters`."""
        if not self.parts:
            return {"chapters": [entry(c) for c in self.chapters]}
        by_id = {c.id: c for c in self.chapters}
        return {"parts": [{"title": p.title, "chapters": [entry(by_id[i]) for i in p.chapters]} for p in self.parts]}

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "intro": self.intro, **self.grouped(lambda c: c.entry() | {"goals": list(c.goals)})}

    @classmethod
    def from_json(cls, obj: Any, path: str = "$", *, source_files: set[str] | None = None) -> OutlinePlan:
        """`source_files`: the source tree's files; a chapter citing another path is an error."""
        r = Reader(load(obj, OUTLINE), path)
        title = r.text("title", line=True)
        intro = r.text("intro", required=False)
        if intro and (problem := block_problem(intro, "intro", max_level=6)):
            raise r.fail("intro", problem)
        if intro and re.search(r"^\s*(`{3}|~{3})", intro, re.M):
            raise r.fail("intro", "must not contain a code block")
        chapters: list[PlannedChapter] = []
        where: dict[str, str] = {}
        parts: list[tuple[str, int]] = []  # (title, how many chapters)
        if "parts" in r.obj and "chapters" in r.obj:
            raise r.fail("chapters", "give either `parts` (each with its chapters) or `chapters`, not both")
        listed: list[tuple[str, Any]] = []
        if "parts" in r.obj:
            for pp, x in r.items("parts"):
                part = Reader(x, pp)
                ptitle = part.text("title", line=True)
                items = part.items("chapters")
                part.done()
                if not items:
                    raise part.fail("chapters", "a part needs at least one chapter")
                listed += items
                parts.append((ptitle, len(items)))
        else:
            listed = r.items("chapters")
        for p, x in listed:
            c = Reader(x, p)
            cid = c.text("id", line=True)
            if not CHAPTER_RE.match(cid):
                raise c.fail("id", f"{cid!r} is not a chapter id like ch01")
            if cid in where:
                raise c.fail("id", f"{cid} appears twice (first at {where[cid]})")
            where[cid] = p
            ctitle = c.text("title", line=True)
            batch = c.integer("batch", low=1) or 1
            summary = c.text("summary", required=False, line=True)
            goals = c.strings("goals", required=False)
            deps = c.strings("depends_on", required=False)
            srcs = c.strings("sources", required=False)
            for i, s in enumerate(srcs):
                problem = path_problem(s)
                if problem is None and source_files is not None and s not in source_files:
                    problem = f"{s!r} is not a file of the source tree"
                if problem:
                    raise c.fail(f"sources[{i}]", problem)
            c.done()
            chapters.append(PlannedChapter(cid, ctitle, batch, summary, goals, deps, srcs))
        r.done()
        if not chapters:
            raise r.fail("chapters", "the outline needs at least one chapter")
        by_id = {ch.id: ch for ch in chapters}
        for ch in chapters:
            for i, d in enumerate(ch.depends_on):
                at = f"{where[ch.id]}.depends_on[{i}]"
                if d not in by_id:
                    raise ContractError(f"{ch.id} depends on {d!r}, which is not a chapter of the outline", path=at)
                if d == ch.id:
                    raise ContractError(f"{ch.id} depends on itself", path=at)
                if by_id[d].batch > ch.batch:
                    raise ContractError(f"{ch.id} (batch {ch.batch}) depends on {d} of a later batch ({by_id[d].batch})",
                                        path=at)
        if cycle := find_cycle({c.id: c.depends_on for c in chapters}):
            raise r.fail("chapters", "chapters depend on each other in a cycle: " + " -> ".join(cycle))
        ids = iter(c.id for c in chapters)
        return cls(title, intro, tuple(chapters), tuple(PlannedPart(t, tuple(next(ids) for _ in range(n))) for t, n in parts))


def inventory_titles(plan: OutlinePlan) -> ContractError | None:
    """A model's plan whose chapter titles are an inventory (more than MAX_NAME_TITLES of those
    after the first only name code), as the error the model is asked again with; None when the
    titles say ideas. Only a model's answer is held to it: a person's outline, and the offline
    planner's (which cannot answer differently when asked again), are theirs; the outline's card
    lists every such title as a risk (pipeline/outline_checks.py)."""
    rest = plan.chapters[1:]
    named = [(c.id, c.title, why) for c in rest if (why := name_title(c.title, c.sources, project=plan.title))]
    if len(named) <= MAX_NAME_TITLES * max(1, len(rest)):
        return None
    cid, ctitle, why = named[0]
    return ContractError(f"{len(named)} of {len(plan.chapters)} chapter titles only name code, e.g. {cid} {ctitle!r} "
                         f"({why}): a title says the idea the reader will understand (\"Routing a request\", \"How a "
                         "command finds its subcommand\"), the names go inside the chapter", path=f"$.chapters[{cid}].title")


OutlinePlan.SCHEMA = s_obj({
    "title": s_str("the book's title"),
    "intro": s_str("two or three sentences for people: what the book explains, to whom, in which order"),
    "parts": s_arr(s_obj({
        "title": s_str("the part's title, in the book's language (Part 1: the big picture)"),
        "chapters": s_arr(s_obj({
        "id": s_str("ch01, ch02, ... in reading order (at least two digits)"),
        "title": s_str("the chapter's title"),
        "batch": s_int("the batch (1, 2, ...): chapters of a batch are written at the same time, so a chapter "
                       "depends only on chapters of its own or an earlier batch"),
        "summary": s_str("one sentence: what the chapter explains"),
        "goals": s_arr(s_str("one goal"), "two to four things the reader can do or explain after the chapter"),
        "depends_on": s_arr(s_str("a chapter id"), "the chapters this one builds on"),
        "sources": s_arr(s_str("a path relative to the source root"), "the source files the chapter explains"),
        }, ["id", "title", "batch", "summary", "goals", "depends_on", "sources"]), "the part's chapters in reading order"),
    }, ["title", "chapters"]), "the book's parts in reading order; every chapter belongs to exactly one"),
}, ["title", "intro", "parts"])
