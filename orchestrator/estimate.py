"""What the whole book is expected to cost, as a range (issue 36, item 2).

Before any call (`book run --dry-run`), the range comes from the plan: the chapters of the
outline (or `max_chapters` before there is one) and the size of each chapter's sources, each
model step's prompt and answer in tokens (SHAPES below), the role's model and its prices, the
prompt cache (the handbook is written once and read by every chapter call; a batch pays half).
It is wide: answer lengths vary several-fold between models and books.

Once calls are in the ledger (`book cost`), each step's prior is corrected by what the calls
done so far cost (retries, continuations and revisions included): its prompt and its answer's
text by that step's own ratio to the prior, its thinking by the ratio of its effort (see
`_remaining`). What is spent is exact; only what remains is estimated. Its range is even in
log (a sum of skewed draws: a long think now and then), Z deviations each side, and narrows as
fewer calls are left and more are seen. A step counts as done once a call of it ended its answer.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .steps import (
    AUDIT,
    BOOK_STEPS,
    DRAFT,
    FINAL,
    MEMORY,
    OUTLINE,
    PANEL,
    R1,
    R2,
    R3,
    RESEARCH,
    REVIEW,
    STEPS,
)

# Tokens of one call, before the model's thinking, in the handbook layout (agents/handbook.py,
# measured through the fake): every chapter call reads the handbook from the cache; `fresh` is
# the prompt after the cached prefixes, plus the chapter's sources (`src`: chars /
# CHARS_PER_TOKEN, at most SOURCE_TOKENS) or the research report (`report`); `material`: the
# chapter's draft is read from the cache (R1, its first reader, writes it). Answers: a research
# report ~3k tokens, a review 1-2k, a merged review or panel ~1k, a memory file ~0.8k, a chapter
# CHAPTER_TOKENS; the planner reads a map of the repository, the auditor every chapter's summary.
SHAPES: dict[str, dict[str, Any]] = {
    OUTLINE: {"fresh": 5000, "answer": 4000},
    RESEARCH: {"fresh": 2500, "src": True, "answer": 3000},
    DRAFT: {"fresh": 500, "report": True, "answer": "chapter"},
    R1: {"fresh": 300, "src": True, "writes": True, "answer": 1800},
    R2: {"fresh": 400, "material": True, "answer": 1200},
    R3: {"fresh": 400, "material": True, "answer": 1200},
    REVIEW: {"fresh": 500, "material": True, "answer": 1000},
    PANEL: {"fresh": 400, "material": True, "answer": 1200},
    MEMORY: {"fresh": 300, "material": True, "answer": 800},
    FINAL: {"fresh": 500, "material": True, "answer": "chapter"},
    AUDIT: {"fresh": 5000, "per_chapter": 1200, "answer": 2500},
}
THINKING = {"low": 300, "medium": 1500, "high": 4000}  # tokens an adaptive model thinks on average
CHAPTER_TOKENS = 3500  # a ~2,500-word chapter
HANDBOOK_TOKENS = 17000  # the book block and every role's instructions: one cached prefix
MAP_TOKENS = (40, 10000)  # the planner's map of the sources: one token per this many chars, at most
CHARS_PER_TOKEN = 4.0
SOURCE_TOKENS = 30000  # a chapter's sources in its prompt are cut to fit (agents/source_context.py)
PRIOR_SPREAD = (0.6, 1.7)  # the range before any call: answer lengths and thinking vary this much
MIN_SEEN = 3  # chapter steps done before the calls correct the prior
# How much a call's thinking varies around its effort's mean, relative to it (cv²), before the
# calls say: a short think on most calls, a long one several times the answer on some (measured
# through the fake's model-like upstream: cv² 1.5). The calls seen count against it as their
# number against THINK_CV2_WEIGHT: a few calls that happen to show no long think do not make the
# range narrow (the sample's spread is low exactly when its mean is low, and the bill then lands
# above the range).
THINK_CV2 = 1.5
THINK_CV2_WEIGHT = 100
Z = 1.7  # how many standard deviations (in log) the range spans each side (~91 % two-sided)
MODEL_SD = 0.04  # and beyond sampling: revisions, a chapter unlike the others
PROMPT_SD = 0.08  # prompts vary little: they follow the sources' sizes


@dataclass
class Plan:
    """The chapters to be written and the characters of each one's sources."""

    chapters: dict[str, int] = field(default_factory=dict)
    planned: bool = True  # False: no outline yet, the chapters are `max_chapters` of equal share


