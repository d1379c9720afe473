"""The context each role's prompt is rendered from has the keys its TypedDict declares
(agents/contexts.py), nested shapes included: the types are the contract, and this keeps them
true to what `gather` builds."""

from __future__ import annotations

import typing

from orchestrator import agents
from orchestrator.agents.contexts import CONTEXT_OF_ROLE, CommonContext
from orchestrator.state.book import Book
from orchestrator.steps import ALL_STEPS


def _is_typeddict(t) -> bool:
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__required_keys__")


def _mismatches(value, t, where: str) -> list[str]:
    """Where `value` departs from the type `t`: missing or unknown keys of a TypedDict, in
    depth through lists and dicts of TypedDicts."""
    if _is_typeddict(t):
        if not isinstance(value, dict):
            return [f"{where}: not a dict"]
        keys = set(value)
        out = [f"{where}: missing {k!r}" for k in sorted(t.__required_keys__ - keys)]
        out += [f"{where}: undeclared {k!r}" for k in sorted(keys - t.__required_keys__ - t.__optional_keys__)]
        hints = typing.get_type_hints(t)
        for k in keys & set(hints):
            inner = hints[k]
            if typing.get_origin(inner) in (typing.NotRequired, typing.Required):
                inner = typing.get_args(inner)[0]
            out += _mismatches(value[k], inner, f"{where}.{k}")
        return out
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is list and args and _is_typeddict(args[0]):
        return [m for i, v in enumerate(value) for m in _mismatches(v, args[0], f"{where}[{i}]")]
    return []


def test_every_model_role_has_a_context_type():
    roles = {s.role for s in ALL_STEPS.values() if s.model}
    assert roles <= set(CONTEXT_OF_ROLE), sorted(roles - set(CONTEXT_OF_ROLE))


def test_each_steps_context_has_exactly_its_roles_keys(built_ws):
    book = Book.open(built_ws, repair=False)
    try:
        ch = book.scanner.outline.chapters[0].id
        # what the runner adds for a call (pipeline/generation.py): a redo's instructions too
        extra = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source, "instructions": "fix it"}
        problems = []
        for step, s in ALL_STEPS.items():
            if s.model:
                ctx = agents.gather(book, step, ch if s.chapter else None, extra).context
                problems += _mismatches(ctx, CONTEXT_OF_ROLE[s.role], f"{step} ({s.role})")
    finally:
        book.close()
    assert problems == []


def test_the_checker_sees_a_missing_and_an_undeclared_key():
    ctx = {"book": {"title": "t", "language": "en", "audience": "a"}, "surprise": 1}
    found = _mismatches(ctx, CommonContext, "ctx")
    assert "ctx: undeclared 'surprise'" in found and "ctx: missing 'personas'" in found
    assert "ctx.book: missing 'brief'" in found
