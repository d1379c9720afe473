"""The Claude provider (DESIGN §7): one shared `anthropic.AsyncAnthropic` client, always
streaming, a global concurrency limit, our own retries (the SDK's are off, so every attempt
is logged and all tasks slow down together), continuation after `max_tokens`, prompt
caching of the stable prefix, and a cost for every call from `data/prices.yaml`.

Importing this module does not import `anthropic` (it costs ~2 s): the client is made on
the first call, so commands that call no model never pay for it.

Contract with the runner, beyond `base.Provider`:

- `on_text(piece)` gets the new text as it arrives, never the request's `prefix` (the
  runner has it). Trailing whitespace is held back until more text follows, so that a
  continuation can be joined without doubled blank lines.
- `req.context["on_reset"]`, when set, is called with no argument before a retry whose
  failed attempt had already delivered text: the runner then forgets everything `on_text`
  delivered during this `generate()` call (truncates its `.partial` back to where it stood
  when the call began). The provider re-delivers what still stands (the finished parts of a
  continued answer) right after.
- `Result.text` is authoritative: prefix + what was added (a prefix's trailing whitespace
  may be dropped when the continuation begins with its own).
- `on_call(row)` is called once per HTTP attempt, success or failure, with the keys of the
  ledger's `llm_calls` table (plus `attempt`).
- A prefix is continued with a "continue" turn (user prompt, assistant: the text so far,
  user: continue), not a trailing assistant prefill: Claude 4.6 and every 5.x model answer
  a prefill with a 400 ("This model does not support assistant message prefill").
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import os
import random
import re
import time
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError, StepFailed
from .base import Request, Result, Usage

log = logging.getLogger(__name__)

PRICES_PATH = Path(__file__).resolve().parent.parent / "data" / "prices.yaml"
PRICE_FIELDS = ("input", "output", "cache_write", "cache_read")
# Used when prices.yaml has no `default`: the highest current rates, so a cap errs on the safe side.
FALLBACK_PRICE = {"input": 10.0, "output": 50.0, "cache_write": 12.5, "cache_read": 1.0}

CONTINUE_PROMPT = "Continue exactly where you stopped; do not repeat anything."
FEEDBACK_HEADER = "## Feedback on your previous answer"
CHARS_PER_TOKEN = 3.5  # for the upper cost estimate (and the output of a stream cut short)
OVERLAP_MIN = 8  # an overlap shorter than this between text and continuation is a coincidence
OVERLAP_MAX = 1000  # the longest repetition a continuation is checked for
MAX_BACKOFF = 60.0
MAX_RETRY_AFTER = 600.0

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}
SLOWDOWN_STATUS = {429, 529}  # every task waits when one of these comes back
# error types of an `event: error` that arrives inside a 200 stream
NON_RETRYABLE_STREAM_ERRORS = {"invalid_request_error", "authentication_error", "permission_error",
                               "not_found_error", "billing_error", "request_too_large"}
SLOWDOWN_STREAM_ERRORS = {"overloaded_error", "rate_limit_error"}
STATUS_HINTS = {
    400: "the request was rejected; it will fail the same way again",
    401: "the API key was refused: check ANTHROPIC_API_KEY",
    402: "billing: check the account's credit",
    403: "the API key may not use this model or feature",
    404: "unknown model or endpoint: check `model`/`models` in book.yaml (and ANTHROPIC_BASE_URL)",
    413: "the request is too large: the prompt must be shortened",
}
_KEY_PATTERN = re.compile(r"sk-ant-[A-Za-z0-9_\-]{3,}")


# ---------------------------------------------------------------------------- prices

def load_prices(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """Read a prices file (default: the packaged `data/prices.yaml`): model id or id prefix
    -> USD per million tokens for input, output, cache_write, cache_read (+ an optional
    `long_prompt` tier). Missing cache rates are derived (1.25x and 0.1x input)."""
    return dict(_load_prices(str(path) if path else str(PRICES_PATH)))


@lru_cache(maxsize=8)
def _load_prices(path: str) -> dict[str, dict[str, Any]]:
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("the prices file is missing", path) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"the prices file is not valid YAML: {e}", path) from None
    if not isinstance(raw, dict):
        raise ConfigError("the prices file must map model names to prices", path)
    prices: dict[str, dict[str, Any]] = {}
    for name, entry in raw.items():
        prices[str(name).lower()] = _price_entry(str(name), entry, path)
    return prices


def _price_entry(name: str, entry: Any, path: str) -> dict[str, Any]:
    fix = "e.g. claude-sonnet-5-5: {input: 2.0, output: 10.0, cache_write: 2.5, cache_read: 0.1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{name}: expected a mapping of prices", path, fix=fix)
    out: dict[str, Any] = {}
    for f in ("input", "output"):
        if not isinstance(entry.get(f), (int, float)) or entry[f] < 0:
            raise ConfigError(f"{name}: `{f}` must be a number of USD per million tokens", path, fix=fix)
        out[f] = float(entry[f])
    out["cache_write"] = float(entry.get("cache_write", out["input"] * 1.25))
    out["cache_read"] = float(entry.get("cache_read", out["input"] * 0.1))
    long = entry.get("long_prompt")
    if long is not None:
        if not isinstance(long, dict) or not isinstance(long.get("threshold_tokens"), int):
            raise ConfigError(f"{name}: `long_prompt` needs threshold_tokens and rates", path, fix=fix)
        rates = {k: v for k, v in long.items() if k != "threshold_tokens"}
        out["long_prompt"] = {"threshold_tokens": long["threshold_tokens"],
                              **_price_entry(f"{name}.long_prompt", rates, path)}
    return out


def price_for(model: str, prices: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The price entry of a model: the longest key the id starts with at a `-`/`@`/`:`/`[`
    boundary (so dated ids find their model, new versions their family), else `default`."""
    prices = prices if prices is not None else load_prices()
    m = (model or "").strip().lower()
    at = m.find("claude-")
    if at > 0:  # us.anthropic.claude-..., anthropic.claude-...
        m = m[at:]
    best = None
    for key in prices:
        if key == "default":
            continue
        if m == key or (m.startswith(key) and m[len(key)] in "-@:[."):
            if best is None or len(key) > len(best):
                best = key
    if best is not None:
        return prices[best]
    return prices.get("default", FALLBACK_PRICE)


