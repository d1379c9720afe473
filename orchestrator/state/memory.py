"""Long memory: the per-chapter files `output/memory/chapters/chNN.md` and the aggregates
(glossary, chapter summaries, metaphor registry, cross references) regenerated from them in
chapter order. The per-chapter files are the truth; the aggregates are views."""

from __future__ import annotations

import copy
import weakref
from dataclasses import dataclass, field
from functools import cached_property

from ..steps import MEMORY, STEPS, chapter_sort_key
from .markers import body_of, saved_as_lf

SECTIONS = ("Summary", "Glossary", "Metaphors", "Cross references")


@dataclass
class ChapterMemory:
    chapter: str
    title: str = ""
    summary: str = ""
    glossary: list[tuple[str, str]] = field(default_factory=list)  # (term, definition)
    metaphors: list[tuple[str, str]] = field(default_factory=list)  # (phrase, what it explains)
    xrefs: list[tuple[str, str]] = field(default_factory=list)  # (chapter, why)
    warnings: tuple[str, ...] = ()  # lines of a person's edit that are not entries (parse_memory says which)


def render(mem: ChapterMemory) -> str:
    out = [f"# Memory: {mem.chapter} — {mem.title}", "", "## Summary", "", mem.summary.strip() or "(none)", "",
           "## Glossary", ""]
    out += [f"- **{t}**: {d}" for t, d in mem.glossary] or ["(none)"]
    out += ["", "## Metaphors", ""]
    out += [f"- **{p}**: {m}" for p, m in mem.metaphors] or ["(none)"]
    out += ["", "## Cross references", ""]
    out += [f"- {c}: {w}" for c, w in mem.xrefs] or ["(none)"]
    return "\n".join(out) + "\n"


def parse(chapter: str, text: str, file: str = "the memory file") -> ChapterMemory:
    """A chapter's memory file, read strictly (contracts.parse.parse_memory: any bullet, any dash,
    `**term:** def`, `[title](ch03.md): why`, ...); what cannot be read raises ContractError
    naming `file` and the line, never a silent skip."""
    from ..contracts.parse import parse_memory

    p = parse_memory(text, file=file)
    m = p.update
    return ChapterMemory(chapter, p.title, m.summary, [(t.term, t.definition) for t in m.terms],
                         [(x.phrase, x.meaning) for x in m.metaphors], [(x.chapter, x.reason) for x in m.cross_references],
                         p.warnings)


def missing_sections(text: str) -> list[str]:
    heads = {line[3:].strip() for line in text.splitlines() if line.startswith("## ")}
    return [s for s in SECTIONS if s not in heads]


