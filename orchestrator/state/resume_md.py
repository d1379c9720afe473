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
from .human_text import headings, language_of, words
from .scan import status_word

# Our own sections, in every language (a person's other sections are carried over verbatim);
# "Evidence" is evidence_view's.
OURS = {"Evidence", *(h for k in ("r_overview", "r_progress", "r_tasks", "r_problems", "r_decisions", "r_next",
                                  "r_files") for h in headings(k))}


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
    w = words(language_of(book))
    none = w["r_none"]
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
    out = [f"# {w['r_title'].format(title=title)}", "", w["r_intro"], ""]
    sep = w["colon"]
    out += [f"## {w['r_overview']}", "", f"- {w['r_f_title']}{sep}{title}",
            f"- {w['r_f_source']}{sep}`{cfg.source}` ({cfg.source_dir})", f"- {w['r_f_chapters']}{sep}{len(snap.chapters)}",
            f"- {w['r_f_workspace']}{sep}{book.root}", f"- {w['r_f_language'].format(language=cfg.language, gates=cfg.gates)}",
            ""]
    out += [f"## {w['r_progress']}", "", f"- {w['r_f_phase']}{sep}{snap.phase}{w['r_complete'] if snap.complete else ''}",
            f"- {w['r_f_batch']}{sep}{snap.batch or '—'}", f"- {w['r_f_done']}{sep}{', '.join(done) or '—'}",
            f"- {w['r_f_active']}{sep}{', '.join(active) or '—'}", f"- {w['r_f_todo']}{sep}{', '.join(todo) or '—'}", ""]
    from .evidence_view import resume_lines

    evidence = resume_lines(book, snap, summary.run_id if summary else None)
    from .quality_view import checkpoint_line

    line = checkpoint_line(book, cfg.language) if evidence else ""
    if line:  # the audit's figures, as measured: the last line of the Evidence section
        evidence.insert(len(evidence) - 1, f"- {line}")
    out += evidence
    out += [f"## {w['r_tasks']}", ""]
    tasks = ["- " + w["r_task_gate"].format(gate=c.gate, who=w["r_of"].format(unit=c.unit) if c.unit else "", card=c.path)
             for c in cards]
    prio = {k: w[f"prio_{k}"] for k in ("high", "normal", "low")}
    said = lambda status: w.get(f"st_{status}", status)  # noqa: E731
    for ch, steps in snap.chapters.items():
        for k in ORDER:
            s = steps[k]
            if not s.fresh:
                p = "high" if s.status == "half_finished" or ch in needs else ("normal" if k in PHASE3 else "low")
                tasks.append("- " + w["r_task"].format(unit=ch, step=k, status=said(status_word(s)), prio=prio[p]))
    for k, s in snap.book.items():
        if not s.fresh:
            tasks.append("- " + w["r_task"].format(unit="book", step=k, status=said(status_word(s)),
                                                   prio=prio["high" if k == OUTLINE else "normal"]))
    out += tasks[:200] or [f"- {none}"]
    if len(tasks) > 200:
        out.append("- " + w["r_more"].format(n=len(tasks) - 200))
    out += ["", f"## {w['r_problems']}", ""]
    probs = ["- " + w["r_needs"].format(ch=k, why=v) for k, v in sorted(needs.items())]
    from .reconcile import kept_files

    kept = kept_files(book, snap) if snap.half_finished else {}
    probs += ["- " + (w["r_half_kept"].format(path=p, why=kept[p]) if p in kept else
                      w["r_half"].format(path=p, strategy=strategy, unit=_unit_step(p))) for p in snap.half_finished]
    probs += ["- " + w["r_edited"].format(path=p) for p in snap.edited]
    if snap.outline_error:
        probs.append("- " + w["r_outline"].format(error=snap.outline_error))
    probs += ["- " + (w["r_card_ch"].format(card=c.path, gate=c.gate, who=c.chapter or " ".join(c.waiting()))
                      if c.unit else w["r_card_book"].format(card=c.path, gate=c.gate)) for c in cards]
    if interrupted:
        probs.append("- " + w["r_interrupted"])
    out += probs or [f"- {none}"]
    out += ["", f"## {w['r_decisions']}", "", "- " + w["r_strategy"].format(strategy=strategy),
            "- " + w["r_gates"].format(gates=cfg.gates)]
    for e in book.ledger.events(type="gate_decision")[-20:]:
        d = str(e["detail"].get("decision"))
        out.append("- " + w["r_decision"].format(gate=e["step"], who=f" {e['chapter']}" if e["chapter"] else "",
                                                 decision=w.get(d, d), why=w["r_why"].format(reason=e["detail"]["reason"])
                                                 if e["detail"].get("reason") else ""))
    out += ["", f"## {w['r_next']}", ""]
    ws = f" --workspace {book.root}"
    if snap.complete and not needs:
        out.append("- " + w["r_nothing"].format(ws=ws))
    else:
        for c in cards:
            who = f" {c.unit}" if c.unit else ""
            label = w["r_label"].format(unit=c.unit) if c.unit else ""
            out.append("- " + w["r_decide"].format(gate=c.gate, who=who, label=label, card=c.path, ws=ws))
        if needs:
            out.append("- " + w["r_fix"])
        out.append("- " + w["r_resume"].format(ws=ws))
    out += ["", f"## {w['r_files']}", "", f"- `{CHECKPOINT}` — {w['r_file_checkpoint']}",
            f"- `{NEEDS_HUMAN}` — {w['r_file_needs']}", f"- `{STATE_DB}` — {w['r_file_db']}",
            f"- `output/memory/outline.md` — {w['r_file_outline']}", f"- `output/chapters/final/` — {w['r_file_finals']}",
            f"- `output/publish/index.html` — {w['r_file_site']}"]
    return "\n".join(out) + "\n"


def _unit_step(rel: str) -> str:
    """`output/chapters/draft/ch03-draft.md` -> `ch03 draft` (a book-level file -> `book KEY`)."""
    found = step_of_path(rel)
    if found:
        return f"{found[0]} {found[1]}"
    return next((f"book {k}" for k, s in BOOK_STEPS.items() if s.path == rel), "chNN STEP")
