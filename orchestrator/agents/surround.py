"""What a model says around its answer, found deterministically and never committed: a
preamble before the `# ` title line ("Here is the chapter:"), a Markdown fence wrapped around
the whole answer, and closing remarks after the content ("Let me know if…", "I hope this
helps"). Each is stripped, and what was removed is returned for the ledger; when the text
before the title is more than a sentence or two (it may be part of the answer), nothing is
guessed: ValidationFailed, and the answer is asked for again with the reason."""

from __future__ import annotations

import re

from ..errors import ValidationFailed

PREAMBLE_CHARS = 400  # more text than this before the title may be content: re-ask, never cut
PREAMBLE_LINES = 4
MAX_CLOSINGS = 3  # closing paragraphs removed at most (a longer tail is the answer's own)

# How a closing remark to the person asking begins (English and Chinese), after any emphasis.
CLOSING = re.compile(
    r"^(let me know|please let me know|i hope (this|that) (helps|was|is (useful|helpful|what))|hope (this|that) helps|"
    r"feel free to (ask|reach|let|tell|request)|if you('d| would) like (me|any|further|more changes|changes)|"
    r"if you want me to|would you like me|do you want me|shall i |should i (expand|add|revise|change)|"
    r"i can (also )?(expand|adjust|revise|rewrite|shorten|change) (this|it|the|any)|i('d| would) be happy to|"
    r"happy to (help|adjust|revise)|is there anything else|"
    r"如果(您|你)(需要|希望|想要)我|希望(这|以上)(对您|对你|能)|如需(修改|调整|进一步)|请告诉我|需要我)",
    re.IGNORECASE)
RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
WRAPPER = re.compile(r"^(```|~~~)\s*(markdown|md)?\s*$", re.IGNORECASE)


def _fenced(lines: list[str]) -> list[bool]:
    """Per line: inside (or opening/closing) a fenced code block."""
    out, fence = [], None
    for line in lines:
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            out.append(True)
            fence = None if fence == mark else (fence or mark)
            continue
        out.append(fence is not None)
    return out


def _unwrap(lines: list[str]) -> list[str] | None:
    """A whole answer inside one ```markdown fence (its first line inside is the title): its
    inside; None when it is not wrapped so (an answer may well end with a code block)."""
    body = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(body) < 3 or not WRAPPER.match(lines[body[0]].strip()) or lines[body[-1]].strip() not in ("```", "~~~"):
        return None
    inner = lines[body[0] + 1:body[-1]]
    head = next((ln for ln in inner if ln.strip()), "")
    return inner if head.startswith("# ") else None


def strip_preamble(text: str) -> tuple[str, str]:
    """(the text from its first `# ` title line on, what came before it); raises ValidationFailed
    when what came before is too long to be a preamble. No title line: unchanged (the step's
    validator says what is missing)."""
    lines = text.splitlines()
    fenced = _fenced(lines)
    first = next((i for i, ln in enumerate(lines) if not fenced[i] and ln.startswith("# ")), None)
    if first is None or not any(ln.strip() for ln in lines[:first]):
        return text, ""
    before = "\n".join(lines[:first]).strip()
    shown = [ln for ln in lines[:first] if ln.strip()]
    if len(before) > PREAMBLE_CHARS or len(shown) > PREAMBLE_LINES or any(fenced[:first]) or \
            any(ln.lstrip().startswith("#") for ln in shown):
        raise ValidationFailed(f"the answer has {len(shown)} line(s) of text before its `# ` title line; "
                               "begin the answer with the title line itself, with nothing before it")
    return "\n".join(lines[first:]), before


def strip_closing(text: str) -> tuple[str, list[str]]:
    """(the text without closing remarks at its end, the paragraphs removed)."""
    lines = text.rstrip().splitlines()
    fenced = _fenced(lines)
    removed: list[str] = []
    end = len(lines)
    while len(removed) < MAX_CLOSINGS:
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        start = end
        while start > 0 and lines[start - 1].strip():
            start -= 1
        para = lines[start:end]
        if not para or any(fenced[start:end]) or start == 0:
            break
        words = " ".join(ln.strip() for ln in para).lstrip("*_> ").strip()
        if para[0].lstrip().startswith(("#", "-", "*", "|", ">", "1.")) and not CLOSING.match(words):
            break
        if not CLOSING.match(words):
            break
        removed.insert(0, words)
        end = start
    if not removed:
        return text, []
    while end > 0 and (not lines[end - 1].strip() or RULE.match(lines[end - 1])):  # the rule before them
        end -= 1
    return "\n".join(lines[:end]) + "\n", removed


def around(text: str, titled: bool) -> tuple[str, list[str]]:
    """The answer without what the model said around it, and notes of what was removed.
    `titled`: the answer must begin with a `# ` title line (research, drafts, finals, panel)."""
    notes: list[str] = []
    inner = _unwrap(text.strip().splitlines()) if titled else None
    if inner is not None:
        text = "\n".join(inner)
        notes.append("a ``` fence around the whole answer")
    if titled:
        text, before = strip_preamble(text)
        if before:
            notes.append(f"preamble: {_short(before)}")
    text, closing = strip_closing(text)
    notes += [f"closing remark: {_short(c)}" for c in closing]
    return text, notes


def _short(s: str, n: int = 80) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"
