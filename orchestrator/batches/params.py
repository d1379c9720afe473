"""TEMPORARY: the Messages API body of one request, copied from today's request building in
`providers/anthropic.py` (`AnthropicProvider._generate`). The lead replaces `request_params`
with `providers.anthropic.build_params(req, settings)` once that package lands; nothing else
in `batches/` builds request bodies."""

from __future__ import annotations

from typing import Any

from ..defaults import DEFAULT_MODEL
from ..providers.base import Request

CONTINUE_PROMPT = "Continue exactly where you stopped; do not repeat anything."
FEEDBACK_HEADER = "## Feedback on your previous answer"


def request_params(req: Request) -> dict[str, Any]:
    """What `_generate`/`_attempt` send for `req`, minus `stream` (a batch request never streams)."""
    system = [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
              for text in (req.shared, req.system) if text]
    content = req.prompt
    if req.feedback:
        content = f"{req.prompt.rstrip()}\n\n{FEEDBACK_HEADER}\n\n{req.feedback.strip()}"
    messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
    if req.prefix.strip():
        messages += [{"role": "assistant", "content": req.prefix.rstrip()},
                     {"role": "user", "content": CONTINUE_PROMPT}]
    params: dict[str, Any] = {"model": req.model or DEFAULT_MODEL, "max_tokens": req.max_tokens,
                              "messages": messages}
    if system:
        params["system"] = system
    return params
