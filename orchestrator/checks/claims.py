"""R1's check of a chapter's claims about the code (issue 23 item 6): a sentence that says how
many files use a name ("used from 5 other source files", "16 other files write it", a reference
table's "| 3 files |"), that one name calls another ("`X` calls `Y`", or a call flow's arrow
`X --> Y` in a Mermaid flowchart whose every box is a definition), or shows a name "at work" in
quoted code, is held against the repository map's resolved references. `facts` answers the
map's side (authoring.facts.ClaimFacts: None where a name is not one definition, so nothing is
claimed wrong about what the map cannot resolve). Findings are major: the sentence is false,
not the code."""

from __future__ import annotations

import re
from typing import Protocol

from ..diagrams.mermaid import MermaidError, parse
from ..text.markdown import scan_fences
from .findings import Collected, Finding, sorted_findings


class Facts(Protocol):
    def users(self, name: str) -> list[str] | None: ...
    def calls(self, caller: str, callee: str) -> bool | None: ...
    def kind_of(self, rel: str) -> str | None: ...


_COUNT_ANY = re.compile(r"\b(\d+) other (source )?files?(?: (?:use|write|call)s? (?:it|`([^`\s]+)`))?")
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|[^|]*\|[^|]*\|\s*(\d+) files?\s*\|")
_CALLS = re.compile(r"`([^`\s]+)` calls `([^`\s(]+)")
_STRINGS = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`""")


def _counted(users: list[str], source_only: bool, facts: Facts) -> int:
    return sum(1 for u in users if not source_only or facts.kind_of(u) == "code")


def check_claims(md: str, facts: Facts) -> list[Finding]:
    out = Collected()
    blocks, lines, in_code = scan_fences(md)
    last_subject = ""
    for n, (ln, code) in enumerate(zip(lines, in_code), 1):
        if code:
            continue
        subj = re.match(r"^[-*\s]*`([^`\s]+)`", ln)
        if subj:
            last_subject = subj.group(1)
        elif not ln.strip():
            last_subject = ""
        claims: list[tuple[str, int, bool, bool]] = []  # (name, n, source files only, "other" files)
        for m in _COUNT_ANY.finditer(ln):
            # the subject: the first name before the count that is a definition (not a path like `table.py`)
            before = [x for x in re.findall(r"`([^`\s]+)`", ln[:m.start()]) if facts.users(x) is not None]
            name = m.group(3) or (before[0] if before else (last_subject if facts.users(last_subject) is not None else ""))
            if name:
                claims.append((name, int(m.group(1)), bool(m.group(2)), True))
        row = _ROW.match(ln)
        if row:
            claims.append((row.group(1), int(row.group(2)), False, False))
        for name, k, source_only, _other in claims:
            users = facts.users(name)
            if users is None:
                continue
            real = _counted(users, source_only, facts)
            # a count is of resolved references: it equals the map's figure (issue 34), more is false, fewer
            # says the map found what the sentence did not count
            if k != real:
                out.add("r1.claim", "major", n, f"line {n} says {k} {'source ' if source_only else ''}files use "
                        f"`{name}`; the map's resolved references show {real}")
        for m in _CALLS.finditer(ln):
            said = facts.calls(m.group(1), m.group(2))
            if said is False:
                out.add("r1.claim", "major", n, f"line {n} says `{m.group(1)}` calls `{m.group(2)}`; its code makes "
                        "no call the map resolves to it")
        at = re.search(r"`([^`\s]+)` at work", ln)
        if at:
            nxt = next((b for b in blocks if b.line > n), None)
            short = re.split(r"[.:]", at.group(1))[-1]
            if nxt is not None and not re.search(rf"(?<![\w$]){re.escape(short)}(?![\w$])",
                                                 _STRINGS.sub('""', "\n".join(lines[nxt.line:nxt.line + 40]))):
                out.add("r1.claim", "major", n, f"line {n} shows `{at.group(1)}` at work, but the code quoted next "
                        "writes it only inside a string, or not at all")
    for b in blocks:
        if b.lang.lower() == "mermaid":
            for k, caller, callee in _drawn_calls(b.code, facts):
                out.add("r1.claim", "major", b.line + k, f"the diagram at line {b.line} draws `{caller}` → "
                        f"`{callee}`; the code of `{caller}` makes no call the map resolves to `{callee}`")
    return sorted_findings(out)


def _drawn_calls(code: str, facts: Facts) -> list[tuple[int, str, str]]:
    """(line, caller, callee) of the arrows of a call flow that the map says are not calls. A
    flowchart is a call flow when each of its boxes is one definition of the project; a labelled
    arrow says something else ("reads", "owns") and is not held as a call. A diagram that does not
    parse is R1's diagram check's to report."""
    try:
        d = parse(code)
    except MermaidError:
        return []
    if d.kind != "flowchart" or not d.edges or any(facts.users(n.label) is None for n in d.nodes.values()):
        return []
    out = []
    for e in d.edges:
        src, dst = d.nodes[e.src].label, d.nodes[e.dst].label
        if not e.label and e.arrow == "arrow" and e.style == "solid" and facts.calls(src, dst) is False:
            out.append((e.line, src, dst))
    return out
