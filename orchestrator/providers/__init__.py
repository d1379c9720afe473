"""Providers: `offline` (deterministic, no network: the default without ANTHROPIC_API_KEY)
and `anthropic` (Claude through the anthropic SDK, imported only when used)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..config import Config
    from .base import Provider

NAMES = ("auto", "offline", "anthropic")


def resolve_name(name: str | None, cfg: Config) -> str:
    name = name or cfg.provider
    if name not in NAMES:
        raise UsageError(f"unknown provider {name!r}: choose one of {', '.join(NAMES)}")
    if name == "auto":
        return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline"
    return name


def make_provider(name: str | None, cfg: Config) -> Provider:
    name = resolve_name(name, cfg)
    if name == "offline":
        from .offline import OfflineProvider

        latency = float(os.environ.get("BOOK_OFFLINE_LATENCY", "0") or 0)
        return OfflineProvider(latency=latency)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise UsageError("the anthropic provider needs ANTHROPIC_API_KEY in the environment "
                         "(export ANTHROPIC_API_KEY=...; it is never written anywhere), or use --provider offline")
    from .anthropic import AnthropicProvider

    # The runner passes each call a sink for its attempts, which it logs with its run id.
    return AnthropicProvider(concurrency=cfg.concurrency, fallback_model=cfg.fallback_model or None,
                             role_settings=dict(cfg.models))