def plan_of(book: Any) -> Plan:
    cfg = book.cfg
    src = Path(cfg.source_dir)
    outline = book.scanner.outline
    if outline is not None and outline.chapters:
        return Plan({c.id: sum(_size(src / s) for s in c.sources) for c in outline.chapters})
    total = sum(_size(p) for p in src.rglob("*") if p.is_file() and not _hidden(p, src)) if src.is_dir() else 0
    n = max(1, int(cfg.max_chapters))
    return Plan({f"ch{i:02d}": total // n for i in range(1, n + 1)}, planned=False)


def _size(p: Path) -> int:
    try:
        return p.stat().st_size if p.is_file() else 0
    except OSError:
        return 0


def _hidden(p: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in p.relative_to(root).parts)


class Prices:
    """USD per token of each role's model, streamed or batched, from the book's config."""

    def __init__(self, cfg: Any, batch: bool):
        from .providers.anthropic.pricing import load_prices, price_for
        from .providers.anthropic.settings import model_for

        self.half = 0.0 if getattr(cfg, "provider", "") == "offline" else (0.5 if batch else 1.0)  # offline: free
        self.compatible = getattr(cfg, "server", "anthropic") == "compatible"
        self.own = dict(getattr(cfg, "prices", {}) or {})
        self._table = load_prices()
        self._model_for = lambda role: model_for(getattr(cfg, "models", {}) or {}, role, cfg.model)
        self._price_for = price_for

    def rates(self, role: str) -> dict[str, float]:
        if self.compatible:  # a local server: its own prices, input and output only (or free)
            i, o = float(self.own.get("input", 0)) * self.half, float(self.own.get("output", 0)) * self.half
            return {"input": i / 1e6, "output": o / 1e6, "write": i / 1e6, "read": i / 1e6}
        p = self._price_for(self._model_for(role), self._table)
        h = self.half / 1e6
        return {"input": p["input"] * h, "output": p["output"] * h, "write": p["cache_write"] * h,
                "read": p["cache_read"] * h}


Cost = tuple[float, float, float]  # USD of a step's prompt, its answer's text, and its thinking


def prior(book: Any, plan: Plan, batch: bool) -> dict[tuple[str | None, str], Cost]:
    """(chapter or None, step) -> the expected USD of that step's prompt, answer text and
    thinking, from the plan alone."""
    prices = Prices(book.cfg, batch)
    out: dict[tuple[str | None, str], Cost] = {}
    n = len(plan.chapters)
    total_src = sum(plan.chapters.values())
    for key in (OUTLINE, AUDIT):
        st = BOOK_STEPS[key]
        shape = SHAPES[key]
        fresh = shape["fresh"] + shape.get("per_chapter", 0) * n
        if key == OUTLINE:
            fresh += min(MAP_TOKENS[1], total_src / MAP_TOKENS[0])
        # book-level calls keep the `roles` layout: their prefix is written, not read
        out[(None, key)] = _call(prices.rates(st.role), fresh, 0, HANDBOOK_TOKENS // 6, _answer(shape),
                                 THINKING.get(st.effort, 0))
    for ch, chars in plan.chapters.items():
        for key, st in STEPS.items():
            if not st.model:
                continue
            shape = SHAPES[key]
            fresh = shape["fresh"] + (min(SOURCE_TOKENS, chars / CHARS_PER_TOKEN) if shape.get("src") else 0) \
                + (_answer(SHAPES[RESEARCH]) if shape.get("report") else 0)
            # the chapter's draft is written to the cache once (by its first reader) and read by the others
            read = HANDBOOK_TOKENS + (CHAPTER_TOKENS if shape.get("material") else 0)
            write = CHAPTER_TOKENS if shape.get("writes") else 0
            out[(ch, key)] = _call(prices.rates(st.role), fresh, read, write, _answer(shape),
                                   THINKING.get(st.effort, 0))
    first = next(iter(plan.chapters), None)
    if first is not None:  # the handbook itself is written to the cache about once per run
        r = prices.rates(STEPS[RESEARCH].role)
        p, a, t = out[(first, RESEARCH)]
        out[(first, RESEARCH)] = (p + HANDBOOK_TOKENS * (r["write"] - r["read"]), a, t)
    return out


def _answer(shape: dict[str, Any]) -> int:
    return CHAPTER_TOKENS if shape["answer"] == "chapter" else int(shape["answer"])


def _call(r: dict[str, float], fresh: float, read: float, write: float, text: float, thinking: float) -> Cost:
    return fresh * r["input"] + read * r["read"] + write * r["write"], text * r["output"], thinking * r["output"]


def estimate(book: Any, calls: list[dict[str, Any]], batch: bool | None = None) -> dict[str, Any]:
    """The expected bill of the whole book: `estimate_usd` [low, high] and its middle, what is
    spent, and on what it rests (`basis`). `calls`: the ledger's rows so far."""
    if batch is None:  # as the book is run: through Message Batches when book.yaml says so or its calls were
        batch = bool(book.cfg.message_batches) or (bool(calls) and 2 * sum(1 for c in calls if c.get("batch")) > len(calls))
    plan = plan_of(book)
    base = prior(book, plan, batch)
    prices = Prices(book.cfg, batch)
    spent_by: dict[tuple[str | None, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    done: set[tuple[str | None, str]] = set()
    for c in calls:
        key = (c.get("chapter") or None, str(c.get("step") or ""))
        usd = float(c.get("cost_usd") or 0.0)
        role = c.get("role") or ""
        # a call's answer at this estimate's prices (a streamed call in a batched book: half of it)
        rate = prices.rates(role)["output"] * ((0.5 if c.get("batch") else 1.0) / (0.5 if batch else 1.0))
        answer = min(usd, float(c.get("output_tokens") or 0) * rate)
        thinking = min(answer, float(c.get("thinking_tokens") or 0) * rate)
        spent_by[key][0] += usd - answer
        spent_by[key][1] += answer - thinking
        spent_by[key][2] += thinking
        if c.get("stop_reason") == "end_turn" and not c.get("error"):
            done.add(key)
    spent = sum(map(sum, spent_by.values()))
    remaining, sd = _remaining(base, spent_by, done)
    if sd is None:  # too little seen: the prior's own spread
        low, high = spent + remaining * PRIOR_SPREAD[0], spent + remaining * PRIOR_SPREAD[1]
    else:  # what is left is a sum of skewed draws: the range is even in log, not in dollars
        sigma = math.log(1 + (sd / remaining) ** 2) ** 0.5 if remaining > 0 else 0.0
        low, high = spent + remaining * math.exp(-Z * sigma), spent + remaining * math.exp(Z * sigma)
    return {"estimate_usd": [round(low, 4), round(high, 4)], "expected_usd": round(spent + remaining, 4),
            "spent_usd": round(spent, 6), "chapters": len(plan.chapters), "planned": plan.planned,
            "batch": batch, "basis": _basis(len(done), len(base), plan.planned)}


Key = tuple[str | None, str]


def _effort(key: Key) -> str:
    st = STEPS.get(key[1]) if key[0] is not None else BOOK_STEPS.get(key[1])
    return st.effort if st is not None else "medium"


def _remaining(base: dict[Key, Cost], spent_by: dict[Key, list[float]], done: set[Key]) -> tuple[float, float | None]:
    """(the expected cost of what is not done, its standard deviation; None: too little seen).

    Three parts of a call are corrected apart, each by what predicts it:
    - the prompt scales with what the step reads: each step's own ratio (observed / prior);
    - the answer's text is the step's own kind of document (a chapter, a review, a memory
      file): each step's own ratio;
    - the thinking follows the step's effort, not its kind, and is the lottery of the bill: a
      short think on most calls, a long one several times the answer on some. Its ratio is
      taken per effort over every step done at that effort.
    A group's own mean is pulled toward the pooled one as far as the groups differ less than
    their noise (`_Part`). The deviation adds each call's own draw and the error of the means
    over the calls seen (shared by every call to come), and PROMPT_SD and MODEL_SD of what is
    left (prompts follow the sources' sizes; revisions, a chapter unlike the others)."""
    seen = [k for k in done if k[0] is not None and k in base and sum(base[k]) > 0]
    if len(seen) < MIN_SEEN:
        left = sum(max(0.0, sum(base[k]) - sum(spent_by.get(k, (0.0, 0.0, 0.0)))) for k in base if k not in done)
        return left, None
    prompt: dict[str, list[float]] = defaultdict(list)
    for k in seen:
        if base[k][0]:
            prompt[k[1]].append(spent_by[k][0] / base[k][0])
    prompt_all = statistics.median(r for rs in prompt.values() for r in rs) if prompt else 1.0
    text = _Part(seen, base, spent_by, 1, lambda k: k[1], 0.0)
    think = _Part(seen, base, spent_by, 2, _effort, THINK_CV2)
    left_prompt = 0.0
    todo: list[tuple[Key, float]] = []
    for k, (pi, _, _) in base.items():
        if k in done:
            continue
        expect = (pi * (statistics.mean(prompt[k[1]]) if prompt.get(k[1]) else prompt_all), text.expect(k), think.expect(k))
        paid = sum(spent_by.get(k, (0.0, 0.0, 0.0)))  # a step under way has paid part of it
        scale = max(0.0, 1 - paid / sum(expect)) if sum(expect) else 0.0
        left_prompt += expect[0] * scale
        todo.append((k, scale))
    left_text, var_text = text.left(todo)
    left_think, var_think = think.left(todo)
    var = var_text + var_think + (PROMPT_SD * left_prompt) ** 2 + (MODEL_SD * (left_text + left_think)) ** 2
    return left_prompt + left_text + left_think, var ** 0.5


class _Part:
    """One part of the answers (the text, or the thinking) per group of steps: its ratio to the
    prior, each group's mean pulled toward the pooled one as far as the groups' means differ
    less than their own noise explains (empirical Bayes), and how much a call varies around
    its group's mean, relative to it (cv²), pooled over the groups and, for the thinking, drawn
    toward `cv2_prior` (THINK_CV2_WEIGHT calls' worth)."""

    def __init__(self, seen: list[Key], base: dict[Key, Cost], spent_by: dict[Key, list[float]], i: int,
                 group: Any, cv2_prior: float):
        self.base, self.i, self.group = base, i, group
        rows = [(group(k), spent_by[k][i] / base[k][i], base[k][i]) for k in seen if base[k][i] > 0]
        by: dict[str, list[float]] = defaultdict(list)
        for g, x, _ in rows:
            by[g].append(x)
        mean = {g: statistics.mean(xs) for g, xs in by.items()}
        dev = [(x / mean[g] - 1) ** 2 for g, x, _ in rows if mean[g] > 0]
        n = max(1, len(dev) - len(by))
        observed = sum(dev) / n if dev else cv2_prior
        weight = THINK_CV2_WEIGHT if cv2_prior else 0
        self.cv2 = (observed * n + cv2_prior * weight) / (n + weight)
        total_prior = sum(w for _, _, w in rows)
        self.pooled = sum(x * w for _, x, w in rows) / total_prior if total_prior else 1.0
        # the pooled ratio is a mean weighted by the prior: as precise as this many equal calls
        self.n_pooled = total_prior ** 2 / sum(w * w for _, _, w in rows) if rows else 0.0
        # how far the groups' true means differ: their spread beyond what their own noise explains
        noise = {g: observed * mean[g] ** 2 / len(xs) for g, xs in by.items()}
        tau2 = max(0.0, sum((m - self.pooled) ** 2 - noise[g] for g, m in mean.items()) / (len(mean) - 1)) \
            if len(mean) > 1 else 0.0
        self.ratio = {g: (tau2 * mean[g] + noise[g] * self.pooled) / (tau2 + noise[g]) if tau2 + noise[g] > 0
                      else mean[g] for g in by}

    def expect(self, k: Key) -> float:
        return self.base[k][self.i] * self.ratio.get(self.group(k), self.pooled)

    def left(self, todo: list[tuple[Key, float]]) -> tuple[float, float]:
        """(the expected USD of this part of the calls to come, the variance of its sum): each
        call's own draw, and the error of the mean over the calls seen, which all share."""
        expect = [self.expect(k) * scale for k, scale in todo]
        total = sum(expect)
        return total, self.cv2 * (sum(e * e for e in expect) + total * total / max(1.0, self.n_pooled))


def _basis(done: int, steps: int, planned: bool) -> str:
    what = "the outline" if planned else "max_chapters (no outline yet)"
    if not done:
        return f"{what}, the sources' sizes and the models' prices; no call yet"
    return f"{what}, corrected by the {done} of {steps} model steps done so far"


def describe(est: dict[str, Any]) -> str:
    low, high = est["estimate_usd"]
    mode = " through Message Batches" if est["batch"] else ""
    return (f"expected bill of the whole book{mode}: ${low:.2f}–${high:.2f} (spent ${est['spent_usd']:.2f}; "
            f"{est['chapters']} chapters; from {est['basis']})")

