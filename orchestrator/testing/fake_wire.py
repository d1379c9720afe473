"""What the fake Messages API and its Message Batches endpoints share: the error types a
status code maps to, the fake's token count, the text of a content block list and the
default answer. A module of its own so that `fake_api` can import `fake_batches` and
`role_answers`, which use these, without an import cycle."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

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
