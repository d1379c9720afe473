"""JSON contracts → the human-facing Markdown files, deterministically, in today's layout.

What a file says is exactly what the contract says: `parse.py` reads every rendered file back
to an equal object (`parse_x(render_x(x)) == x`, property-tested), so a scan never needs the
model's raw answer, and a person's edit of the file is read with the same grammar. Bodies
are returned without the completion marker (the runner composes it)."""

from __future__ import annotations

from collections.abc import Iterable

from .findings import Action, Finding, MergedReview, Review
from .memory import MemoryUpdate
from .outline import OutlinePlan
from .panel import Confusion, PanelFeedback
from .verdict import shown_verdict

WHOLE = "whole chapter"  # the location of an action or a confusion that concerns no line
ACTIONS_TITLE = "Actions for the editor"
EDIT_HINT = "Edit the block below to change the plan; `book scan` tells you what your edit makes stale."


def _where(line: int, end: int | None) -> str:
    if not line:
        return ""
    return f"lines {line}-{end}" if end else f"line {line}"


def _quote(quote: str) -> list[str]:
    # A blockquote inside the list item: any text survives it, one `>` per line.
    return [("  > " + q) if q else "  >" for q in quote.split("\n")] if quote else []


def render_finding(f: Finding) -> str:
    """`- **blocking** `r1.code` ch03 lines 40-52: message`, then the quote as `  > ` lines.
    Without range, chapter or quote this is exactly today's `checks.format_findings` line."""
    head = f"- **{f.severity}** `{f.check}`" + (f" {f.chapter}" if f.chapter else "")
    where = _where(f.line, f.end_line)
    head += (" " + where if where else "") + ": " + f.message
    return "\n".join([head, *_quote(f.quote)])


def render_findings(findings: Iterable[Finding]) -> str:
    return "\n".join(render_finding(f) for f in findings) or "- none"


def render_action(a: Action) -> str:
    where = _where(a.line, a.end_line) or WHOLE
    checks = f" ({', '.join(f'`{c}`' for c in a.checks)})" if a.checks else ""
    return f"- {where}{checks}: {a.change}"


def _head(heading: str) -> str:
    return "# " + " ".join(heading.split()).removeprefix("# ")


def render_review(review: Review, *, heading: str) -> str:
    """A review file (R1, R2, R3, the book audit). `heading`: "R1 code review: ch03 — Title"."""
    return "\n".join([_head(heading), "", f"Verdict: {shown_verdict(review.findings)}", "", "## Findings", "",
                      render_findings(review.findings), "", "## Notes", "", review.notes or "(none)"]) + "\n"


def render_merged(merged: MergedReview, *, heading: str, actions_title: str = ACTIONS_TITLE) -> str:
    """The merged review. Its `Verdict:` line is computed from the findings, never the model's."""
    out = [_head(heading), "", f"Verdict: {shown_verdict(merged.findings)}", "", "## Findings", "",
           render_findings(merged.findings), "", f"## {actions_title}", ""]
    out += [render_action(a) for a in merged.actions] or ["(none)"]
    if merged.notes:
        out += ["", "## Notes", "", merged.notes]
    return "\n".join(out) + "\n"


def render_memory(mem: MemoryUpdate, *, chapter: str, title: str) -> str:
    """`output/memory/chapters/chNN.md`, exactly as memoryfiles.render writes it today."""
    out = [f"# Memory: {chapter} — {' '.join(title.split())}", "", "## Summary", "", mem.summary or "(none)", "",
           "## Glossary", ""]
    out += [f"- **{t.term}**: {t.definition}" for t in mem.terms] or ["(none)"]
    out += ["", "## Metaphors", ""]
    out += [f"- **{m.phrase}**: {m.meaning}" for m in mem.metaphors] or ["(none)"]
    out += ["", "## Cross references", ""]
    out += [f"- {x.chapter}: {x.reason}" for x in mem.cross_references] or ["(none)"]
    return "\n".join(out) + "\n"


def _confusion(c: Confusion) -> list[str]:
    out = [f"- {_where(c.line, c.end_line) or WHOLE}: {c.message}", *_quote(c.quote)]
    if c.suggestion:
        out.append(f"  Suggestion: {c.suggestion}")
    return out


def render_panel(panel: PanelFeedback, *, heading: str, descriptions: dict[str, str] | None = None) -> str:
    """The panel file: one `## persona` section each, its description in italics (from book.yaml,
    not from the model), the verdict line, then `### Questions` and `### Confusions`."""
    out = [_head(heading)]
    for r in panel.readers:
        out += ["", f"## {r.persona}", ""]
        who = " ".join((descriptions or {}).get(r.persona, "").split())
        if who:
            out += [f"_{who}_", ""]
        out += [f"Verdict: {r.verdict} · score {r.score}/5", "", "### Questions", ""]
        out += [f"- {q}" for q in r.questions] or ["(none)"]
        out += ["", "### Confusions", ""]
        out += [ln for c in r.confusions for ln in _confusion(c)] or ["(none)"]
    return "\n".join(out) + "\n"


def outline_yaml(plan: OutlinePlan) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        """Readable YAML (unicode as is) that survives a round trip: a string holding a character
        YAML reads as a line break (NEL, LS, PS) is written double-quoted, escaped."""

    def str_repr(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        style = '"' if any(c in value for c in "\x85\u2028\u2029") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, str_repr)
    data = {"title": plan.title, **plan.grouped(lambda c: c.entry())}
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)


def render_outline(plan: OutlinePlan) -> str:
    """outline.md as orchestrator/outline.render writes it: heading, intro, the YAML block."""
    intro = plan.intro + "\n\n" if plan.intro else ""
    return f"# Outline: {plan.title}\n\n{intro}{EDIT_HINT}\n\n```yaml\n{outline_yaml(plan)}```\n"
