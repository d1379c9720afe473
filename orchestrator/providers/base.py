"""The one small provider interface. A provider takes a Request and streams text for it;
the offline provider, the Claude provider and test fakes all implement it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Request:
    role: str  # planner, researcher, writer, r1_code, r2_consistency, r3_content, merger,
    #            reader_panel, memory_keeper, editor, auditor
    step: str  # step key (`draft`, `r1`, ... or book-level `outline`, `audit`)
    chapter: str | None
    system: str  # the role's instructions (a cached prefix, after `shared`)
    prompt: str  # the chapter-specific part, after the cached prefix
    context: dict[str, Any] = field(default_factory=dict)  # structured inputs (the offline provider uses these)
    shared: str = ""  # the book's context, the same for every role of a batch: the first cached prefix
    material: str = ""  # the chapter's material (entry + draft) shared by the chapter's roles: cached,
    #                     between `shared` and `system` (empty: it is in `prompt`, or there is none)
    model: str = ""
    max_tokens: int = 8000
    prefix: str = ""  # continue this partial text instead of starting afresh (aggressive recovery)
    feedback: str = ""  # why the previous attempt was rejected (validation error), for a retry
    output_schema: dict[str, Any] | None = None  # a JSON Schema: the answer must be JSON matching it
    #                                              (the Messages API's structured outputs)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0


@dataclass
class Result:
    text: str  # the complete answer (for a continuation: prefix + what was added)
    stop_reason: str  # end_turn is the only one that may be committed
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    request_id: str | None = None
    cost_usd: float = 0.0
    calls: int = 1


class Provider(Protocol):
    name: str

    async def generate(self, req: Request, on_text: Callable[[str], None]) -> Result:
        """Stream the answer, calling `on_text` with each piece as it arrives (the runner
        writes them to the `.partial` file). Raise StepFailed on an unrecoverable error."""
        ...

    def estimate_cost(self, req: Request) -> float:
        """Upper estimate of what `generate(req)` may cost, in USD (for the budget cap)."""
        ...

    async def aclose(self) -> None: ...
