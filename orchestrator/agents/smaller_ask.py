"""Smaller asks (issue 27, item 4): after a re-ask that carried the validation's reasons has failed
too, a step is asked for less, so that a weak model has less to hold at once.

`level`: 0 is the whole ask (the first attempt and the first re-ask), 1 after one failed re-ask,
2 after two. What gets smaller is decided per role, by what its answer must keep whole:

- R1, R2, R3, the auditor, the merger: fewer items per answer (the most important findings and
  actions first) and the schema's required part only (no quotes, no end lines). The deterministic
  findings are added by the tool whatever the model writes (agents/structured.py), so a shorter
  list loses only the least important of its own. R1's context is never cut: R1 that cannot see a
  source flags its code as missing, and a blocking finding is worse than a short list. R2's long
  memory is cut by rank as well: the tool's own consistency check still reads all of it.
- the reader panel: one reader per persona stays (its contract), each with fewer questions and
  confusions, required fields only.
- the memory keeper: fewer terms, metaphors and cross references (the central ones); every
  chapter adds its own, so the glossary loses the marginal terms of one chapter, not a chapter.
- the planner: its chapters must cover the sources, so nothing is capped; its context is cut
  (the ranked map, by rank, to a fraction of the window).
- the researcher: its report must be whole, so what it reads is cut instead: the chapter's
  sources by rank to a fraction of the window (`SCALE`).
- the writer, the editor: no smaller ask here. A chapter must be whole, and its contract checks
  what the context carries (chapter 1 quotes the README's example: a cut that drops the project's
  front door makes every smaller ask fail validation; measured). Their smaller ask is a section at
  a time: pipeline/section_writer.py, which the runner tries once every whole answer has failed
  validation. `WHOLE_ONLY` names them; `level_after` gives them level 0.

The fraction of the window is a context variable set around the building of one request
(`scaled`); providers/anthropic/server.py holds it and its `limits` applies it, so every budget
that follows the window (sources, memory, maps, the fitting of a small window) shrinks with it.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

from ..providers.anthropic.server import PROMPT_SHARE
from ..steps import AUDIT, DRAFT, FINAL, MEMORY, OUTLINE, PANEL, R1, R2, R3, RESEARCH, REVIEW

SCALE = (1.0, 0.5, 0.3)  # the share of the prompt's room in the window, by level
MAX_LEVEL = len(SCALE) - 1
# the arrays a JSON role's smaller answer caps, by level 1 and 2 ("a.b" is the array b of each item of a)
ITEMS: dict[str, dict[str, tuple[int, int]]] = {
    R1: {"findings": (8, 4)}, R2: {"findings": (8, 4)}, R3: {"findings": (8, 4)}, AUDIT: {"findings": (12, 6)},
    REVIEW: {"findings": (8, 4), "actions": (6, 3)},
    PANEL: {"readers.questions": (2, 1), "readers.confusions": (2, 1)},
    MEMORY: {"terms": (8, 4), "metaphors": (2, 1), "cross_references": (4, 2)},
}
KEEP_OPTIONAL = {"line"}  # a finding's line stays: the redo of a draft finds the place by it
CONTEXT_ROLES = (OUTLINE, RESEARCH, R2)  # the steps whose context is cut
WHOLE_ONLY = (DRAFT, FINAL)  # a chapter's prose: smaller only a section at a time (pipeline/section_writer.py)


def level_after(step: str, rejected: int) -> int:
    """The level of the next ask of `step` after `rejected` of its answers failed validation: the
    first re-ask (after one) is whole, with the reasons; each failed re-ask makes it smaller. 0
    for a step that has no smaller ask."""
    if step not in ITEMS and step not in CONTEXT_ROLES:
        return 0
    return max(0, min(MAX_LEVEL, rejected - 1))


@contextlib.contextmanager
def scaled(step: str, level: int) -> Iterator[None]:
    """While one request of `step` is built at `level`: its context budgets follow the smaller
    window (only for the roles whose context is what gets smaller)."""
    token = PROMPT_SHARE.set(SCALE[min(level, MAX_LEVEL)] if level > 0 and step in CONTEXT_ROLES else 1.0)
    try:
        yield
    finally:
        PROMPT_SHARE.reset(token)


def shrink_schema(schema: dict[str, Any], step: str, level: int) -> dict[str, Any]:
    """The schema of a smaller answer: the role's arrays capped (`maxItems`) and each capped
    array's items reduced to their required properties (and KEEP_OPTIONAL). The schema as given
    when nothing of this role is capped, or at level 0."""
    caps = ITEMS.get(step)
    if level <= 0 or not caps:
        return schema
    out = copy.deepcopy(schema)
    for path, counts in caps.items():
        _cap(out, path.split("."), counts[min(level, len(counts)) - 1])
    return out


def _cap(node: dict[str, Any], path: list[str], n: int) -> None:
    prop = (node.get("properties") or {}).get(path[0])
    if not isinstance(prop, dict) or prop.get("type") != "array":
        return
    items = prop.get("items")
    if len(path) > 1:
        if isinstance(items, dict):
            _cap(items, path[1:], n)
        return
    prop["maxItems"] = n
    if isinstance(items, dict) and items.get("type") == "object":
        keep = set(items.get("required") or []) | (KEEP_OPTIONAL & set(items.get("properties") or {}))
        items["properties"] = {k: v for k, v in items["properties"].items() if k in keep}


def instruction(step: str, level: int) -> str:
    """What the re-ask says of the smaller answer it wants (after the validation's reasons)."""
    if level <= 0:
        return ""
    caps = ITEMS.get(step)
    said = []
    if caps:
        items = ", ".join(f"at most {counts[min(level, len(counts)) - 1]} {path.rsplit('.', 1)[-1].replace('_', ' ')}"
                          + (" per reader" if "." in path else "") for path, counts in caps.items())
        said.append(f"Answer smaller this time: {items}, the most important first, and only the required fields "
                    "of each item. A short answer that keeps the form is better than a long one that breaks it.")
    if step in CONTEXT_ROLES:
        said.append("The material below was cut to what matters most, to give you less to hold at once: keep "
                    "every part of the answer's form, and write only about what you are shown.")
    return " ".join(said)
