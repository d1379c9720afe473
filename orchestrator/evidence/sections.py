"""A chapter as its `## ` sections: split, hashed one by one, spliced back by heading, and the
line map from one version of a chapter to the next (the findings of a review follow it).

The section is the grain at which a chapter follows its source (DESIGN §11): what a claim says is
recorded with the heading of the section that holds it (evidence.cite.blocks), a marker records
one hash per section of what the run wrote (so that a person's edit is told section by section),
and a rewrite puts new sections in place of old ones by their heading, every other byte kept."""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

from ..text.markdown import scan_fences, split_lines

# the same heading rule as evidence.cite.blocks, so a claim's `section` names a heading found here
_H2_RE = re.compile(r"^ {0,3}##\s+(.*?)\s*#*\s*$")
OPENING = ""  # the head of the preamble: the title line and the opening paragraphs


@dataclass(frozen=True)
class Section:
    head: str  # the heading's text; OPENING for what comes before the first `## `
    first: int  # 1-based line of the heading (of the title, for the opening)
    last: int  # its last line
    text: str  # its lines, the heading included, joined with "\n"


def split(md: str) -> list[Section]:
    """The chapter's sections in order; joined with "\n" they give `md` back exactly."""
    _, lines, in_code = scan_fences(md)
    starts = [0] + [i for i, ln in enumerate(lines) if i and not in_code[i] and _H2_RE.match(ln)]
    out = []
    for k, a in enumerate(starts):
        z = starts[k + 1] if k + 1 < len(starts) else len(lines)
        m = _H2_RE.match(lines[a]) if not in_code[a] else None
        out.append(Section(m.group(1) if m else OPENING, a + 1, z, "\n".join(lines[a:z])))
    return out


def heads(md: str) -> list[str]:
    return [s.head for s in split(md)]


LABEL = {"en": "the opening", "zh": "开头"}


def label(head: str, language: str = "en") -> str:
    """A section as people read its name: its heading, or "the opening" for the text before the
    first `## ` (the title line and the opening paragraphs)."""
    return head if head != OPENING else LABEL.get(language, LABEL["en"])


def title_line(md: str) -> str | None:
    """The chapter's `# ` title line, or None when its opening does not begin with one."""
    first = next((ln for ln in md.split("\n") if ln.strip()), "")
    return first.rstrip() if first.startswith("# ") else None


def section_hash(text: str) -> str:
    """A section's hash as a marker records it: its lines, trailing whitespace and blank lines
    at its ends ignored (the splice may change the blank line before the next heading)."""
    norm = "\n".join(ln.rstrip() for ln in text.strip("\n").split("\n"))
    return hashlib.sha256(norm.encode("utf-8", "surrogateescape")).hexdigest()[:6]


def hashes(md: str) -> str:
    """The marker's `sections=` value: one short hash per section, in order, joined by dots."""
    return ".".join(section_hash(s.text) for s in split(md))


def edited(md: str, recorded: str | None) -> list[str] | None:
    """The heads of the sections whose text is not what the run wrote (`recorded`: the marker's
    `sections=`), or None when that cannot be told (no record, or sections added or removed)."""
    if not recorded:
        return None
    rec = recorded.split(".")
    secs = split(md)
    if len(rec) != len(secs):
        return None
    return [s.head for s, h in zip(secs, rec) if section_hash(s.text) != h]


def duplicated(md: str) -> list[str]:
    """Headings that occur more than once (a splice by heading could not tell them apart)."""
    seen: set[str] = set()
    out = []
    for h in heads(md):
        if h in seen and h not in out:
            out.append(h)
        seen.add(h)
    return out


def splice(md: str, new: str) -> str:
    """`md` with each section of `new` (an answer of `## ` sections) in place of the section of the
    same heading; the others kept byte for byte. A heading of `new` that `md` lacks is an error."""
    repl = {s.head: s.text.rstrip("\n") for s in split(new) if s.head != OPENING or s.text.strip()}
    old = split(md)
    missing = [h for h in repl if h not in {s.head for s in old}]
    if missing:
        raise ValueError(f"no section {missing[0]!r} in the chapter")
    out = []
    for s in old:
        if s.head in repl:
            body = repl[s.head]
            trail = len(s.text) - len(s.text.rstrip("\n"))  # the blank lines before the next heading
            out.append(body + "\n" * trail)
        else:
            out.append(s.text)
    return "\n".join(out)


def only(md: str, wanted: list[str]) -> str:
    """The sections of `md` whose heads are in `wanted`, in the chapter's order (an offline
    author's whole chapter cut down to the sections it was asked for)."""
    return "\n\n".join(s.text.strip("\n") for s in split(md) if s.head in wanted)


def line_map(old: str, new: str) -> dict[int, int]:
    """Old line number -> new, for the lines the two versions share (the sections not rewritten)."""
    a, b = split_lines(old), split_lines(new)
    out: dict[int, int] = {}
    for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(m.size):
            out[m.a + k + 1] = m.b + k + 1
    return out


__all__ = ["LABEL", "OPENING", "Section", "duplicated", "edited", "hashes", "heads", "label", "line_map", "only",
           "section_hash", "splice", "split", "title_line"]
