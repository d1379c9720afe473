"""The price of a batched call: the Message Batches API bills every token kind (input,
output, cache writes and reads) at half the standard rate, on top of the cache multipliers."""

from __future__ import annotations

from typing import Any

from ..providers.base import Usage

BATCH_DISCOUNT = 0.5


def call_cost_usd(usage: Usage, model: str, *, batch: bool,
                  prices: dict[str, dict[str, Any]] | None = None) -> float:
    """USD for one call's usage: the model's rates (`data/prices.yaml`), halved for a batch."""
    from ..providers.anthropic import cost_usd  # the anthropic provider module does not import the SDK

    return cost_usd(usage, model, prices, batch=batch)
