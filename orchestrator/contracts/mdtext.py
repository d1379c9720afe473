"""Small Markdown facts the contracts need: which lines are inside a fenced block, where the
`## ` sections are, and whether a free-text field would break the file it is rendered into.

Lines are split on "\\n" only (never str.splitlines): line numbers must be the ones an editor
shows, and a form feed or U+2028 inside a message is text, not a line break."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}(#{1,6})(?:[ \t]+#+)?[ \t]*$")


def split_lines(text: str) -> list[str]:
    return [ln.removesuffix("\r") for ln in text.split("\n")]


def fence_spans(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) 0-based line index of each fenced block, fence lines included. A fence is
    closed by the same character repeated at least as often; an unclosed one runs to the end
    (then `last` is len(lines), one past the end, so callers can tell)."""
    spans = []
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
            i += 1
            continue
        fence = m.group(1)
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        spans.append((i, j))
        i = j + 1
    return spans


def fence_mask(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced block (fence lines included)."""
    mask = [False] * len(lines)
    for a, b in fence_spans(lines):
        for k in range(a, min(b + 1, len(lines))):
            mask[k] = True
    return mask


def unclosed_fence(text: str) -> bool:
    lines = split_lines(text)
    return any(b >= len(lines) for _, b in fence_spans(lines))


def heading(line: str) -> tuple[int, str] | None:
    m = HEADING_RE.match(line)
    if not m:
        return None
    if m.group(1):
        return len(m.group(1)), m.group(2).strip()
    return len(m.group(3)), ""


def block_problem(text: str, what: str, max_level: int = 2) -> str | None:
    """Why a free-text field (notes, an intro) cannot be embedded in a rendered file: a heading
    of level <= max_level outside code would start a new section, an open fence would swallow
    the rest of the file. None when it is fine."""
    lines = split_lines(text)
    mask = fence_mask(lines)
    for n, (ln, code) in enumerate(zip(lines, mask), 1):
        h = None if code else heading(ln)
        if h and h[0] <= max_level:
            return f"the {what} must not contain a level-{h[0]} heading (line {n}: {ln.strip()!r}); use ### or plain text"
    if unclosed_fence(text):
        return f"the {what} opens a code fence it never closes"
    return None


def normalise_block(text: str) -> str:
    """Multi-line free text as it survives a file: \\r gone, trailing spaces and blank edges trimmed."""
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")


@dataclass
class Section:
    title: str  # "" for the text before the first `## ` heading
    line: int  # 1-based line of the heading (0 for the preamble)
    lines: list[tuple[int, str]] = field(default_factory=list)  # (1-based line, text)

    def text(self) -> str:
        return normalise_block("\n".join(t for _, t in self.lines))


def sections(text: str, level: int = 2) -> list[Section]:
    """The preamble, then one Section per heading of exactly `level` outside fences."""
    lines = split_lines(text)
    mask = fence_mask(lines)
    out = [Section("", 0)]
    for n, (ln, code) in enumerate(zip(lines, mask), 1):
        h = None if code else heading(ln)
        if h and h[0] == level:
            out.append(Section(h[1], n))
        else:
            out[-1].lines.append((n, ln))
    return out
