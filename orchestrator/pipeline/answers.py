"""Writing a model's answer for a node outside the runner's streaming loop (a batched result,
a `.partial` whose call had ended normally): the same context, the same validation and the
same marker protocol as `Generator.generate`, so every path commits a file the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import agents
from ..checks import blocking
from ..checks.findings import findings_in
from ..errors import ValidationFailed
from ..state import commit
from ..state.fsio import Lock, partial_path
from ..state.markers import compose, short_hash
from ..state.snapshot import StepState
from ..steps import BOOK, Node, spec
from . import section_redo
from .outcomes import Outcome

if TYPE_CHECKING:
    from ..providers.base import Request
    from .run_state import RunState


def request_for(rs: RunState, n: Node, feedback: str = "", smaller: int = 0) -> tuple[agents.Gathered, Request]:
    """What the generator (generation.py) would send for `n` now (same context, same prompt); with
    `smaller` > 0, the smaller ask of that level (agents/smaller_ask.py): a smaller context or a
    smaller answer, said after the validation's reasons."""
    from ..agents import smaller_ask

    book, ch, step = rs.book, (None if n[0] == BOOK else n[0]), n[1]
    extra: dict[str, Any] = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.shown_source}
    if n in rs.instructions:
        extra["instructions"] = rs.instructions[n]
    elif ch is not None and n not in rs.redo and n not in rs.whole:  # claims that moved: only the stale sections (section_redo)
        extra |= section_redo.context_extra(book, n)
    extra |= section_redo.cited_extra(book, n)  # a draft of a chapter citing files that changed: said in its marker
    with smaller_ask.scaled(step, smaller):  # the budgets that follow the window, for this request only
        g = agents.gather(book, step, ch, extra)
        req = agents.build_request(book, step, ch, g, spec(n).role)
    if smaller > 0 and req.output_schema:
        req.output_schema = smaller_ask.shrink_schema(req.output_schema, step, smaller)
    said = smaller_ask.instruction(step, smaller)
    req.feedback = f"{feedback.strip()}\n\n{said}".strip() if said else feedback
    req.cache_ttl = rs.cache_ttl
    req.material_ttl = rs.material_ttl
    return g, req


def write_answer(rs: RunState, n: Node, g: agents.Gathered, answer: str, **event: Any) -> Outcome | None:
    """Validate `answer` (raises ValidationFailed) and write it with its marker: None, or the outcome
    when a person's file was at the path (kept; the answer is in the .partial)."""
    book, ch, step = rs.book, (None if n[0] == BOOK else n[0]), n[1]
    trimmed: list[str] = []
    text = agents.clean_and_validate(step, answer, g.context, trimmed)
    if trimmed:  # what the model said around the answer: never committed, noted in the ledger
        book.ledger.event("answer_trimmed", rs.run_id, ch, step, removed=trimmed)
    inputs = {k: v for k, v in g.inputs.items() if v is not None}
    if g.context.get("instructions"):
        inputs["instructions"] = short_hash(g.context["instructions"])
    extra = {"verdict": "blocked" if blocking(findings_in(text)) else "clean"} if spec(n).verdict else None
    if spec(n).answer == "chapter":
        extra = section_redo.marker_extra(g.context, text)
    path = book.ws.path(rs.rel(n))
    composed = compose(text, spec(n).marker, inputs, rs.run_id, extra)
    Lock.verify_held()
    done = commit.commit(path, composed, rs.seen.get(n) or seen_now(rs, n))
    if not done.written:  # a person's file is there: it stays, the answer is in the .partial
        book.ledger.event("step_end", rs.run_id, ch, step, attempt=1, chars=len(text), kept="person", **event)
        return kept_for_person(rs, n)
    say_redone(rs, n, done)
    book.scanner.invalidate(rs.rel(n))
    if spec(n).replans:
        book.scanner.invalidate()
    book.ledger.event("step_end", rs.run_id, ch, step, attempt=1, chars=len(text), **event)
    section_redo.note_rewrite(book, rs.run_id, n, g.context)
    return None


def say_redone(rs: RunState, n: Node, done: commit.Committed) -> None:
    """A redo a person asked for moved what the path held (theirs, maybe) aside: say where."""
    if done.backup is not None and n in rs.redo:
        rs.warn(f"{rs.rel(n)} redone as asked; what it held before is kept as {done.backup.name}")


def version(st: StepState) -> tuple[int, int] | None:
    """The version of the file a scan state was read from (None: no file)."""
    return None if st.status == "missing" else (st.size, st.mtime_ns)


def seen_now(rs: RunState, n: Node) -> commit.Seen:
    """For an answer this process did not start (a batch re-attached on resume): the file there
    now is the run's own unless it is a person's by the scan's rules (an edit, or a marker-less
    file that looks complete), which a commit never replaces; `book redo` replaces it."""
    from ..state.reconcile import kept_for_person as looks_complete

    rel = rs.rel(n)
    rs.book.scanner.invalidate(rel)
    st = rs.state(n)
    path = rs.book.ws.path(rel)
    if n not in rs.redo and (st.status == "edited" or (
            st.status == "half_finished" and looks_complete(rs.book.root, rel, n[0], n[1]))):
        return commit.FOREIGN
    return commit.observe(path, version(st))


def kept_for_person(rs: RunState, n: Node) -> Outcome:
    """A person's file was at the step's path at commit time (saved, pasted or created while the
    run made it): it stays as it is, and the answer is beside it as `<file>.partial`. A marked
    edit counts as done; a marker-less one waits for the person to accept or redo it."""
    rel = rs.rel(n)
    rs.book.scanner.invalidate(rel)
    st = rs.state(n)
    how = "edited" if st.status != "missing" and st.marker is not None else "written"
    rs.warn(f"{rel} was {how} while this run rewrote it: your version is kept, and what the run made is in "
                f"{rel}.partial (`book redo {n[0]} {n[1]}` replaces yours with a fresh one)")
    if st.status in ("done", "edited"):
        return Outcome("ok")
    return Outcome("needs_human", reason=f"{rel} was {how} by a person while this run made it, without a "
                   f"{spec(n).marker} marker: kept as it is", hint=f"`book accept {n[0]} {n[1]}` adopts it, "
                   f"`book redo {n[0]} {n[1]}` replaces it with what the run made")


def commit_completed_partial(rs: RunState, n: Node) -> bool:
    """On resume: a `.partial` holding the whole answer of a call the ledger saw end normally
    (`end_turn`, same text hash), which validates, is committed without a new call (True). False when
    it is not such a file (the runner then proceeds as before: back it up, or continue it)."""
    from ..providers.anthropic.provider import text_hash

    book, ch = rs.book, (None if n[0] == BOOK else n[0])
    part = partial_path(book.ws.path(rs.rel(n)))
    try:
        text = part.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if not text.strip() or not book.ledger.completed_partial(ch, n[1], text_hash(text)):
        return False
    g, _ = request_for(rs, n)
    try:
        kept = write_answer(rs, n, g, text, recovered="completed_partial")
    except ValidationFailed:
        return False
    if kept is not None:  # a person's file at the path: it stays, and the answer stays in the .partial
        return kept.status == "ok"
    part.unlink(missing_ok=True)
    book.ledger.event("recovered", rs.run_id, ch, n[1], action="committed_partial", chars=len(text))
    rs.generated.append(n)
    return True
