"""The `handbook` prompt layout (book.yaml `prompt_layout: handbook`, the default).

Why: with each role's instructions between the book's block and the task, a chapter's calls
share only the book block and the chapter's material; every role writes its own instructions
into the cache once per 5 minutes and the share read from cache stays near 50 % on the real
API. The handbook puts the book's block and EVERY role's instructions (each under its own
heading) into ONE system block whose bytes are the same for every call of the book, so after
the first call each one reads it; then the chapter's material (cached, shared by the chapter's
roles); then a short role turn naming the role's section, with the role's task.

The instructions are rendered from the same `system` blocks of prompts/<role>.md.j2 as in the
`roles` layout, word for word; only their place changes. They may read only book-wide context
(language, personas, the role's exemplary answer): never a chapter's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..resources import builtin
from ..steps import ALL_STEPS

LAYOUTS = ("handbook", "roles")
DEFAULT_LAYOUT = "handbook"

# The heading of each role's section, and how the role turn names it.
ROLE_TITLES: dict[str, str] = {
    "researcher": "The researcher",
    "writer": "The writer",
    "r1_code": "The code reviewer (R1)",
    "r2_consistency": "The consistency reviewer (R2)",
    "r3_content": "The content reviewer (R3)",
    "merger": "The review merger",
    "reader_panel": "The reader panel",
    "memory_keeper": "The memory keeper",
    "editor": "The editor",
}

INTRO = """# The handbook of the team's roles

A team of roles writes this book; each role has its section below, and every request names the role you play. Follow that role's section (its rules, its output format and its example) and nothing else: the other sections only tell you what your teammates do."""

# The only context a role's instructions are rendered with: book-wide keys, so no chapter's
# content can reach the handbook (a template reading another key fails with a clear error).
_BOOK_WIDE_KEYS = ("book", "language", "personas", "style_guide")
_memo: dict[tuple[Any, ...], str] = {}
_MEMO_SIZE = 8


def roles() -> list[str]:
    """The roles of the handbook: every role of a chapter step, once each, in pipeline order.
    The book-level roles (planner, auditor) keep the `roles` layout: each is called once per
    book, and their book block differs from the chapters' anyway (the planner's comes before
    the outline and the style guide exist, the auditor's carries the whole long memory), so in
    the handbook their sections would only be read, at 0.1x, by every chapter call."""
    used = {s.role for s in ALL_STEPS.values() if s.model and s.chapter}
    return [r for r in ROLE_TITLES if r in used] + sorted(used - set(ROLE_TITLES))


def title(role: str) -> str:
    return ROLE_TITLES.get(role, role)


def role_turn(role: str) -> str:
    """The line that opens a role's user turn in the handbook layout."""
    t = title(role)
    return (f"You are {t[0].lower() + t[1:]}: follow the section '{t}' of the handbook above "
            "(its rules, output format and example); the other sections are your teammates' work.")


def _overrides(env) -> tuple[tuple[str, int], ...]:
    """The workspace's own prompt templates with their modification times: an edited override
    changes the handbook, so it is part of the memo's key."""
    own = [Path(d) for d in env.loader.searchpath if Path(d) != builtin("prompts")]
    return tuple((str(p), p.stat().st_mtime_ns) for d in own if d.is_dir() for p in sorted(d.glob("*.j2")))


def handbook(env, shared: str, context: dict[str, Any], block) -> str:
    """The one system block of the handbook layout: `shared` (the book), then every role's
    instructions under its heading. `block(env, template, block_name, ctx)` renders a block
    (agents/prompts.py `_block`). The same inputs give the same bytes (memoised per run)."""
    import json

    from ..contracts.examples import EXAMPLES

    book_wide = json.dumps([context.get(k) for k in _BOOK_WIDE_KEYS], sort_keys=True, ensure_ascii=False, default=str)
    key = (id(env), shared, book_wide, _overrides(env))
    if (hit := _memo.get(key)) is not None:
        return hit
    sections = [shared, INTRO]
    for role in roles():
        ctx = {k: context[k] for k in _BOOK_WIDE_KEYS if k in context}
        ctx |= {"role": role, "example": EXAMPLES.get(role, "")}
        text = block(env, f"{role}.md.j2", "system", ctx)
        sections.append(f"# {title(role)}\n\n<role_section role=\"{title(role)}\">\n{text}\n</role_section>")
    out = "\n\n".join(s for s in sections if s)
    if len(_memo) >= _MEMO_SIZE:
        _memo.pop(next(iter(_memo)))
    _memo[key] = out
    return out
