"""Prompts: `prompts/<role>.md.j2` with a `system` block (the stable, cached prefix) and a
`prompt` block (the chapter-specific part), overridable per workspace, rendered into a Request."""

from __future__ import annotations

import json
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..providers.base import Request
from ..resources import builtin, search_path
from ..steps import ALL_STEPS, DRAFT, MEMORY
from .context import Gathered

_env_cache: dict[tuple, Any] = {}


# The book-wide shared block is the same for every request of a batch but iterates every chapter
# (the titles of the outline): rendered per request, prompt building grew with the book (27 % of
# an offline build's CPU at 100 chapters). It is rendered once per distinct input instead. The
# keys are those the built-in _shared.md.j2 (and the _common.md.j2 macros it calls) reads; a
# workspace overriding either template is rendered every time (its inputs are unknown).
_SHARED_KEYS_BOUNDED = ("book", "language", "style_guide", "chapters", "memory_bounded")
_SHARED_KEYS_FULL = _SHARED_KEYS_BOUNDED + ("outline_yaml", MEMORY, "chapter")
_shared_memo: dict[tuple[Any, ...], str] = {}
_ID_TITLE_BATCH, _ID_TITLE = itemgetter("id", "title", "batch"), itemgetter("id", "title")
_SHARED_MEMO_SIZE = 16


def _shared_memo_key(env, ctx: dict[str, Any]) -> tuple[Any, ...] | None:
    own = [Path(d) for d in env.loader.searchpath if Path(d) != builtin("prompts")]
    if any((d / name).exists() for d in own for name in ("_shared.md.j2", "_common.md.j2")):
        return None  # a workspace override: render it every time
    keys = _SHARED_KEYS_BOUNDED if ctx.get("memory_bounded") else _SHARED_KEYS_FULL
    # the chapters as the template reads them (id, title, batch): a tuple hashes ~10x faster than JSON
    try:
        chapters = tuple(map(_ID_TITLE_BATCH, ctx.get("chapters") or ()))
    except (KeyError, TypeError):  # not the shape gather builds: key on its text
        chapters = (json.dumps(ctx.get("chapters"), sort_keys=True, default=str),)
    blob = json.dumps([ctx.get(k) for k in keys if k != "chapters"], sort_keys=True, ensure_ascii=False, default=str)
    return id(env), blob, chapters


def _shared_block(env, ctx: dict[str, Any]) -> str:
    key = _shared_memo_key(env, ctx)
    if key is not None and (hit := _shared_memo.get(key)) is not None:
        return hit
    text = _block(env, "_shared.md.j2", "shared", ctx)
    if key is not None:
        if len(_shared_memo) >= _SHARED_MEMO_SIZE:
            _shared_memo.pop(next(iter(_shared_memo)))  # the oldest: the book has moved on
        _shared_memo[key] = text
    return text


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


# The chapter's material (entry + numbered draft) goes before the role's instructions, as a
# cached block of its own, once it is at least this long (estimated tokens). Why a threshold:
# with the material first, the 7 roles reading a draft share it (6 read it from the cache) but
# each writes its own instructions (~1.3k-2k tokens with the exemplary answer) instead of reading
# them from the previous chapter's call of the same role. Material first pays when
# (k-1)·M > k·I, k = 7 readers, I ≈ 1.5k: M > ~1.8k tokens. Measured (bench_claude.py
# --cache-rules --draft-words N, 8 chapters): a 1.6k-token draft reads 42 % from cache with the
# instructions first and 41 % with the material first; 3.1k: 33 % / 49 % (spend -14 %); 6.1k:
# 23 % / 57 % (spend -24 %). A short draft stays in the user turn and the instructions stay the
# cross-chapter cached prefix. The test depends on the material alone, so every role of a
# chapter decides the same way.
MATERIAL_FIRST_TOKENS = 1800
CHARS_PER_TOKEN = 4.0  # the low estimate params.py uses for cacheable lengths


@dataclass(frozen=True)
class Parts:
    """A prompt in the order it is sent: `shared` (the book, cached), `material` (the chapter's
    material shared by its roles, cached; empty unless it goes first), `system` (the role's
    instructions), `prompt` (the user turn: the role's inputs and task)."""
    shared: str
    material: str
    system: str
    prompt: str


def _block(env, name: str, block: str, ctx: dict[str, Any]) -> str:
    t = env.get_template(name)
    return "".join(t.blocks[block](t.new_context(ctx))).strip()