@dataclass
class LongMemory:
    """What a chapter may read of the others: built from per-chapter files, in chapter order.

    Treat it as read-only: `long_memory` hands the same object to every step that reads the same
    chapters while their files are unchanged, and the views below are computed once per object."""

    chapters: list[ChapterMemory] = field(default_factory=list)
    # what it was built from ((chapter, file identity)..., corrections): equal keys, equal memories
    key: tuple = ()
    # what readers compute from it once (agents.memory_budget's term index): not part of its value
    derived: dict = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def _glossary(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for m in self.chapters:
            for t, _ in m.glossary:
                out.setdefault(t, m.chapter)
        return out

    @property
    def glossary(self) -> dict[str, str]:
        """term -> the chapter that defined it first (a copy: the caller's to change)."""
        return dict(self._glossary)

    @cached_property
    def _metaphors(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for m in self.chapters:
            for p, _ in m.metaphors:
                out.setdefault(p, m.chapter)
        return out

    @property
    def metaphors(self) -> dict[str, str]:
        return dict(self._metaphors)

    @cached_property
    def _entries(self) -> tuple[tuple[str, str, str], ...]:
        seen: set[str] = set()
        out = []
        for m in self.chapters:
            for t, d in m.glossary:
                if t.lower() not in seen:
                    seen.add(t.lower())
                    out.append((t, d, m.chapter))
        return tuple(out)

    def glossary_entries(self) -> list[tuple[str, str, str]]:
        return list(self._entries)

    @cached_property
    def by_id(self) -> dict[str, ChapterMemory]:
        return {m.chapter: m for m in self.chapters}


def aggregates(mem: LongMemory, lang: str = "en") -> dict[str, str]:
    """The four aggregate files' bodies (without markers), keyed as steps.MEMORY_FILES."""
    zh = lang == "zh"
    g = ["# " + ("术语表" if zh else "Glossary"), ""]
    g += [f"- **{t}** ({c}): {d}" for t, d, c in mem.glossary_entries()] or ["(empty)"]
    s = ["# " + ("章节摘要" if zh else "Chapter summaries"), ""]
    for m in mem.chapters:
        s += [f"## {m.chapter} — {m.title}", "", m.summary or "(none)", ""]
    if not mem.chapters:
        s.append("(empty)")
    r = ["# " + ("隐喻登记" if zh else "Metaphor registry"), ""]
    r += [f"- **{p}** ({m.chapter}): {w}" for m in mem.chapters for p, w in m.metaphors] or ["(empty)"]
    x = ["# " + ("交叉引用" if zh else "Cross references"), ""]
    x += [f"- {m.chapter} → {c}: {w}" for m in mem.chapters for c, w in m.xrefs] or ["(empty)"]
    return {"glossary": "\n".join(g), "summaries": "\n".join(s), "metaphors": "\n".join(r), "xrefs": "\n".join(x)}


def read_body(root, rel: str) -> str:
    """A file's text without its marker line ("" when absent)."""
    p = root / rel
    try:
        data = p.read_bytes()
    except OSError:
        return ""
    return saved_as_lf(body_of(data)).decode("utf-8", "replace").rstrip() + "\n"


# path -> (the file's identity when parsed, its parse): a chapter's memory is read once and
# parsed again only when its file changes, so long memory costs O(changed chapters) per step.
_PARSED: dict[str, tuple[tuple[int, float, str | None], ChapterMemory]] = {}


# scanner -> {chapters read: (epochs, LongMemory)}: a step reads long memory once per change of
# the memory files, not once per step (every step of a batch reads the same earlier chapters).
_BUILT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BUILT_SIZE = 64
_MEMORY_DIR = STEPS[MEMORY].file("ch01").rpartition("/")[0]  # the directory the scanner invalidates


def long_memory(book, chapters: list[str], problems: list[str] | None = None) -> LongMemory:
    """The long memory of `chapters` (in chapter order), as the scanner sees their memory files.
    A file that cannot be read raises its ContractError (the step that reads it fails, naming
    the file) unless `problems` is given: then the error goes there and the file is left out (the
    aggregates, which list every chapter, go on without it); the lines a readable file leaves out
    (parse_memory's warnings) go there too.

    Without `problems` (every step's read) it is O(1) while no memory file changed: kept per set
    of chapters and the scanner's invalidations of the memory directory (Scanner.epochs); rebuilt
    from the parsed files when one changed, and the same object is handed out again when what it
    was built from is the same. With `problems` (the aggregates, the site) it is read afresh."""
    from .corrections import load

    if problems is not None:
        return _build(book, tuple(chapters), load(book.root), problems)
    scanner = book.scanner
    built = _BUILT.get(scanner)
    if built is None:
        built = _BUILT[scanner] = {}
    corrections = load(book.root)
    want = tuple(chapters)
    now = (scanner.epochs.get("", 0), scanner.epochs.get(_MEMORY_DIR, 0), corrections)
    hit = built.get(want)
    if hit is not None and hit[0] == now:
        return hit[1]
    mem = _build(book, want, corrections)
    if hit is not None and hit[1].key == mem.key:
        mem = hit[1]  # nothing it reads changed: keep the object (and what was computed from it)
    if len(built) >= _BUILT_SIZE and want not in built:
        built.pop(next(iter(built)))  # the oldest set of chapters: the book has moved on
    built[want] = (now, mem)
    return mem


def _build(book, chapters: tuple[str, ...], corrections, problems: list[str] | None = None) -> LongMemory:
    from ..errors import BookError

    mems = []
    idents = []
    root, step = str(book.root), book.scanner.step
    for c in sorted(chapters, key=chapter_sort_key):
        st = step(c, MEMORY)
        if st.complete:
            key = f"{root}/{st.path}"
            ident = (st.size, st.mtime, st.marker.body if st.marker else None)
            hit = _PARSED.get(key)
            if hit is None or hit[0] != ident or not st.size:
                try:
                    hit = _PARSED[key] = (ident, parse(c, read_body(book.root, st.path), file=st.path))
                except BookError as e:
                    if problems is None:
                        raise
                    problems.append(f"{e}; the file is left out of the long memory until it is fixed")
                    continue
            if problems is not None:
                problems.extend(hit[1].warnings)
            mems.append(hit[1])
            idents.append((c, ident if st.size else id(hit[1])))
    from .corrections import apply

    if corrections:  # a person's corrections (corrections.md), applied to copies: the parsed cache stays the files'
        mems = [copy.copy(m) for m in mems]
        apply(mems, corrections)
    return LongMemory(mems, key=(tuple(idents), repr(corrections)))
