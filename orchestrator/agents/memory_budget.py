"""What long memory a chapter's prompt carries: what matters to that chapter, within a
per-role token budget, so a prompt at chapter 200 is about the size of one at chapter 2.

Before, every prompt carried every summary, the whole glossary and the whole outline (11.5k
characters at chapter 1, 109k at chapter 200: tokens over a book grew as N²). Now a chapter
step reads, ranked:

1. the summaries of the chapters it depends on (`depends_on`), nearest first;
2. the glossary terms it actually uses: terms found in its sources, its research and its
   draft (whichever the step reads), most used first;
3. the metaphors other chapters own (phrases only), its dependencies' first, then the newest,
   at most MAX_METAPHORS (R2's check reads the whole registry and catches a reuse).

The rest of the outline is in the shared prefix as titles only (`_shared.md.j2`). What does
not fit the budget is cut from the bottom of that ranking and the prompt says so
(`memory_note`). The deterministic checks still read the whole memory from the files.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..state.memory import LongMemory

CHARS_PER_TOKEN = 3.5  # a high token estimate for prose and code (the budget errs on the small side)
# tokens of long memory a role's prompt may carry; the roles not named get DEFAULT_TOKENS
BUDGET_TOKENS = {"writer": 6000, "editor": 5000, "r2_consistency": 6000, "researcher": 3000}
DEFAULT_TOKENS = 3000
# Metaphors other chapters own: its dependencies' and the newest ones. The registry grows by one
# a chapter; R2's deterministic check reads all of it from the files and catches a reuse.
MAX_METAPHORS = 20


def est_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


_WORD_RE = re.compile(r"\w+")
_WORDS_RE = re.compile(r"[\w\s-]+")


def _uses(term: str, text_lower: str, words: Counter[str] | None = None) -> int:
    """Whole-word uses of `term` in `text_lower`. `words` (the text's \\w+ runs, counted) answers a
    one-word term in O(1): a whole-word match of such a term is exactly a maximal run equal to it,
    so the glossary's thousands of terms cost one pass over the text, not one regex each."""
    t = term.lower().strip()
    if not t or t not in text_lower:  # most terms are absent: a plain substring test rules them out
        return 0
    if _WORDS_RE.fullmatch(t):  # a word: whole-word matches only ("map" is not in "mapping")
        if words is not None and _WORD_RE.fullmatch(t):
            return words[t]
        if t not in text_lower:  # C-speed: most terms are not in this chapter's text at all
            return 0
        return len(re.findall(rf"(?<!\w){re.escape(t)}(?!\w)", text_lower))
    return text_lower.count(t)


# text -> (its lower case, its words counted): a chapter's sources and draft are read by several
# steps, each counting them again otherwise (the largest texts a prompt carries)
_WORDS_OF: dict[str, tuple[str, Counter[str]]] = {}
_WORDS_OF_SIZE = 256


def _lowered_words(text: str) -> tuple[str, Counter[str]]:
    hit = _WORDS_OF.get(text)
    if hit is None:
        low = text.lower()
        hit = (low, Counter(_WORD_RE.findall(low)))
        if len(text) > 200:  # short texts (titles, summaries) cost less than the memo
            if len(_WORDS_OF) >= _WORDS_OF_SIZE:
                _WORDS_OF.pop(next(iter(_WORDS_OF)))
            _WORDS_OF[text] = hit
    return hit


def _term_index(mem: LongMemory) -> tuple[list[tuple[str, str, str]], dict[str, list[int]], list[int]]:
    """(glossary entries, one-word term -> their indexes, the other terms' indexes), once per memory.
    A one-word term's whole-word uses are the text's word count of it (see _uses)."""
    hit = mem.derived.get("term_index")
    if hit is None:
        entries = mem.glossary_entries()
        by_word: dict[str, list[int]] = {}
        others: list[int] = []
        for i, e in enumerate(entries):
            t = e[0].lower().strip()
            if not t:
                continue
            if _WORD_RE.fullmatch(t):
                by_word.setdefault(t, []).append(i)
            else:
                others.append(i)
        hit = mem.derived["term_index"] = (entries, by_word, others)
    return hit


def budget_for(cfg: Any, role: str, default_max_tokens: int) -> int:
    """The role's memory budget in tokens: BUDGET_TOKENS, or a sixth of what a small context
    window leaves after the answer (a compatible server's, issue 27), so the prompt still fits."""
    from .source_context import window_for

    window, max_tokens = window_for(cfg, role, default_max_tokens)
    base = BUDGET_TOKENS.get(role, DEFAULT_TOKENS)
    return max(200, min(base, (window - max_tokens) // 6)) if window > 0 else base


def bounded_memory(mem: LongMemory, chapter: Any, texts: list[str], role: str,
                   budget: int | None = None) -> tuple[dict[str, Any], str]:
    """(memory context, note): the chapter's relevant long memory within the role's budget;
    the note says what was left out (empty when nothing was)."""
    budget = budget if budget is not None else BUDGET_TOKENS.get(role, DEFAULT_TOKENS)
    deps = [d for d in reversed(list(chapter.depends_on))]  # nearest (last listed) first
    by_id = mem.by_id
    summaries = [[d, by_id[d].title, by_id[d].summary] for d in deps if d in by_id]
    lowered = [_lowered_words(t) for t in texts]
    hay = "\n".join(low for low, _ in lowered)  # == "\n".join(texts).lower(): no word spans a line break
    words: Counter[str] = Counter()
    for _, counted in lowered:
        words.update(counted)
    entries, by_word, others = _term_index(mem)
    # the terms the text uses, ranked by uses then glossary order: one-word terms found through the
    # text's words (O(text), not O(glossary)), the few others counted one by one
    found = [(i, n) for w, n in words.items() for i in by_word.get(w, ())]
    found += [(i, n) for i in others if (n := _uses(entries[i][0], hay, words))]
    found.sort(key=lambda x: (-x[1], x[0]))
    glossary = [list(entries[i]) for i, _ in found]
    # the dependencies' metaphors (nearest first), then the newest chapters' (the rest, last first);
    # a dependency listed twice ranks as the newest ones do past len(rank), as it always has
    rank = {d: i for i, d in enumerate(deps)}
    rank = {d: i for d, i in rank.items() if i < len(rank)}
    ordered = [by_id[d] for d in sorted(rank, key=rank.__getitem__) if d in by_id]
    mets: list[list[str]] = [[p, "", m.chapter] for m in ordered for p, _ in m.metaphors][:MAX_METAPHORS]
    for m in reversed(mem.chapters):
        if len(mets) >= MAX_METAPHORS:
            break
        if m.chapter not in rank:
            mets += [[p, "", m.chapter] for p, _ in m.metaphors][:MAX_METAPHORS - len(mets)]

    out: dict[str, list[list[str]]] = {"summaries": [], "glossary": [], "metaphors": []}
    left: dict[str, int] = {"summaries": 0, "glossary": 0, "metaphors": 0}
    spent = 0
    for key, rows in (("summaries", summaries), ("glossary", glossary), ("metaphors", mets)):
        for row in rows:
            cost = est_tokens(" ".join(str(x) for x in row)) + 4
            if spent + cost > budget:
                left[key] += 1
                continue
            spent += cost
            out[key].append(row)
    cut = [f"{n} {k}" for k, n in left.items() if n]
    note = (f"Long memory cut to this role's budget of {budget} tokens: {', '.join(cut)} left out "
            "(lowest ranked first).") if cut else ""
    return dict(out), note
