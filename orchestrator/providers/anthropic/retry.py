"""What a failed attempt means and how long to wait before the next one.

Overload (HTTP 529, or an `overloaded_error` event inside a 200 stream) is the API asking
everyone to slow down: it is retried with jittered, growing delays for up to
`overload_budget` seconds in total (~10 minutes) before the step fails. Other retryable
failures get `max_attempts` attempts. A 429/529 slows every task down together (the
provider's `not_before`). Time goes through a `Clock`, so tests run the 10-minute policy on
a fake clock in milliseconds.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import re
import time
from dataclasses import dataclass
from typing import Any

MAX_BACKOFF = 60.0
MAX_RETRY_AFTER = 600.0
OVERLOAD_BUDGET = 600.0  # seconds of waiting on overload before a step gives up

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
KEY_PATTERN = re.compile(r"sk-ant-[A-Za-z0-9_\-]{3,}")


class Clock:
    """Monotonic time and sleep; `scale` < 1 shrinks every wait (a fake clock for tests keeps
    the *modelled* time, so budgets are checked as if the waits were real)."""

    def __init__(self, scale: float = 1.0):
        self.scale = scale
        self._offset = 0.0

    def now(self) -> float:
        return time.monotonic() + self._offset

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        real = seconds * self.scale
        await asyncio.sleep(real)
        self._offset += seconds - real  # modelled time moves by the full wait


@dataclass
class Failure:
    message: str
    retryable: bool
    slowdown: bool = False
    overload: bool = False
    retry_after: float | None = None
    request_id: str | None = None
    stop_run: bool = False  # no request can succeed now (spend limit, x-should-retry: false): stop the run


@dataclass
class RetryPolicy:
    max_attempts: int = 5  # for failures other than overload
    base_delay: float = 1.0
    max_delay: float = MAX_BACKOFF
    overload_budget: float = OVERLOAD_BUDGET
    overload_base: float = 5.0  # overload waits start longer: the API is shedding load

    def delay(self, attempt: int, failure: Failure, rng: random.Random | None = None) -> float:
        r = rng or random
        if failure.retry_after is not None:
            return min(failure.retry_after, MAX_RETRY_AFTER) + r.uniform(0, 0.1 * self.base_delay)
        base = self.overload_base if failure.overload else self.base_delay
        backoff = min(self.max_delay, base * 2 ** (attempt - 1))
        return backoff * r.uniform(0.75, 1.25)

    def gives_up(self, attempt: int, failure: Failure, overload_waited: float, next_delay: float) -> bool:
        """Whether to stop retrying after `attempt` attempts (the last failed with `failure`)."""
        if not failure.retryable:
            return True
        if failure.overload:
            return overload_waited + next_delay > self.overload_budget
        return attempt >= self.max_attempts


def retry_after(headers: Any) -> float | None:
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


SPEND_LIMIT_FIX = ("the organization's API spend limit is reached: no request can succeed until it is raised "
                   "(Claude Console, Settings > Limits) or the month resets; then `book resume`")


def spend_limit(etype: str, err: dict[str, Any], detail: str) -> bool:
    """A spend-limit refusal (HTTP 429 `rate_limit_error` whose `error.details.error_code` is
    `enforced_spend_limit_reached`, or a body that names a spend limit): never worth a retry."""
    raw = err.get("details")
    details: dict[str, Any] = raw if isinstance(raw, dict) else {}
    words = " ".join(str(x) for x in (etype, details.get("error_code", ""), err.get("code", ""), detail)).lower()
    return "spend_limit" in words or "spend limit" in words


def should_retry_header(headers: Any) -> bool | None:
    """The API's own word on a retry (`x-should-retry: true|false`), None when it says nothing."""
    try:
        v = headers.get("x-should-retry") if headers is not None else None
    except (AttributeError, TypeError):
        return None
    return None if v is None else str(v).strip().lower() == "true"


