"""Reading the list items of a Markdown section the way a person writes them: any bullet or
none, continuation lines (indented, or lazily right under the item), `>` quote lines or a
fenced block under an item as its quote, `none` lines, prose and HTML comments left out; and
the head of an item (check ids, chapter, location) before its message.

Shared by every parser in parse.py; nothing here raises: the parsers decide what an item that
does not fit means (for a findings section: an error naming the line)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .jsonread import CHECK_FAMILIES, CHECK_RE
from .mdtext import Section, fence_spans, split_lines
from .panel import NONE_RE

_MARKER_LINE_RE = re.compile(r"^\s*<!--\s*[A-Z][A-Z0-9_]*(?:\s+[a-z_]+=[^\s>]*)*\s*-->\s*$")
_BULLET_RE = re.compile(r"^(?P<ind>[ \t]*)(?:[-*+]|\d{1,3}[.)])(?:[ \t]+|$)(?P<rest>.*)$")
_QUOTE_RE = re.compile(r"^[ \t]*>[ \t]?(.*)$")
_NONE_RE = NONE_RE  # `- none`, `(none)`, `无`: an empty list

# Tokens of a finding's (or an action's) head, before the message.
_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    ("check", re.compile(r"`(?P<v>[^`\s]+)`")),
    ("check", re.compile(r"(?P<v>(?:" + "|".join(CHECK_FAMILIES) + r")\.[a-z][a-z0-9_-]*)")),
    ("checks", re.compile(r"\((?P<v>`[^`\s]+`(?:\s*,\s*`[^`\s]+`)*)\)")),
    ("chapter", re.compile(r"[\[(]?(?P<v>ch\d{2,})[\])]?")),
    ("lines", re.compile(r"[\[(]?(?:lines?|ll?\.)\s*(?P<a>\d+)(?:\s*(?:-|–|—|to|\.\.)\s*(?P<b>\d+))?[\])]?", re.I)),
    ("lines", re.compile(r"[\[(]?L(?P<a>\d+)(?:\s*[-–—]\s*L?(?P<b>\d+))?[\])]?")),
    ("lines", re.compile(r"[\[(]?第\s*(?P<a>\d+)(?:\s*[-–—]\s*(?P<b>\d+))?\s*行[\])]?")),
    ("whole", re.compile(r"[\[(]?(?:whole chapter|whole file|whole text|整章)[\])]?", re.I)),
]
_TOKEN_END = re.compile(r"(?=$|[\s:：,;—–-])")
_BETWEEN = re.compile(r"[\s,;—–-]*")


def _past_separators(s: str, p: int) -> int:
    """Where the separators at ``p`` end (the pattern matches the empty string: always a match)."""
    m = _BETWEEN.match(s, p)
    assert m is not None
    return m.end()


_TERMINATOR = re.compile(r"[ \t]*(?:[:：]|[—–]|-(?=\s|$))")


def strip_marker(text: str) -> str:
    """The body without its completion marker line (the last non-blank line, if it is one)."""
    lines = split_lines(text)
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _MARKER_LINE_RE.match(lines[-1]):
        lines.pop()
    return "\n".join(lines)


@dataclass
class Head:
    """What the head of a list item says, and where its message starts."""

    checks: list[str] = field(default_factory=list)
    chapter: str | None = None
    lines: tuple[int, int | None] | None = None
    whole: bool = False
    message: str = ""
    terminated: bool = False  # the head ended in a colon or a dash
    tokens: int = 0


def scan_head(s: str, pos: int = 0) -> Head:
    """Read check ids, chapter and location tokens from `pos`, then the separator, then the
    message. A colon ends the head: what follows it is message, whatever it looks like (so a
    rendered message that starts with "lines 3-5" stays a message)."""
    h = Head()
    p = pos
    first_place = None  # where the first chapter/location token starts (kept in an unterminated message)
    while True:
        q = _past_separators(s, p)
        for kind, rx in _TOKENS:
            m = rx.match(s, q)
            if not m or not _TOKEN_END.match(s, m.end()):
                continue
            if kind == "check":
                if not CHECK_RE.match(m.group("v")):
                    continue
                h.checks.append(m.group("v"))
            elif kind == "checks":
                vals = re.findall(r"`([^`\s]+)`", m.group("v"))
                if not all(CHECK_RE.match(v) for v in vals):
                    continue
                h.checks += vals
            else:
                if first_place is None and s[q] not in "[(":
                    first_place = q  # a bare location is part of the sentence; a bracketed one is not
                if kind == "chapter":
                    h.chapter = m.group("v")
                elif kind == "lines":
                    h.lines = (int(m.group("a")), int(m.group("b")) if m.group("b") else None)
                else:
                    h.whole = True
            h.tokens += 1
            p = m.end()
            break
        else:
            break
    t = _TERMINATOR.match(s, p)
    if t:
        h.terminated = True
        h.message = s[t.end():].strip()
    elif first_place is not None and h.tokens:
        h.message = s[first_place:].strip()
    else:
        h.message = s[_past_separators(s, p):].strip()
    return h


def line_range(h: Head) -> tuple[int, int | None]:
    if not h.lines:
        return 0, None
    a, b = h.lines
    return a, (None if b == a else b)


@dataclass
class Item:
    line: int
    head: str
    cont: list[str] = field(default_factory=list)
    quote: list[str] = field(default_factory=list)


def walk(sec: Section, starts_item: Callable[[str], bool] = lambda s: False,
         prose: list[tuple[int, str]] | None = None) -> list[Item]:
    """The list items of a section with their continuation and quote lines; prose, blank
    lines, HTML comments and `none` lines are left out. A fenced block right under an item
    becomes its quote. The prose lines left out go to `prose` (line, text) when it is given:
    a caller whose section holds only entries reports or reads them, never drops them unseen."""
    items: list[Item] = []
    cur: Item | None = None
    blank_before = False
    in_comment = False
    texts = [t for _, t in sec.lines]
    spans = dict(fence_spans(texts))
    i = 0
    while i < len(sec.lines):
        n, t = sec.lines[i]
        st = t.strip()
        if in_comment:
            in_comment = "-->" not in st
            i += 1
            continue
        if st.startswith("<!--"):
            in_comment = "-->" not in st[4:]
            i += 1
            continue
        if i in spans:
            j = spans[i]  # the closing fence (or one past the end)
            if cur is not None and not cur.quote:
                indent = len(t) - len(t.lstrip(" \t"))
                cur.quote = [ln[min(indent, len(ln) - len(ln.lstrip(" \t"))):] for _, ln in sec.lines[i + 1:j]]
            i, blank_before = j + 1, False
            continue
        if not st:
            blank_before = True
            i += 1
            continue
        b = _BULLET_RE.match(t)
        indented = len(t) - len(t.lstrip(" \t")) >= 2
        if cur is not None and (indented or (not b and not blank_before and not starts_item(st))):
            q = _QUOTE_RE.match(t)
            if q:
                cur.quote.append(q.group(1))
            else:
                cur.cont.append(st)
        elif b:
            rest = b.group("rest").strip()
            if _NONE_RE.match(rest):
                cur = None
            else:
                cur = Item(n, rest)
                items.append(cur)
        elif starts_item(st):
            cur = Item(n, st)
            items.append(cur)
        elif _NONE_RE.match(st):
            cur = None
        else:
            cur = None  # prose: a preface, or a paragraph after the list
            if prose is not None:
                prose.append((n, st))
        blank_before = False
        i += 1
    return items


