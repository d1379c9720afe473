"""Providers: `offline` (deterministic, no network: the default without ANTHROPIC_API_KEY)
and `anthropic` (Claude through the anthropic SDK, imported only when used)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UsageError

if TYPE_CHECKING:
    from .base import Provider


class Config(Protocol):
    """What choosing and making a provider reads of book.yaml (config.Config has it): said here,
    so that the providers import nothing of config.py, which checks model names with them."""

    @property
    def provider(self) -> str: ...

    @property
    def root(self) -> Path: ...

    @property
    def models(self) -> dict[str, Any]: ...

    @property
    def fallback_model(self) -> str: ...

    @property
    def concurrency(self) -> int: ...

    @property
    def message_batches(self) -> bool: ...


NAMES = ("auto", "offline", "anthropic")


def resolve_name(name: str | None, cfg: Config) -> str:
    name = name or cfg.provider
    if name not in NAMES:
        raise UsageError(f"unknown provider {name!r}: choose one of {', '.join(NAMES)}")
    if name == "auto":  # a compatible server (server: compatible) needs no key, only its address
        local = getattr(cfg, "server", "anthropic") == "compatible" and os.environ.get("ANTHROPIC_BASE_URL")
        return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") or local else "offline"
    return name


def make_provider(name: str | None, cfg: Config) -> Provider:
    name = resolve_name(name, cfg)
    if name == "offline":
        from .offline import OfflineProvider

        latency = float(os.environ.get("BOOK_OFFLINE_LATENCY", "0") or 0)
        return OfflineProvider(latency=latency)
    compatible = getattr(cfg, "server", "anthropic") == "compatible"
    if not compatible and not os.environ.get("ANTHROPIC_API_KEY"):
        raise UsageError("the anthropic provider needs ANTHROPIC_API_KEY in the environment "
                         "(export ANTHROPIC_API_KEY=...; it is never written anywhere), or use --provider offline")
    from .anthropic import AnthropicProvider
    from .anthropic.server import PLACEHOLDER_KEY, features_for, from_config, resolved

    # A compatible server is probed once (cached in output/.book/server.json): the provider then
    # sends only what it accepts, within the limits its listing gave (book.yaml's win). Anthropic's
    # API accepts everything: no probe.
    profile = from_config(cfg)
    features = features_for(profile, cfg.root, os.environ.get("ANTHROPIC_API_KEY", "").strip() or PLACEHOLDER_KEY)
    profile = resolved(profile, cfg.root)
    if cfg.message_batches and not features.batches:
        import logging

        logging.getLogger("orchestrator.providers").warning(
            "message_batches: %s serves no Message Batches; every step streams", profile.base_url)
    # The runner passes each call a sink for its attempts, which it logs with its run id.
    return AnthropicProvider(concurrency=cfg.concurrency, fallback_model=cfg.fallback_model or None,
                             role_settings=dict(cfg.models), server=profile, features=features)
