"""Citations in a chapter's Markdown: `[label](source:PATH#Lm-Ln)` links, the prose blocks
(paragraphs, list runs) that hold them, the sentences each citation backs, and the code names
a sentence gives. Pure functions of the text; `check.py` resolves them against the source."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from ..text.markdown import SPAN_RE, scan_fences

CITE_RE = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(source:([^)\s#]+)#L(\d+)(?:-L?(\d+))?\)")
# a name in code: `Table.insert`, `Mux::Use`, `res.json()`, `@app.route`, `#define`d macros are plain
# (Ruby's `merge!` and `key?` keep their mark: they are other methods than `merge` and `key`)
_NAME_RE = re.compile(r"^@?([A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*[!?]?)(?:\([^()]*\))?[!?]?$")
_LITERALS = frozenset({"True", "False", "None", "true", "false", "null", "nil", "undefined", "NULL", "self", "this"})
_PATH_EXT_RE = re.compile(r"\.(?:py|pyi|go|js|mjs|cjs|ts|tsx|jsx|rs|java|kt|kts|c|h|cc|cpp|cxx|hh|hpp|hxx|cs|rb|php|swift"
                          r"|scala|sc|ex|exs|lua|zig|hs|dart|erl|jl|md|toml|json|ya?ml|cfg|txt)$")
# where a sentence ends: after . ! ? (then space and a capital, a code span, a link or an emphasis), after
# CJK stops, and before each item of a list (an item is a claim of its own)
_SENT_END_RE = re.compile(r"(?<=[.!?])[)\]]?\s+(?=[A-Z`\[*(_\"'\d])|(?<=[。！？；])|\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t])|\n(?=[ \t]*\|)")


@dataclass(frozen=True)
class Citation:
    line: int  # 1-based line of the chapter where the link is
    path: str
    first: int
    last: int
    label: str
    start: int = 0  # offset of the link in its block's text (for the sentence it ends)
    end: int = 0

    @property
    def ref(self) -> str:
        return f"{self.path}#L{self.first}-L{self.last}"


@dataclass
class Sentence:
    text: str
    line: int  # the chapter line it starts on
    names: list[str]
    cites: list[Citation]


@dataclass
class Block:
    """A paragraph or a run of list items: prose between blank lines, fences and headings."""

    first: int  # 1-based chapter lines
    last: int
    text: str
    section: str  # the `## ` heading above it ("" before the first)
    cites: list[Citation] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # the code names it gives, in order
    sentences: list[Sentence] = field(default_factory=list)
    quote: bool = False  # a block quote: words quoted from the source, backed by the sentence before it

    @property
    def is_claim(self) -> bool:
        """Says something about the code: it names a symbol of it (and is not a quotation)."""
        return bool(self.names) and not self.quote


def citation_link(path: str, first: int, last: int, label: str | None = None) -> str:
    """The Markdown of a citation: `[path:a-b](source:path#La-Lb)`."""
    text = label if label is not None else f"{path}:{first}" + (f"-{last}" if last > first else "")
    # a file name with a space, a parenthesis or a `#` is percent-encoded: a link target is one word
    return f"[{text}](source:{quote(path, safe='/')}#L{first}-L{last})"


def code_name(span: str) -> str | None:
    """The name a code span gives (`Table.insert()` → `Table.insert`), or None: a literal, a path,
    a command, an expression."""
    s = span.strip()
    m = _NAME_RE.match(s)
    if not m or s in _LITERALS or _PATH_EXT_RE.search(s) or len(m.group(1)) < 2:
        return None
    return m.group(1)


def last_part(name: str) -> str:
    """What must occur in the cited lines for a name: its last component (`Table.insert` → `insert`)."""
    return re.split(r"\.|::|->|#", name)[-1]


def _names(text: str) -> list[str]:
    out = []
    for m in SPAN_RE.finditer(text):
        n = code_name(m.group(2))
        if n and n not in out:
            out.append(n)
    return out


def _sentences(text: str, first_line: int, cites: list[Citation]) -> list[Sentence]:
    masked = SPAN_RE.sub(lambda m: "x" * len(m.group()), text)  # a `.` inside code ends nothing
    masked = CITE_RE.sub(lambda m: "c" * len(m.group()), masked)
    cuts = [0] + [m.end() for m in _SENT_END_RE.finditer(masked)] + [len(text)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        if not text[a:b].strip():
            continue
        mine = [c for c in cites if a <= c.start < b]
        line = first_line + text.count("\n", 0, a)
        out.append(Sentence(text[a:b].strip(), line, _names(CITE_RE.sub(r"\1", text[a:b])), mine))
    return out


def blocks(md: str) -> list[Block]:
    """The prose blocks of a chapter, with their citations, names and sentences."""
    _, lines, in_code = scan_fences(md)
    out: list[Block] = []
    section = ""
    cur: list[tuple[int, str]] = []

    def flush() -> None:
        if not cur:
            return
        first = cur[0][0]
        text = "\n".join(t for _, t in cur)
        b = Block(first, cur[-1][0], text, section, quote=all(t.lstrip().startswith(">") for _, t in cur))
        starts = [0]
        for _, t in cur:
            starts.append(starts[-1] + len(t) + 1)
        for m in CITE_RE.finditer(text):
            a, z = int(m.group(3)), int(m.group(4) or m.group(3))
            line = first + text.count("\n", 0, m.start())
            b.cites.append(Citation(line, unquote(m.group(2)).removeprefix("./"), a, z, m.group(1), m.start(), m.end()))
        b.names = _names(CITE_RE.sub(r"\1", text))
        b.sentences = _sentences(text, first, b.cites)
        out.append(b)
        cur.clear()

    for i, ln in enumerate(lines):
        heading = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", ln)
        if in_code[i] or not ln.strip() or heading or ln.lstrip().startswith("<!--"):
            flush()
            if heading and not in_code[i] and len(heading.group(1)) == 2:
                section = heading.group(2)
            continue
        cur.append((i + 1, ln))
    flush()
    return out


def citations(md: str) -> list[Citation]:
    return [c for b in blocks(md) for c in b.cites]
