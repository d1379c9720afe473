"""What the fake Messages API and its Message Batches endpoints share: the error types a
status code maps to, the fake's token count, the text of a content block list and the
default answer. A module of its own so that `fake_api` can import `fake_batches` and
`role_answers`, which use these, without an import cycle."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .fake_model import thinking_text

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def tokens(text: str) -> int:
    """The fake's token count: about four characters a token."""
    return math.ceil(len(text) / 4) if text else 0


def block_text(content: Any) -> str:
    """The text of a message's or the system prompt's content (a string or a list of blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type", "text") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def default_answerer(request: dict) -> str:
    """A deterministic Markdown document derived from the prompt: a `# Title` and three
    `## Sections`, long enough to stream in many chunks."""
    messages = request.get("messages") or []
    prompt = block_text(messages[0].get("content")) if messages else ""
    title = "Answer"
    for line in prompt.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            title = line[:60].rstrip()
            break
    seen: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z0-9_]{3,}", prompt):
        w = word.lower()
        if w not in seen:
            seen.append(w)
    words = seen or ["subject", "structure", "detail"]
    names = ["Overview", "How it works", "Summary"]
    digest = hashlib.sha256(prompt.encode()).hexdigest()[:8]
    out = [f"# {title}", ""]
    for i, name in enumerate(names):
        focus = [words[(i * 3 + j) % len(words)] for j in range(3)]
        out += [
            f"## {name}",
            "",
            f"This section looks at {focus[0]}, {focus[1]} and {focus[2]}. "
            f"Each of them plays a part in the whole, and the text explains that part "
            f"in plain words before it turns to the details (note {digest}-{i}).",
            "",
            f"The second paragraph of {name.lower()} connects {focus[0]} to what came before "
            f"and prepares what comes next, so that a reader can follow the argument.",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"


class _Dropped(Exception):
    """The handler closed the connection on purpose (drop_mid_stream)."""


@dataclass
class Fault:
    """One scripted fault of the fake (FakeAPI.add_fault): its kind, the requests it matches,
    how many times it fires."""

    kind: str
    match: str | None = None
    times: int = 1
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Reply:
    text: str
    stop: str
    thinking_tokens: int = 0
    stop_details: dict | None = None


def message_json(msg_id: str, model: str, reply: Reply, usage: dict) -> dict:
    """A whole (non-streamed or batched) message: a thinking block first when it thought."""
    content: list[dict] = []
    if reply.thinking_tokens:
        content.append({"type": "thinking", "thinking": thinking_text(reply.thinking_tokens),
                        "signature": "sig" + msg_id})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    return {"id": msg_id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": reply.stop, "stop_sequence": None, "stop_details": reply.stop_details,
            "usage": {**usage, "output_tokens_details": {"thinking_tokens": reply.thinking_tokens}}}


def cache_creation(body: dict, created: int) -> dict[str, int]:
    """`usage.cache_creation`: the tokens written split by TTL. Each breakpoint's `ttl` (5m
    unless it says 1h) covers the prompt from the breakpoint before it; the written tokens are
    the last ones of the prefix, so they are taken from the last breakpoint backwards."""
    spans: list[tuple[int, str]] = []  # (tokens of the segment ending at a breakpoint, its ttl)
    seg = ""
    for text, cc in _blocks_with_cc(body):
        seg += text
        if cc:
            spans.append((tokens(seg), "1h" if cc.get("ttl") == "1h" else "5m"))
            seg = ""
    out = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
    left = created
    for n, ttl in reversed(spans):
        take = min(n, left)
        out[f"ephemeral_{ttl}_input_tokens"] += take
        left -= take
    out["ephemeral_5m_input_tokens"] += max(0, left)
    return out


def _blocks_with_cc(body: dict) -> list[tuple[str, dict | None]]:
    system = body.get("system")
    blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system or [])
    for m in body.get("messages") or []:
        c = m.get("content") if isinstance(m, dict) else None
        blocks += [{"type": "text", "text": c}] if isinstance(c, str) else list(c or [])
    out: list[tuple[str, dict | None]] = []
    for b in blocks:
        if isinstance(b, dict):
            cc = b.get("cache_control")
            out.append((str(b.get("text", "")), cc if isinstance(cc, dict) else None))
    return out
