"""Punctuation of one language at a time in Chinese prose, and the measures of what is wrong.

`normalise` mends the seams where Chinese sentences meet English source text or ASCII
punctuation (`…interface.”。` → `…interface.”`, `（第 3 行）.` → `（第 3 行）。`, `，，` → `，`,
`。 本章` → `。本章`). It never touches code (fenced blocks, inline code spans) nor block
quotes, which hold the source's own English and keep its punctuation. `problems` counts what a
reader of a Chinese book trips over: English word runs glued into Chinese sentences, doubled
or mixed punctuation."""

from __future__ import annotations

import re
from collections.abc import Callable

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_ZH_STOP = "，。；：、！？"
_CJK_RE = re.compile(f"[{CJK}]")
_CODE_SPAN = re.compile(r"(`+)[^`\n]*?\1")
_FENCE_OPEN = re.compile(r"^[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})")

# Each rule is one seam; applied in order, outside code spans.
_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str] | str], ...] = (
    # a citation of the source in Chinese prose sits in Chinese brackets, without a space before
    (re.compile(r"[ \t]*\((\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(source:[^)\s]*\))\)"), r"（\1）"),
    # an English sentence quoted in Chinese ends with its own stop: no second, Chinese one
    (re.compile(r"([.!?])([”」』\"'])[。．]"), r"\1\2"),
    (re.compile(r"([.!?])[ \t]*[。．]"), r"\1"),
    # doubled Chinese stops keep the stronger one
    (re.compile(f"([{_ZH_STOP}])[ \t]*([{_ZH_STOP}])"), lambda m: _stronger(m.group(1), m.group(2))),
    # an ASCII stop right after Chinese (or a Chinese bracket) is the Chinese one
    (re.compile(f"([{CJK}）」』])[ \t]*\\.(?=[ \t]|$)"), r"\1。"),
    (re.compile(f"([{CJK}）」』])[ \t]*,[ \t]*"), r"\1，"),
    (re.compile(f"([{CJK}）」』])[ \t]*;[ \t]*"), r"\1；"),
    (re.compile(f"([{CJK}）」』])[ \t]*:[ \t]*(?=[{CJK}`]|$)"), r"\1："),
    # Chinese sentences are joined without spaces
    (re.compile(f"([{_ZH_STOP}）」』])[ \t]+(?=\\S)"), r"\1"),
)
_RANK = {"。": 5, "！": 5, "？": 5, "；": 4, "：": 3, "，": 2, "、": 1}


def _stronger(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def _apply(segment: str) -> str:
    for rx, rep in _RULES:
        segment = rx.sub(rep, segment)
    return segment


_HAN_END = re.compile(f"[{CJK}]$")
_HAN_START = re.compile(f"^[{CJK}]")


def _prose_line(line: str) -> str:
    """One line of prose with its code spans kept as they are, each set off from the Chinese
    words around it by one space (one style throughout, as the phrases write it)."""
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        before = _apply(line[at:m.start()])
        out.append(before + (" " if _HAN_END.search(before) else ""))
        out.append(m.group())
        at = m.end()
        if _HAN_START.match(line[at:]):
            out.append(" ")
    out.append(_apply(line[at:]))
    return "".join(out)


def _lines(text: str) -> list[tuple[str, bool]]:
    """(line, is_prose): fenced code and block quotes are not prose."""
    out, fence = [], ""
    for ln in text.split("\n"):
        m = _FENCE_OPEN.match(ln)
        if m:
            mark = m.group(1)
            if not fence:
                fence = mark[0] * 3
            elif mark.startswith(fence):
                fence = ""
            out.append((ln, False))
            continue
        out.append((ln, not fence and not ln.lstrip().startswith(">") and not ln.lstrip().startswith("<!--")))
    return out


def normalise(text: str) -> str:
    """`text` (Markdown) with the punctuation of its Chinese prose mended; code and quotes untouched."""
    return "\n".join(_prose_line(ln) if prose and _CJK_RE.search(ln) else ln for ln, prose in _lines(text))


# What a reader trips over (for tests and benchmarks/ZH.md).
# 「…」 is a quotation; English inside “…” in the middle of a Chinese sentence is glued into it
_QUOTED = re.compile(r"「[^」]*」|『[^』]*』|\[[^\]]*\]\([^)]*\)|<[^>]*>")
_WORD_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ \t]+[A-Za-z][A-Za-z'’-]*)+")
_DOUBLED = re.compile(f"[{_ZH_STOP}][ \t]*[{_ZH_STOP}.,;:]|[.!?,;:][”」\"']?[ \t]*[{_ZH_STOP}]"
                      f"|[{CJK}）」][.,;](?=[ \t]|$)")


def problems(md: str) -> dict[str, list[str]]:
    """{"ascii_run": [...], "punct": [...], "code_glued": [...]}: English word runs (two words or more) inside a
    Chinese sentence, outside code, quotes (「…」, block quotes), link targets and headings of
    code; doubled or mixed punctuation in the prose; code spans glued to a Chinese word."""
    found: dict[str, list[str]] = {"ascii_run": [], "punct": [], "code_glued": []}
    for ln, prose in _lines(md):
        if not prose or not _CJK_RE.search(ln):
            continue
        found["code_glued"] += [m.group() for m in _CODE_SPAN.finditer(ln)
                                if _HAN_END.search(ln[:m.start()]) or _HAN_START.match(ln[m.end():])]
        bare = _CODE_SPAN.sub("X", ln)
        found["punct"] += [bare[max(0, m.start() - 12):m.end() + 4].strip() for m in _DOUBLED.finditer(bare)]
        unquoted = _QUOTED.sub("X", bare)
        found["ascii_run"] += [m.group() for m in _WORD_RUN.finditer(unquoted)]
    return found


def english_lines(md: str) -> list[str]:
    """Prose lines (not code, quotes, tables or comments) with letters and no Chinese at all:
    a sentence of scaffolding left in English in a Chinese book."""
    out = []
    for ln, prose in _lines(md):
        s = ln.strip()
        if not prose or not s or s.startswith(("|", "#")) or _CJK_RE.search(s):
            continue
        if re.search(r"[A-Za-z]{3,}", _QUOTED.sub("", _CODE_SPAN.sub("", s))):
            out.append(s)
    return out
