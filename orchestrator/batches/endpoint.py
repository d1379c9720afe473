"""The batch endpoint as the engine calls it (engine.py): the client, made on first use from
the environment (the key is never written anywhere); each call retried with backoff while its
failure is transient; and every error's text redacted of the API key before a journal, the
ledger or a message carries it."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import journal as jr
from .types import BatchError

log = logging.getLogger("orchestrator.batches.engine")

_KEY_PATTERN = re.compile(r"sk-ant-[A-Za-z0-9_\-]{3,}")


def redact(text: str) -> str:
    """Nothing that reaches a journal, the ledger or a message carries the API key."""
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if key:
        text = text.replace(key, "***")
    return _KEY_PATTERN.sub("sk-ant-***", text)


def retryable(e: BaseException) -> bool:
    import anthropic

    if isinstance(e, anthropic.APIStatusError):
        return e.status_code in (408, 409, 429) or e.status_code >= 500
    if isinstance(e, (anthropic.APIConnectionError, anthropic.APITimeoutError)):
        return True
    return any(c.__module__.split(".")[0].startswith(("httpx", "httpcore")) for c in type(e).__mro__) or \
        isinstance(e, (OSError, EOFError, asyncio.TimeoutError, json.JSONDecodeError))  # a garbled line


class Endpoint:
    def __init__(self, output_dir: Path, client: Any = None, retry_delay: float = 1.0, retry_max: float = 60.0,
                 attempts: int = 8):
        self.output_dir = output_dir  # its journals are named in an error: they keep every batch
        self._client = client
        self._own_client = client is None  # a client passed in is the caller's to close
        self.retry_delay, self.retry_max, self.attempts = retry_delay, retry_max, attempts

    def client(self) -> Any:
        if self._client is None:
            key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
            if not key:
                raise BatchError("Message Batches need ANTHROPIC_API_KEY in the environment "
                                 "(it is never written anywhere)")
            import anthropic

            kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0,
                                      "timeout": anthropic.Timeout(120.0, connect=10.0)}
            if os.environ.get("ANTHROPIC_BASE_URL", "").strip():
                kwargs["base_url"] = os.environ["ANTHROPIC_BASE_URL"].strip()
            self._client = anthropic.AsyncAnthropic(**kwargs)
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._own_client:
            await client.close()

    def backoff(self, attempt: int) -> float:
        return min(self.retry_max, self.retry_delay * 2 ** (attempt - 1)) * random.uniform(0.75, 1.25)

    async def call(self, what: str, call: Callable[[], Any], **kw: Any) -> Any:
        """`call()` with retries and backoff; with `missing=`, a 404 returns that value."""
        import anthropic

        for attempt in range(1, self.attempts + 1):
            try:
                return await call()
            except Exception as e:  # noqa: BLE001
                if "missing" in kw and isinstance(e, anthropic.NotFoundError):
                    return kw["missing"]
                if not retryable(e) or attempt == self.attempts:
                    where = jr.journal_dir(self.output_dir)
                    raise BatchError(redact(f"Message Batches {what}: {e} (the journals in {where} keep "
                                            f"every batch for `book resume`)")) from e
                log.info("batch %s failed (%s); retry %d", what, e, attempt + 1)
                await asyncio.sleep(self.backoff(attempt))
        raise AssertionError("unreachable")
