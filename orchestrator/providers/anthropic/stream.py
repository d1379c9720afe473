"""One streamed attempt: send the request, feed text deltas to a callback, collect usage and
the stop reason. Failures come back classified (retry.Failure), never raised, except an
exception from the runner's callback (CallbackError) and cancellation."""

from __future__ import annotations

import asyncio
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base import Usage
from .pricing import CHARS_PER_TOKEN, usage_of
from .retry import Failure, classify


class CallbackError(Exception):
    """An exception raised by the runner's on_text: never retried, re-raised as it was."""

    def __init__(self, exc: BaseException):
        self.exc = exc


@dataclass
class Outcome:
    text: str = ""
    stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    request_id: str | None = None
    latency_ms: int = 0
    started: bool = False  # message_start arrived (the prompt was processed: the cache is written)
    refusal: str = ""  # a refusal's stop_details: its category and explanation


async def stream_once(client: Any, params: dict[str, Any], model: str, key: str | None,
                      on_piece: Callable[[str], None], on_start: Callable[[], None],
                      caught: list[warnings.WarningMessage], out: Outcome) -> Failure | None:
    """Fills `out` (the caller keeps it, so a cancelled attempt can still be logged)."""
    parts: list[str] = []
    saw_stop = False
    failure: Failure | None = None
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            manager = client.messages.stream(**params)
        caught.extend(w)
        async with manager as stream:
            out.request_id = stream.request_id
            async for event in stream:
                etype = event.type
                if etype == "content_block_delta":
                    if getattr(event.delta, "type", None) == "text_delta":
                        parts.append(event.delta.text)
                        on_piece(event.delta.text)
                elif etype == "message_start":
                    u = event.message.usage
                    out.usage.input_tokens = u.input_tokens or 0
                    out.usage.cache_creation_tokens = u.cache_creation_input_tokens or 0
                    out.usage.cache_read_tokens = u.cache_read_input_tokens or 0
                    out.usage.cache_creation_1h_tokens = usage_of(u).cache_creation_1h_tokens  # priced 2x input
                    out.usage.output_tokens = u.output_tokens or 0
                    out.started = True
                    on_start()
                elif etype == "message_delta":
                    out.stop_reason = event.delta.stop_reason
                    details = getattr(event.delta, "stop_details", None)
                    if details is not None:
                        out.refusal = ": ".join(str(x) for x in (getattr(details, "category", None),
                                                                 getattr(details, "explanation", None)) if x)
                    u = event.usage
                    out.usage.output_tokens = u.output_tokens or 0
                    td = getattr(u, "output_tokens_details", None)
                    if td is not None:
                        out.usage.thinking_tokens = getattr(td, "thinking_tokens", 0) or 0
                    if u.input_tokens is not None:
                        out.usage.input_tokens = u.input_tokens
                    if u.cache_creation_input_tokens is not None:
                        out.usage.cache_creation_tokens = u.cache_creation_input_tokens
                        if getattr(u, "cache_creation", None) is not None:  # the start's split, else
                            out.usage.cache_creation_1h_tokens = usage_of(u).cache_creation_1h_tokens
                    if u.cache_read_input_tokens is not None:
                        out.usage.cache_read_tokens = u.cache_read_input_tokens
                elif etype == "message_stop":
                    saw_stop = True
    except (CallbackError, asyncio.CancelledError):
        out.text = "".join(parts)
        _billed_estimate(out)
        raise
    except Exception as e:  # noqa: BLE001 - classified: retried, or turned into StepFailed
        failure = classify(e, model, key)
        out.request_id = failure.request_id or out.request_id
    out.text = "".join(parts)
    if failure is None:
        if not saw_stop or not out.stop_reason:
            failure = Failure(f"anthropic {model}: the stream ended without message_stop (an incomplete answer)",
                              retryable=True, request_id=out.request_id)
    if failure is not None:
        _billed_estimate(out)
    return failure


def _billed_estimate(out: Outcome) -> None:
    """A stream cut short is billed all the same: estimate its output when usage is missing."""
    if out.text and out.usage.output_tokens <= 1:
        out.usage.output_tokens = math.ceil(len(out.text) / CHARS_PER_TOKEN)