def render_layout(root, role: str, context: dict[str, Any], material_first: bool | None = None,
                  layout: str = "roles") -> Parts:
    """The prompt of `role` in its cache layout. A role template with a `material` block (the
    roles that read the draft) gets the chapter's material first when it is long enough to pay
    (MATERIAL_FIRST_TOKENS), or inline at the start of its prompt. `material_first` forces it.
    `layout="handbook"` (agents/handbook.py): `shared` is the book-wide handbook (the book and
    every role's instructions), the material always goes first (the instructions are no longer
    a per-role prefix to lose), `system` is empty and the prompt opens with the role turn."""
    import jinja2

    from . import handbook as hb, source_frame

    env = prompt_env(root)
    ctx = source_frame.frame_context(dict(context, role=role))  # the project's text is material, not instructions
    if layout == "handbook" and role not in hb.roles():  # the planner and the auditor: see handbook.roles
        layout = "roles"
    if layout == "handbook":
        material_first = True if material_first is None else material_first
        ctx["handbook_layout"] = True
    if "chapters" in ctx and "chapter_titles" not in ctx:  # title_of() looks titles up, not loops
        ctx["chapter_titles"] = dict(map(_ID_TITLE, ctx["chapters"]))
    try:
        shared = _shared_block(env, ctx)
        tmpl = env.get_template(f"{role}.md.j2")
        material = ""
        if "material" in tmpl.blocks and DRAFT in ctx and "chapter" in ctx:
            material = _block(env, f"{role}.md.j2", "material", ctx)
            first = len(material) / CHARS_PER_TOKEN >= MATERIAL_FIRST_TOKENS if material_first is None \
                else material_first
            material = material if first else ""
            ctx["material_first"] = first
        if layout == "handbook":
            shared, system = hb.handbook(env, shared, ctx, _block), ""
        else:
            system = _block(env, f"{role}.md.j2", "system", ctx)
        prompt = source_frame.frame_prompt(_block(env, f"{role}.md.j2", "prompt", ctx))
        shared_t = env.get_template("_shared.md.j2")
        if "chapter_memory" in shared_t.blocks:  # a chapter's own long memory: after the cached prefix
            memory = _block(env, "_shared.md.j2", "chapter_memory", ctx)
            prompt = f"{memory}\n\n{prompt}" if memory else prompt
        if layout == "handbook":
            prompt = f"{hb.role_turn(role)}\n\n{prompt}"
    except jinja2.TemplateError as e:
        where = getattr(e, "filename", None) or f"prompts/{role}.md.j2"
        raise ConfigError(f"prompt template error: {e}", where, getattr(e, "lineno", None)) from None
    except KeyError as e:
        raise ConfigError(f"prompt template lacks the block {e}", f"prompts/{role}.md.j2",
                          fix="define {% block system %} and {% block prompt %} (and {% block shared %} in _shared.md.j2)") from None
    return Parts(shared, material, system, prompt)


def render_parts(root, role: str, context: dict[str, Any]) -> tuple[str, str, str]:
    """(shared, system, prompt): the book's context from prompts/_shared.md.j2 (the same for every
    role of a batch), then the role's `system` part (the chapter's material when it goes first,
    then the role's instructions), then its `prompt` block (the chapter-specific part)."""
    p = render_layout(root, role, context)
    return p.shared, "\n\n".join(x for x in (p.material, p.system) if x), p.prompt


def render_prompt(root, role: str, context: dict[str, Any]) -> tuple[str, str]:
    """(system, prompt) as the model reads them: the shared context, then the role's instructions."""
    shared, system, prompt = render_parts(root, role, context)
    return (shared + "\n\n" + system).strip(), prompt


def build_request(book, step: str, ch: str | None, g: Gathered, role: str) -> Request:
    from ..contracts.examples import EXAMPLES

    # One exemplary answer per role, in the cached instructions (prompts' example_block).
    ctx = dict(g.context, example=EXAMPLES.get(role, ""))
    # a compatible server caches nothing: the book-wide handbook would only crowd its small window
    compatible = getattr(book.cfg, "server", "anthropic") == "compatible"
    layout = "roles" if compatible else book.cfg.prompt_layout
    from ..contracts.schemas import SCHEMAS

    if compatible:  # its window is small: the sources are cut further by rank until the prompt fits
        from .source_context import fit_window

        schema = SCHEMAS.get(step)
        p = fit_window(book.cfg, role, book.cfg.max_tokens.get(role, ALL_STEPS[step].max_tokens), ctx,
                       lambda: render_layout(book.root, role, ctx, layout=layout),
                       len(json.dumps(schema)) + 400 if schema else 0)
        if ctx.get("sources_cut"):  # the research report says what the window could not carry
            g.context["sources_cut"] = ctx["sources_cut"]
            if "sources_left_out" in ctx:  # and which definitions it left out
                g.context["sources_left_out"] = ctx["sources_left_out"]
    else:
        p = render_layout(book.root, role, ctx, layout=layout)

    # A contract step's answer is JSON matching its schema (structured outputs on the Claude
    # path); agents.structured renders it into the Markdown file. Prose steps have none.
    return Request(role=role, step=step, chapter=ch, shared=p.shared, material=p.material, system=p.system,
                   prompt=p.prompt, context=g.context,
                   model=book.cfg.model_for(role),
                   max_tokens=book.cfg.max_tokens.get(role, ALL_STEPS[step].max_tokens), effort=ALL_STEPS[step].effort,
                   output_schema=SCHEMAS.get(step))
