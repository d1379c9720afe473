"""A person's corrections to the long memory. The aggregates (glossary.md,
chapter-summaries.md, …) are regenerated from the per-chapter memory files, so an edit made
in them would be lost; instead the rebuild first moves what a person changed there into
`output/memory/corrections.md`, and every reader of the long memory (the aggregates, the
prompts of reviewers and later chapters, glossary.html) applies that file on top.

corrections.md is a person's file (no marker, never regenerated):

    # Corrections
    ## Glossary
    - **memtable**: the in-memory table that buffers writes before a flush
    ## Summaries
    ### ch02
    A corrected summary of chapter 2.

Delete an entry to go back to what the chapters' memory says."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..steps import MEMORY_DIR, MEMORY_FILES
from .fsio import atomic_write

CORRECTIONS = f"{MEMORY_DIR}/corrections.md"
_TERM_RE = re.compile(r"^- \*\*(.+?)\*\*(?:\s*\((ch\d{2,})\))?\s*[:：]\s*(.+)$")
_SUMMARY_HEAD_RE = re.compile(r"^##\s+(ch\d{2,})\b")


@dataclass
class Corrections:
    glossary: dict[str, tuple[str, str]] = field(default_factory=dict)  # term (lower) -> (term, definition)
    summaries: dict[str, str] = field(default_factory=dict)  # chapter -> summary

    def __bool__(self) -> bool:
        return bool(self.glossary or self.summaries)


def load(root: Path) -> Corrections:
    try:
        text = (Path(root) / CORRECTIONS).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Corrections()
    out = Corrections()
    section, ch, lines = "", None, []  # type: ignore[var-annotated]

    def flush() -> None:
        if ch and "\n".join(lines).strip():
            out.summaries[ch] = "\n".join(lines).strip()

    for line in text.splitlines():
        if line.startswith("## "):
            flush()
            section, ch, lines = line[3:].strip().lower(), None, []
        elif section == "glossary" and (m := _TERM_RE.match(line.strip())):
            out.glossary[m.group(1).strip().lower()] = (m.group(1).strip(), m.group(3).strip())
        elif section == "summaries" and line.startswith("### "):
            flush()
            ch, lines = line[4:].strip().split()[0] if line[4:].strip() else None, []
        elif section == "summaries" and ch:
            lines.append(line)
    flush()
    return out


def render(c: Corrections) -> str:
    out = ["# Corrections", "", "A person's corrections to the long memory: applied over what the chapters' memory "
           "says (see the README). Delete an entry to undo it.", "", "## Glossary", ""]
    out += [f"- **{t}**: {d}" for t, d in c.glossary.values()]
    out += ["", "## Summaries", ""]
    for ch, s in sorted(c.summaries.items()):
        out += [f"### {ch}", "", s, ""]
    return "\n".join(out).rstrip() + "\n"


def apply(mems: list, c: Corrections) -> None:
    """Apply the corrections to per-chapter memories (in place): a corrected term keeps its
    defining chapter and takes the person's definition; a corrected summary replaces it."""
    if not c:
        return
    for m in mems:
        m.glossary = [(t, c.glossary[t.lower()][1] if t.lower() in c.glossary else d) for t, d in m.glossary]
        if m.chapter in c.summaries:
            m.summary = c.summaries[m.chapter]


def harvest(root: Path, edited: dict[str, str], generated: dict[str, str]) -> list[str]:
    """Move what a person changed in an aggregate into corrections.md. `edited` and
    `generated`: aggregate key (steps.MEMORY_FILES) -> body, the person's and the one the
    rebuild makes. Returns the corrected terms and chapters."""
    c = load(root)
    changed: list[str] = []
    if "glossary" in edited:
        gen_terms = _terms(generated.get("glossary", ""))
        for key, (term, d) in _terms(edited["glossary"]).items():
            # a changed definition of a term the chapters define; a term the rebuild does not
            # make (its chapter's memory missing for now) is not a correction
            if key in gen_terms and gen_terms[key][1] != d:
                c.glossary[key] = (term, d)
                changed.append(term)
    if "summaries" in edited:
        gen = _summaries(generated.get("summaries", ""))
        for ch, s in _summaries(edited["summaries"]).items():
            if ch in gen and gen[ch] != s:
                c.summaries[ch] = s
                changed.append(ch)
    if changed:
        atomic_write(Path(root) / CORRECTIONS, render(c))
    return changed


def _terms(body: str) -> dict[str, tuple[str, str]]:
    out = {}
    for line in body.splitlines():
        m = _TERM_RE.match(line.strip())
        if m:
            out[m.group(1).strip().lower()] = (m.group(1).strip(), m.group(3).strip())
    return out


def _summaries(body: str) -> dict[str, str]:
    out: dict[str, str] = {}
    ch, lines = None, []  # type: ignore[var-annotated]
    for line in body.splitlines() + ["## end"]:
        m = _SUMMARY_HEAD_RE.match(line)
        if line.startswith("## "):
            if ch:
                out[ch] = "\n".join(lines).strip()
            ch, lines = (m.group(1) if m else None), []
        elif ch:
            lines.append(line)
    return out


AGGREGATES = MEMORY_FILES  # the files a person's edit is harvested from
