"""The offline provider's three authors as the provider calls them (ctx, templates) -> Markdown:
the planner's outline, the researcher's notes, the writer's draft, each on the repository map
(project.from_context). A module of their own, not the package's `__init__`: the package is
imported by what the authors use (diagrams, checks read `project`'s types), so it imports none
of its submodules."""


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