def redact(text: str, key: str | None) -> str:
    if key:
        text = text.replace(key, "***")
    return KEY_PATTERN.sub("sk-ant-***", text)


def classify(e: Exception, model: str, key: str | None) -> Failure:
    """What an exception from one attempt means: retry (and whether everyone slows down),
    or fail now. The message is for a person and never contains the key."""
    import anthropic

    where = f"anthropic {model}"
    if isinstance(e, anthropic.APIStatusError):
        status = e.status_code
        body = e.body if isinstance(e.body, dict) else {}
        raw_err = body.get("error")
        err: dict[str, Any] = raw_err if isinstance(raw_err, dict) else {}
        etype = getattr(e, "type", None) or err.get("type") or "error"
        detail = getattr(e, "api_message", None) or err.get("message") or str(e)
        rid = e.request_id
        if status < 400 and spend_limit(etype, err, detail):
            return Failure(redact(f"{where}: error event in the stream: {etype}: {detail} ({SPEND_LIMIT_FIX})", key),
                           retryable=False, stop_run=True, request_id=rid)
        if status < 400:  # an `event: error` inside a 200 stream: the SDK raises, never retries
            return Failure(redact(f"{where}: error event in the stream: {etype}: {detail}", key),
                           retryable=etype not in NON_RETRYABLE_STREAM_ERRORS,
                           slowdown=etype in SLOWDOWN_STREAM_ERRORS, overload=etype == "overloaded_error",
                           request_id=rid)
        retryable = status in RETRYABLE_STATUS or (status >= 500 and status != 501)
        msg = f"{where}: HTTP {status} {etype}: {detail}"
        headers = getattr(getattr(e, "response", None), "headers", None)
        # A spend limit, or a failure the API says not to retry that would otherwise be retried
        # (a rate limit, overload, 5xx): every other request would fail the same way, so the run
        # stops. A 4xx the API says not to retry is this request's own fault: that step fails.
        if spend_limit(etype, err, detail) or (retryable and should_retry_header(headers) is False):
            why = SPEND_LIMIT_FIX if spend_limit(etype, err, detail) else \
                "the API answered `x-should-retry: false`: retrying would not help; `book resume` once it is resolved"
            msg += f" ({why})" + (f" [request {rid}]" if rid else "")
            return Failure(redact(msg, key), retryable=False, stop_run=True, request_id=rid)
        if not retryable and status in STATUS_HINTS:
            msg += f" ({STATUS_HINTS[status]})"
        if rid:
            msg += f" [request {rid}]"
        return Failure(redact(msg, key), retryable=retryable, slowdown=status in SLOWDOWN_STATUS,
                       overload=status == 529 or etype == "overloaded_error",
                       retry_after=retry_after(e.response.headers) if retryable else None, request_id=rid)
    if isinstance(e, anthropic.APITimeoutError):
        return Failure(f"{where}: the request timed out", retryable=True)
    if isinstance(e, anthropic.APIConnectionError):
        cause = e.__cause__ or e.__context__
        extra = f": {type(cause).__name__}: {cause}" if cause else ""
        return Failure(redact(f"{where}: connection error{extra}", key), retryable=True)
    if isinstance(e, anthropic.AnthropicError):
        return Failure(redact(f"{where}: {type(e).__name__}: {e}", key), retryable=False)
    if any(c.__module__.split(".")[0].startswith("httpx") for c in type(e).__mro__) or \
            isinstance(e, (OSError, asyncio.TimeoutError, EOFError)):
        return Failure(redact(f"{where}: the connection dropped mid-stream: {type(e).__name__}: {e}", key),
                       retryable=True)
    if isinstance(e, (TypeError, AttributeError, NameError, ImportError)):
        raise e  # a bug, not a bad response: retrying would not help
    return Failure(redact(f"{where}: unexpected response: {type(e).__name__}: {e}", key), retryable=True)
