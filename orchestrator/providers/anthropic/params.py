"""The one place a Messages API request is built from a `Request`: streaming and (later)
Message Batches both call `build_params`, so system blocks, user content, cache breakpoints,
thinking/effort and the structured-output format are the same on both paths.

Cache breakpoints (at most 4 per request):
1. the shared book context, when it alone reaches the model's minimum cacheable length
   (shorter, it would do nothing: it is then cached only as part of the next one);
2. the chapter's material (its entry and draft, `Request.material`) when a request carries it
   before the instructions: every role that reads the draft sends the same bytes up to here,
   so after the first they read it (agents/prompts.py decides when that pays);
3. the role's instructions (shared + material + system);
4. the end of the user prompt, so a retry, a continuation or a validation re-ask reads the
   whole prompt from the cache. The re-ask's feedback is a separate block after it.
In the handbook layout (agents/handbook.py, the default) `shared` is the handbook (the book and
every chapter role's instructions) and `system` is empty: breakpoints 1, 2 and 4.
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
    """The system blocks in cache order: book, chapter material, role instructions. A block gets
    a breakpoint only when the prefix up to its end reaches the model's minimum cacheable length
    (a shorter one would do nothing), except the last, which always gets one."""
    parts = [getattr(req, "shared", "") or "", getattr(req, "material", "") or "", req.system or ""]
    texts = [t for t in parts if t]
    minimum = int(settings.get("min_cache_tokens") or 0)
    cc = _cache_control(settings)
    blocks: list[dict[str, Any]] = []
    upto = 0
    for i, text in enumerate(texts):
        upto += len(text)
        block: dict[str, Any] = {"type": "text", "text": text}
        if i == len(texts) - 1 or int(upto / CHARS_PER_TOKEN_LOW) >= minimum:
            block["cache_control"] = dict(cc)
        blocks.append(block)
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


def prefix_keys(params: dict[str, Any]) -> list[str]:
    """One key per cached system prefix, shortest first: a hash of the model and the system
    blocks up to that breakpoint (the cache gate's keys). The requests of one chapter share the
    key of its material while their instructions differ."""
    system = params.get("system") or []
    keys = []
    for i, b in enumerate(system):
        if b.get("cache_control"):
            texts = [x.get("text", "") for x in system[: i + 1]]
            keys.append(hashlib.sha256(json.dumps([params.get("model"), texts]).encode()).hexdigest()[:16])
    return keys


def prefix_key(params: dict[str, Any]) -> str:
    """The key of the longest cached system prefix ("" without one)."""
    keys = prefix_keys(params)
    return keys[-1] if keys else ""


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
    schema = getattr(req, "output_schema", None)
    if schema and text_so_far:  # under a schema the model starts a new object at `{`: no join can parse
        raise ValueError(f"{req.step}: a structured answer is asked for again, never continued")
    prefill = bool(s.get("prefill")) and not s.get("thinking")  # prefill is refused with thinking
    params["messages"] = continuation_messages(user_message(req, s), text_so_far, prefill)
    if s.get("thinking"):
        params["thinking"] = dict(s["thinking"])
    output_config: dict[str, Any] = {}
    if s.get("effort"):
        output_config["effort"] = s["effort"]
    if schema:
        output_config["format"] = {"type": "json_schema", "schema": schema}
    if output_config:
        params["output_config"] = output_config
    n = sum(1 for b in system if "cache_control" in b) + 1
    assert n <= MAX_BREAKPOINTS, n  # the API refuses a 5th breakpoint
    return params
