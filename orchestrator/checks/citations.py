"""R1's citation check: every `[label](source:PATH#Lm-Ln)` resolves in the source (the file, the
lines, the code names its sentence gives within them), and every paragraph that names code
carries a citation. The resolving is `evidence.resolve`'s; this module turns it into findings."""

from __future__ import annotations

from pathlib import Path

from ..evidence.resolve import SourceFiles, resolve
from .findings import Collected, Finding


def check_citations(md: str, source_dir: Path, *, evidence_min: float | None = None,
                    files: SourceFiles | None = None) -> list[Finding]:
    """Unresolved citations block. With `evidence_min` (a run passes book.yaml's), an uncited
    claim paragraph is a minor finding, and a chapter whose share of cited claim paragraphs is
    below it is blocked (a person passes it by `book accept`: see evidence.policy)."""
    probs, uncited, cov = resolve(md, Path(source_dir), files)
    out = Collected()
    for p in probs:
        out.add("r1.cite", "blocking", p.line, p.message)
    if evidence_min is None:
        return list(out)
    for b in uncited:
        names = ", ".join(f"`{n}`" for n in b.names[:3])
        out.add("r1.uncited", "minor", b.first, f"the paragraph at line {b.first} names {names} but cites no "
                                                  "source lines: add [path:a-b](source:path#La-Lb)")
    if cov.claims and cov.share < evidence_min:
        out.add("r1.evidence", "blocking", 0, f"{cov.cited} of {cov.claims} paragraphs about the code cite their "
                                              f"source ({cov.share:.0%}); the book asks for {evidence_min:.0%}")
    return list(out)