def cost_usd(usage: Usage, model: str, prices: dict[str, dict[str, Any]] | None = None) -> float:
    p = price_for(model, prices)
    long = p.get("long_prompt")
    prompt = usage.input_tokens + usage.cache_creation_tokens + usage.cache_read_tokens
    if long and prompt > long["threshold_tokens"]:
        p = long
    return (usage.input_tokens * p["input"] + usage.output_tokens * p["output"]
            + usage.cache_creation_tokens * p["cache_write"]
            + usage.cache_read_tokens * p["cache_read"]) / 1e6


# ---------------------------------------------------------------------------- helpers

def _overlap(a: str, b: str) -> int:
    """Length of the longest start of `b` that `a` ends with (at least OVERLAP_MIN chars)."""
    top = min(len(a), len(b), OVERLAP_MAX)
    for k in range(top, OVERLAP_MIN - 1, -1):
        if a.endswith(b[:k]):
            return k
    return 0


def join_continuation(a: str, b: str) -> tuple[bool, str]:
    """How the continuation `b` joins the text `a`: (strip_a, addition), the joined text
    being `a.rstrip() + addition` when strip_a, else `a + addition`. A repeated tail of `a`
    at the start of `b` is dropped; `a`'s trailing whitespace is kept only when `b` does not
    bring its own (we send `a` stripped: the API refuses trailing whitespace there)."""
    a_s = a.rstrip()
    bl = b.lstrip()
    k = _overlap(a_s, bl)
    if k:
        return True, bl[k:]
    if b[:1].isspace():
        return True, b
    return False, b


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


@dataclass
class _Failure:
    message: str
    retryable: bool
    slowdown: bool = False
    retry_after: float | None = None
    request_id: str | None = None


class _CallbackError(Exception):
    """An exception raised by the runner's on_text: never retried, re-raised as it was."""

    def __init__(self, exc: BaseException):
        self.exc = exc


