"""The note a chapter's page carries when the chapter was written from a partial view of its
sources (issue 36 item 5): a small context window could not carry them all, and the research
report's "Left out of the sources" section (state.partial_view) says what was cut: the files,
their lines, and the definitions (functions, classes, methods the repository map knows) the
chapter could not see, per file, so a reader knows which claims it could not check. Words about
the book, not claims about the code: a quote under the chapter's first paragraph, on the page,
in print (and so in the EPUB and PDF) and in the Markdown beside the page."""

from __future__ import annotations

from markdown_it.token import Token

from ..state.partial_view import left_out_names, shown_lines
from .markdown import _MD, ParsedChapter, _ParseCtx

SHOWN_NAMES = 3  # the files most cut are named; the rest are counted
SHOWN_DEFS = 6  # of each named file, the definitions most needed are named; the rest are counted

_TEXT = {
    "en": {
        "note": "> **Written from a partial view.** The model's context window could not carry all of this "
                "chapter's sources, so {files} {were} left out in whole or in part{lines}: {names}.",
        "end": "What the chapter says about {them} rests on the parts that were shown.",
        "defs": "The definitions it could not see:", "in": "in {path}: {names}",
        "others": "and {n} more in the other files",
        "file": "{n} file", "files": "{n} files", "was": "was", "were": "were", "it": "it", "them": "them",
        "lines": " ({n:,} lines)", "none": "not shown", "part": "{kept:,} of {n:,} lines shown",
        "more": "and {n} more", "sep": ", ", "and": " ",
    },
    "zh": {
        "note": "> **本章根据部分源码写成。** 模型的上下文窗口装不下本章的全部源码，{files}被全部或部分略去{lines}：{names}。",
        "end": "本章对这些文件的叙述只依据显示出来的部分。",
        "defs": "本章看不到的定义：", "in": "{path}：{names}", "others": "其他文件中另有 {n} 个",
        "file": "{n} 个文件", "files": "{n} 个文件", "was": "", "were": "", "it": "", "them": "",
        "lines": "（共 {n:,} 行）", "none": "未显示", "part": "显示了 {n:,} 行中的 {kept:,} 行",
        "more": "另有 {n} 个", "sep": "、", "and": "，",
    },
}


def partial_note(items: tuple[tuple[str, str], ...] | list[tuple[str, str]], language: str) -> str:
    """The note's Markdown (a quote), or "" when nothing was cut. `items`: (path, what of it was
    shown) as the research report lists them."""
    if not items:
        return ""
    t = _TEXT["zh" if language == "zh" else "en"]
    sizes = {path: shown_lines(what) for path, what in items}
    lost = {path: (s[1] - s[0]) if s else 0 for path, s in sizes.items()}
    order = sorted(lost, key=lambda path: -lost[path])  # the files most cut first (stable: the report's order)
    names = []
    for path in order[:SHOWN_NAMES]:
        s = sizes[path]
        how = "" if s is None else t["none"] if s[0] == 0 else t["part"].format(kept=s[0], n=s[1])
        names.append(f"`{path}`" + (f" ({how})" if how and language != "zh" else f"（{how}）" if how else ""))
    if len(order) > SHOWN_NAMES:
        names.append(t["more"].format(n=len(order) - SHOWN_NAMES))
    total = sum(lost.values())
    n = len(items)
    head = t["note"].format(files=t["file" if n == 1 else "files"].format(n=n), were=t["was" if n == 1 else "were"],
                            lines=t["lines"].format(n=total) if total else "", names=t["sep"].join(names))
    end = t["end"].format(them=t["it" if n == 1 else "them"])
    defs = _definitions(dict(items), order, t)
    if not defs:
        return f"{head} {end}" if language != "zh" else head + end
    return "\n".join([head + (" " if language != "zh" else "") + t["defs"], ">", *defs, ">", f"> {end}"])


def _definitions(what: dict[str, str], order: list[str], t: dict[str, str]) -> list[str]:
    """The definitions left out, a list item per named file (the most needed first, SHOWN_DEFS
    of them and the rest counted), and those of the files not named counted in one item."""
    out, others = [], 0
    for i, path in enumerate(order):
        names, more = left_out_names(what[path])
        if i >= SHOWN_NAMES:
            others += len(names) + more
            continue
        if not names:
            continue
        more += max(0, len(names) - SHOWN_DEFS)
        listed = t["sep"].join(f"`{name}`" for name in names[:SHOWN_DEFS])
        out.append("> - " + t["in"].format(path=f"`{path}`", names=listed + (t["and"] + t["more"].format(n=more)
                                                                                  if more else "")))
    if others and out:
        out.append("> - " + t["others"].format(n=others))
    return out


def _first_block_end(tokens: list[Token]) -> tuple[int, int | None]:
    """(the token index, the Markdown line) just after the first top-level block under the
    chapter's `# ` title (the first block when it has none); never inside a list or a fence."""
    start = next((i + 1 for i, t in enumerate(tokens) if t.type == "heading_close" and t.tag == "h1"), 0)
    opened = None
    for j in range(start, len(tokens)):
        t = tokens[j]
        if t.level != 0:
            continue
        if t.nesting == 1:
            opened = t.map
        else:
            block = t.map if t.nesting == 0 else opened
            return j + 1, block[1] if block else None
    return start, None


def add_note(parsed: ParsedChapter, note: str) -> None:
    """The note's tokens spliced into the parsed chapter under its first paragraph. They carry
    no line numbers: a link problem still names the final's own line."""
    if not note:
        return
    extra = _MD.parse(note, {"book": _ParseCtx(title="", glossary=None)})
    for t in extra:
        t.map = None
        if t.type == "blockquote_open":
            t.attrSet("class", "partial-view")
    at, _ = _first_block_end(parsed.tokens)
    parsed.tokens[at:at] = extra


def with_partial_note(md: str, note: str) -> str:
    """``md`` with ``note`` under its first paragraph, where the page shows it (the Markdown
    beside the page)."""
    if not note:
        return md
    _, line = _first_block_end(_MD.parse(md, {"book": _ParseCtx(title="", glossary=None)}))
    lines = md.split("\n")
    k = len(lines) if line is None else line
    return "\n".join(lines[:k] + ["", note] + ([""] if k < len(lines) and lines[k].strip() else []) + lines[k:])
