"""What a real model does inside an answer, for the fake Messages API (`fake_api`, and its
Message Batches through it): `ModelLike(share, seed)` draws, deterministically from the seed
and the request, which answers get

- thinking: a model that thinks (the request's `thinking`, or a model whose table entry says
  it thinks adaptively, by default, as Claude 5.x does) writes a thinking block first, and its
  tokens count against `max_tokens`: a little on every answer, and on `share` of them a long
  think sized by `output_config.effort` (no effort sent: `high`, the default) -- long enough
  that a budget sized for the answer alone is used up before any text;
- a preamble ("Here is the chapter:") before the answer and/or a closing remark ("Let me
  know if…") after it, on `share` of the prose answers (never under a JSON schema, which
  constrains the whole text);
- a restated line: on `share` of the continuations, the continuation begins by repeating
  the line the partial text was cut in;
- a refusal (`stop_reason: refusal`, with `stop_details`) on `refusal_share` of the requests
  (default share / 5: a refused request asked again is drawn again).

What the real API always does is not drawn (fake_api does it): a continuation under a schema
starts a new JSON object at `{`, and a prefill with a schema is a 400.

    FAKE_API_MODEL_LIKE="0.3:7"                 30 % of answers, seed 7, every behaviour
    FAKE_API_MODEL_LIKE="0.3:7:thinking,refusal"   only those
    python -m orchestrator.testing.fake_api --model-like 0.3:7
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

QUIRKS = ("thinking", "preamble", "closing", "restate", "refusal")
# Tokens a long think takes, by effort (low, medium, high...), and a short one on every answer.
LONG_THINK = {"low": (1500, 3500), "medium": (4000, 11000), "high": (8000, 24000), "xhigh": (12000, 32000),
              "max": (16000, 40000)}
SHORT_THINK = {"low": (40, 300), "medium": (150, 1200), "high": (400, 2500), "xhigh": (600, 3000),
               "max": (800, 4000)}
PREAMBLES = ("Here is the chapter:", "Sure! Here's the document, following the instructions.",
             "I'll write it now, starting with the title.")
CLOSINGS = ("Let me know if you'd like any changes.", "I hope this helps!",
            "Feel free to ask if you want me to expand any section.")
REFUSAL = {"type": "refusal", "category": "cyber",
           "explanation": "This request was declined because it could enable cyber harm."}


@dataclass
class Plan:
    """What one response does beyond the exact answer."""

    thinking_tokens: int = 0
    preamble: str = ""
    closing: str = ""
    restate: bool = False
    refusal: bool = False


@dataclass
class ModelLike:
    share: float = 0.0
    seed: int = 0
    quirks: tuple[str, ...] = QUIRKS
    refusal_share: float | None = None
    _seen: Counter = field(default_factory=Counter, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    counts: Counter = field(default_factory=Counter)  # what was done: thinking_long, preamble, refusal, ...

    @classmethod
    def from_spec(cls, spec: str) -> ModelLike:
        """`SHARE[:SEED[:quirk,quirk]]` (the env var and the command-line flag)."""
        share, _, rest = spec.strip().partition(":")
        seed, _, quirks = rest.partition(":")
        picked = tuple(q for q in quirks.split(",") if q) if quirks else QUIRKS
        unknown = [q for q in picked if q not in QUIRKS]
        if unknown:
            raise ValueError(f"unknown model-like behaviour {unknown[0]!r} (known: {', '.join(QUIRKS)})")
        return cls(float(share or 0), int(seed or 0), picked)

    @classmethod
    def from_env(cls) -> ModelLike | None:
        spec = os.environ.get("FAKE_API_MODEL_LIKE", "").strip()
        return cls.from_spec(spec) if spec else None

    def _rng(self, *parts: Any) -> random.Random:
        digest = hashlib.sha256(json.dumps([self.seed, *parts], sort_keys=True, default=str).encode()).hexdigest()
        return random.Random(digest)

    @staticmethod
    def effort_thinking(body: dict) -> str | None:
        """The effort a request thinks at, or None when it does not think."""
        thinking = body.get("thinking") if isinstance(body.get("thinking"), dict) else None
        if thinking and thinking.get("type") == "disabled":
            return None
        oc = body.get("output_config")
        oc = oc if isinstance(oc, dict) else {}
        effort = str(oc.get("effort") or "high")
        if thinking and thinking.get("type") in ("adaptive", "enabled"):
            return effort
        from ..providers.anthropic.models import model_info

        return effort if model_info(str(body.get("model"))).thinking == "adaptive" else None  # thinks by default

    def plan(self, body: dict, first: str, continuing: bool, schema: bool) -> Plan:
        """`first`: the request as first asked (system + first user turn): answer-level draws
        (a preamble) are the same for its continuations, so they join."""
        p = Plan()
        if self.share <= 0 and not self.refusal_share:
            return p
        key = json.dumps({k: v for k, v in body.items() if k != "stream"}, sort_keys=True, default=str)
        with self._lock:
            self._seen[key] += 1
            n = self._seen[key]
        rng = self._rng("request", key, n)
        effort = self.effort_thinking(body)
        if effort and "thinking" in self.quirks:
            long = rng.random() < self.share
            lo, hi = (LONG_THINK if long else SHORT_THINK).get(effort, LONG_THINK["high"])
            p.thinking_tokens = rng.randint(lo, hi)
            self._count("thinking_long" if long else "thinking_short")
        if "refusal" in self.quirks and rng.random() < (self.refusal_share if self.refusal_share is not None
                                                         else self.share / 5):
            p.refusal = True
            self._count("refusal")
        if schema:
            return p
        if continuing and "restate" in self.quirks and rng.random() < self.share:
            p.restate = True
        answer = self._rng("answer", first, body.get("model"))
        if answer.random() < self.share:
            kinds = [q for q in ("preamble", "closing") if q in self.quirks]
            pick = answer.choice(kinds + (["both"] if len(kinds) == 2 else [])) if kinds else ""
            if pick in ("preamble", "both"):
                p.preamble = answer.choice(PREAMBLES)
            if pick in ("closing", "both"):
                p.closing = answer.choice(CLOSINGS)
            if not continuing:
                for k in ("preamble", "closing"):
                    if getattr(p, k):
                        self._count(k)
        return p

    def _count(self, what: str) -> None:
        with self._lock:
            self.counts[what] += 1


def dress(full: str, plan: Plan) -> str:
    """The whole answer as the model writes it: the preamble before, the closing after."""
    if plan.preamble:
        full = plan.preamble + "\n\n" + full
    if plan.closing:
        full = full.rstrip("\n") + "\n\n" + plan.closing + "\n"
    return full


def restated(already: str, rest: str) -> str:
    """A continuation that first repeats the line the partial text was cut in, indentation and all."""
    tail = already[already.rfind("\n") + 1:]
    if not tail.strip():
        return rest
    return tail + rest


def thinking_text(tokens: int) -> str:
    """The (summarized) thinking a response shows: short, whatever it cost."""
    return f"Let me plan the answer: what it must cover, in which order ({tokens} tokens of reasoning)."
