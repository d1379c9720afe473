"""Markdown as the checks and the publisher read it: fences, prose lines, headings and their
slugs, links, and the length of a text (CJK characters count one each); and the rules for
Markdown that came from the source (fences its content cannot close, headings demoted,
markers made inert, a count of Sphinx/RST markup left in prose)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class CodeBlock:
    lang: str
    file: str | None  # the `file=` attribute: a path relative to the source root
    lines: tuple[int, int] | None  # the `lines=a-b` attribute (1-based, inclusive)
    code: str  # the content, without the fences
    line: int  # 1-based line of the opening fence
    closed: bool = True  # False: the fence runs to the end of the text (a truncated chapter)



_FENCE_RE = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_ATTR_RE = re.compile(r"""([A-Za-z_][\w-]*)=("[^"]*"|'[^']*'|\S+)""")
SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")  # an inline code span, on one line
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_LINK_RE = re.compile(r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]"  # [text], one level of nested [] allowed
                      r"\(\s*<?([^\s()<>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")  # (target "title")
_REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s<>]+)>?")
CHAPTER_LINK_RE = re.compile(r"^(?:\./)?(ch\d{2,})\.md(?:#(.*))?$")
LATIN_B, LATIN_A = r"(?<![A-Za-z0-9_])", r"(?![A-Za-z0-9_])"  # word edges that work beside CJK
_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"  # kana, CJK, hangul
                     "\U00020000-\U0002ebef]")


def split_lines(md: str) -> list[str]:
    # split("\n"), not splitlines(): line numbers must be the ones an editor shows
    return [ln.removesuffix("\r") for ln in md.split("\n")]


def _make_block(info: str, body: list[str], line: int, closed: bool) -> CodeBlock:
    words = info.split()
    lang = "" if not words or "=" in words[0] else words[0].strip("{}.")
    attrs = {k: v.strip("\"'") for k, v in _ATTR_RE.findall(info)}
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", attrs.get("lines", ""))
    span = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None
    return CodeBlock(lang, attrs.get("file") or None, span, "\n".join(body), line, closed)


def scan_fences(md: str) -> tuple[list[CodeBlock], list[str], list[bool]]:
    """Fenced blocks, the lines, and for each line whether it belongs to a fence. A fence is
    closed by the same character repeated at least as often; fences inside fences are text."""
    lines = split_lines(md)
    in_code = [False] * len(lines)
    blocks: list[CodeBlock] = []
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence = len(m.group(1)), m.group(2)
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        # a fence indented in a list item: its content loses the same indentation
        body = [ln[min(indent, len(ln) - len(ln.lstrip(" \t"))) :] for ln in lines[i + 1 : j]]
        for k in range(i, min(j + 1, len(lines))):
            in_code[k] = True
        blocks.append(_make_block(m.group(3), body, i + 1, j < len(lines)))
        i = j + 1
    return blocks, lines, in_code


def code_blocks(md: str) -> list[CodeBlock]:
    """Every fenced block (``` or ~~~, any length ≥ 3), in order."""
    return scan_fences(md)[0]


def prose_lines(md: str) -> list[tuple[int, str, str]]:
    """(line number, raw line, line with inline code blanked out) for each line outside fences."""
    _, lines, in_code = scan_fences(md)
    return [(n + 1, ln, SPAN_RE.sub(_blank, ln)) for n, ln in enumerate(lines) if not in_code[n]]


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())  # same length, so columns stay put


def blank_urls(text: str) -> str:
    return re.sub(r"(?<=\])\([^)\n]*\)", _blank, text)


def links_in(md: str) -> list[tuple[int, str]]:
    """(line, target) of inline links, images and reference definitions outside code."""
    out = []
    for n, _, masked in prose_lines(md):
        out += [(n, m.group(1)) for m in _LINK_RE.finditer(masked) if m.group(1)]
        if m := _REFDEF_RE.match(masked):
            out.append((n, m.group(1)))
    return out


def headings_in(md: str) -> list[tuple[int, int, str]]:
    """(line, level, text) of every ATX heading outside fences."""
    found = ((n, HEADING_RE.match(raw)) for n, raw, _ in prose_lines(md))
    return [(n, len(m.group(1)), (m.group(2) or "").strip()) for n, m in found if m]