class _Sink:
    """Delivers text to on_text, holding back trailing whitespace until more text follows."""

    def __init__(self, on_text: Callable[[str], None], on_reset: Callable[[], None] | None):
        self.on_text, self.on_reset = on_text, on_reset
        self.held = ""
        self.delivered = 0

    def _deliver(self, s: str) -> None:
        if not s:
            return
        try:
            self.on_text(s)
        except BaseException as e:  # noqa: BLE001 - handed back untouched by generate()
            raise _CallbackError(e) from None
        self.delivered += len(s)

    def write(self, s: str) -> None:
        s = self.held + s
        body = s.rstrip()
        self.held = s[len(body):]
        self._deliver(body)

    def flush(self) -> None:
        held, self.held = self.held, ""
        self._deliver(held)

    def drop_held(self) -> None:
        self.held = ""

    def reset(self) -> None:
        if self.delivered and self.on_reset is not None:
            try:
                self.on_reset()
            except BaseException as e:  # noqa: BLE001
                raise _CallbackError(e) from None
        self.delivered = 0
        self.held = ""


class _Segment:
    """One answer segment as it streams. For a continuation, the start is buffered until
    it is long enough to tell whether it repeats the end of the text so far."""

    def __init__(self, sink: _Sink, before: str):
        self.sink, self.before = sink, before
        self.parts: list[str] = []
        self.need = min(len(before.rstrip()), OVERLAP_MAX) if before else 0
        self.decided = not before
        self.buffer = ""

    def feed(self, piece: str) -> None:
        self.parts.append(piece)
        if self.decided:
            self.sink.write(piece)
            return
        self.buffer += piece
        if len(self.buffer.lstrip()) >= self.need:
            self._decide()

    def _decide(self) -> None:
        strip, addition = join_continuation(self.before, self.buffer)
        if strip:
            self.sink.drop_held()
        else:
            self.sink.flush()
        self.sink.write(addition)
        self.decided = True
        self.buffer = ""

    def finish(self) -> None:
        if not self.decided:
            self._decide()

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class _Outcome:
    text: str
    stop_reason: str | None
    usage: Usage
    request_id: str | None


# ---------------------------------------------------------------------------- the provider

