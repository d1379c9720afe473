"""The one small provider interface. A provider takes a Request and streams text for it;
the offline provider, the Claude provider and test fakes all implement it.

What a provider can do is declared here, not probed: `Provider.capabilities` (what it does
itself, so the runner does not do it twice) and methods every provider has, with the
defaults of `ProviderBase` (no limit of its own, no shared slow-down, no Message Batches).
What a call needs from its caller travels with the call: `generate(req, sink)`, where the
sink takes the text as it streams, a retraction of it, and a report of each HTTP attempt.
Nothing is set on a provider by the runner, nor carried in the request's context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

# One HTTP attempt, as the ledger's `llm_calls` stores it (`Ledger.log_call(run=..., **row)`):
# role, chapter, step, provider, model, tokens, cost_usd, attempt, call_id, status, and on its
# end latency_ms, stop_reason, request_id, error, text_hash.
CallRow = dict[str, Any]


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
    effort: str = ""  # output_config.effort unless book.yaml's `models:` gives the role one ("": the model's default)
    prefix: str = ""  # continue this partial text instead of starting afresh (aggressive recovery)
    feedback: str = ""  # why the previous attempt was rejected (validation error), for a retry
    output_schema: dict[str, Any] | None = None  # a JSON Schema: the answer must be JSON matching it
    #                                              (the Messages API's structured outputs)
    cache_ttl: str | None = None  # the default lifetime of the cached prefixes: "1h" when the run may
    #                               stop at a gate for a person (they outlive the wait); a role's own
    #                               `cache_ttl` in `models:` wins; None: the provider's default (5m)
    material_ttl: str | None = None  # the chapter material's: "1h" when a gate waits between its readers


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_1h_tokens: int = 0  # of cache_creation_tokens, those written with the 1-hour TTL (2x input)
    thinking_tokens: int = 0  # of output_tokens, spent thinking (usage.output_tokens_details)


@dataclass
class Result:
    text: str  # the complete answer (for a continuation: prefix + what was added)
    stop_reason: str  # end_turn is the only one that may be committed
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    request_id: str | None = None
    cost_usd: float = 0.0
    calls: int = 1


def _drop_text(piece: str) -> None:
    return None


def _no_reset(keep_prefix: bool) -> None:
    return None


def _drop_row(row: CallRow) -> None:
    return None


@dataclass(frozen=True)
class Sink:
    """Where one call's answer goes, given by the caller to `generate` (the runner: the step's
    `.partial` file and the ledger; a test or `book doctor`: nowhere, `Sink()`).

    - `text(piece)`: the new text as it arrives, never the request's `prefix`.
    - `reset(keep_prefix)`: what this call delivered so far is void: truncate back to the
      request's prefix (keep_prefix=True: a retried attempt, whose text the provider delivers
      again), or to nothing (False: the prefix is not the provider's to continue, it starts
      afresh). The Claude provider calls it before re-delivering a failed attempt's text; the
      offline provider when its answer does not start with the prefix.
    - `attempt(row)`: each HTTP attempt, twice with one `call_id`: `status="started"` before
      it is sent, then its outcome. Only a provider whose capabilities say `reports_attempts`
      calls it; for the others the caller logs one row per call itself.
    """

    text: Callable[[str], None] = _drop_text
    reset: Callable[[bool], None] = _no_reset
    attempt: Callable[[CallRow], None] = _drop_row


@dataclass(frozen=True)
class Capabilities:
    """What a provider does itself, so its caller must not do it again."""

    # A StepFailed means its own attempts (with backoff) are spent: the runner does not retry on
    # top of them, except an overload once `wait_slowdown()` says the shared slow-down has ended.
    retries_itself: bool = False
    # It reports every HTTP attempt to `Sink.attempt` (cost, tokens, errors): the runner then logs
    # those rows and no row of its own for the call.
    reports_attempts: bool = False
    # It follows a person's instructions (a rejection's reason, a modify's words). The offline
    # provider follows only a few (authoring/person_asks.py): a redo whose words it cannot follow
    # gives the same text, and the person is told so rather than asked again and again.
    follows_instructions: bool = True


class MessageBatches(Protocol):
    """What `book run --message-batches` needs from a provider with a batch endpoint."""

    @property
    def prices(self) -> dict[str, dict[str, Any]]:
        """The per-model rates a batched call is priced with (halved for a batch)."""
        ...

    def batch_params(self, req: Request) -> dict[str, Any]:
        """The request body of `req` in a batch, built exactly as a streamed call's."""
        ...


class Provider(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities: ...

    async def generate(self, req: Request, sink: Sink) -> Result:
        """Stream the answer into `sink` (see Sink for the contract); `Result.text` is the
        request's prefix + everything delivered. Raise StepFailed on an unrecoverable error."""
        ...

    def estimate_cost(self, req: Request) -> float:
        """Upper estimate of what `generate(req)` may cost, in USD (for the budget cap)."""
        ...

    def set_concurrency(self, n: int) -> None:
        """The run's `--concurrency`, for a provider with a request limit of its own (set
        before the first request)."""
        ...

    async def wait_slowdown(self) -> bool:
        """Wait until a slow-down shared by all its calls (overload, rate limits) has ended;
        True when it waited for one, False when it has none (then an overloaded step is not
        tried again)."""
        ...

    def batches(self) -> MessageBatches | None:
        """Its Message Batches endpoint, or None when it has none."""
        ...

    async def aclose(self) -> None: ...


class ProviderBase:
    """The defaults a provider inherits and overrides where it does more: it does not retry
    or report attempts itself, has no request limit and no slow-down of its own, no batch
    endpoint, costs nothing, and holds nothing to close."""

    name = "provider"
    capabilities = Capabilities()

    async def generate(self, req: Request, sink: Sink) -> Result:
        raise NotImplementedError

    def estimate_cost(self, req: Request) -> float:
        return 0.0

    def set_concurrency(self, n: int) -> None:
        return None

    async def wait_slowdown(self) -> bool:
        return False

    def batches(self) -> MessageBatches | None:
        return None

    async def aclose(self) -> None:
        return None
