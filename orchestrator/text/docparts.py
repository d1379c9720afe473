"""The parts of a doc comment (`DocParts`: description blocks, parameters, result,
exceptions, examples, notes) and how each part renders as safe Markdown. `docstrings.parse`
reads a doc comment of any language into these parts; the offline authors and
`docstrings.to_markdown` render them."""

from __future__ import annotations

from dataclasses import dataclass, field

from .markdown import fence, safe
from .markup import first_sentence

# ---------------------------------------------------------------- data


@dataclass
class Block:
    kind: str  # "p" (paragraph), "code", "list" (raw Markdown list lines), "heading"
    text: str
    lang: str = ""


@dataclass
class Item:
    """One parameter, result, or exception: name (may be empty), type (may be empty), text."""
    name: str
    type: str = ""
    text: str = ""
    code: list[Block] = field(default_factory=list)  # a note's own code blocks, kept with its words


@dataclass
class DocParts:
    blocks: list[Block] = field(default_factory=list)  # the description, in order
    params: list[Item] = field(default_factory=list)
    returns: list[Item] = field(default_factory=list)
    raises: list[Item] = field(default_factory=list)
    examples: list[Block] = field(default_factory=list)  # code blocks
    notes: list[Item] = field(default_factory=list)  # name: note | warning | added | changed | see also
    deprecated: str | None = None

    @property
    def summary(self) -> str:
        """The first sentence of the first paragraph ("" when there is none)."""
        first = next((b.text for b in self.blocks if b.kind == "p"), "")
        return first_sentence(first)

    @property
    def paragraphs(self) -> list[Block]:
        """The description after the summary sentence (the rest of the first paragraph too)."""
        out, done = [], False
        for b in self.blocks:
            if b.kind == "p" and not done:
                done = True
                rest = b.text[len(first_sentence(b.text)):].strip()
                if rest:
                    out.append(Block("p", rest))
                continue
            out.append(b)
        return out

    def empty(self) -> bool:
        return not (self.blocks or self.params or self.returns or self.raises or self.examples or self.notes
                    or self.deprecated)


# ---------------------------------------------------------------- rendering

LABELS = {
    "en": {"params": "Parameters", "returns": "Returns", "raises": "Raises", "example": "Example",
           "note": "Note", "warning": "Warning", "see also": "See also", "added": "New in version",
           "changed": "Changed in version", "deprecated": "Deprecated", "safety": "Safety"},
    "zh": {"params": "参数", "returns": "返回值", "raises": "异常", "example": "示例", "note": "注意",
           "warning": "警告", "see also": "另见", "added": "新增于版本", "changed": "变更于版本",
           "deprecated": "已弃用", "safety": "安全性"},
}


def render_blocks(blocks: list[Block]) -> list[str]:
    """Description blocks as Markdown paragraphs (a heading becomes a bold line)."""
    out = []
    for b in blocks:
        if b.kind == "heading":
            out.append(f"**{b.text.strip('*')}**")
        elif b.kind == "code":
            out.append(fence(b.text, b.lang or "text"))
        else:
            out.append(b.text)
    return [safe(x) for x in out]


def render_items(items: list[Item], code_names: bool = True) -> list[str]:
    out = []
    for it in items:
        head = f"`{it.name}`" if it.name and code_names else it.name
        typ = (f" (`{it.type}`)" if head else f"`{it.type}`") if it.type else ""
        sep = ": " if it.text and (head or typ) else ""
        out.append(safe(f"- {head}{typ}{sep}{it.text}"))
    return out
