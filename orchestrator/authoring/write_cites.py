"""The citations the offline writer gives its own sentences, where it knows the lines it speaks of
better than the annotator (evidence.annotate) could guess them from the names: a parameter at its
signature, a member at its owner's head and its own lines, a body's paragraph at the body."""

from __future__ import annotations

from ..evidence.cite import citation_link
from .project import Project, Sym
from .tracing import call_line, name_line

MEMBER_WHOLE = 30  # a member this short is cited whole


def cited_item(item: str, cite: str) -> str:
    """`item` with `cite` before its closing stop (or the colon that opens a list)."""
    end = len(item) - 1 if item.endswith((".", "。", ":", "：")) else len(item)
    return item[:end] + cite + item[end:]


def sig_cite(p: Project, s: Sym) -> str:
    """` ([file:a-b](…))`: the lines of `s`'s signature, past its attributes (a parameter is cited there:
    left to the annotator, sinatra's `merge!(*other_hashes)` cited the `other_hashes` of `merge`)."""
    if s.lang == "php":
        return ""  # (PHP writes `$name`: the annotator's `name` is no match for it, so it cites the doc instead)
    head = name_line(p, s)
    last = min(s.d.end_line, head + s.d.signature.strip().count("\n"))
    return f" ({citation_link(s.rel, head, max(head, last))})"


def member_cited(p: Project, lead: str, owner: Sym, member: Sym, a: int, b: int) -> str:
    """"`Hash` also has `merge!` (lines 125–139)" cited where it says: the owner's head and the member's
    lines (left to the annotator, it took the owner's first lines, which mention `merge!` in passing)."""
    head = name_line(p, owner)
    # (a long one by the lines that name it, past its attributes: a sentence is checked against 120 lines)
    first, last = (a, b) if b - a < MEMBER_WHOLE else (max(a, name_line(p, member)), max(a, name_line(p, member)) + 2)
    cites = f" ({citation_link(owner.rel, head, head)}) ({citation_link(member.rel, first, last)})"
    return cited_item(lead, cites)


def cite_of(s: Sym) -> str:
    """` ([file:a-b](source:file#La-Lb))`: the lines a paragraph about `s`'s body rests on (the
    steps, the result, the calls are read from them; the map's names alone would not cite them)."""
    d = getattr(s, "d", None)
    if d is None:
        return ""
    return f" ({citation_link(s.rel, d.start_line, d.end_line)})"


def calls_cite(p: Project, s: Sym, callees: list[Sym]) -> str:
    """The lines a sentence about what `s` calls rests on: its whole definition, or for one longer
    than a sentence is checked against (hono's 208-line `ErrorBoundary`) the lines that make those calls."""
    from ..evidence.resolve import MAX_SPAN

    if s.lines <= MAX_SPAN:
        return cite_of(s)
    return "".join(f" ({citation_link(s.rel, n, n)})" for n in sorted({call_line(p, s, c) for c in callees} - {0}))
