"""Does a request fit the model's context window? A cheap estimate first; the API's token
counting (`POST /v1/messages/count_tokens`, free but a round trip) only when the estimate
passes half the window. Counts are cached by a hash of what is counted, so retries, re-asks
of the same prompt and a resume do not count again."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ...errors import StepFailed
from .models import model_info

CHARS_PER_TOKEN = 3.5  # a high estimate: prose is ~4 characters a token, code fewer
# What the request's input is made of: the structured-output schema (`output_config.format`)
# counts too (the API turns it into a system prompt of its own), and the SDK's count_tokens takes
# `output_config` (anthropic 2.14 `Messages.count_tokens`).
COUNTED_KEYS = ("model", "system", "messages", "thinking", "tools", "output_config")


def estimate(params: dict[str, Any]) -> int:
    return int(len(json.dumps({k: params.get(k) for k in ("system", "messages", "output_config")},
                              ensure_ascii=False)) / CHARS_PER_TOKEN)


class TokenGate:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}  # hash of the counted body -> input tokens
        self.calls = 0  # count_tokens requests made (for tests and doctor)

    async def check(self, client: Any, params: dict[str, Any]) -> int | None:
        """The input tokens of `params` when they had to be counted, else None. Raises a
        non-retryable StepFailed when the prompt and max_tokens cannot fit the window."""
        window = model_info(str(params.get("model", ""))).context_window
        if not window or estimate(params) <= window // 2:
            return None
        body = {k: params[k] for k in COUNTED_KEYS if k in params}
        key = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        n = self.counts.get(key)
        if n is None:
            self.calls += 1
            res = await client.messages.count_tokens(**body)
            n = self.counts[key] = int(res.input_tokens)
        if n + int(params.get("max_tokens", 0)) > window:
            raise StepFailed(f"the prompt is {n} tokens and the answer may take {params.get('max_tokens')}: more than "
                             f"{params.get('model')}'s context window of {window} tokens. Narrow the chapter's "
                             "sources in the outline, or lower max_tokens for this role", retryable=False)
        return n
