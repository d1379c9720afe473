"""Prompts: `prompts/<role>.md.j2` with a `system` block (the stable, cached prefix) and a
`prompt` block (the chapter-specific part), overridable per workspace, rendered into a Request."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ConfigError
from ..providers.base import Request
from ..resources import search_path
from ..steps import ALL_STEPS
from .context import Gathered

_env_cache: dict[tuple, Any] = {}


def prompt_env(root):
    import jinja2

    paths = tuple(str(p) for p in search_path("prompts", root))
    env = _env_cache.get(paths)
    if env is None:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(list(paths)), undefined=jinja2.StrictUndefined,
                                 keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
        env.filters["tojson_pretty"] = lambda v: json.dumps(v, ensure_ascii=False, indent=1)
        _env_cache[paths] = env
    return env


def render_parts(root, role: str, context: dict[str, Any]) -> tuple[str, str, str]:
    """(shared, system, prompt): the book's context from prompts/_shared.md.j2 (the same for every
    role of a batch), then the role's `system` block (its instructions), then its `prompt` block
    (the chapter-specific part). Each of the first two is a prompt-cache breakpoint."""
    import jinja2

    env = prompt_env(root)
    try:
        shared_t = env.get_template("_shared.md.j2")
        shared = "".join(shared_t.blocks["shared"](shared_t.new_context(dict(context, role=role)))).strip()
        tmpl = env.get_template(f"{role}.md.j2")
        tctx = tmpl.new_context(dict(context, role=role))
        system = "".join(tmpl.blocks["system"](tctx)).strip()
        prompt = "".join(tmpl.blocks["prompt"](tctx)).strip()
        if "chapter_memory" in shared_t.blocks:  # a chapter's own long memory: after the cached prefix
            memory = "".join(shared_t.blocks["chapter_memory"](shared_t.new_context(dict(context, role=role)))).strip()
            prompt = f"{memory}\n\n{prompt}" if memory else prompt
    except jinja2.TemplateError as e:
        where = getattr(e, "filename", None) or f"prompts/{role}.md.j2"
        raise ConfigError(f"prompt template error: {e}", where, getattr(e, "lineno", None)) from None
    except KeyError as e:
        raise ConfigError(f"prompt template lacks the block {e}", f"prompts/{role}.md.j2",
                          fix="define {% block system %} and {% block prompt %} (and {% block shared %} in _shared.md.j2)") from None
    return shared, system, prompt


def render_prompt(root, role: str, context: dict[str, Any]) -> tuple[str, str]:
    """(system, prompt) as the model reads them: the shared context, then the role's instructions."""
    shared, system, prompt = render_parts(root, role, context)
    return (shared + "\n\n" + system).strip(), prompt


def build_request(book, step: str, ch: str | None, g: Gathered, role: str) -> Request:
    from ..contracts.examples import EXAMPLES

    # One exemplary answer per role, in the cached instructions (prompts' example_block).
    ctx = dict(g.context, example=EXAMPLES.get(role, ""))
    shared, system, prompt = render_parts(book.root, role, ctx)
    from ..contracts.schemas import SCHEMAS

    # A contract step's answer is JSON matching its schema (structured outputs on the Claude
    # path); agents.structured renders it into the Markdown file. Prose steps have none.
    return Request(role=role, step=step, chapter=ch, shared=shared, system=system, prompt=prompt, context=g.context,
                   model=book.cfg.model_for(role),
                   max_tokens=book.cfg.max_tokens.get(role, ALL_STEPS[step].max_tokens),
                   output_schema=SCHEMAS.get(step))
