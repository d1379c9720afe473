"""Writing a model's answer for a node outside the runner's streaming loop (a batched result,
a `.partial` whose call had ended normally): the same context, the same validation and the
same marker protocol as `Runner.generate`, so every path commits a file the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import agents
from ..checks import blocking
from ..checks.findings import findings_in
from ..errors import ValidationFailed
from ..state.fsio import atomic_write, backup, partial_path
from ..state.markers import compose, short_hash
from ..steps import BOOK, Node, spec

if TYPE_CHECKING:
    from ..providers.base import Request
    from .runner import Runner


def request_for(runner: Runner, n: Node, feedback: str = "") -> tuple[agents.Gathered, Request]:
    """What the runner's `generate` would send for `n` now (same context, same prompt)."""
    book, ch, step = runner.book, (None if n[0] == BOOK else n[0]), n[1]
    extra: dict[str, Any] = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source}
    if n in runner.instructions:
        extra["instructions"] = runner.instructions[n]
    g = agents.gather(book, step, ch, extra)
    req = agents.build_request(book, step, ch, g, spec(n).role)
    req.feedback = feedback
    req.cache_ttl = runner.cache_ttl
    return g, req


def write_answer(runner: Runner, n: Node, g: agents.Gathered, answer: str, **event: Any) -> int:
    """Validate `answer` (raises ValidationFailed) and write it with its marker; returns its length."""
    book, ch, step = runner.book, (None if n[0] == BOOK else n[0]), n[1]
    trimmed: list[str] = []
    text = agents.clean_and_validate(step, answer, g.context, trimmed)
    if trimmed:  # what the model said around the answer: never committed, noted in the ledger
        book.ledger.event("answer_trimmed", runner.run_id, ch, step, removed=trimmed)
    inputs = {k: v for k, v in g.inputs.items() if v is not None}
    if g.context.get("instructions"):
        inputs["instructions"] = short_hash(g.context["instructions"])
    extra = {"verdict": "blocked" if blocking(findings_in(text)) else "clean"} if spec(n).verdict else None
    path = book.ws.path(runner.rel(n))
    composed = compose(text, spec(n).marker, inputs, runner.run_id, extra)
    if kept_if_edited_meanwhile(runner, n, composed):
        book.ledger.event("step_end", runner.run_id, ch, step, attempt=1, chars=len(text), kept="person", **event)
        return len(text)
    if path.exists():
        backup(path)
    atomic_write(path, composed)
    book.scanner.invalidate(runner.rel(n))
    if spec(n).replans:
        book.scanner.invalidate()
    book.ledger.event("step_end", runner.run_id, ch, step, attempt=1, chars=len(text), **event)
    return len(text)


def kept_if_edited_meanwhile(runner: Runner, n: Node, composed: str) -> bool:
    """Just before an answer is committed: did a person save the step's file while it was being
    made? It is `edited` now, and was not when the step began (an edited file is only started
    by `book redo`). Then their file stays as it is and the answer, marked, goes beside it as
    `<file>.partial` (True): an edit is never overwritten, even one made during a run."""
    if n in runner.opts.redo:
        return False
    rel = runner.rel(n)
    runner.book.scanner.invalidate(rel)
    if runner.state(n).status != "edited":
        return False
    atomic_write(partial_path(runner.book.ws.path(rel)), composed)
    runner.warn(f"{rel} was edited while this run rewrote it: your version is kept, and what the run made is in "
                f"{rel}.partial (`book redo {n[0]} {n[1]}` replaces yours with a fresh one)")
    return True


def commit_completed_partial(runner: Runner, n: Node) -> bool:
    """On resume: a `.partial` holding the whole answer of a call the ledger saw end normally
    (`end_turn`, same text hash), which validates, is committed without a new call (True). False when
    it is not such a file (the runner then proceeds as before: back it up, or continue it)."""
    from ..providers.anthropic.provider import text_hash

    book, ch = runner.book, (None if n[0] == BOOK else n[0])
    part = partial_path(book.ws.path(runner.rel(n)))
    try:
        text = part.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if not text.strip() or not book.ledger.completed_partial(ch, n[1], text_hash(text)):
        return False
    g, _ = request_for(runner, n)
    try:
        write_answer(runner, n, g, text, recovered="completed_partial")
    except ValidationFailed:
        return False
    part.unlink(missing_ok=True)
    book.ledger.event("recovered", runner.run_id, ch, n[1], action="committed_partial", chars=len(text))
    runner.generated.append(n)
    return True
