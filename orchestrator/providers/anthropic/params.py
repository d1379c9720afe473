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
4. the end of the user prompt, only with `cache_user_turn` (a re-send alone reads it). The
   re-ask's feedback is a separate block after it.
Each breakpoint's lifetime (5 minutes or 1 hour) is chosen by cache_ttl.py.
In the handbook layout (agents/handbook.py, the default) `shared` is the handbook (the book and
every chapter role's instructions) and `system` is empty: breakpoints 1 and 2.

`features` (server.py: what the server accepts) degrades the request for a compatible server:
no breakpoints without caching; without structured outputs the schema goes into the prompt as
an instruction (the answer is then validated strictly and asked for again, like any other);
no thinking or effort where the server has none.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..base import Request
from . import cache_ttl
from .continuation import continuation_messages
from .server import ALL, Features

FEEDBACK_HEADER = "## Feedback on your previous answer"
FORMAT_HEADER = "## The form of your answer"
CHARS_PER_TOKEN_LOW = 4.0  # a low token estimate: a prefix is only trusted to be cacheable above it
MAX_BREAKPOINTS = 4


def est_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN_LOW)


def system_blocks(req: Request, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The system blocks in cache order: book, chapter material, role instructions. A block gets
    a breakpoint only when the prefix up to its end reaches the model's minimum cacheable length
    (a shorter one would do nothing), except the last, which always gets one; its lifetime is
    chosen by the reuse it can expect (cache_ttl.py)."""
    named = [(cache_ttl.BOOK, getattr(req, "shared", "") or ""), (cache_ttl.MATERIAL, getattr(req, "material", "") or ""),
             (cache_ttl.ROLE, req.system or "")]
    named = [(k, t) for k, t in named if t]
    minimum = int(settings.get("min_cache_tokens") or 0)
    ttls = cache_ttl.block_ttls([k for k, _ in named], settings, getattr(req, "material_ttl", None))
    blocks: list[dict[str, Any]] = []
    upto = 0
    for i, (_, text) in enumerate(named):
        upto += len(text)
        block: dict[str, Any] = {"type": "text", "text": text}
        if i == len(named) - 1 or int(upto / CHARS_PER_TOKEN_LOW) >= minimum:
            block["cache_control"] = cache_ttl.cache_control(ttls[i])
        blocks.append(block)
    return blocks


def schema_instruction(schema: dict[str, Any]) -> str:
    """The JSON contract as words, for a server without structured outputs."""
    return (f"{FORMAT_HEADER}\n\nAnswer with one JSON object and nothing else: no prose before or after it, "
            "no Markdown fence. It must be valid JSON matching this JSON Schema exactly (every required "
            "key, no other keys, the types and allowed values it names):\n\n"
            + json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def api_schema(schema: Any) -> Any:
    """The schema without `maxItems` (a smaller ask's caps, agents/smaller_ask.py), which
    structured outputs do not accept: there the cap is said in words only."""
    if isinstance(schema, list):
        return [api_schema(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: (api_schema(v) if k != "properties" else {p: api_schema(x) for p, x in v.items()})
            for k, v in schema.items() if k != "maxItems"}


def user_message(req: Request, settings: dict[str, Any], features: Features = ALL) -> dict[str, Any]:
    # No breakpoint on the user turn unless `cache_user_turn` asks for one: only a re-send of
    # this request would read it, and that rarely pays (cache_ttl.py). None where nothing is cached.
    block: dict[str, Any] = {"type": "text", "text": req.prompt}
    ttl = cache_ttl.user_turn_ttl(settings) if features.cache else None
    if ttl:
        block["cache_control"] = cache_ttl.cache_control(ttl)
    content: list[dict[str, Any]] = [block]
    schema = getattr(req, "output_schema", None)
    if schema and not features.structured:
        content.append({"type": "text", "text": "\n\n" + schema_instruction(schema)})
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


def prefix_ttls(params: dict[str, Any]) -> list[str]:
    """The lifetime ("5m", "1h") each cached system prefix is written with, in `prefix_keys`'
    order: the TTL of its breakpoint (no `ttl` field is the API's 5 minutes)."""
    return [str((b["cache_control"] if isinstance(b["cache_control"], dict) else {}).get("ttl") or "5m")
            for b in params.get("system") or [] if b.get("cache_control")]


def prefix_key(params: dict[str, Any]) -> str:
    """The key of the longest cached system prefix ("" without one)."""
    keys = prefix_keys(params)
    return keys[-1] if keys else ""


def build_params(req: Request, model_settings: dict[str, Any], text_so_far: str = "",
                 features: Features = ALL) -> dict[str, Any]:
    """Keyword arguments for `client.messages.stream(...)`/`create(...)` (and a batch request's
    `params`). `model_settings` comes from `settings.resolve_settings`: model, max_tokens,
    thinking, effort, min_cache_tokens, prefill, cache_ttl. `text_so_far`: the answer so far
    when continuing one (see continuation.py)."""
    s = model_settings
    params: dict[str, Any] = {"model": s["model"], "max_tokens": int(s["max_tokens"])}
    system = system_blocks(req, s)
    if not features.cache:
        for b in system:
            b.pop("cache_control", None)
    if system:
        params["system"] = system
    schema = getattr(req, "output_schema", None)
    if schema and text_so_far and features.structured:  # under a schema the model starts a new object at `{`: no join can parse
        raise ValueError(f"{req.step}: a structured answer is asked for again, never continued")
    prefill = bool(s.get("prefill")) and not s.get("thinking")  # prefill is refused with thinking
    params["messages"] = continuation_messages(user_message(req, s, features), text_so_far, prefill)
    if s.get("thinking") and features.thinking:
        params["thinking"] = dict(s["thinking"])
    output_config: dict[str, Any] = {}
    if s.get("effort") and features.effort:
        output_config["effort"] = s["effort"]
    if schema and features.structured:
        output_config["format"] = {"type": "json_schema", "schema": api_schema(schema)}
    if output_config:
        params["output_config"] = output_config
    n = sum(1 for b in system if "cache_control" in b) + 1
    assert n <= MAX_BREAKPOINTS, n  # the API refuses a 5th breakpoint
    return params
