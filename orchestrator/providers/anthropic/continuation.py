"""Continuing an answer cut at `max_tokens`, without losing or adding a character.

The text so far T is sent back as the assistant turn, without its trailing whitespace W
(the API refuses a final assistant message ending in whitespace): P = T.rstrip(). The model
continues after P with C. Joined = T + C[k:], where k is the length of the common start of
W and C: the whitespace the model re-generates after P is W itself (not doubled), and W is
restored when the model does not re-generate it (`returns` + `the value` -> `returns the
value` when T was `returns `). No other text is ever trimmed: a repeated line at the cut is
genuine text.

Two ways to send it, by model (`prefill` in data/models.yaml):
- prefill: [user, assistant: P] -- the model continues P exactly (Claude 4.5 and older).
- continue turn: [user, assistant: P, user: CONTINUE_PROMPT]. Claude 4.6 and later answer a
  prefill with a 400 ("prefill removal" in the 4.6 migration guide; it is also incompatible
  with extended thinking). For them the docs recommend raising max_tokens (the per-model
  table makes a cut rare) and otherwise continuing the conversation; the prompt asks for
  the exact continuation and the join is the same.
"""

from __future__ import annotations

from typing import Any

CONTINUE_PROMPT = ("Your previous answer was cut off by the output limit. Continue it exactly where it "
                   "stopped: begin with the very next character (even in the middle of a word or a "
                   "code block) and do not repeat anything.")


def split_prefill(text: str) -> tuple[str, str]:
    """(P, W): the text as it can be sent as an assistant turn, and the whitespace cut off."""
    p = text.rstrip()
    return p, text[len(p):]


def whitespace_overlap(w: str, c: str) -> int:
    """How many leading characters of the continuation `c` re-generate the held whitespace `w`."""
    k = 0
    while k < len(w) and k < len(c) and w[k] == c[k]:
        k += 1
    return k


def join_continuation(text: str, continuation: str) -> str:
    """The text so far joined with what the model wrote after its stripped form."""
    _, w = split_prefill(text)
    return text + continuation[whitespace_overlap(w, continuation):]


def continuation_messages(user: dict[str, Any], text: str, prefill: bool) -> list[dict[str, Any]]:
    """The messages of a request that continues `text` (an empty text: a fresh request)."""
    p, _ = split_prefill(text)
    if not p:
        return [user]
    msgs = [user, {"role": "assistant", "content": p}]
    if not prefill:
        msgs.append({"role": "user", "content": CONTINUE_PROMPT})
    return msgs


class WhitespaceSkipper:
    """Streams a continuation's text, dropping the start that re-generates the held whitespace
    (decided character by character, so nothing but that whitespace is ever held back)."""

    def __init__(self, held: str):
        self.held = held
        self.pos = 0
        self.done = not held

    def feed(self, piece: str) -> str:
        if self.done:
            return piece
        i = 0
        while i < len(piece) and self.pos < len(self.held) and piece[i] == self.held[self.pos]:
            i += 1
            self.pos += 1
        if i < len(piece) or self.pos >= len(self.held):
            self.done = True
        return piece[i:]
