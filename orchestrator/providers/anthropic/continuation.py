"""Continuing an answer cut at `max_tokens`, without losing or adding a character.

The text so far T is sent back as the assistant turn, without its trailing whitespace W
(the API refuses a final assistant message ending in whitespace): P = T.rstrip(). The model
continues after P with C. Joined = T + C[k:], where k is the length of the common start of
W and C: the whitespace the model re-generates after P is W itself (not doubled), and W is
restored when the model does not re-generate it (`returns` + `the value` -> `returns the
value` when T was `returns `).

A real model often restates the line it was cut in (or the last few, or the last words of
it) before going on. So the seam also drops the exact restatement: the longest of P's
suffixes that begin at a line start (one of the last RESTATE_LINES lines; the indentation
restated or not) or at a word start of its last line, with which C begins. Nothing else
is trimmed. A
continuation that still does not line up -- it starts the answer over (its first line is the
answer's title), or it begins with a long line that P already holds near its end -- is not
joined: `misaligned` says so and the provider asks again.

A structured (JSON schema) answer is never continued: under a schema the model starts a new
JSON object at `{`, so no join can parse; it is asked again with a larger budget instead.

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


RESTATE_LINES = 5  # how many of the last lines a restatement may begin at
RESTATE_CHARS = 4000  # and how far back
MIN_RESTATED = 2  # non-blank characters a restated tail must have (a lone `-` proves nothing)
MIN_FRAGMENT = 5  # characters a restated fragment of the last line must have (a word start on)
MISALIGN_LINE = 30  # a first line this long found in the tail is a duplicate, not a continuation


def restatements(p: str) -> list[str]:
    """What a model may restate of P before going on, longest first: the suffixes of P that
    start at one of its last line starts (indented or not), each also without its indentation,
    and fragments of the last line from a word start on (`the va` of `It returns the va`)."""
    out = []
    start = len(p)
    for _ in range(RESTATE_LINES):
        nl = p.rfind("\n", max(0, len(p) - RESTATE_CHARS), start)
        pos = nl + 1 if nl >= 0 else (0 if len(p) <= RESTATE_CHARS else -1)
        if pos < 0:
            break
        tail = p[pos:]
        if len(tail.strip()) >= MIN_RESTATED and tail.strip(" \t")[:1] not in ("", "\n"):  # text, not a blank line
            out.append(tail)
            out.append(tail.lstrip(" \t"))  # restated without its indentation
        if nl < 0:
            break
        start = nl
    last = p[p.rfind("\n") + 1:]
    for i in range(1, len(last)):
        if last[i - 1] in " \t" and last[i] not in " \t" and len(last) - i >= MIN_FRAGMENT:
            out.append(last[i:])
    return sorted(set(out), key=len, reverse=True)


def seam(text: str, continuation: str) -> int:
    """How many leading characters of `continuation` repeat what `text` already holds: a
    restated tail (a whole line or a fragment, exact), then the held whitespace the model
    re-generates. A genuine continuation begins with the held whitespace or inside P's last
    word, so it never begins with a whole restated line or a word-start fragment of P (but
    for a line that truly repeats itself at the cut: `ambiguous` in the tests)."""
    p, w = split_prefill(text)
    k = next((len(t) for t in restatements(p) if continuation.startswith(t)), 0) if p else 0
    return k + whitespace_overlap(w, continuation[k:])


def join_continuation(text: str, continuation: str) -> str:
    """The text so far joined with what the model wrote after its stripped form."""
    return text + continuation[seam(text, continuation):]


def misaligned(text: str, addition: str) -> str | None:
    """Why `addition` (what the seam kept of a continuation) does not continue `text`, or None."""
    head = addition.lstrip()
    first = next((ln.strip() for ln in text.lstrip().splitlines() if ln.strip()), "")
    if len(first) >= 8 and head.startswith(first) and len(text.strip()) > len(first):
        return "the continuation started the answer over"
    joined = text + addition
    at = len(text) + (len(addition) - len(addition.lstrip("\n")))  # where the addition's first line begins
    if at == 0 or joined[at - 1] != "\n":
        return None  # it goes on inside a line: nothing to compare
    line = joined[at:].split("\n", 1)[0].strip()
    earlier = {ln.strip() for ln in text[-RESTATE_CHARS:].splitlines()[:-1]}  # whole lines the answer holds
    if len(line) >= MISALIGN_LINE and line in earlier:
        return "the continuation repeats a line the answer already has"
    return None


def continuation_messages(user: dict[str, Any], text: str, prefill: bool) -> list[dict[str, Any]]:
    """The messages of a request that continues `text` (an empty text: a fresh request)."""
    p, _ = split_prefill(text)
    if not p:
        return [user]
    msgs = [user, {"role": "assistant", "content": p}]
    if not prefill:
        msgs.append({"role": "user", "content": CONTINUE_PROMPT})
    return msgs


class SeamSkipper:
    """Streams a continuation's text, holding back its head only until the seam is decided:
    while it may still be a restatement of the tail (or the held whitespace), nothing is
    delivered; then what `seam` keeps goes out, and the rest streams through untouched."""

    def __init__(self, text: str):
        self.text = text
        p, w = split_prefill(text)
        self.limit = max((len(t) for t in restatements(p)), default=0) + len(w) + 1 if text else 0
        self.cands = restatements(p) if text else []
        self.held_ws = w
        self.buf = ""
        self.done = not text

    def _undecided(self) -> bool:
        b = self.buf
        if len(b) >= self.limit:
            return False
        if any(len(b) < len(t) and t.startswith(b) for t in self.cands):
            return True
        return len(b) <= len(self.held_ws) and self.held_ws.startswith(b) and b != ""

    def feed(self, piece: str) -> str:
        if self.done:
            return piece
        self.buf += piece
        if self._undecided():
            return ""
        return self.flush()

    def flush(self) -> str:
        if self.done:
            return ""
        self.done = True
        return self.buf[seam(self.text, self.buf):]


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
