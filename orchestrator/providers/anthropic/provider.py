"""The Claude provider: one shared client, always streaming, a global concurrency
limit, our own retries (every attempt logged; overload waits up to ~10 minutes), exact
continuation after `max_tokens`, prompt caching with a cache gate, and a cost for every call.

Its capabilities (`base.Capabilities`): it retries its own calls and reports every attempt.
The sink it is given (`base.Sink`):

- `sink.text(piece)` gets the new text as it arrives, never the request's `prefix`.
- `sink.reset(True)` is called before a retry whose failed attempt had already delivered
  text: the caller truncates its `.partial` back to where it stood when the call began; the
  provider then re-delivers what still stands.
- `Result.text` == prefix + everything delivered, exactly (continuation.py).
- `sink.attempt(row)` is called for each HTTP attempt with the same `call_id`: `status="started"`
  (with `worst_usd`, the estimate) before the request is sent, `status="streaming"` (its `cost_usd`
  so far: the input) when the answer starts, then the outcome (`ok`, `error`, `cancelled`) with
  tokens, cost, stop reason and, on the attempt that ends the answer, `text_hash` (sha256 of Result.text).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
import time
import uuid
import warnings
from collections.abc import Callable
from typing import Any

from ...defaults import DEFAULT_MODEL
from ...errors import BudgetSpent, Refused, RunStopped, StepFailed
from ..base import CallRow, Capabilities, ProviderBase, Request, Result, Sink, Usage
from .client import CONNECT_TIMEOUT, api_key, make_client
from .continuation import SeamSkipper, misaligned, seam
from .gate import CacheGate
from .models import model_info
from .params import build_params, est_tokens, prefix_keys, prefix_ttls
from .pricing import CHARS_PER_TOKEN, cost_usd, load_prices, price_for, write_rate
from .retry import MAX_BACKOFF, OVERLOAD_BUDGET, Clock, Failure, RetryPolicy, redact
from .server import ALL, PLACEHOLDER_KEY, Features, ServerProfile
from .settings import capped, default_fallback, larger_budget, resolve_settings, with_max_tokens
from .stream import CallbackError, Outcome, stream_once

log = logging.getLogger("orchestrator.providers.anthropic")
MAX_BUDGET_REASKS = 3  # answers asked for again with a larger budget (cut JSON, thinking that took it all)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Delivery:
    """Delivers text to the caller's sink and counts it, so a failed attempt's text can be retracted."""

    def __init__(self, sink: Sink):
        self.sink = sink
        self.delivered = 0

    def write(self, s: str) -> None:
        if not s:
            return
        try:
            self.sink.text(s)
        except BaseException as e:  # noqa: BLE001 - handed back untouched by generate()
            raise CallbackError(e) from None
        self.delivered += len(s)

    def reset(self) -> None:
        if self.delivered:
            try:
                self.sink.reset(True)
            except BaseException as e:  # noqa: BLE001
                raise CallbackError(e) from None
        self.delivered = 0


class AnthropicProvider(ProviderBase):
    name = "anthropic"
    # its own retries (the runner does not retry a StepFailed on top) and a row for every attempt
    capabilities = Capabilities(retries_itself=True, reports_attempts=True)

    def __init__(self, *, concurrency: int, prices: dict | None = None, max_attempts: int = 5,
                 max_continuations: int = 8, base_delay: float = 1.0, fallback_model: str | None = None,
                 max_delay: float = MAX_BACKOFF, timeout: float = 600.0, connect_timeout: float = CONNECT_TIMEOUT,
                 role_settings: dict[str, Any] | None = None, overload_budget: float = OVERLOAD_BUDGET,
                 overload_base: float = 5.0, clock: Clock | None = None, cache_gate: bool = True,
                 gate_timeout: float = 20.0, server: ServerProfile | None = None, features: Features | None = None):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self._prices = prices
        self.policy = RetryPolicy(max(1, max_attempts), base_delay, max_delay, overload_budget, overload_base)
        self.max_continuations = max(0, max_continuations)
        self.fallback_model = fallback_model
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.role_settings = dict(role_settings or {})
        self.clock = clock or Clock()
        # the server and what it accepts (server.py): a compatible one gets only what it has
        self.server = server or ServerProfile()
        self.features = features or ALL
        self.gate = CacheGate(timeout=gate_timeout) if cache_gate and self.features.cache else None
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None
        self._not_before = 0.0  # clock time before which no task starts a request
        self._key: str | None = None
        self._warned: set[str] = set()
        from .tokens import TokenGate

        # counts a prompt with the API once its estimate passes half the window (locally without count_tokens)
        window = self.server.info(model_info(self.server.model)).context_window if self.server.compatible else 0
        self.tokens = TokenGate(window, self.features.count_tokens)

    # ------------------------------------------------------------------ setup

    @property
    def max_attempts(self) -> int:
        return self.policy.max_attempts

    def set_concurrency(self, n: int) -> None:
        """The run's `--concurrency` (the runner calls this before the first request)."""
        if n < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = n
        self._semaphore = None

    @property
    def prices(self) -> dict[str, dict[str, Any]]:
        if self._prices is None:
            self._prices = load_prices()
        return self._prices

    def _get_client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._client_loop is loop:
            return self._client
        # a local server needs no key: the SDK still wants one, so it gets a placeholder
        self._key = PLACEHOLDER_KEY if self.server.compatible and not os.environ.get("ANTHROPIC_API_KEY", "").strip() \
            else api_key()
        self._client = make_client(self._key, self.timeout, self.connect_timeout)
        self._client_loop = loop
        return self._client

    def _get_semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._sem_loop is not loop:
            self._semaphore = asyncio.Semaphore(self.concurrency)
            self._sem_loop = loop
        return self._semaphore

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def batches(self) -> AnthropicProvider | None:
        """Its Message Batches endpoint: itself (`prices`, `batch_params`); None on a server
        without one (the run streams every step)."""
        return self if self.features.batches else None

    def batch_params(self, req: Request) -> dict[str, Any]:
        return build_params(req, dict(self.settings_for(req), batch=True), features=self.features)  # 1-hour prefixes

    # ------------------------------------------------------------------ settings and cost

    def settings_for(self, req: Request, model: str | None = None) -> dict[str, Any]:
        entry = self.role_settings.get(req.role)
        entry = {"model": entry} if isinstance(entry, str) else dict(entry or {})
        if model or req.model:
            entry["model"] = model or req.model  # the request's model (agents resolved `models:`) wins
        if req.cache_ttl:  # the run's default (a 1-hour write costs 2x instead of 1.25x)
            entry.setdefault("cache_ttl", req.cache_ttl)
        name = model or req.model or DEFAULT_MODEL
        info = self._server_info(entry.get("model") or name) if self.server.compatible else None
        # a compatible server gets an effort only where book.yaml's `models:` names one (the steps'
        # defaults are Claude's: on Ollama an effort turns thinking on for every step)
        effort = "" if self.server.compatible else req.effort
        return capped(resolve_settings(name, req.max_tokens, entry, effort, info), req.budget_max_tokens)

    def estimate_cost(self, req: Request) -> float:
        """An upper estimate before the call: the prompt at ~3.5 characters a token (the cached
        prefix at the cache-write rate, which is the higher one), plus `max_tokens` of output."""
        s = self.settings_for(req)
        if self.server.compatible:  # its own prices (or none): no family rate of Claude's
            tokens = (len(req.shared) + len(req.material) + len(req.system) + len(req.prompt) + len(req.feedback)
                      + len(req.prefix)) / CHARS_PER_TOKEN
            return self.server.cost(Usage(input_tokens=int(tokens), output_tokens=s["max_tokens"]))
        p = price_for(s["model"], self.prices)
        system_tokens = (len(req.shared) + len(req.material) + len(req.system)) / CHARS_PER_TOKEN
        rest = req.prompt + req.feedback + req.prefix
        rest_tokens = len(rest) / CHARS_PER_TOKEN
        long = p.get("long_prompt")
        if long and system_tokens + rest_tokens > long["threshold_tokens"]:
            p = long
        # the dearest write any breakpoint of this request may ask for (cache_ttl.py), as billed
        write = max(write_rate(p, s.get("cache_ttl")), write_rate(p, getattr(req, "material_ttl", None)))
        return (system_tokens * max(p["input"], write) + rest_tokens * max(p["input"], p["cache_write"])
                + s["max_tokens"] * p["output"]) / 1e6

    def rates(self, req: Request, so_far: str) -> tuple[float, float]:
        """(the prompt's upper cost, one output token's cost) of an attempt that continues
        `so_far`: the estimate is linear in max_tokens, so two points of it give both."""
        one = self.estimate_cost(dataclasses.replace(req, prefix=so_far, budget_max_tokens=1000))
        two = self.estimate_cost(dataclasses.replace(req, prefix=so_far, budget_max_tokens=2000))
        per_token = max(0.0, (two - one) / 1000)
        return max(0.0, one - 1000 * per_token), per_token

    def cost(self, usage: Usage, model: str) -> float:
        if self.server.compatible:
            return self.server.cost(usage)
        return cost_usd(usage, model, self.prices)

    # ------------------------------------------------------------------ generate

    async def generate(self, req: Request, sink: Sink) -> Result:
        try:
            return await self._generate(req, sink)
        except CallbackError as e:
            raise e.exc from None

    async def _generate(self, req: Request, out: Sink) -> Result:
        client = self._get_client()
        sink = _Delivery(out)
        report = out.attempt
        settings = self.settings_for(req)
        model = settings["model"]
        structured = bool(req.output_schema)
        prefix = req.prefix if req.prefix.strip() else ""
        if structured and prefix:  # a JSON answer is never continued: start it afresh
            out.reset(False)
            prefix = ""
        own = ""  # Result.text == prefix + own; own is exactly what on_text received
        total, cost, calls, continuations = Usage(), 0.0, 0, 0
        last_rid: str | None = None
        overload_waited = 0.0
        refusals, fallback_used, reasks, misaligned_in_row = 0, False, 0, 0

        def restart(new_settings: dict[str, Any]) -> None:
            nonlocal settings, model, own, continuations, misaligned_in_row
            settings, model = new_settings, new_settings["model"]
            sink.reset()  # back to the request's prefix: the next answer starts afresh
            own, continuations, misaligned_in_row = "", 0, 0

        while True:
            so_far = prefix + own
            params = build_params(req, settings, so_far, self.features)
            if not so_far:  # a continuation is no longer than the first request's prompt and answer
                await self.tokens.check(client, params)
            attempt = 0
            while True:
                attempt += 1
                skip = SeamSkipper(so_far)
                mark = sink.delivered
                final_text = None

                def on_piece(s: str, skip: SeamSkipper = skip) -> None:  # this attempt's skipper
                    sink.write(skip.feed(s))

                outcome, failure, call_id = await self._attempt(client, req, params, on_piece, attempt, out, so_far)
                calls += 1
                self._add(total, outcome.usage)
                cost += self.cost(outcome.usage, model)
                last_rid = outcome.request_id or last_rid
                if failure is None:
                    sink.write(skip.flush())  # a head shorter than the seam's window
                addition = outcome.text[seam(so_far, outcome.text):] if so_far else outcome.text
                if failure is None and outcome.stop_reason == "end_turn" and not (so_far + addition).strip():
                    failure = Failure(f"anthropic {model}: empty answer", retryable=True, request_id=outcome.request_id)
                out_of_line = False
                if failure is None and so_far and addition.strip() and (why := misaligned(so_far, addition)):
                    misaligned_in_row += 1
                    out_of_line = misaligned_in_row >= 2  # twice: the whole answer is asked for afresh
                    failure = Failure(f"anthropic {model}: {why}", retryable=True, request_id=outcome.request_id)
                if failure is None:
                    if outcome.stop_reason != "max_tokens":
                        final_text = so_far + addition
                    self._log_end(report, call_id, req, model, outcome, 0, None, attempt, final_text)
                    break
                self._log_end(report, call_id, req, model, outcome, 0, failure.message, attempt, None)
                if sink.delivered != mark:  # the failed attempt's partial text is discarded
                    sink.reset()
                    sink.write(own)
                if failure.stop_run:
                    raise RunStopped(failure.message)
                if out_of_line:
                    break
                delay = self.policy.delay(attempt, failure)
                if self.policy.gives_up(attempt, failure, overload_waited, delay):
                    if not failure.retryable:
                        raise StepFailed(failure.message, retryable=False)
                    if failure.overload:
                        raise StepFailed(f"{failure.message} (still overloaded after {overload_waited:.0f}s of "
                                         f"retries, {attempt} attempts)", retryable=True, overload=True)
                    raise StepFailed(f"{failure.message} (gave up after {attempt} attempts)", retryable=True)
                if failure.overload:
                    overload_waited += delay
                if failure.slowdown:
                    self._not_before = max(self._not_before, self.clock.now() + delay)
                log.info("anthropic %s %s/%s: %s; retry %d in %.1fs", model, req.chapter or "-", req.step,
                         failure.message, attempt + 1, delay)
                await self.clock.sleep(delay)

            if failure is not None:  # a continuation out of line twice: the whole answer again, with more room
                assert out_of_line
                reasks += 1
                bigger = larger_budget(settings, self._info(settings)) if reasks <= MAX_BUDGET_REASKS else None
                if bigger is None:
                    raise StepFailed(f"anthropic {model}: {failure.message} (the answer was asked for again "
                                     f"{reasks - 1} times)", retryable=False)
                log.warning("anthropic %s %s/%s: %s; asking for the whole answer again (max_tokens %d)", model,
                            req.chapter or "-", req.step, failure.message, bigger["max_tokens"])
                restart(bigger)
                continue
            own += addition
            misaligned_in_row = 0
            stop = outcome.stop_reason
            if stop == "end_turn":
                return Result(text=prefix + own, stop_reason="end_turn", usage=total, model=model,
                              request_id=last_rid, cost_usd=cost, calls=calls)
            if stop == "max_tokens" and (structured or not (prefix + own).strip()):
                # Thinking took the whole budget, or a JSON answer was cut (never continued under
                # its schema): the answer is asked for afresh with more room or less thinking.
                reasks += 1
                bigger = larger_budget(settings, self._info(settings)) if reasks <= MAX_BUDGET_REASKS else None
                what = "a structured answer was cut" if structured and own.strip() else "no text was written"
                if bigger is None:
                    raise StepFailed(f"anthropic {model}: stopped at max_tokens={settings['max_tokens']} "
                                     f"({what}; thinking used {outcome.usage.thinking_tokens} tokens) after "
                                     f"{reasks - 1} larger budgets; raise max_tokens or lower effort in "
                                     f"book.yaml's models: for {req.role}", retryable=False)
                log.warning("anthropic %s %s/%s: stopped at max_tokens=%d (%s); asking again with max_tokens=%d, "
                            "effort %s", model, req.chapter or "-", req.step, settings["max_tokens"], what,
                            bigger["max_tokens"], bigger.get("effort") or "default")
                restart(bigger)
                continue
            if stop == "max_tokens":
                if continuations >= self.max_continuations:
                    raise StepFailed(f"anthropic {model}: the answer is still incomplete after "
                                     f"{continuations} continuations (max_tokens={settings['max_tokens']})",
                                     retryable=False)
                continuations += 1
                continue
            if stop == "refusal":
                refusals += 1
                detail = f" ({outcome.refusal})" if outcome.refusal else ""
                fallback = self.fallback_for(model)
                if refusals == 1:  # a classifier's refusal is often not repeated: once more, afresh
                    log.warning("anthropic %s refused %s/%s%s; asking once more", model, req.chapter or "-",
                                req.step, detail)
                    restart(settings)
                    continue
                if fallback and not fallback_used:
                    log.warning("anthropic %s refused %s/%s again%s; trying the fallback model %s", model,
                                req.chapter or "-", req.step, detail, fallback)
                    fallback_used = True
                    restart(self.settings_for(req, fallback))
                    continue
                tried = f"{settings['model']}" + ("" if not fallback_used else " (the fallback model)")
                raise Refused(f"the model refused to write this (stop_reason=refusal{detail}) on {tried}, "
                              f"{refusals} times: a person must reword what it was asked (the chapter's outline "
                              f"entry or instructions) or set fallback_model in book.yaml")
            raise StepFailed(f"anthropic {model}: the answer stopped with stop_reason={stop}, "
                             f"which this tool cannot continue", retryable=False)

    def _server_info(self, model: str) -> Any:
        """A compatible server's limits; no effort levels where it takes none (a cut answer then
        gets more room, never a futile lower effort)."""
        info = self.server.info(model_info(model))
        return info if self.features.effort else dataclasses.replace(info, efforts=())

    def _info(self, settings: dict[str, Any]) -> Any:
        return self._server_info(settings["model"]) if self.server.compatible else None

    def fallback_for(self, model: str) -> str:
        """The model a refused request goes to: book.yaml's `fallback_model`, else another of the
        model's family (settings.default_fallback); "none" turns it off."""
        fb = (self.fallback_model or "").strip()
        if fb.lower() == "none" or (self.server.compatible and not fb):  # a local model has no family
            return ""
        fb = fb or default_fallback(model)
        return "" if fb == model else fb

    @staticmethod
    def _add(total: Usage, u: Usage) -> None:
        total.input_tokens += u.input_tokens
        total.output_tokens += u.output_tokens
        total.cache_creation_tokens += u.cache_creation_tokens
        total.cache_read_tokens += u.cache_read_tokens
        total.cache_creation_1h_tokens += u.cache_creation_1h_tokens
        total.thinking_tokens += u.thinking_tokens

    async def wait_slowdown(self) -> bool:
        """Until the shared slow-down (set by overload and rate limits) has ended: the runner
        waits here before it tries again a step that failed for overload. True when done."""
        await self._wait_turn()
        return True

    async def _wait_turn(self) -> None:
        while (wait := self._not_before - self.clock.now()) > 0:
            await self.clock.sleep(wait)

    # ------------------------------------------------------------------ one HTTP call

    async def _attempt(self, client: Any, req: Request, params: dict[str, Any], on_piece: Callable[[str], None],
                       attempt: int, sink: Sink, so_far: str) -> tuple[Outcome, Failure | None, str]:
        report = sink.attempt
        # paid for first: the budget may lower max_tokens to what is left, or have none left
        granted, release = await sink.afford(req, *self.rates(req, so_far), int(params["max_tokens"]))
        if granted <= 0:
            raise BudgetSpent(f"anthropic {params['model']}: the budget cannot pay the next request of "
                              f"{req.chapter or 'the book'} {req.step}")
        try:
            return await self._paid_attempt(client, req, with_max_tokens(params, granted), on_piece, attempt,
                                            report)
        finally:
            release()

    async def _paid_attempt(self, client: Any, req: Request, params: dict[str, Any], on_piece: Callable[[str], None],
                            attempt: int, report: Callable[[CallRow], None]) -> tuple[Outcome, Failure | None, str]:
        # the cache gate: wait while another request writes a prefix this one shares, lead the rest
        led = await self.gate.enter_all(prefix_keys(params), prefix_ttls(params)) if self.gate is not None else []
        await self._wait_turn()
        out = Outcome()
        call_id = uuid.uuid4().hex
        model = params["model"]
        async with self._get_semaphore():
            await self._wait_turn()  # another task may have hit a rate limit while this one queued
            started = time.monotonic()
            # its worst case goes to the spend journal before the request is sent (state/spend.py)
            report({**self._row(req, model, Usage(), attempt), "call_id": call_id, "status": "started",
                    "worst_usd": self.estimate_cost(req)})

            def on_start() -> None:  # message_start: the input it is billed for, should the run be killed now
                if self.gate is not None:
                    self.gate.opened_all(led)
                report({"call_id": call_id, "status": "streaming", "cost_usd": self.cost(out.usage, model)})

            caught: list[warnings.WarningMessage] = []
            try:
                failure = await stream_once(client, params, model, self._key, on_piece, on_start, caught, out)
            except asyncio.CancelledError:  # Ctrl-C or a cancelled run: the call may still be billed
                self._log_end(report, call_id, req, model, out, int((time.monotonic() - started) * 1000),
                              "cancelled", attempt, None)
                raise
            finally:
                self._note_warnings(caught)
                if self.gate is not None:
                    for k in led:
                        (self.gate.opened if out.started else self.gate.failed)(k)
            out.latency_ms = int((time.monotonic() - started) * 1000)
        return out, failure, call_id

    def _note_warnings(self, caught: list[warnings.WarningMessage]) -> None:
        for w in caught:
            msg = str(w.message)
            if msg not in self._warned:
                self._warned.add(msg)
                log.warning("anthropic: %s", msg)

    def _row(self, req: Request, model: str, usage: Usage, attempt: int) -> CallRow:
        return {"role": req.role, "chapter": req.chapter, "step": req.step, "provider": self.name, "model": model,
                "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
                "cache_creation_tokens": usage.cache_creation_tokens, "cache_read_tokens": usage.cache_read_tokens,
                "thinking_tokens": usage.thinking_tokens, "cost_usd": self.cost(usage, model), "attempt": attempt}

    def _log_end(self, report: Callable[[CallRow], None], call_id: str, req: Request, model: str, out: Outcome,
                 latency_ms: int, error: str | None, attempt: int, final_text: str | None) -> None:
        row = self._row(req, model, out.usage, attempt)
        row.update({"call_id": call_id, "latency_ms": latency_ms or out.latency_ms,
                    "stop_reason": out.stop_reason, "request_id": out.request_id,
                    "error": redact(error, self._key)[:500] if error else None,
                    "status": "cancelled" if error == "cancelled" else ("error" if error else "ok"),
                    "text_hash": text_hash(final_text) if final_text is not None else None})
        report(row)

    # kept for tools that estimated tokens through the provider
    est_tokens = staticmethod(est_tokens)