class AnthropicProvider:
    name = "anthropic"
    retries_itself = True  # the runner does not retry a StepFailed on top of these attempts

    def __init__(self, *, concurrency: int, prices: dict | None = None,
                 on_call: Callable[[dict], None] | None = None, max_attempts: int = 5,
                 max_continuations: int = 3, base_delay: float = 1.0, fallback_model: str | None = None,
                 max_delay: float = MAX_BACKOFF, timeout: float = 600.0):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self._prices = prices
        self.on_call = on_call
        self.max_attempts = max(1, max_attempts)
        self.max_continuations = max(0, max_continuations)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.fallback_model = fallback_model
        self.timeout = timeout
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None
        self._not_before = 0.0  # time.monotonic() before which no task starts a request
        self._key: str | None = None
        self._warned: set[str] = set()

    # ------------------------------------------------------------------ setup

    @property
    def prices(self) -> dict[str, dict[str, Any]]:
        if self._prices is None:
            self._prices = load_prices()
        return self._prices

    def _get_client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._client_loop is loop:
            return self._client
        key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
        if not key:
            raise ConfigError("ANTHROPIC_API_KEY is not set, so the anthropic provider cannot call Claude",
                              fix="export ANTHROPIC_API_KEY=sk-ant-... (it is read from the environment "
                                  "and never written anywhere), or run with --provider offline")
        import anthropic  # here, not at module level: it costs ~2 s

        kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0, "timeout": self.timeout}
        base_url = os.environ.get("ANTHROPIC_BASE_URL", "").strip()
        if base_url:
            kwargs["base_url"] = base_url
        self._key = key
        self._client = anthropic.AsyncAnthropic(**kwargs)
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

    # ------------------------------------------------------------------ cost

    def estimate_cost(self, req: Request) -> float:
        """An upper estimate before the call: the prompt at ~3.5 characters a token (the
        cached prefix at the cache-write rate, which is the higher one), plus `max_tokens`
        of output."""
        model = self._model(req)
        p = price_for(model, self.prices)
        system_tokens = (len(getattr(req, "shared", "")) + len(req.system)) / CHARS_PER_TOKEN
        rest = req.prompt + req.feedback + FEEDBACK_HEADER * bool(req.feedback)
        if req.prefix:
            rest += req.prefix + CONTINUE_PROMPT
        rest_tokens = len(rest) / CHARS_PER_TOKEN
        long = p.get("long_prompt")
        if long and system_tokens + rest_tokens > long["threshold_tokens"]:
            p = long
        return (system_tokens * max(p["input"], p["cache_write"]) + rest_tokens * p["input"]
                + req.max_tokens * p["output"]) / 1e6

    def cost(self, usage: Usage, model: str) -> float:
        return cost_usd(usage, model, self.prices)

    # ------------------------------------------------------------------ generate

    @staticmethod
    def _model(req: Request) -> str:
        if req.model:
            return req.model
        from ..config import DEFAULT_MODEL

        return DEFAULT_MODEL

    def _user_content(self, req: Request) -> str:
        if req.feedback:
            return f"{req.prompt.rstrip()}\n\n{FEEDBACK_HEADER}\n\n{req.feedback.strip()}"
        return req.prompt

    async def generate(self, req: Request, on_text: Callable[[str], None]) -> Result:
        try:
            return await self._generate(req, on_text)
        except _CallbackError as e:
            raise e.exc from None

    async def _generate(self, req: Request, on_text: Callable[[str], None]) -> Result:
        client = self._get_client()
        on_reset = req.context.get("on_reset") if isinstance(req.context, dict) else None
        sink = _Sink(on_text, on_reset)
        model = self._model(req)
        fell_back = False
        # Two cached prefixes: the book's context (shared by every role of a batch), then the
        # role's instructions (shared by every chapter of the batch for this role).
        system = [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
                  for text in (getattr(req, "shared", ""), req.system) if text]
        user = {"role": "user", "content": self._user_content(req)}
        prefix = req.prefix if req.prefix.strip() else ""
        kept_prefix, own = prefix, ""  # Result.text == kept_prefix + own
        total = Usage()
        cost = 0.0
        calls = 0
        continuations = 0
        last_rid: str | None = None

        while True:
            so_far = kept_prefix + own
            messages: list[dict[str, Any]] = [user]
            if so_far:
                messages += [{"role": "assistant", "content": so_far.rstrip()},
                             {"role": "user", "content": CONTINUE_PROMPT}]
            attempt = 0
            while True:
                attempt += 1
                seg = _Segment(sink, so_far)
                mark, held = sink.delivered, sink.held
                outcome, failure = await self._attempt(client, req, model, system, messages, seg, attempt)
                calls += 1
                self._add(total, outcome.usage)
                cost += self.cost(outcome.usage, model)
                last_rid = outcome.request_id or last_rid
                if failure is None:
                    break
                if not failure.retryable:
                    raise StepFailed(failure.message, retryable=False)
                if attempt >= self.max_attempts:
                    raise StepFailed(f"{failure.message} (gave up after {attempt} attempts)", retryable=True)
                delay = self._delay(attempt, failure.retry_after)
                if failure.slowdown:
                    self._not_before = max(self._not_before, time.monotonic() + delay)
                if sink.delivered != mark:  # the failed attempt's partial text is discarded
                    sink.reset()
                    sink.write(own)
                else:
                    sink.held = held
                log.info("anthropic %s %s/%s: %s; retry %d/%d in %.1fs", model, req.chapter or "-", req.step,
                         failure.message, attempt + 1, self.max_attempts, delay)
                await asyncio.sleep(delay)

            seg.finish()
            stop = outcome.stop_reason
            if so_far:
                strip, addition = join_continuation(so_far, outcome.text)
                if strip:
                    cut = len(so_far) - len(so_far.rstrip())
                    if cut <= len(own):
                        own = own[: len(own) - cut]
                    else:
                        kept_prefix = kept_prefix[: len(kept_prefix) - (cut - len(own))]
                        own = ""
                own += addition
            else:
                own = outcome.text

            if stop == "end_turn":
                sink.flush()
                return Result(text=kept_prefix + own, stop_reason="end_turn", usage=total, model=model,
                              request_id=last_rid, cost_usd=cost, calls=calls)
            if stop == "max_tokens":
                if not (kept_prefix + own).strip():
                    raise StepFailed(f"anthropic {model}: stopped at max_tokens={req.max_tokens} before "
                                     f"writing any text; raise max_tokens", retryable=False)
                if continuations >= self.max_continuations:
                    raise StepFailed(f"anthropic {model}: the answer is still incomplete after "
                                     f"{continuations} continuations (max_tokens={req.max_tokens})",
                                     retryable=False)
                continuations += 1
                continue
            if stop == "refusal":
                if self.fallback_model and not fell_back and self.fallback_model != model:
                    log.warning("anthropic %s refused %s/%s; trying the fallback model %s", model,
                                req.chapter or "-", req.step, self.fallback_model)
                    model, fell_back = self.fallback_model, True
                    sink.reset()
                    kept_prefix, own, continuations = prefix, "", 0
                    continue
                raise StepFailed(f"anthropic {model}: the model refused to answer (stop_reason=refusal)",
                                 retryable=False)
            raise StepFailed(f"anthropic {model}: the answer stopped with stop_reason={stop}, "
                             f"which this tool cannot continue", retryable=False)

    @staticmethod
    def _add(total: Usage, u: Usage) -> None:
        total.input_tokens += u.input_tokens
        total.output_tokens += u.output_tokens
        total.cache_creation_tokens += u.cache_creation_tokens
        total.cache_read_tokens += u.cache_read_tokens

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER) + random.uniform(0, 0.1 * self.base_delay)
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return backoff * random.uniform(0.75, 1.25)

    async def _wait_turn(self) -> None:
        while (wait := self._not_before - time.monotonic()) > 0:
            await asyncio.sleep(wait)

    # ------------------------------------------------------------------ one HTTP call

    async def _attempt(self, client: Any, req: Request, model: str, system: list, messages: list,
                       seg: _Segment, attempt: int) -> tuple[_Outcome, _Failure | None]:
        await self._wait_turn()
        async with self._get_semaphore():
            await self._wait_turn()  # another task may have hit a rate limit while this one queued
            started = time.monotonic()
            usage = Usage()
            rid: str | None = None
            stop: str | None = None
            saw_stop = False
            failure: _Failure | None = None
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    kwargs: dict[str, Any] = {"model": model, "max_tokens": req.max_tokens,
                                              "messages": messages}
                    if system:
                        kwargs["system"] = system
                    manager = client.messages.stream(**kwargs)
                self._note_warnings(model, caught)
                async with manager as stream:
                    rid = stream.request_id
                    async for event in stream:
                        etype = event.type
                        if etype == "content_block_delta":
                            if getattr(event.delta, "type", None) == "text_delta":
                                seg.feed(event.delta.text)
                        elif etype == "message_start":
                            u = event.message.usage
                            usage.input_tokens = u.input_tokens or 0
                            usage.cache_creation_tokens = u.cache_creation_input_tokens or 0
                            usage.cache_read_tokens = u.cache_read_input_tokens or 0
                            usage.output_tokens = u.output_tokens or 0
                        elif etype == "message_delta":
                            stop = event.delta.stop_reason
                            u = event.usage
                            usage.output_tokens = u.output_tokens or 0
                            if u.input_tokens is not None:
                                usage.input_tokens = u.input_tokens
                            if u.cache_creation_input_tokens is not None:
                                usage.cache_creation_tokens = u.cache_creation_input_tokens
                            if u.cache_read_input_tokens is not None:
                                usage.cache_read_tokens = u.cache_read_input_tokens
                        elif etype == "message_stop":
                            saw_stop = True
            except _CallbackError:
                raise
            except asyncio.CancelledError:  # Ctrl-C or a cancelled run: the call may still be billed
                if seg.text and usage.output_tokens <= 1:
                    usage.output_tokens = math.ceil(len(seg.text) / CHARS_PER_TOKEN)
                self._log_call(req, model, usage, int((time.monotonic() - started) * 1000), None, rid,
                               "cancelled", attempt)
                raise
            except Exception as e:  # noqa: BLE001 - classified: retried, or turned into StepFailed
                failure = self._classify(e, model)
                rid = failure.request_id or rid
            text = seg.text
            if failure is None:
                if not saw_stop or not stop:
                    failure = _Failure(f"anthropic {model}: the stream ended without message_stop "
                                       f"(an incomplete answer)", retryable=True, request_id=rid)
                elif stop == "end_turn" and not (seg.before + text).strip():
                    failure = _Failure(f"anthropic {model}: empty answer", retryable=True, request_id=rid)
            if failure is not None and text and usage.output_tokens <= 1:
                usage.output_tokens = math.ceil(len(text) / CHARS_PER_TOKEN)  # billed all the same
            latency_ms = int((time.monotonic() - started) * 1000)
        self._log_call(req, model, usage, latency_ms, stop, rid, failure.message if failure else None,
                       attempt)
        return _Outcome(text, stop, usage, rid), failure

    def _note_warnings(self, model: str, caught: list[warnings.WarningMessage]) -> None:
        for w in caught:
            msg = str(w.message)
            if msg not in self._warned:
                self._warned.add(msg)
                log.warning("anthropic: %s", msg)

    def _log_call(self, req: Request, model: str, usage: Usage, latency_ms: int, stop: str | None,
                  rid: str | None, error: str | None, attempt: int) -> None:
        if self.on_call is None:
            return
        self.on_call({
            "role": req.role, "chapter": req.chapter, "step": req.step, "provider": self.name, "model": model,
            "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cache_creation_tokens": usage.cache_creation_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cost_usd": self.cost(usage, model), "latency_ms": latency_ms, "stop_reason": stop,
            "request_id": rid, "error": self._redact(error)[:500] if error else None, "attempt": attempt,
        })

    def _redact(self, text: str) -> str:
        if self._key:
            text = text.replace(self._key, "***")
        return _KEY_PATTERN.sub("sk-ant-***", text)

    def _classify(self, e: Exception, model: str) -> _Failure:
        """What an exception from one attempt means: retry (and whether everyone slows down),
        or fail now. The message is for a person and never contains the key."""
        import anthropic

        where = f"anthropic {model}"
        if isinstance(e, anthropic.APIStatusError):
            status = e.status_code
            body = e.body if isinstance(e.body, dict) else {}
            err = body.get("error") if isinstance(body.get("error"), dict) else {}
            etype = e.type or err.get("type") or "error"
            detail = e.api_message or err.get("message") or str(e)
            rid = e.request_id
            if status < 400:  # an `event: error` inside a 200 stream: the SDK raises, never retries
                return _Failure(self._redact(f"{where}: error event in the stream: {etype}: {detail}"),
                                retryable=etype not in NON_RETRYABLE_STREAM_ERRORS,
                                slowdown=etype in SLOWDOWN_STREAM_ERRORS, request_id=rid)
            retryable = status in RETRYABLE_STATUS or (status >= 500 and status != 501)
            msg = f"{where}: HTTP {status} {etype}: {detail}"
            if not retryable and status in STATUS_HINTS:
                msg += f" ({STATUS_HINTS[status]})"
            if rid:
                msg += f" [request {rid}]"
            return _Failure(self._redact(msg), retryable=retryable, slowdown=status in SLOWDOWN_STATUS,
                            retry_after=_retry_after(e.response.headers) if retryable else None,
                            request_id=rid)
        if isinstance(e, anthropic.APITimeoutError):
            return _Failure(f"{where}: the request timed out", retryable=True)
        if isinstance(e, anthropic.APIConnectionError):
            cause = e.__cause__ or e.__context__
            extra = f": {type(cause).__name__}: {cause}" if cause else ""
            return _Failure(self._redact(f"{where}: connection error{extra}"), retryable=True)
        if isinstance(e, anthropic.AnthropicError):
            return _Failure(self._redact(f"{where}: {type(e).__name__}: {e}"), retryable=False)
        if any(c.__module__.split(".")[0].startswith("httpx") for c in type(e).__mro__) or \
                isinstance(e, (OSError, asyncio.TimeoutError, EOFError)):
            return _Failure(self._redact(f"{where}: the connection dropped mid-stream: "
                                         f"{type(e).__name__}: {e}"), retryable=True)
        if isinstance(e, (TypeError, AttributeError, NameError, ImportError)):
            raise e  # a bug, not a bad response: retrying would not help
        return _Failure(self._redact(f"{where}: unexpected response: {type(e).__name__}: {e}"),
                        retryable=True)
