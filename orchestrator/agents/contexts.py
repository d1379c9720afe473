"""The context each role's prompt is rendered from, as types: the contract between the
orchestrator (`context.gather`), the prompt templates and the offline provider, one TypedDict
per role (`CONTEXT_OF_ROLE`). tests/test_context_types.py checks that what `gather` builds for
each step has exactly its role's keys, so a key added, renamed or dropped on one side shows.

A first step towards typed seams: `Gathered.context` is still a plain dict at run time (the
templates and providers read it by key); these types say which keys there are."""

# No `from __future__ import annotations` here: TypedDict must see NotRequired itself (3.11).

from typing import Any, NotRequired, TypedDict


class BookFacts(TypedDict):
    title: str
    language: str
    audience: str
    brief: str


class ChapterRow(TypedDict):
    """One chapter of the plan, as every role sees the table of contents."""

    id: str
    title: str
    batch: int
    summary: str


class ChapterEntry(TypedDict):
    """The chapter a step works on: its outline entry."""

    id: str
    title: str
    batch: int
    summary: str
    goals: NotRequired[list[str]]  # only when the outline gives some
    depends_on: list[str]
    sources: list[str]


class MemoryView(TypedDict):
    """Long memory as the prompts show it: rows of [term, definition, chapter], [chapter,
    title, summary] and [phrase, meaning, chapter]."""

    glossary: list[list[str]]
    summaries: list[list[str]]
    metaphors: list[list[str]]


class FindingRow(TypedDict):
    check: str
    severity: str
    line: int | None
    message: str
    chapter: NotRequired[str]  # the audit's findings name their chapter


class SourceFile(TypedDict):
    path: str
    kind: str
    lines: int | None


class CommonContext(TypedDict):
    """What every role gets, and what the runner adds for a call."""

    book: BookFacts
    language: str
    personas: list[str]
    style_guide: str  # "" before phase 2 has written it
    chapters: list[ChapterRow]
    outline_yaml: str  # the whole plan, for the cached prompt prefix
    source_root: str  # the offline authors read the tree themselves
    state_db: str
    project_front: str  # the project's README purpose, first example, entry points (planner and chapter 1; else "")
    # added by the runner (pipeline/generation.py, pipeline/answers.py)
    _source_dir: NotRequired[Any]
    source_name: NotRequired[str]
    instructions: NotRequired[str]  # a person's (redo, rejected gate) or a review's (revision)
    # a section rewrite (writer, editor: pipeline/section_redo.py): the heads to write, the chapter as it is
    rewrite_sections: NotRequired[list[str]]
    current_text: NotRequired[str]
    _follow: NotRequired[dict[str, str]]  # what the marker records of the rewrite (section_redo.marker_extra)
    _cited: NotRequired[str]  # other chapters' files it cites, changed under its claims, as they are now (state/cited.py)
    _assembling: NotRequired[bool]  # one section of a chapter written a section at a time (pipeline/section_writer)
    _sections_kept: NotRequired[list[str]]  # stale sections a person edited: kept (the ledger says so)


class PlannerContext(CommonContext):
    limits: dict[str, int]  # max_chapters, batch_size
    source_files: list[SourceFile]
    repo_map: str
    source_summary: str


class AuditorContext(CommonContext):
    finals: dict[str, str]  # chapter -> its final (condensed past the prompt's limit)
    memory: MemoryView
    findings: list[FindingRow]  # the deterministic audit
    quality: dict[str, Any]  # the book's figures, measured by the tool (evidence.quality.Quality.as_dict)


class ChapterContext(CommonContext):
    """What every chapter role gets: its chapter and the long memory it may carry."""

    chapter: ChapterEntry
    memory: MemoryView  # bounded to the role's token budget
    memory_note: str
    memory_bounded: bool


class ResearcherContext(ChapterContext):
    sources: dict[str, str]  # path -> text, bounded by rank
    sources_cut: list[str]  # what the prompt could not carry, lowest rank first; listed in the report
    # sources over the limit: per file, its definitions [name, first, last line], most needed first,
    # and the names of those the cut left out (the report names them: agents.packing)
    source_defs: NotRequired[dict[str, list[list[Any]]]]
    sources_left_out: NotRequired[dict[str, list[str]]]
    imports_from: dict[str, str]  # source path -> the other chapter that covers it
    related_map: str
    tests_map: str
    related_files: list[str]
    test_files: list[str]


class WriterContext(ChapterContext):
    research: str
    cited_lines: dict[str, str]  # "path lines a-b" -> the numbered lines the report's citations point at


class CodeReviewerContext(ChapterContext):
    draft: str
    sources: dict[str, str]
    findings: list[FindingRow]  # the code check's
    verified_blocks: list[str]


class ReviewerContext(ChapterContext):
    """The consistency and the content reviewer: the draft and their check's findings."""

    draft: str
    findings: list[FindingRow]


class MergerContext(ChapterContext):
    draft: str
    r1: str
    r2: str
    r3: str
    findings: list[FindingRow]  # the three reviews' findings, merged
    blocked: bool


class PanelContext(ChapterContext):
    draft: str
    review: str


class MemoryKeeperContext(ChapterContext):
    draft: str


class EditorContext(ChapterContext):
    draft: str
    review: str
    panel: str
    _r1_index: NotRequired[Any]  # the run's R1 source index, for the final's code check (validation)


# role (the step registry's `role`) -> the context its prompt is rendered from
CONTEXT_OF_ROLE: dict[str, type] = {
    "planner": PlannerContext,
    "auditor": AuditorContext,
    "researcher": ResearcherContext,
    "writer": WriterContext,
    "r1_code": CodeReviewerContext,
    "r2_consistency": ReviewerContext,
    "r3_content": ReviewerContext,
    "merger": MergerContext,
    "reader_panel": PanelContext,
    "memory_keeper": MemoryKeeperContext,
    "editor": EditorContext,
}
