"""The agents: for each model step, what it reads (the context), its prompt, and how its
answer is validated. One role per step (steps.py names the role); the prompts live in
`prompts/<role>.md.j2` with a `system` block (the stable, cached prefix) and a `prompt`
block (the chapter-specific part), overridable per workspace.

The context dict is the contract between the orchestrator, the prompt templates and the
offline provider; its keys are listed in `gather`'s docstring."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from . import checks, memoryfiles, outline as outline_mod
from .errors import ConfigError, ValidationFailed
from .markers import find_marker, neutralise
from .providers.base import Request
from .resources import search_path
from .sources import list_files, read_text
from .steps import BOOK_STEPS, STATE_DB, STEPS, chapter_sort_key

ROLE_MAX_TOKENS = {"planner": 8000, "researcher": 8000, "writer": 16000, "editor": 16000, "auditor": 8000,
                   "memory_keeper": 4000, "merger": 6000, "reader_panel": 6000}


def read_body(root, rel: str) -> str:
    """A file's text without its marker line ("" when absent)."""
    p = root / rel
    try:
        data = p.read_bytes()
    except OSError:
        return ""
    mk = find_marker(data)
    return (data[: mk.offset] if mk else data).decode("utf-8", "replace").rstrip() + "\n"


def long_memory(book, chapters: list[str]) -> memoryfiles.LongMemory:
    mems = []
    for c in sorted(chapters, key=chapter_sort_key):
        st = book.scanner.step(c, "memory")
        if st.complete:
            mems.append(memoryfiles.parse(c, read_body(book.root, st.path)))
    return memoryfiles.LongMemory(mems)


@dataclass
class Gathered:
    context: dict[str, Any]
    inputs: dict[str, str | None]  # input name -> hash, recorded in the marker


