"""The step registry: the one place that says which steps exist and what each one is —
who does it, where its file lives, which marker proves it complete, what it reads, which
gate follows it, how much it may answer, what its prompt includes and how its answer is
judged. Every other module asks here; none branches on a step's name.

The registry holds data only. Behaviour that belongs to a layer above (how the orchestrator
derives a file without a model, say) is registered by that layer in a dict keyed by the
step key, so this module imports nothing of the layers that use it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import NamedTuple

from .errors import PathError

CHAPTER_RE = re.compile(r"^ch\d{2,}$")

# The step keys, named once. Elsewhere a step is `steps.DRAFT`, never the string.
OUTLINE, SOURCE_MAP, STYLE_GUIDE, AUDIT, INDEX = "outline", "source_map", "style_guide", "audit", "index"
RESEARCH, DRAFT, R1, R2, R3 = "research", "draft", "r1", "r2", "r3"
REVIEW, PANEL, MEMORY, FINAL, HTML = "review", "panel", "memory", "final", "html"

# The tree's directories, named once.
OUT = "output"
MEMORY_DIR = f"{OUT}/memory"
REVIEWS_DIR = f"{OUT}/reviews"
PUBLISH_DIR = f"{OUT}/publish"
CHAPTERS_DIR = f"{OUT}/chapters"


@dataclass(frozen=True)
class Step:
    key: str
    role: str  # the agent (prompt template prompts/<role>.md.j2)
    path: str  # relative to the workspace; a chapter step's has {ch}
    marker: str
    phase: int  # pipeline phase: 1 plan, 2 style, 3 chapters, 4 final + audit, 5 publish
    needs: tuple[str, ...] = ()  # steps of the same chapter that must be done first
    label_en: str = ""
    label_zh: str = ""
    model: bool = True  # False: the orchestrator writes it without a model call
    # What the step reads, at the finest useful grain (the scan's inputs; see scan.input_hash).
    reads: tuple[str, ...] = ()
    state: str = ""  # the chapter's state-machine phase while this step is its next piece of work
    # A gate of this step's name follows it; when a person rejects, this step is redone.
    gate_redo: str | None = None
    # The output cap unless book.yaml names the role (`max_tokens:` or `models:`). Thinking counts
    # against it (Claude 5.x models think adaptively by default), so it is the answer's own size
    # plus room for thinking at the role's effort: THINKING_ROOM below.
    max_tokens: int = 20000
    # output_config.effort (how much the model thinks and writes): low for the roles that copy
    # or sum up what they are given, medium for the reviewers and the researcher, high for the
    # roles that write prose or plan; `models: {role: {effort: ...}}` in book.yaml overrides it.
    effort: str = "medium"
    context: tuple[str, ...] = ()  # earlier steps of the chapter whose bodies its prompt includes
    sources: bool = False  # its prompt includes the chapter's source files
    checks: str = ""  # the deterministic check whose findings its prompt includes (checks layer)
    answer: str = ""  # how its answer is validated (agents.validation)
    verdict: bool = False  # its findings decide whether the chapter moves on (revision, guard)
    long_memory: bool = False  # committing it changes the long-memory aggregates
    replans: bool = False  # committing it changes the plan every other step is read against

    @property
    def chapter(self) -> bool:
        return "{ch}" in self.path

    def file(self, ch: str | None = None) -> str:
        return self.path.format(ch=check_chapter_id(ch)) if self.chapter else self.path

    def label(self, lang: str) -> str:
        return self.label_zh if lang == "zh" else self.label_en


# What thinking may take of max_tokens at each effort (tokens): a step's max_tokens is its answer
# plus this. Measured shapes of an answer (the fake's tokens ~ chars/4): a memory file or merged
# review 1-4k, a review or research report 3-8k, a chapter 6-16k, an outline 4-8k.
THINKING_ROOM = ROOM = {"low": 4000, "medium": 12000, "high": 32000}

# Per-chapter steps, in pipeline order. `longmem`: the long memory of the chapters this one
# may read; a draft does not record it (other chapters' memory changing is R2's to check, so
# one hand edit does not rewrite every later chapter).
STEPS: dict[str, Step] = {
    s.key: s
    for s in (
        Step(RESEARCH, "researcher", f"{OUT}/research/{{ch}}-report.md", "RESEARCH_COMPLETE", 3, (), "Research", "研究",
             reads=(OUTLINE, "sources"), state="researching", gate_redo=RESEARCH, sources=True, answer="headed"),
        Step(DRAFT, "writer", f"{CHAPTERS_DIR}/draft/{{ch}}-draft.md", "DRAFT_COMPLETE", 3, (RESEARCH,), "Write", "写作",
             reads=(OUTLINE, "deps", RESEARCH, "style"), state="writing", max_tokens=16000 + ROOM["high"], effort="high",
             context=(RESEARCH,),
             answer="chapter"),
        Step(R1, "r1_code", f"{REVIEWS_DIR}/{{ch}}-r1.md", "R1_CODE_REVIEW_COMPLETE", 3, (DRAFT,), "R1", "R1审查",
             reads=(DRAFT, "sources"), state="reviewing", sources=True, checks="code",
             context=(DRAFT,), answer="findings"),
        Step(R2, "r2_consistency", f"{REVIEWS_DIR}/{{ch}}-r2.md", "R2_CONSISTENCY_REVIEW_COMPLETE", 3, (DRAFT,), "R2",
             "R2审查", reads=(DRAFT, "style", "longmem"), state="reviewing", checks="consistency",
             context=(DRAFT,), answer="findings"),
        Step(R3, "r3_content", f"{REVIEWS_DIR}/{{ch}}-r3.md", "R3_CONTENT_REVIEW_COMPLETE", 3, (DRAFT,), "R3", "R3审查",
             reads=(DRAFT, OUTLINE), state="reviewing", checks="structure",
             context=(DRAFT,), answer="findings"),
        Step(REVIEW, "merger", f"{REVIEWS_DIR}/{{ch}}-review.md", "REVIEW_COMPLETE", 3, (R1, R2, R3), "Merged review",
             "合并审查", reads=(R1, R2, R3), state="reviewing", gate_redo=DRAFT, max_tokens=6000 + ROOM["low"], effort="low",
             context=(DRAFT, R1, R2, R3), checks="merge", answer="verdict", verdict=True),
        Step(PANEL, "reader_panel", f"{REVIEWS_DIR}/{{ch}}-panel.md", "READER_PANEL_COMPLETE", 3, (REVIEW,), "Reader panel",
             "读者评审", reads=(DRAFT, REVIEW), state="panel", max_tokens=6000 + ROOM["low"], effort="low", context=(DRAFT, REVIEW),
             answer="headed"),
        Step(MEMORY, "memory_keeper", f"{MEMORY_DIR}/chapters/{{ch}}.md", "MEMORY_COMPLETE", 3, (PANEL,), "Memory", "长记忆更新",
             reads=(DRAFT,), state="memory", max_tokens=4000 + ROOM["low"], effort="low", context=(DRAFT,),
             answer="sections", long_memory=True),
        Step(FINAL, "editor", f"{CHAPTERS_DIR}/final/{{ch}}-final.md", "CHAPTER_FINAL", 4, (MEMORY,), "Final", "定稿",
             reads=(DRAFT, REVIEW, PANEL), state="finalizing", gate_redo=FINAL, max_tokens=16000 + ROOM["high"], effort="high",
             context=(DRAFT, REVIEW, PANEL), answer="chapter"),
        Step(HTML, "publisher", f"{PUBLISH_DIR}/{{ch}}.html", "HTML_COMPLETE", 5, (FINAL,), "HTML", "HTML", model=False,
             reads=(FINAL, "toc", "ready", "site", "glossary", "templates", "partial"), state="publishing"),
    )
}
ORDER: tuple[str, ...] = tuple(STEPS)
PHASE3: tuple[str, ...] = tuple(k for k, s in STEPS.items() if s.phase == 3)
REVIEWERS: tuple[str, ...] = tuple(k for k, s in STEPS.items() if s.needs == (DRAFT,) and s.answer == "findings")
# Before the first reviewer comes writing; the steps a revision reruns, group by group.
REVISION: tuple[tuple[str, ...], ...] = ((DRAFT,), REVIEWERS, (REVIEW,))

# Book-level files. The source map, style guide and index are derived by the orchestrator
# (no model call); the outline and the audit are written by agents. `finals` expands to one
# `final:chNN` per chapter. The outline records no inputs: a new plan is asked for, never inferred.
BOOK_STEPS: dict[str, Step] = {
    s.key: s
    for s in (
        Step(OUTLINE, "planner", f"{MEMORY_DIR}/outline.md", "OUTLINE_COMPLETE", 1, gate_redo=OUTLINE,
             max_tokens=8000 + ROOM["high"], effort="high", sources=True, answer="plan", replans=True),
        Step(SOURCE_MAP, "planner", f"{MEMORY_DIR}/source-map.md", "SOURCE_MAP_COMPLETE", 1, model=False,
             reads=("outline_file",)),
        Step(STYLE_GUIDE, "stylist", f"{MEMORY_DIR}/style-guide.md", "STYLE_GUIDE_COMPLETE", 2, model=False,
             reads=("config",)),
        Step(AUDIT, "auditor", f"{REVIEWS_DIR}/book-audit.md", "BOOK_AUDIT_COMPLETE", 4, reads=("finals", "quality"),
             checks="audit", answer="findings"),
        Step(INDEX, "publisher", f"{PUBLISH_DIR}/index.html", "HTML_COMPLETE", 5, model=False,
             reads=("toc", "ready", "site", "summaries", "templates", "glossary", "finals")),  # and print.html, glossary.html
    )
}
ALL_STEPS: dict[str, Step] = BOOK_STEPS | STEPS

# A gate named after the step it approves; a chapter gate sits between that step and the next.
GATES: dict[str, Step] = {k: s for k, s in ALL_STEPS.items() if s.gate_redo}
CHAPTER_GATES: dict[str, str] = {g: ORDER[ORDER.index(g) + 1] for g in GATES if g in STEPS}

# Long-memory aggregates: regenerated from output/memory/chapters/*.md in chapter order.
MEMORY_FILES: dict[str, str] = {
    "glossary": f"{MEMORY_DIR}/glossary.md",
    "summaries": f"{MEMORY_DIR}/chapter-summaries.md",
    "metaphors": f"{MEMORY_DIR}/metaphor-registry.md",
    "xrefs": f"{MEMORY_DIR}/cross-references.md",
}
MEMORY_MARKER = "LONG_MEMORY_COMPLETE"

# Which gates each `gates:` mode of book.yaml turns on.
GATE_MODES: dict[str, tuple[str, ...]] = {"normal": (OUTLINE, RESEARCH, REVIEW, FINAL), "fast": (OUTLINE, FINAL), "off": ()}

CHECKPOINT = f"{MEMORY_DIR}/checkpoint.md"
NEEDS_HUMAN = f"{MEMORY_DIR}/needs-human.md"
CORRECTIONS = f"{MEMORY_DIR}/corrections.md"  # a person's corrections to the long memory (state/corrections.py)
STATE_DB = f"{OUT}/.book/state.db"
LOCK = f"{OUT}/.lock"
RESUME = "RESUME.md"
GATES_DIR = f"{OUT}/gates"

BOOK = "book"  # the unit of a book-level node


class Node(NamedTuple):
    """One piece of work in the plan: a chapter id (or BOOK) and a step key (or a gate node)."""

    unit: str
    step: str


def spec(n: Node | tuple[str, str]) -> Step:
    """The step of a (non-gate) node."""
    return BOOK_STEPS[n[1]] if n[0] == BOOK else STEPS[n[1]]


# file name -> (step, chapter) for a scan of a bare tree: one regex per step directory.
_STEP_FILE_RES: list[tuple[re.Pattern[str], str]] = [
    (re.compile("^" + re.escape(s.path).replace(r"\{ch\}", r"(ch\d{2,})") + "$"), s.key) for s in STEPS.values()
]


def step_of_path(rel: str) -> tuple[str, str] | None:
    """`output/reviews/ch03-r2.md` -> ("ch03", "r2"); anything else -> None."""
    for rx, key in _STEP_FILE_RES:
        m = rx.match(rel)
        if m:
            return m.group(1), key
    return None


def step_dirs() -> dict[str, list[tuple[re.Pattern[str], str]]]:
    """Directory -> [(file-name regex, step key)], so a scan lists each directory once."""
    out: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for s in STEPS.values():
        d, name = s.path.rsplit("/", 1)
        rx = re.compile("^" + re.escape(name).replace(r"\{ch\}", r"(ch\d{2,})") + "$")
        out.setdefault(d, []).append((rx, s.key))
    return out


def check_chapter_id(ch: str | None) -> str:
    if not isinstance(ch, str) or not CHAPTER_RE.match(ch):
        raise PathError(f"invalid chapter id {ch!r}: expected 'ch' and at least two digits, like ch01")
    return ch


def chapter_sort_key(ch: str) -> tuple[int, str]:
    return (int(ch[2:]), ch)


def check_relpath(p: str, what: str = "path") -> str:
    """A path that a config file or a model gave us: relative, inside, no `..`."""
    pp = PurePosixPath(p.replace("\\", "/"))
    if not p or pp.is_absolute() or ".." in pp.parts or re.match(r"^[A-Za-z]:", p):
        raise PathError(f"invalid {what} {p!r}: must be a relative path inside the tree, without '..'")
    return pp.as_posix()
