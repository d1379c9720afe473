"""`book accept chNN STEP` (and `book accept book outline`): a person's file, adopted as it
stands. The file at the step's path gets a marker that records it as a person's work
(`by=person`), so the scan reports it `edited`, the runner keeps it and the steps after it
are built from it. Nothing is rewritten but the marker line: a marker-less file keeps its
whole text as the body, a marked one keeps its body (a person's text after the marker too)."""

from __future__ import annotations

from ..checks import blocking
from ..checks.findings import findings_in
from ..errors import UsageError
from ..state.fsio import Lock, atomic_write, partial_path
from ..state.markers import body_of, compose
from ..steps import BOOK, BOOK_STEPS, LOCK, STEPS, Node, check_chapter_id, spec

PERSON = {"by": "person"}


def how_to_fix(n: Node | tuple[str, str]) -> str:
    """What a person can do about a step that failed: where its last answer is, which file to
    fix, which command adopts it (said in the failure message, needs-human.md, RESUME.md)."""
    unit, step = n[0], n[1]
    if step not in (BOOK_STEPS if unit == BOOK else STEPS):
        return ""
    rel = spec(Node(unit, step)).file(None if unit == BOOK else unit)
    return (f"to write it yourself: put your text in {rel} (a failed answer, if any, is kept in {rel}.partial), "
            f"then `book accept {unit} {step}`; or `book run` to try again")


def failed_last(book, ch: str | None, step: str) -> bool:
    """Did the last attempt at this step fail (rather than be cut short by a crash)?"""
    last = [e for e in book.ledger.events(ch, step) if e["type"] in ("step_start", "step_end", "step_failed")]
    return bool(last) and last[-1]["type"] == "step_failed"


def check_step(unit: str, step: str) -> None:
    """UsageError unless `step` is a step of `unit` (a chapter id, or BOOK) as a person names it."""
    if unit == BOOK:
        if step not in BOOK_STEPS:
            raise UsageError(f"unknown book step {step!r}: one of {', '.join(BOOK_STEPS)}")
    else:
        check_chapter_id(unit)
        if step not in STEPS:
            raise UsageError(f"unknown step {step!r}: one of {', '.join(STEPS)}")


def check_in_outline(book, unit: str) -> None:
    """UsageError if the chapter `unit` is not in the book's outline (when there is one)."""
    o = book.scanner.outline
    if unit != BOOK and o is not None and unit not in o.by_id:
        raise UsageError(f"{unit} is not in the outline (chapters: {', '.join(c.id for c in o.chapters)})")


def settle(book, unit: str, rel: str) -> None:
    """The chapter no longer waits for the file just accepted: its needs-human.md entry about
    that file goes (else `run` and `resume` would say "nothing to do" for ever) and
    checkpoint.md shows the files as they now are. Under the lock."""
    from ..state.board import write_checkpoint, write_needs_human

    needs = book.needs_human()
    if unit != BOOK and rel in needs.get(unit, ""):
        del needs[unit]
        write_needs_human(book, needs)
    write_checkpoint(book)


def accept(book, unit: str, step: str, run_id: str | None = None) -> str:
    """Adopt the file of (unit, step) as a person's; return its path. Usage errors (exit 2)
    name what is wrong: an unknown chapter or step, no file, an empty file."""
    check_step(unit, step)
    check_in_outline(book, unit)
    s = spec(Node(unit, step))
    rel = s.file(None if unit == BOOK else unit)
    path = book.ws.path(rel)
    if path.is_dir():
        raise UsageError(f"{rel} is a directory; the step's file must be a file")
    if not path.exists():
        hint = (f"; the failed answer is kept in {rel}.partial: copy it to {rel}, fix it, then run this again"
                if partial_path(path).exists() else f"; write it, then run `book accept {unit} {step}` again")
        raise UsageError(f"there is no {rel} to accept{hint}")
    data = path.read_bytes()
    try:
        body = body_of(data).decode("utf-8").rstrip()
    except UnicodeDecodeError as e:
        raise UsageError(f"{rel} is not UTF-8 text ({e})") from None
    if not body.strip():
        raise UsageError(f"{rel} is empty: there is nothing to accept")
    sc = book.scanner
    inputs = sc.book_input_hashes(step) if unit == BOOK else sc.input_hashes(unit, step)
    extra = dict(PERSON)
    if s.verdict:  # a merged review's verdict is read from its marker: judge the person's findings
        extra["verdict"] = "blocked" if blocking(findings_in(body)) else "clean"
    with Lock(book.ws.path(LOCK)):
        atomic_write(path, compose(body, s.marker, {k: v for k, v in inputs.items() if v is not None}, run_id, extra))
        sc.invalidate(rel)
        if s.replans:
            sc.invalidate()
        settle(book, unit, rel)
    book.ledger.event("accepted", run_id or "", None if unit == BOOK else unit, step, by="person")
    return rel