def gather(book, step: str, ch: str | None, extra: dict[str, Any] | None = None) -> Gathered:
    """Everything a step reads. Keys of the context:

    book: {title, language, audience, brief}; personas; style_guide; chapters: [{id, title, batch, summary}]
    outline_yaml (the whole plan, for the cached prefix); chapter: {id, title, summary, batch, depends_on, sources}
    memory: {glossary: [[term, def, ch]], summaries: [[ch, title, summary]], metaphors: [[phrase, meaning, ch]]}
    sources: {path: text} (research, planner: the whole tree, r1); research; draft; r1; r2; r3; review; panel
    findings: the deterministic check results (reviewers, merger, auditor) as [{check, severity, line, message}]
    blocked: bool (merger); finals: {ch: text} (auditor); instructions: a person's or a review's (redo)
    """
    cfg = book.cfg
    o = book.scanner.outline
    ctx: dict[str, Any] = {
        "book": {"title": (o.title if o and o.title else cfg.title), "language": cfg.language,
                 "audience": cfg.audience, "brief": cfg.brief},
        "language": cfg.language,
        "personas": list(cfg.personas),
        "style_guide": read_body(book.root, BOOK_STEPS["style_guide"].path) if step != "outline" else "",
        "chapters": [{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary} for c in o.chapters] if o else [],
        "outline_yaml": o.to_yaml() if o else "",
    }
    inputs: dict[str, str | None] = {}
    src_dir = cfg.source_dir
    # the offline authors read the tree themselves (safe walker, repository map cached in state.db)
    ctx["source_root"], ctx["state_db"] = str(src_dir), str(book.root / STATE_DB)
    if step == "outline":
        files = list_files(src_dir)
        ctx["sources"] = {p: read_text(src_dir, p) for p in files}
        ctx["limits"] = {"max_chapters": cfg.max_chapters, "batch_size": cfg.batch_size}
        return Gathered(ctx | (extra or {}), inputs)
    if step == "audit":
        assert o is not None
        finals = {c.id: read_body(book.root, STEPS["final"].file(c.id)) for c in o.chapters}
        mem = long_memory(book, [c.id for c in o.chapters])
        ctx["finals"] = bounded_finals(finals)
        ctx["memory"] = _memory_ctx(mem)
        ctx["findings"] = _findings(checks.audit_book(finals, glossary=mem.glossary,
                                                      chapters={c.id: c.title for c in o.chapters}, language=cfg.language))
        inputs = book.scanner.book_input_hashes("audit")
        return Gathered(ctx | (extra or {}), inputs)

    assert ch is not None and o is not None
    chap = o.by_id[ch]
    ctx["chapter"] = chap.entry()
    visible = o.visible(ch)
    mem = long_memory(book, visible)
    ctx["memory"] = _memory_ctx(mem)
    inputs = book.scanner.input_hashes(ch, step)
    body = lambda k: read_body(book.root, STEPS[k].file(ch))  # noqa: E731
    if step in ("research", "r1"):
        ctx["sources"] = bounded_sources({p: read_text(src_dir, p) for p in chap.sources})
    if step == "research":
        ctx["imports_from"] = _covered_elsewhere(o, ch)
    if step in ("r1", "r2", "r3", "review", "panel", "memory", "final"):
        ctx["draft"] = body("draft")
    if step == "draft":
        ctx["research"] = body("research")
    chapter_titles = {c.id: c.title for c in o.chapters}
    if step == "r1":
        found, verified = checks.check_code(ctx["draft"], src_dir)
        ctx["findings"] = _findings(found)
        ctx["verified_blocks"] = [b.file for b in verified]
    elif step == "r2":
        ctx["findings"] = _findings(checks.check_consistency(
            ctx["draft"], ch, glossary=mem.glossary, chapters=chapter_titles, metaphors=mem.metaphors))
    elif step == "r3":
        ctx["findings"] = _findings(checks.check_structure(ctx["draft"], language=cfg.language))
    elif step == "review":
        for k in ("r1", "r2", "r3"):
            ctx[k] = body(k)
        fs = [f for k in ("r1", "r2", "r3") for f in checks.parse_findings(section(ctx[k], "Findings"))]
        ctx["findings"] = _findings(fs)
        ctx["blocked"] = checks.blocking(fs)
    elif step == "panel":
        ctx["review"] = body("review")
    elif step == "final":
        ctx["review"] = body("review")
        ctx["panel"] = body("panel")
    return Gathered(ctx | (extra or {}), inputs)


SOURCE_CHARS = 400_000  # ~115k tokens: a chapter's sources must leave room in the context window


def bounded_sources(files: dict[str, str], limit: int = SOURCE_CHARS) -> dict[str, str]:
    """A chapter's source files for a prompt, whole while they fit; past the limit each further
    file is cut to its first lines, with a note saying so (R1's checks still read the files)."""
    out, used = {}, 0
    for path, text in files.items():
        if used + len(text) > limit:
            lines = text.splitlines()
            head = "\n".join(lines[:120])
            text = f"{head}\n# … {len(lines) - 120} more lines not shown: the chapter's sources are too long for one prompt\n" \
                if len(lines) > 120 else text
        out[path] = text
        used += len(text)
    return out


def bounded_finals(finals: dict[str, str], limit: int = SOURCE_CHARS) -> dict[str, str]:
    """The whole book for the auditor while it fits one prompt; past the limit each chapter is
    reduced to its headings and the first line of each paragraph (the deterministic audit has
    already read every line)."""
    if sum(len(t) for t in finals.values()) <= limit:
        return finals
    out = {}
    for ch, text in finals.items():
        keep, prev_blank, fence = [], True, False
        for line in text.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
                continue
            if fence:
                continue
            if line.startswith("#") or (prev_blank and line.strip()):
                keep.append(line)
            prev_blank = not line.strip()
        out[ch] = "\n".join(keep) + "\n(condensed: headings and the first line of each paragraph)\n"
    return out


def _memory_ctx(mem: memoryfiles.LongMemory) -> dict[str, Any]:
    return {"glossary": [list(e) for e in mem.glossary_entries()],
            "summaries": [[m.chapter, m.title, m.summary] for m in mem.chapters],
            "metaphors": [[p, w, m.chapter] for m in mem.chapters for p, w in m.metaphors]}


