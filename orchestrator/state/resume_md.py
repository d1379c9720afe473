"""RESUME.md: the letter to the next session, written at the end of every run,
resume and interruption, from the files (a scan) and the ledger."""

from __future__ import annotations

from ..steps import (
    BOOK_STEPS,
    CHECKPOINT,
    GATES_DIR,
    NEEDS_HUMAN,
    ORDER,
    OUTLINE,
    PHASE3,
    RESUME,
    STATE_DB,
    step_of_path,
)
from .fsio import atomic_write
from .gatecards import pending
from .scan import status_word

OURS = ("Project overview", "Current progress", "Evidence", "Unfinished tasks", "Known problems", "Key decisions",
        "Next steps", "Important files")


def write_resume(book, summary=None, strategy: str = "conservative", interrupted: bool = False) -> None:
    path = book.ws.path(RESUME)
    text = render_resume(book, summary, strategy, interrupted)
    mine = persons_sections(path)
    atomic_write(path, text + ("\n" + mine if mine else ""))


def persons_sections(path) -> str:
    """The `## ` sections of RESUME.md that are not ours (a person's notes to the next
    session), verbatim: every rewrite carries them over, at the end, rather than drop them."""
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except (OSError, UnicodeError):
        return ""
    keep: list[str] = []
    on = False
    for line in text.splitlines():
        if line.startswith("## "):
            on = line[3:].strip() not in OURS
        if on:
            keep.append(line)
    return "\n".join(keep).strip("\n") + "\n" if keep else ""


def render_resume(book, summary=None, strategy: str = "conservative", interrupted: bool = False) -> str:
    book.scanner.invalidate()
    snap = book.snapshot()
    cfg = book.cfg
    title = (snap.outline.title if snap.outline and snap.outline.title else "") or cfg.title
    done: list[str] = []
    active: list[str] = []
    todo: list[str] = []
    for ch, steps in snap.chapters.items():
        fresh = [k for k in ORDER if steps[k].fresh]
        (done if len(fresh) == len(ORDER) else active if any(s.status != "missing" for s in steps.values()) else todo).append(ch)
    needs = book.needs_human() | ({k: v for k, v in summary.needs_human.items()} if summary else {})
    cards = []
    if (book.root / GATES_DIR).is_dir():
        cards = pending(book, list(snap.chapters))
    out = [f"# RESUME — {title}", "",
           "The letter to the next session: `book resume` reads this first, then checkpoint.md, then verifies "
           "everything against the files (the files win).", ""]
    out += ["## Project overview", "", f"- title: {title}", f"- source: `{cfg.source}` ({cfg.source_dir})",
            f"- chapters: {len(snap.chapters)}", f"- workspace: {book.root}", f"- language: {cfg.language}, gates: {cfg.gates}", ""]
    out += ["## Current progress", "", f"- phase: {snap.phase}{' (complete)' if snap.complete else ''}",
            f"- batch: {snap.batch or '—'}", f"- done: {', '.join(done) or '—'}",
            f"- in progress: {', '.join(active) or '—'}", f"- not started: {', '.join(todo) or '—'}", ""]
    from .evidence_view import resume_lines

    evidence = resume_lines(book, snap, summary.run_id if summary else None)
    from .quality_view import checkpoint_line

    line = checkpoint_line(book, "en") if evidence else ""
    if line:  # the audit's figures, as measured: the last line of the Evidence section
        evidence.insert(len(evidence) - 1, f"- {line[0].lower()}{line[1:]}")
    out += evidence
    out += ["## Unfinished tasks", ""]
    tasks = [f"- {c.gate} gate{' of ' + c.chapter if c.chapter else ''}: waiting for your decision ({c.path}) — priority high"
             for c in cards]
    for ch, steps in snap.chapters.items():
        for k in ORDER:
            s = steps[k]
            if not s.fresh:
                prio = "high" if s.status == "half_finished" or ch in needs else ("normal" if k in PHASE3 else "low")
                tasks.append(f"- {ch} {k}: {status_word(s)} — priority {prio}")
    for k, s in snap.book.items():
        if not s.fresh:
            tasks.append(f"- book {k}: {status_word(s)} — priority {'high' if k == OUTLINE else 'normal'}")
    out += tasks[:200] or ["- none"]
    if len(tasks) > 200:
        out.append(f"- … and {len(tasks) - 200} more (see `book scan`)")
    out += ["", "## Known problems", ""]
    probs = [f"- {k}: NEEDS_HUMAN_REVIEW — {v} (its dependent chapters wait)" for k, v in sorted(needs.items())]
    from .reconcile import kept_files

    kept = kept_files(book, snap) if snap.half_finished else {}
    probs += [f"- {p}: half-finished, {kept[p]}" if p in kept else
              f"- {p}: half-finished (recovered by `book resume --strategy {strategy}`; if it is yours, "
              f"`book accept {_unit_step(p)}` keeps it)" for p in snap.half_finished]
    probs += [f"- {p}: edited by hand, kept; what was made from it is redone" for p in snap.edited]
    if snap.outline_error:
        probs.append(f"- outline: {snap.outline_error}")
    probs += [f"- {c.path}: waiting at the {c.gate} gate; {'everything after it waits' if not c.chapter else c.chapter + ' and what depends on it wait'}"
              for c in cards]
    if interrupted:
        probs.append("- the last run was interrupted; in-flight generations left .partial files")
    out += probs or ["- none"]
    out += ["", "## Key decisions", "", f"- recovery strategy: {strategy}", f"- gates: {cfg.gates}"]
    for e in book.ledger.events(type="gate_decision")[-20:]:
        out.append(f"- gate {e['step']} {e['chapter'] or ''}: {e['detail'].get('decision')} — {e['detail'].get('reason', '')}")
    out += ["", "## Next steps", ""]
    ws = f" --workspace {book.root}"
    if snap.complete and not needs:
        out.append(f"- nothing left: the book is at `output/publish/index.html`; `book scan{ws}` to check")
    else:
        for c in cards:
            who = f" {c.chapter}" if c.chapter else ""
            out.append(f"- decide at the {c.gate} gate{who}: read {c.path}, then `book approve {c.gate}{who}{ws}` "
                       f"(or `book reject {c.gate}{who} --reason \"...\"{ws}`)")
        if needs:
            out.append("- fix what needs a person (above), then:")
        out.append(f"- `book resume{ws}`  (or `book resume --no-run{ws}` to only reconcile)")
    out += ["", "## Important files", "", f"- `{CHECKPOINT}` — progress matrix", f"- `{NEEDS_HUMAN}` — what waits for a person",
            f"- `{STATE_DB}` — ledger (`book log`, `book replay`, `book cost`)", "- `output/memory/outline.md` — the plan (editable)",
            "- `output/chapters/final/` — final chapters", "- `output/publish/index.html` — the HTML book"]
    return "\n".join(out) + "\n"


def _unit_step(rel: str) -> str:
    """`output/chapters/draft/ch03-draft.md` -> `ch03 draft` (a book-level file -> `book KEY`)."""
    found = step_of_path(rel)
    if found:
        return f"{found[0]} {found[1]}"
    return next((f"book {k}" for k, s in BOOK_STEPS.items() if s.path == rel), "chNN STEP")
