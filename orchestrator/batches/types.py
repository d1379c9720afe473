"""What the pipeline and the batch engine hand each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import BookError
from ..providers.base import Request
from .journal import Item


class BatchError(BookError):
    """The batch endpoints stayed unavailable; the journals keep everything for `book resume`."""


@dataclass
class BatchItem:
    """One ready step, as the pipeline hands it to the engine."""

    chapter: str | None
    step: str
    target: str  # workspace-relative path its result is committed to
    input_hash: str  # what the step's inputs hash to now (the same value the marker records)
    params: dict[str, Any]  # the Messages API body (no `stream`)
    role: str = ""
    reask: bool = False  # the params carry validation feedback (counts toward max_reasks)

    @classmethod
    def from_request(cls, req: Request, target: str, input_hash: str,
                     build: Callable[[Request], dict[str, Any]] | None = None) -> BatchItem:
        if build is None:
            build = default_params
        return cls(req.chapter, req.step, target, input_hash, build(req), req.role, bool(req.feedback))


def default_params(req: Request) -> dict[str, Any]:
    """The Messages API body of `req` as the streaming path builds it (the one request builder,
    providers.anthropic.build_params), with the settings its model and max_tokens resolve to.
    The pipeline passes the provider's own `settings_for` (per-role `models:` entries)."""
    from ..config import DEFAULT_MODEL
    from ..providers.anthropic import build_params, resolve_settings

    return build_params(req, resolve_settings(req.model or DEFAULT_MODEL, req.max_tokens, None, req.effort))


@dataclass
class Verdict:
    ok: bool
    reason: str = ""


@dataclass
class Handoff:
    """A step the pipeline must take back: stream it, or (no rebuild callback) ask it again."""

    chapter: str | None
    step: str
    target: str
    reason: str
    feedback: str = ""  # validation feedback the next request must carry


@dataclass
class Progress:
    submission: str
    batch_id: str | None
    state: str
    counts: dict[str, int]
    requests: int


@dataclass
class Report:
    committed: list[Item] = field(default_factory=list)
    discarded: list[Item] = field(default_factory=list)
    to_stream: list[Handoff] = field(default_factory=list)
    retry: list[Handoff] = field(default_factory=list)
    skipped: list[BatchItem] = field(default_factory=list)  # already waiting in a batch


def _handoff(it: Item, reason: str, feedback: str = "") -> Handoff:
    return Handoff(it.chapter, it.step, it.target, reason, feedback)
