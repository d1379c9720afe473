"""A chapter's evidence as the state machine, `book scan` and checkpoint.md see it: its coverage
(`uncovered | partial | covered` against `evidence_min`), and the health of its recorded claims
at the source's current revision. Explicit inputs (paths, the text, the threshold), no Book."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import claims as claims_mod
from .resolve import Coverage, SourceFiles, resolve
from .revision import Revision

STATES = ("uncovered", "partial", "covered")


@dataclass
class ChapterEvidence:
    state: str = "uncovered"  # uncovered | partial | covered
    coverage: Coverage | None = None
    accepted: bool = False  # a person adopted the chapter below the threshold (`book accept`)
    recorded_at: str = ""  # the revision its claims were recorded at ("" when none are)
    health: dict[str, int] = field(default_factory=dict)  # supported / stale / gone at the current revision
    stale: list[dict] = field(default_factory=list)  # the claims that are not supported: section, line, text
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, why) of citations that do not resolve

    def reason(self, minimum: float) -> str:
        """Why the chapter may not go on to its final ("" when it may)."""
        if self.state == "covered" or self.accepted or self.coverage is None:
            return ""
        c = self.coverage
        if c.unresolved:
            return f"evidence {self.state}: {c.unresolved} citation(s) do not resolve in the source"
        return (f"evidence {self.state}: {c.cited} of {c.claims} paragraphs about the code cite their source "
                f"({c.share:.0%}, below evidence_min {minimum:.0%})")

    def as_dict(self) -> dict:
        return {"state": self.state, "accepted": self.accepted,
                "coverage": self.coverage.as_dict() if self.coverage else None,
                "recorded_at": self.recorded_at, "claims": self.health,
                "stale": [{"section": s["section"], "line": s["line"], "status": s["status"], "text": s["text"][:160]}
                          for s in self.stale]}


def _coverage(doc: dict) -> Coverage:
    c = doc.get("coverage") or {}
    return Coverage(int(c.get("claims", 0)), int(c.get("cited", 0)), int(c.get("citations", 0)),
                    int(c.get("unresolved", 0)))


def evaluate(root: Path, source_dir: Path, ch: str, text: Callable[[], str] | None, body_hash: str | None,
             minimum: float,
             revision: Revision, accepted: bool = False, files: SourceFiles | None = None) -> ChapterEvidence:
    """The chapter's evidence. `text` (read when needed)/`body_hash`: its latest complete text (the
    final, else the draft), None when it has none. The claims file is used when it was made from this very text;
    otherwise the text is resolved now."""
    ev = ChapterEvidence(accepted=accepted)
    doc = claims_mod.load(root / claims_mod.claims_path(ch))
    files = files or SourceFiles(source_dir)
    if doc is not None:
        ev.recorded_at = str(doc.get("revision", {}).get("id", ""))
        if ev.recorded_at != revision.id:
            checked = claims_mod.health(doc, source_dir, files)
            ev.health = claims_mod.summary(checked)
            ev.stale = [c for c in checked if c["status"] != "supported"]
        else:  # recorded at this revision: what did not hold then is what does not hold now
            ev.stale = [{**c, "status": c["held"]} for c in doc.get("claims", []) if c.get("held")]
            ev.health = claims_mod.summary([{"status": c.get("held", "supported")} for c in doc.get("claims", [])])
    if text is None:
        return ev
    if doc is not None and doc.get("of") == body_hash and ev.recorded_at == revision.id and \
            not _coverage(doc).unresolved:
        ev.coverage = _coverage(doc)
    else:
        probs, _, ev.coverage = resolve(text(), source_dir, files)
        ev.problems = [(p.line, p.message) for p in probs]
    ev.state = ev.coverage.state(minimum)
    return ev


def record(root: Path, source_dir: Path, ch: str, text: str, body_hash: str | None, revision: Revision,
           write: Callable[[Path, str], object]) -> dict:
    """Write the chapter's claims file (derived: the same text and source give the same bytes;
    `write` is the write protocol's write_if_changed)."""
    doc = claims_mod.build(ch, text, source_dir, revision)
    doc["of"] = body_hash
    write(root / claims_mod.claims_path(ch), claims_mod.render(doc))
    return doc