def _findings(fs) -> list[dict[str, Any]]:
    return [{"check": f.check, "severity": f.severity, "line": f.line, "message": f.message,
             **({"chapter": f.chapter} if getattr(f, "chapter", None) else {})} for f in fs]


def _covered_elsewhere(o: outline_mod.Outline, ch: str) -> dict[str, str]:
    """source path -> the other chapter that covers it (for the researcher's relations)."""
    out = {}
    for c in o.chapters:
        if c.id != ch:
            for s in c.sources:
                out.setdefault(s, c.id)
    return out


def section(md: str, title: str) -> str:
    """The text under `## title` (any case) up to the next `## ` heading."""
    lines, on = [], False
    for line in md.splitlines():
        if line.startswith("## "):
            on = line[3:].strip().lower() == title.lower()
            continue
        if on:
            lines.append(line)
    return "\n".join(lines)


def findings_in(md: str) -> list:
    return checks.parse_findings(section(md, "Findings"))


# ---------------------------------------------------------------- prompts

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
    shared, system, prompt = render_parts(book.root, role, g.context)
    return Request(role=role, step=step, chapter=ch, shared=shared, system=system, prompt=prompt, context=g.context,
                   model=book.cfg.model_for(role),
                   max_tokens=book.cfg.max_tokens.get(role, ROLE_MAX_TOKENS.get(role, 8000)))


# ---------------------------------------------------------------- validation


def _h1_count(md: str) -> int:
    n, fence = 0, None
    for line in md.splitlines():
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is None and line.startswith("# "):
            n += 1
    return n


def _chapter_text(text: str, ctx: dict[str, Any]) -> list[str]:
    errs = []
    h1 = _h1_count(text)
    if h1 != 1:
        errs.append(f"the chapter must have exactly one `# ` title line, found {h1}")
    fs = checks.check_structure(text, language=ctx.get("language", "en"), min_words=50, max_words=50_000)
    errs += [f"line {f.line}: {f.message}" for f in fs if f.check == "r3.fence"]
    return errs


def _review(text: str, ctx: dict[str, Any]) -> list[str]:
    if "## Findings" not in text:
        return ["a review needs a `## Findings` section listing findings as "
                "`- **severity** `check` line N: message` (or `- none`)"]
    return []


def _merged(text: str, ctx: dict[str, Any]) -> list[str]:
    errs = _review(text, ctx)
    if not any(line.lower().startswith("verdict:") for line in text.splitlines()):
        errs.append("the merged review needs a `Verdict: clean` or `Verdict: blocked` line")
    return errs


def _memory(text: str, ctx: dict[str, Any]) -> list[str]:
    miss = memoryfiles.missing_sections(text)
    return [f"the memory file lacks the section(s): {', '.join('## ' + m for m in miss)}"] if miss else []


def _headed(text: str, ctx: dict[str, Any]) -> list[str]:
    return [] if text.lstrip().startswith("# ") else ["the answer must start with a `# ` title line"]


def _outline(text: str, ctx: dict[str, Any]) -> list[str]:
    try:
        outline_mod.parse(text, "the planner's answer", ctx.get("_source_dir"))
    except ConfigError as e:
        return [str(e)]
    return []


VALIDATORS: dict[str, Callable[[str, dict[str, Any]], list[str]]] = {
    "outline": _outline, "research": _headed, "draft": _chapter_text, "r1": _review, "r2": _review, "r3": _review,
    "review": _merged, "panel": _headed, "memory": _memory, "final": _chapter_text, "audit": _review,
}


def clean_and_validate(step: str, text: str, ctx: dict[str, Any]) -> str:
    """Neutralise marker-like text, then validate; raise ValidationFailed with what to fix."""
    text = neutralise(text).strip()
    if not text:
        raise ValidationFailed("the answer was empty")
    errs = VALIDATORS[step](text, ctx)
    if errs:
        raise ValidationFailed("; ".join(errs))
    return text + "\n"
