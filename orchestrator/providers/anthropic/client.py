"""The one shared `anthropic.AsyncAnthropic` client (made on the first call, per event loop),
with the SDK's retries off (ours log every attempt) and separate timeouts: connecting fails
after ~10 s, while a streamed answer may take minutes between bytes."""

from __future__ import annotations

import os
from typing import Any

from ...errors import ConfigError

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 600.0  # between two bytes of a stream (a long thinking pause must not time out)
WRITE_TIMEOUT = 60.0
POOL_TIMEOUT = 60.0


def api_key() -> str:
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        raise ConfigError("ANTHROPIC_API_KEY is not set, so the anthropic provider cannot call Claude",
                          fix="export ANTHROPIC_API_KEY=sk-ant-... (it is read from the environment "
                              "and never written anywhere), or run with --provider offline")
    return key


def timeout(read: float = READ_TIMEOUT, connect: float = CONNECT_TIMEOUT) -> Any:
    """An httpx Timeout in the SDK's own httpx flavour (imported lazily, like the SDK)."""
    import anthropic

    return anthropic.Timeout(read, connect=connect, read=read, write=WRITE_TIMEOUT, pool=POOL_TIMEOUT)


def make_client(key: str, read_timeout: float = READ_TIMEOUT, connect_timeout: float = CONNECT_TIMEOUT) -> Any:
    import anthropic  # here, not at module level: it costs ~2 s

    kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0,
                              "timeout": timeout(read_timeout, connect_timeout)}
    base_url = os.environ.get("ANTHROPIC_BASE_URL", "").strip()
    if base_url:
        kwargs["base_url"] = base_url
    return anthropic.AsyncAnthropic(**kwargs)
