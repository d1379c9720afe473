"""The one place a Messages API request is built from a `Request`: streaming and (later)
Message Batches both call `build_params`, so system blocks, user content, cache breakpoints,
thinking/effort and the structured-output format are the same on both paths.

Cache breakpoints (at most 4 per request; this uses at most 3):
1. the shared book context, when it alone reaches the model's minimum cacheable length
   (shorter, it would do nothing: it is then cached only as part of 2);
2. the role's instructions (shared + system);
3. the end of the user prompt, so a retry, a continuation or a validation re-ask reads the
   whole prompt from the cache. The re-ask's feedback is a separate block after it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..base import Request
from .continuation import continuation_messages

FEEDBACK_HEADER = "## Feedback on your previous answer"
CHARS_PER_TOKEN_LOW = 4.0  # a low token estimate: a prefix is only trusted to be cacheable above it
MAX_BREAKPOINTS = 4


def est_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN_LOW)


def _cache_control(settings: dict[str, Any]) -> dict[str, Any]:
    cc: dict[str, Any] = {"type": "ephemeral"}
    if settings.get("cache_ttl") in ("5m", "1h") and settings.get("cache_ttl") != "5m":
        cc["ttl"] = settings["cache_ttl"]
    return cc


def system_blocks(req: Request, settings: dict[str, Any]) -> list[dict[str, Any]]:
    shared, system = getattr(req, "shared", "") or "", req.system or ""
    minimum = int(settings.get("min_cache_tokens") or 0)
    cc = _cache_control(settings)
    blocks: list[dict[str, Any]] = []
    if shared:
        block: dict[str, Any] = {"type": "text", "text": shared}
        if est_tokens(shared) >= minimum or not system:
            block["cache_control"] = dict(cc)
        blocks.append(block)
    if system:
        blocks.append({"type": "text", "text": system, "cache_control": dict(cc)})
    return blocks


def user_message(req: Request, settings: dict[str, Any]) -> dict[str, Any]:
    # The write costs 1.25x on the prompt once; each re-send (retry, continuation, re-ask) then
    # reads it at 0.1x: worth it from ~0.3 re-sends per call. `cache_user_turn: False` turns it off.
    block: dict[str, Any] = {"type": "text", "text": req.prompt}
    if settings.get("cache_user_turn", True):
        block["cache_control"] = _cache_control(settings)
    content: list[dict[str, Any]] = [block]
    if req.feedback and req.feedback.strip():
        content.append({"type": "text", "text": f"\n\n{FEEDBACK_HEADER}\n\n{req.feedback.strip()}"})
    return {"role": "user", "content": content}


def prefix_key(params: dict[str, Any]) -> str:
    """A hash of what the first request with this prefix writes to the cache: the model and
    the cached system blocks (the cache gate's key)."""
    system = [b.get("text", "") for b in params.get("system") or [] if b.get("cache_control")]
    last = max((i for i, b in enumerate(params.get("system") or []) if b.get("cache_control")), default=-1)
    texts = [b.get("text", "") for b in (params.get("system") or [])[: last + 1]]
    if not system:
        return ""
    return hashlib.sha256(json.dumps([params.get("model"), texts]).encode()).hexdigest()[:16]


def build_params(req: Request, model_settings: dict[str, Any], text_so_far: str = "") -> dict[str, Any]:
    """Keyword arguments for `client.messages.stream(...)`/`create(...)` (and a batch request's
    `params`). `model_settings` comes from `settings.resolve_settings`: model, max_tokens,
    thinking, effort, min_cache_tokens, prefill, cache_ttl. `text_so_far`: the answer so far
    when continuing one (see continuation.py)."""
    s = model_settings
    params: dict[str, Any] = {"model": s["model"], "max_tokens": int(s["max_tokens"])}
    system = system_blocks(req, s)
    if system:
        params["system"] = system
    prefill = bool(s.get("prefill")) and not s.get("thinking")  # prefill is refused with thinking
    params["messages"] = continuation_messages(user_message(req, s), text_so_far, prefill)
    if s.get("thinking"):
        params["thinking"] = dict(s["thinking"])
    output_config: dict[str, Any] = {}
    if s.get("effort"):
        output_config["effort"] = s["effort"]
    schema = getattr(req, "output_schema", None)
    if schema:
        output_config["format"] = {"type": "json_schema", "schema": schema}
    if output_config:
        params["output_config"] = output_config
    n = sum(1 for b in system if "cache_control" in b) + 1
    assert n <= MAX_BREAKPOINTS, n  # the API refuses a 5th breakpoint
    return params
