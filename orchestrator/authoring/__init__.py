"""The offline provider's authors (planner, researcher, writer), built on the repository map.

Each takes the context `agents.gather` built (it needs `source_root`; `state_db`, when given,
caches the parsed files) and returns Markdown in the book's language. The map is built once
per process and tree state (project.load); tree-sitter is imported only then. (The functions
are not named after the submodules: importing `.research` would replace a `research` here.)"""

from __future__ import annotations

from typing import Any


def write_outline(ctx: dict[str, Any], _t: Any = None) -> str:
    from .outline_plan import plan
    from .project import from_context

    return plan(ctx, from_context(ctx))


def write_research(ctx: dict[str, Any], _t: Any = None) -> str:
    from .project import from_context
    from .research import research as run

    return run(ctx, from_context(ctx))


def write_draft(ctx: dict[str, Any], _t: Any = None) -> str:
    from .project import from_context
    from .selfcheck import meet_checks
    from .unread import with_note
    from .write import write

    p = from_context(ctx)
    return meet_checks(with_note(write(ctx, p), ctx, p), p)
