"""A person's corrections to the long memory. The aggregates (glossary.md,
chapter-summaries.md, …) are regenerated from the per-chapter memory files, so an edit made
in them would be lost; instead the rebuild first moves what a person changed there into
`output/memory/corrections.md`, and every reader of the long memory (the aggregates, the
prompts of reviewers and later chapters, glossary.html) applies that file on top.

corrections.md is a person's file (no marker, never regenerated):

    # Corrections
    ## Glossary
    - **memtable**: the in-memory table that buffers writes before a flush
    - **write-ahead log** (ch04): a term the chapters do not define, added under ch04
    - ~~**Record**~~
    ## Summaries
    ### ch02
    A corrected summary of chapter 2.

A definition replaces the chapters' one; a term no chapter defines is added (under the chapter
named in brackets, else the first); a struck-out term is left out of the glossary. Delete an
entry to go back to what the chapters' memory says."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..steps import CORRECTIONS, MEMORY_FILES
from .fsio import atomic_write

_TERM_RE = re.compile(r"^- \*\*(.+?)\*\*(?:\s*\((ch\d{2,})\))?\s*[:：]\s*(.+)$")
_SUMMARY_HEAD_RE = re.compile(r"^##\s+(ch\d{2,})\b")
_REMOVED_RE = re.compile(r"^[-*+]\s+~~\s*(?:\*\*(.+?)\*\*|(.+?))\s*~~")
# What people write by hand: any bullet, the term bold or not (`**term:**` too), an optional
# `(chNN)`, then `:` or a dash between term and definition.
_LOOSE_TERM_RE = re.compile(r"^[-*+]\s+(?:\*\*(?P<b>.+?)\*\*|__(?P<u>.+?)__|(?P<p>[^:：*_]+?))\s*(?:\((?P<ch>ch\d{2,})\))?"
                            r"\s*(?:[:：]|\s[-–—]\s|(?<=[:：]\*\*))\s*(?P<d>.+)$")
_CHAPTER_RE = re.compile(r"^ch\d{2,}$")


@dataclass
class Corrections:
    glossary: dict[str, tuple[str, str]] = field(default_factory=dict)  # term (lower) -> (term, definition)
    summaries: dict[str, str] = field(default_factory=dict)  # chapter -> summary
    chapter_of: dict[str, str] = field(default_factory=dict)  # term (lower) -> chapter it was written under
    removed: dict[str, str] = field(default_factory=dict)  # term (lower) -> term: left out of the glossary
    problems: list[str] = field(default_factory=list)  # `file:line: what cannot be read` (said by scan and run)

    def __bool__(self) -> bool:
        return bool(self.glossary or self.summaries or self.removed)


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

    def problem(n: int, what: str) -> None:
        out.problems.append(f"{CORRECTIONS}:{n}: {what}")

    in_comment = False
    for n, line in enumerate(text.splitlines(), 1):
        st = line.strip()
        if in_comment or st.startswith("<!--"):
            in_comment = "-->" not in st
            continue
        if line.startswith("## "):
            flush()
            section, ch, lines = line[3:].strip().lower(), None, []
        elif section == "glossary" and (m := _REMOVED_RE.match(st)):
            term = (m.group(1) or m.group(2)).strip()
            out.removed[term.lower()] = term
        elif section == "glossary" and (m := _LOOSE_TERM_RE.match(st)):
            term = (m.group("b") or m.group("u") or m.group("p")).strip().rstrip(":：").strip()
            out.glossary[term.lower()] = (term, m.group("d").strip())
            if m.group("ch"):
                out.chapter_of[term.lower()] = m.group("ch")
        elif section == "glossary" and st:
            problem(n, f"cannot read {st[:60]!r} as a glossary entry: write `- **term**: definition` "
                       "(or `- ~~**term**~~` to leave a term out)")
        elif section == "summaries" and line.startswith("### "):
            flush()
            words = line[4:].split()
            ch, lines = (words[0] if words else ""), []
            if not _CHAPTER_RE.match(ch):
                problem(n, f"{st!r} names no chapter: write `### ch02` (the chapter's id) above its summary")
                ch = ""  # its text is not a correction (said once, here)
        elif section == "summaries" and ch:
            lines.append(line)
        elif section == "summaries" and st and ch is None:
            problem(n, "text before any `### chNN` heading: put it under the heading of its chapter")
    flush()
    return out


def render(c: Corrections) -> str:
    out = ["# Corrections", "", "A person's corrections to the long memory: applied over what the chapters' memory "
           "says (see the README). Delete an entry to undo it.", "", "## Glossary", ""]
    out += [f"- **{t}**" + (f" ({c.chapter_of[k]})" if k in c.chapter_of else "") + f": {d}"
            for k, (t, d) in c.glossary.items()]
    out += [f"- ~~**{t}**~~" for t in c.removed.values()]
    out += ["", "## Summaries", ""]
    for ch, s in sorted(c.summaries.items()):
        out += [f"### {ch}", "", s, ""]
    return "\n".join(out).rstrip() + "\n"


def apply(mems: list, c: Corrections) -> None:
    """Apply the corrections to per-chapter memories (in place): a corrected term keeps its
    defining chapter and takes the person's definition; a corrected summary replaces it; a
    term no chapter defines joins the chapter it names (else the first); a removed one goes."""
    if not c:
        return
    for m in mems:
        m.glossary = [(t, c.glossary[t.lower()][1] if t.lower() in c.glossary else d) for t, d in m.glossary
                      if t.lower() not in c.removed]
        if m.chapter in c.summaries:
            m.summary = c.summaries[m.chapter]
    defined = {t.lower() for m in mems for t, _ in m.glossary}
    by_id = {m.chapter: m for m in mems}
    for key, (term, d) in c.glossary.items():
        home = by_id.get(c.chapter_of.get(key, "")) or (mems[0] if mems else None)
        if key not in defined and key not in c.removed and home is not None:
            home.glossary = [*home.glossary, (term, d)]


def harvest(root: Path, edited: dict[str, str], generated: dict[str, str],
            unchanged: set[str] | None = None) -> list[str]:
    """Move what a person changed in an aggregate into corrections.md. `edited` and
    `generated`: aggregate key (steps.MEMORY_FILES) -> body, the person's and the one the
    rebuild makes. `unchanged`: the chapters whose memory is as it was when the person's
    glossary was made (from its marker); None when it has no marker, and then a missing line
    proves nothing (the file may be cut short). Returns the corrected terms and chapters."""
    c = load(root)
    changed: list[str] = []
    if "glossary" in edited:
        gen_terms, gen_tags = _terms(generated.get("glossary", "")), _tags(generated.get("glossary", ""))
        mine, tags = _terms(edited["glossary"]), _tags(edited["glossary"])
        for key, (term, d) in mine.items():
            # a changed definition of a term the chapters define; a term the rebuild does not
            # make (its chapter's memory missing for now) is not a correction
            if key in gen_terms and gen_terms[key][1] != d:
                c.glossary[key] = (term, d)
                changed.append(term)
            elif key in c.removed:  # struck out before, written back now
                del c.removed[key]
                changed.append(term)
            elif key not in gen_terms and (tags.get(key) is None or (unchanged is not None and tags[key] in unchanged)):
                # an untagged line is the person's own; a tagged one is theirs when its chapter's
                # memory has not changed since (it never defined the term)
                c.glossary[key] = (term, d)
                if tags.get(key):
                    c.chapter_of[key] = tags[key]
                changed.append(term)
        for key, (term, _) in gen_terms.items():
            if unchanged is None or key in mine or gen_tags.get(key) not in unchanged:
                continue
            if key in c.glossary:  # one of the person's own terms, deleted again
                del c.glossary[key]
                c.chapter_of.pop(key, None)
            else:
                c.removed[key] = term
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


def _tags(body: str) -> dict[str, str]:
    """term (lower) -> the chapter in brackets after it, where there is one."""
    return {m.group(1).strip().lower(): m.group(2) for line in body.splitlines()
            if (m := _TERM_RE.match(line.strip())) and m.group(2)}


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
