"""The step table: the one place that says which steps exist, who does them, where their
files live and which marker proves them complete (DESIGN §1). Everything else asks here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from .errors import PathError

CHAPTER_RE = re.compile(r"^ch\d{2,}$")


@dataclass(frozen=True)
class Step:
    key: str
    role: str  # the agent (prompt template prompts/<role>.md.j2)
    path: str  # relative to the workspace, with {ch}
    marker: str
    phase: int  # pipeline phase (DESIGN §1)
    needs: tuple[str, ...]  # steps of the same chapter that must be done first
    label_en: str
    label_zh: str
    model: bool = True  # False: the orchestrator writes it without a model call

    def file(self, ch: str) -> str:
        return self.path.format(ch=check_chapter_id(ch))


# Per-chapter steps, in pipeline order.
STEPS: dict[str, Step] = {
    s.key: s
    for s in (
        Step("research", "researcher", "output/research/{ch}-report.md", "RESEARCH_COMPLETE", 3, (), "Research", "研究"),
        Step("draft", "writer", "output/chapters/draft/{ch}-draft.md", "DRAFT_COMPLETE", 3, ("research",), "Write", "写作"),
        Step("r1", "r1_code", "output/reviews/{ch}-r1.md", "R1_CODE_REVIEW_COMPLETE", 3, ("draft",), "R1", "R1审查"),
        Step("r2", "r2_consistency", "output/reviews/{ch}-r2.md", "R2_CONSISTENCY_REVIEW_COMPLETE", 3, ("draft",), "R2", "R2审查"),
        Step("r3", "r3_content", "output/reviews/{ch}-r3.md", "R3_CONTENT_REVIEW_COMPLETE", 3, ("draft",), "R3", "R3审查"),
        Step("review", "merger", "output/reviews/{ch}-review.md", "REVIEW_COMPLETE", 3, ("r1", "r2", "r3"), "Merged review", "合并审查"),
        Step("panel", "reader_panel", "output/reviews/{ch}-panel.md", "READER_PANEL_COMPLETE", 3, ("review",), "Reader panel", "读者评审"),
        Step("memory", "memory_keeper", "output/memory/chapters/{ch}.md", "MEMORY_COMPLETE", 3, ("panel",), "Memory", "长记忆更新"),
        Step("final", "editor", "output/chapters/final/{ch}-final.md", "CHAPTER_FINAL", 4, ("memory",), "Final", "定稿"),
        Step("html", "publisher", "output/publish/{ch}.html", "HTML_COMPLETE", 5, ("final",), "HTML", "HTML", model=False),
    )
}
ORDER: tuple[str, ...] = tuple(STEPS)
PHASE3: tuple[str, ...] = tuple(k for k, s in STEPS.items() if s.phase == 3)
REVIEWERS: tuple[str, ...] = ("r1", "r2", "r3")


@dataclass(frozen=True)
class BookStep:
    key: str
    role: str
    path: str
    marker: str
    phase: int
    model: bool = True


# Book-level files. The source map, style guide and long-memory aggregates are derived
# by the orchestrator (no model call); the outline and the audit are written by agents.
BOOK_STEPS: dict[str, BookStep] = {
    s.key: s
    for s in (
        BookStep("outline", "planner", "output/memory/outline.md", "OUTLINE_COMPLETE", 1),
        BookStep("source_map", "planner", "output/memory/source-map.md", "SOURCE_MAP_COMPLETE", 1, model=False),
        BookStep("style_guide", "stylist", "output/memory/style-guide.md", "STYLE_GUIDE_COMPLETE", 2, model=False),
        BookStep("audit", "auditor", "output/reviews/book-audit.md", "BOOK_AUDIT_COMPLETE", 4),
        BookStep("index", "publisher", "output/publish/index.html", "HTML_COMPLETE", 5, model=False),
    )
}

# Long-memory aggregates: regenerated from output/memory/chapters/*.md in chapter order.
MEMORY_FILES: dict[str, str] = {
    "glossary": "output/memory/glossary.md",
    "summaries": "output/memory/chapter-summaries.md",
    "metaphors": "output/memory/metaphor-registry.md",
    "xrefs": "output/memory/cross-references.md",
}
MEMORY_MARKER = "LONG_MEMORY_COMPLETE"

# Which gates each `gates:` mode of book.yaml turns on (DESIGN §6).
GATE_MODES: dict[str, tuple[str, ...]] = {"normal": ("outline", "research", "review", "final"),
                                          "fast": ("outline", "final"), "off": ()}

CHECKPOINT = "output/memory/checkpoint.md"
NEEDS_HUMAN = "output/memory/needs-human.md"
STATE_DB = "output/.book/state.db"
LOCK = "output/.lock"
RESUME = "RESUME.md"
GATES_DIR = "output/gates"

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


def check_chapter_id(ch: str) -> str:
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
