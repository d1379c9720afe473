"""What the offline writer does with a person's words at a gate (`book reject --reason`, `book
modify --instructions`, `r`/`m` in `book review`). It has no model to understand free text, so
it knows a few requests and carries them out on the text it wrote — "shorter", "add an example",
"explain X" (in English or Chinese) — and names every other one plainly as not followed, so a
person knows to edit the file by hand instead of spending another decision.

`read(words)` splits the words into requests; `follow(text, ctx, p)` applies them to a research
report, a draft or a final chapter; `said(words)` is the sentence a person is told when deciding."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..evidence.cite import citation_link

if TYPE_CHECKING:
    from .project import Project, Sym

# the runner's wording of a rollback (pipeline/gates.rollback_instructions): a person's words after it
_ROLLBACK_RE = re.compile(r"^the \w+ gate was (?:rejected|modified): (.*?)(?:\n\nThe merged review to address:|\Z)", re.S)
_SHORTER = re.compile(r"\b(?:short(?:er|en)?|concise|brief(?:er)?|too long|trim|condense|tighten)\b"
                      r"|更短|缩短|精简|简短|太长|删减", re.I)
# "too short", "not brief enough", "太短": the opposite of shorter, which the offline writer cannot do
_LONGER = re.compile(r"\b(?:too|so|very|rather|quite|not)\s+(?:short|brief|concise)\b|\blonger\b|\bexpand\b|太短|更长|扩充", re.I)
_EXAMPLE = re.compile(r"\bexamples?\b|\busage\b|举例|例子|示例|用法", re.I)
_EXPLAIN = re.compile(r"\b(?:explain|describe|clarify|cover|what is|what's|more (?:on|about))\s+(?:the\s+|how\s+)?"
                      r"`?([A-Za-z_][\w.:]*)`?|(?:解释|说明|讲讲|讲解)\s*`?([A-Za-z_][\w.:]*)`?", re.I)


@dataclass
class Asks:
    shorter: bool = False
    example: bool = False
    explain: list[str] = field(default_factory=list)
    cannot: list[str] = field(default_factory=list)  # the person's own words for what is not followed

    def can(self) -> list[str]:
        return (["shorter"] if self.shorter else []) + (["add an example"] if self.example else []) + \
            [f"explain {x}" for x in self.explain]


def person_words(instructions: str) -> str:
    """The person's own words in a rollback's instructions ('' for the runner's own: a blocked
    review's findings, a failed link check — not a person's request)."""
    m = _ROLLBACK_RE.match(instructions.strip())
    return m.group(1).strip() if m else ""


def read(words: str) -> Asks:
    asks = Asks()
    for part in re.split(r"\.(?:\s|$)|[;\n!?。；！？]+|,\s*|，|\band\b|\bthen\b|\balso\b|并且|然后|再", words):
        part = part.strip(" -*\t\"'")
        if not part:
            continue
        hit = False
        for m in _EXPLAIN.finditer(part):
            name = (m.group(1) or m.group(2) or "").strip("`.:")
            if name and name not in asks.explain:
                asks.explain.append(name)
            hit = True
        if _EXAMPLE.search(part):
            asks.example = hit = True
        if not hit and _SHORTER.search(part) and not _LONGER.search(part):
            asks.shorter = hit = True
        if not hit:
            asks.cannot.append(part)
    return asks


def said(words: str, language: str = "en") -> str:
    """What the offline writer will do with these words, for the person who just typed them."""
    asks = read(words)
    if language == "zh":
        can = "、".join(asks.can())
        out = f"离线写作会照做：{can}" if can else "离线写作无法理解这些要求"
        if asks.cannot:
            out += f"；无法照做：{'；'.join(repr(c) for c in asks.cannot)}（只懂“更短”“加一个例子”“解释 X”：其余请手工修改文件后再批准）"
        return out
    can = ", ".join(asks.can())
    known = "it knows \"shorter\", \"add an example\" and \"explain X\"; for the rest, edit the file yourself, then approve it"
    cannot = ", ".join(repr(c) for c in asks.cannot)
    if not can:
        return f"offline, the writer cannot follow {cannot or 'these words'} ({known})"
    return f"offline, the writer will follow: {can}" + (f"; it cannot follow {cannot} ({known})" if cannot else "")


# ---------------------------------------------------------------- carrying them out


def _blocks(lines: list[str]) -> list[list[str]]:
    """Markdown blocks (paragraphs, lists, whole fences), blank lines between them dropped."""
    out: list[list[str]] = []
    cur: list[str] = []
    fence = ""
    for ln in lines:
        s = ln.lstrip()
        if fence:
            cur.append(ln)
            if s.startswith(fence) and s.strip() == fence[: len(s.strip())] and len(s.strip()) >= len(fence):
                fence = ""
                out.append(cur)
                cur = []
            continue
        m = re.match(r"(`{3,}|~{3,})", s)
        if m:
            if cur:
                out.append(cur)
            cur, fence = [ln], m.group(1)
            continue
        if not ln.strip():
            if cur:
                out.append(cur)
            cur = []
            continue
        cur.append(ln)
    if cur:
        out.append(cur)
    return out


def shorten(text: str) -> str:
    """About a third shorter: in each `## ` section of more than three blocks, the blocks past
    the first two thirds go (headings, the opening and every section stay, so links to them
    hold); a code block is never left as a section's last word without the sentence after it."""
    parts = re.split(r"(?m)^(?=## )", text)
    out = []
    for part in parts:
        blocks = _blocks(part.splitlines())
        if len(blocks) > 3:
            keep = max(3, -(-len(blocks) * 2 // 3))
            while keep < len(blocks) and blocks[keep - 1][0].lstrip().startswith(("```", "~~~")):
                keep += 1  # the explanation after a kept code block stays with it
            blocks = blocks[:keep]
        out.append("\n\n".join("\n".join(b) for b in blocks))
    return "\n\n".join(x for x in out if x.strip()) + "\n"


def _insert_before_last_section(text: str, section: list[str]) -> str:
    heads = [m.start() for m in re.finditer(r"(?m)^## ", text)]
    at = heads[-1] if len(heads) > 1 else len(text)
    return text[:at].rstrip() + "\n\n" + "\n".join(section).strip() + "\n\n" + text[at:].lstrip()


def _use_of(p: Project, syms: list[Sym], files: list[str]) -> tuple[Sym, str, int, int] | None:
    """A statement, quoted exactly, where another file of the source (a test or an example
    first) calls one of the chapter's symbols."""
    candidates = list(p.map.tests_for(files))
    for f in files:
        candidates += [u for u in p.map.users_of(f) if u not in candidates and u not in files]
    candidates += files  # the chapter's own files last: a call from elsewhere shows more
    for rel in candidates:
        lines = p.lines_of(rel)
        for s in syms:
            if len(s.short) < 3:
                continue
            rx = re.compile(rf"(?<![\w$]){re.escape(s.short)}\s*\(")
            for i, ln in enumerate(lines):
                st = ln.lstrip()
                if (not rx.search(ln) or st.startswith(("#", "//", "*", "def ", "class ", "import", "from "))
                        or re.search(rf"\b(?:self|this)\.{re.escape(s.short)}\(\)", ln)):  # a bare self-call shows nothing
                    continue
                b, depth = i, 0
                for j in range(i, min(len(lines), i + 10)):
                    depth += sum(lines[j].count(c) for c in "([{") - sum(lines[j].count(c) for c in ")]}")
                    b = j
                    if depth <= 0:
                        break
                if depth == 0 and "```" not in "".join(lines[i:b + 1]):
                    return s, rel, i + 1, b + 1
    return None


def _example(p: Project, ctx: dict[str, Any], zh: bool) -> list[str] | None:
    from ..text.markdown import fence
    from .plan import key_symbols

    files = [f for f in ctx.get("chapter", {}).get("sources", []) if f in p.map.files]
    found = _use_of(p, key_symbols(p, files, 6), files)
    if found is None:
        return None
    s, rel, a, b = found
    code = "\n".join(p.lines_of(rel)[a - 1:b])
    import textwrap

    head = "## 示例" if zh else "## An example"
    intro = (f"`{s.short}` 的一次调用，见 `{rel}` 第 {a} 行（{citation_link(rel, a, b)}）：" if zh else
             f"Here is `{s.short}` called from `{rel}` ({citation_link(rel, a, b)}):")
    after = (f"这一行把 `{s.short}` 用在真实的调用处，而不是孤立地看它的定义。" if zh else
             f"This is `{s.short}` at work where the code really calls it, not its definition on its own.")
    return [head, "", intro, "", fence(textwrap.dedent(code).rstrip(), f"{s.lang} file={rel} lines={a}-{b}"), "",
            after, ""]


def _explain(p: Project, name: str, zh: bool) -> list[str] | None:
    from ..text.markdown import fence

    found = p.find(name) or p.find(name.rsplit(".", 1)[-1])
    if not found:
        return None
    s = found[0]
    code, a, b = p.excerpt(s)
    doc = s.d.doc_line
    if zh:
        lines = [f"## 解释 `{s.short}`", "", f"`{s.name}` 定义在 `{s.rel}`（{citation_link(s.rel, s.d.start_line, s.d.end_line)}）。"
                 + (f"它的文档说：{doc}" if doc else "它没有文档注释：下面的代码就是它的说明。"), ""]
    else:
        lines = [f"## `{s.short}` explained", "", f"`{s.name}` is defined in `{s.rel}` "
                 f"({citation_link(s.rel, s.d.start_line, s.d.end_line)})." + (f" Its own documentation says: {doc}" if doc
                                                                        else " It has no doc comment: the code below is its explanation."), ""]
    if code.strip():
        lines += [fence(code, f"{s.lang} file={s.rel} lines={a}-{b}"), ""]
    return lines


def follow(text: str, ctx: dict[str, Any], p: Project | None) -> str:
    """The text with the person's requests carried out (the same text when there is none)."""
    words = person_words(str(ctx.get("instructions") or ""))
    if not words:
        return text
    asks = read(words)
    zh = ctx.get("language") == "zh"
    if asks.shorter:
        text = shorten(text)
    if p is not None:
        for name in asks.explain:
            section = _explain(p, name, zh)
            if section:
                text = _insert_before_last_section(text, section)
        if asks.example:
            section = _example(p, ctx, zh)
            if section:
                text = _insert_before_last_section(text, section)
    return text
