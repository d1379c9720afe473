"""Text views for people (stderr or stdout without --json). Data views are JSON."""

from __future__ import annotations

import sys
from typing import Any

from .steps import ORDER

SHORT = {"done": "✅", "edited": "✍", "stale": "🔄", "half_finished": "⚠️", "missing": "·",
         "running": "⏳", "failed": "❌", "needs_human": "✋"}


def print_scan(report: dict[str, Any], out=None) -> None:
    out = out or sys.stdout
    w = out.write
    w(f"workspace {report['workspace']}\n")
    batch = f", batch {report['batch']}" if report.get("batch") else ""
    w(f"phase {report['phase']}{batch}{' — complete' if report.get('complete') else ''}\n")
    if report.get("source"):
        w(f"source: {report['source']}\n")
    if report.get("outline_error"):
        w(f"outline: {report['outline_error']}\n")
    chapters = report["chapters"]
    if chapters:
        w("\n" + "chapter  batch  " + " ".join(f"{k[:6]:>6}" for k in ORDER) + "  phase        evidence\n")
        for ch, row in chapters.items():
            cells = " ".join(f"{SHORT.get(row['steps'][k], '?'):>6}" for k in ORDER)
            w(f"{ch:<8} {str(row['batch'] or '-'):>5}  {cells}  {row['phase']:<12} {row.get('evidence', '-')}\n")
        w("legend: ✅ done  ✍ edited by hand (kept)  🔄 stale  ⚠️ half-finished  · missing\n")
    _print_evidence(report, w)
    kept = report.get("kept_for_person") or {}
    listed = [*(report.get("half_finished") or []), *(report.get("stale") or []), *(report.get("edited") or [])]
    report = {**report, "half_finished": [f"{x} ({kept[x]})" if x in kept else x for x in report.get("half_finished") or []]}
    if report.get("discrepancies"):
        from .state.reconcile import brief

        report["discrepancies"] = brief(report["discrepancies"], listed)
    for key, title in (("half_finished", "half-finished (no marker: one cut short is redone from a backup copy; "
                                          "one that looks complete is kept for you)"), ("stale", "stale (will be redone)"),
                       ("edited", "edited by hand (kept, never overwritten)"), ("needs_human", "needs a person"), ("gates_waiting", "waiting at a gate (`book gates`)"),
                       ("discrepancies", "checkpoint.md disagrees with the files"), ("warnings", "warnings")):
        items = report.get(key) or []
        if items:
            w(f"\n{title}:\n" + "".join(f"  {x}\n" for x in items))


def _print_evidence(report: dict[str, Any], w) -> None:
    """The source's revision, the claims' health, and the claims that no longer hold."""
    rev, health = report.get("revision"), report.get("claim_health")
    if rev and rev.get("id"):
        w(f"revision: {rev['kind']} {rev['id'][:12]}{' (' + rev['remote'] + ')' if rev.get('remote') else ''}\n")
    if health and health.get("all"):
        w(f"claims: {health['supported']}/{health['all']} supported, {health['stale']} stale, {health['gone']} gone\n")
        for ch, cs in (health.get("stale_claims") or {}).items():
            for c in cs[:20]:
                w(f"  {ch} § {c['section'] or '-'} line {c['line']}: {c['status']} — {c['text'][:90]}\n")
    q = report.get("quality")
    if q:  # the audit's figures (state.quality_view): as measured, or the map's as last measured
        w(f"quality{'' if q.get('current') else ' (the map figures as last measured)'}: claims "
          f"{q['claims_supported']}/{q['claims_all']}, cited paragraphs {q['claim_paragraphs_cited']}/"
          f"{q['claim_paragraphs']}, citations resolving {q['citations_resolving']}/{q['citations']}, "
          f"top symbols taught {q['top_taught']}/{q['top_symbols']}, diagrams valid {q['diagrams_valid']}/{q['diagrams']}\n")
    if report.get("follow"):  # what the last rewrite at the grain of the section did
        from .state.evidence_view import follow_lines

        w("sections redone at the source's new revision:\n" + "".join(f"  {x[2:]}\n" for x in follow_lines(report["follow"])))