def slugify(text: str) -> str:
    """A heading's anchor, as GitHub and markdown-it's anchors plugin make it: lowercase,
    spaces to `-`, punctuation dropped except `-` and `_`, letters of any script (CJK) kept."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images → their text
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def heading_slugs(md: str) -> list[str]:
    """The anchors of all headings in order; repeats get `-1`, `-2`; an explicit `{#id}` wins."""
    seen: set[str] = set()
    out = []
    for _, _, text in headings_in(md):
        m = re.search(r"\s*\{#([\w-]+)\}\s*$", text)
        base = m.group(1) if m else slugify(text)
        slug, k = base, 0
        while slug in seen:
            k += 1
            slug = f"{base}-{k}"
        seen.add(slug)
        out.append(slug)
    return out


def text_length(text: str) -> int:
    """CJK characters plus words of other scripts: words for English, characters for Chinese."""
    words = _CJK_RE.sub(" ", text).split()
    return len(_CJK_RE.findall(text)) + sum(1 for w in words if re.search(r"\w", w))


def section(md: str, title: str) -> str:
    """The text under `## title` (any case) up to the next `## ` heading."""
    lines, on = [], False
    for line in md.splitlines():
        if line.startswith("## "):
            on = line[3:].strip().lower() == title.lower()
            continue
        if on:
            lines.append(line)
    return "\n".join(lines)


# ---------------------------------------------------------------- Markdown that came from the source

_MD_HEADING_RE = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_MARKER_RE = re.compile(r"<!--")


def fence(code: str, lang: str = "text") -> str:
    """A fenced block that its own content cannot close."""
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}{lang}\n{code}\n{ticks}"


# A marker's name written as an identifier (`CHAPTER_FINAL`, `draft_complete`, `NEEDS HUMAN REVIEW`):
# text from the source that names one is shown as code, which is what it is, and never reads as
# a marker word in the book's prose (contracts/markers_guard.py scans prose, not code spans).
_MARKER_WORD_RE = re.compile(r"(?<![A-Za-z0-9_`])(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:COMPLETE|FINAL|REVIEW)"
                             r"|(?i:chapter_+final|needs_+human_+review|[a-z0-9_]+_complete)"
                             r"|CHAPTER[ \t-]+FINAL|NEEDS[ \t-]+HUMAN[ \t-]+REVIEW)(?![A-Za-z0-9_`])")


def code_marker_words(line: str) -> str:
    """`line` with every marker name outside inline code put in a code span."""
    if "_" not in line and "FINAL" not in line and "REVIEW" not in line:
        return line
    parts = re.split(r"(`[^`]*`)", line)
    return "".join(p if i % 2 else _MARKER_WORD_RE.sub(lambda m: f"`{m.group(0)}`", p) for i, p in enumerate(parts))


def safe(md: str) -> str:
    """Markdown from the source made harmless to the book: no line outside a code fence starts
    a heading, a fence the text does not close, or a marker."""
    out, fence_mark = [], None
    for ln in md.splitlines():
        s = ln.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            if fence_mark is None:
                fence_mark = mark
            elif s.startswith(fence_mark) and not s.strip("`~").strip():
                fence_mark = None
            out.append(ln)
            continue
        if fence_mark is None:
            m = _MD_HEADING_RE.match(s)
            if m:
                ln = f"**{m.group(1)}**" if m.group(1) else ""
            ln = code_marker_words(_MARKER_RE.sub("&lt;!--", ln))
        out.append(ln)
    if fence_mark is not None:
        out.append(fence_mark)
    return "\n".join(out)


def prose_only(md: str) -> str:
    """Markdown without its code blocks and inline code (what a reader reads as sentences)."""
    md = re.sub(r"(?ms)^\s*(```+|~~~+).*?^\s*\1\s*$", "", md)
    return re.sub(r"`[^`\n]*`", "", md)


_LEAK_RE = re.compile(r":(?:class|meth|func|data|attr|exc|ref|obj|mod|const|doc|term|py:\w+):`|\.\.\s+[\w-]+::|"
                      r"^\s*:(?:param|type|returns?|rtype|raises?)\b|(?<!`)``(?!`)\w|^\s*[=~^-]{4,}\s*$", re.M)


def markup_leaks(md: str) -> int:
    """How many pieces of Sphinx/RST markup remain in the prose of a Markdown text."""
    no_fences = re.sub(r"(?ms)^\s*(```+|~~~+).*?^\s*\1\s*$", "", md)  # roles carry backticks: keep inline code
    return len(_LEAK_RE.findall(no_fences))
