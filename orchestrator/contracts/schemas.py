"""The JSON Schemas of the structured handoffs, by step, and how to send them.

How the installed SDK carries them (anthropic 2.14.0, read in
`.venv/lib/python3.11/site-packages/anthropic/`):

- `types/output_config_param.py`: `OutputConfigParam` (TypedDict) has `format:
  Optional[JSONOutputFormatParam]` (and `effort`).
- `types/json_output_format_param.py`: `JSONOutputFormatParam = {"type": "json_schema",
  "schema": Dict[str, object]}` (both required).
- `resources/messages/messages.py`: `Messages.create(..., output_config: OutputConfigParam)`
  and `Messages.stream(..., output_config=..., output_format=<a type>)`; `messages.parse` too.
  `output_format` takes a *type* (pydantic) only; a schema dict goes in
  `output_config={"format": {...}}` (the SDK raises if a dict is passed as `output_format`).
  Message Batches take the same `output_config` inside each request's `params`.
  The answer is the first text block, JSON text matching the schema.

So a request is `client.messages.stream(..., output_config=output_config(step))` with
`output_config(step) == {"format": {"type": "json_schema", "schema": SCHEMAS[step]}}`.

What the API accepts (the structured-outputs docs, and the SDK's own
`lib/_parse/_transform.py:transform_schema`, which rewrites a schema into the accepted
subset): `type` (object, array, string, integer, number, boolean, null), `enum`/`const` of
primitives, `anyOf`/`allOf`, local `$ref`/`$defs`, `description`, `title`; objects need
`additionalProperties: false` and list `required`; arrays `items` and `minItems` 0 or 1
only; strings a few `format`s. Not accepted: `minimum`/`maximum`, `minLength`/`maxLength`,
`pattern`, recursion; the docs also cap optional properties per request (keep them few).
Our schemas use only the accepted subset, so `transform_schema(S) == S` for each of them
(tested); what they cannot say (chapter ids, line ranges, check ids) the `from_json` readers
check, with the path of the bad field, for the re-ask."""

from __future__ import annotations

from typing import Any

from ..steps import AUDIT, MEMORY, OUTLINE, PANEL, R1, R2, R3, REVIEW
from .findings import MergedReview, Review
from .memory import MemoryUpdate
from .outline import OutlinePlan
from .panel import PanelFeedback

# step key (steps.py) -> the contract class whose SCHEMA and from_json handle the answer.
CONTRACTS: dict[str, type] = {
    OUTLINE: OutlinePlan, R1: Review, R2: Review, R3: Review, AUDIT: Review,
    REVIEW: MergedReview, PANEL: PanelFeedback, MEMORY: MemoryUpdate,
}
SCHEMAS: dict[str, dict[str, Any]] = {step: c.SCHEMA for step, c in CONTRACTS.items()}  # type: ignore[attr-defined]


def output_config(step: str) -> dict[str, Any] | None:
    """The `output_config` argument of `messages.create`/`messages.stream` for a step, or None
    for a prose step (research, draft, final stay Markdown)."""
    schema = SCHEMAS.get(step)
    return None if schema is None else {"format": {"type": "json_schema", "schema": schema}}


def from_answer(step: str, text: str, **kw: Any) -> Any:
    """The step's contract object from the model's answer text (JSON); ContractError (a
    ValidationFailed) with the field's path when it does not fit."""
    return CONTRACTS[step].from_json(text, **kw)  # type: ignore[attr-defined]
