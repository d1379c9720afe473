"""What each model step reads: the context its prompt is rendered from, and the input hashes
recorded in its marker. The step registry says what a step includes (earlier steps' bodies,
its sources, a deterministic check); this module gathers it.

The context dict is the contract between the orchestrator, the prompt templates and the
offline provider; its keys, per role, are typed in `contexts.py` (a test holds `gather` to them)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .. import checks, outline as outline_mod
from ..contracts.parse import parse_review
from ..state import memory as memoryfiles
from ..state.memory import long_memory, read_body
from ..state.ready import complete_finals
from ..steps import (
    ALL_STEPS,
    BOOK_STEPS,
    DRAFT,
    FINAL,
    MEMORY,
    RESEARCH,
    REVIEWERS,
    STATE_DB,
    STEPS,
    STYLE_GUIDE,
)
from . import packing, source_context
from .memory_budget import bounded_memory, budget_for
from .source_context import SOURCE_CHARS


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
    spec, style = ALL_STEPS[step], BOOK_STEPS[STYLE_GUIDE]
    ctx: dict[str, Any] = {
        "book": {"title": (o.title if o and o.title else cfg.title), "language": cfg.language,
                 "audience": cfg.audience, "brief": cfg.brief},
        "language": cfg.language,
        "personas": list(cfg.personas),
        STYLE_GUIDE: read_body(book.root, style.path) if spec.phase > style.phase else "",
        "chapters": _chapter_rows(book, o),
        "outline_yaml": o.to_yaml() if o else "",
    }
    inputs: dict[str, str | None] = {}
    src_dir = cfg.source_dir
    # the offline authors read the tree themselves (safe walker, repository map cached in state.db)
    ctx["source_root"], ctx["state_db"] = str(src_dir), str(book.root / STATE_DB)
    # issue 23: the planner and chapter 1's roles see the project's front door (README, first example)
    first = not spec.chapter or bool(o and o.chapters and o.chapters[0].id == ch)
    ctx["project_front"] = _front(book) if first and spec.role in ("planner", "researcher", "writer") else ""
    if not spec.chapter and spec.sources:  # the planner reads the listing and the ranked map
        ctx |= source_context.planner_context(_project(book),
                                              source_context.map_limit_for(cfg, spec.role, spec.max_tokens))
        ctx["limits"] = {"max_chapters": cfg.max_chapters, "batch_size": cfg.batch_size}
        return Gathered(ctx | (extra or {}), inputs)
    if not spec.chapter:  # the auditor reads the whole book
        assert o is not None

        # a partial book: the audit reads the chapters whose final is complete, approved or not
        # (an approval changes what a reader sees, not the text: no paid audit per decision)
        finals = {ch: read_body(book.root, STEPS[FINAL].file(ch)) for ch in complete_finals(book.scanner)}
        mem = long_memory(book, [c.id for c in o.chapters])
        ctx["finals"] = bounded_finals(finals, source_context.source_limit_for(cfg, spec.role, spec.max_tokens))
        ctx[MEMORY] = _memory_ctx(mem)
        ctx["findings"] = _findings(checks.audit_book(finals, glossary=mem.glossary,
                                                      chapters={c.id: c.title for c in o.chapters}, language=cfg.language))
        from .quality_context import figures  # measured before the inputs are read: they are its `quality`

        ctx["quality"] = figures(book, lambda: (_project(book).map, _source_index(book))).as_dict()
        inputs = book.scanner.book_input_hashes(step)
        return Gathered(ctx | (extra or {}), inputs)

    assert ch is not None and o is not None
    chap = o.by_id[ch]
    ctx["chapter"] = chap.entry()
    mem = long_memory(book, _visible(book, o, ch))
    inputs = book.scanner.input_hashes(ch, step)
    if spec.sources:
        ctx |= source_context.chapter_context(_project(book), list(chap.sources), related=step == RESEARCH,
                                              limit=source_context.source_limit_for(cfg, spec.role, spec.max_tokens),
                                              need=packing.entry_text(chap.entry()))
    if not spec.needs:  # the first step of a chapter relates it to the others
        ctx["imports_from"] = _covered_elsewhere(o, ch)
    for k in spec.context:  # earlier steps' answers, under their step keys
        ctx[k] = read_body(book.root, STEPS[k].file(ch))
    if step == DRAFT:  # the writer sees the lines the report cites, numbered
        from .cited_lines import cited_lines

        room = source_context.source_limit_for(cfg, spec.role, spec.max_tokens) // 4
        ctx["cited_lines"] = cited_lines(cfg.source_dir, ctx.get(RESEARCH) or "", room)
    # what long memory the prompt carries: the chapter's own, within the role's token budget
    texts = [chap.title, chap.summary, *(ctx.get("sources") or {}).values(), *(ctx.get(k, "") for k in spec.context)]
    ctx[MEMORY], ctx["memory_note"] = bounded_memory(mem, chap, texts, spec.role,
                                                     budget_for(cfg, spec.role, spec.max_tokens))
    ctx["memory_bounded"] = True
    if spec.checks:
        ctx |= _checked(spec.checks, ctx, book, ch, mem)  # the checks read the whole memory
    if step == FINAL:  # the final's validation runs R1's code check on it (validation._final_code)
        ctx["_r1_index"] = _source_index(book)
    return Gathered(ctx | (extra or {}), inputs)


def review_findings(book, ch: str) -> list[dict[str, Any]]:
    """The deterministic findings of the chapter's current draft as each reviewer's prompt gets
    them (R1, R2, R3 in order): what `gather` would put in their contexts, without the rest."""
    o = book.scanner.outline
    assert o is not None
    mem = long_memory(book, _visible(book, o, ch))
    ctx = {DRAFT: read_body(book.root, STEPS[DRAFT].file(ch))}
    return [f for k in REVIEWERS for f in _checked(STEPS[k].checks or "", ctx, book, ch, mem)["findings"]]


def reviewer_findings(book, ch: str, key: str) -> list[dict[str, Any]]:
    """One reviewer's deterministic findings of the chapter's current draft (its prompt's)."""
    o = book.scanner.outline
    assert o is not None
    mem = long_memory(book, _visible(book, o, ch))
    ctx = {DRAFT: read_body(book.root, STEPS[DRAFT].file(ch))}
    return _checked(STEPS[key].checks or "", ctx, book, ch, mem)["findings"]


def code_findings(book, ch: str, text: str) -> list[dict[str, Any]]:
    """R1's deterministic findings (code, citations, claims against the map) of a chapter text as
    it stands, at the source as it is now (memoised like R1's own: the same text is checked once)."""
    return _checked("code", {DRAFT: text}, book, ch, memoryfiles.LongMemory())["findings"]


def _checked(kind: str, ctx: dict[str, Any], book, ch: str, mem: memoryfiles.LongMemory) -> dict[str, Any]:
    """The deterministic checks a step's prompt includes, as context keys. Memoised for the run
    (book.memo) by what each check reads: the verdict asks for them again after the reviews."""
    o = book.scanner.outline
    draft = ctx.get(DRAFT, "")
    if kind == "code":
        from ..state.evidence_view import (
            threshold,  # the coverage asked of it: none once a person accepted it
        )

        least = threshold(book, {k: book.scanner.step(ch, k) for k in STEPS})
        key: tuple = ("check", kind, draft, least)
        if key not in book.memo:
            found, verified = checks.check_code(draft, book.cfg.source_dir, index=_source_index(book),
                                                evidence_min=least)
            found = found + checks.check_claims(draft, _claim_facts(book))  # issue 23: claims against the map
            book.memo[key] = {"findings": _findings(found), "verified_blocks": [b.file for b in verified]}
        return _copy(book.memo[key])
    if kind == "consistency":
        titles = _titles(book, o)
        # mem.key names what the glossary and the metaphors were built from (O(1), not O(terms))
        key = ("check", kind, draft, ch, mem.key, titles)
        if key not in book.memo:
            book.memo[key] = {"findings": _findings(checks.check_consistency(
                draft, ch, glossary=mem.glossary, chapters=dict(titles), metaphors=mem.metaphors))}
        return _copy(book.memo[key])
    if kind == "structure":
        first = bool(o and o.chapters and o.chapters[0].id == ch)  # chapter 1: the big picture (issue 23)
        path = _main_path(book) if first else ()
        key = ("check", kind, draft, book.cfg.language, first, path)
        if key not in book.memo:
            book.memo[key] = {"findings": _findings(checks.check_structure(draft, language=book.cfg.language, first=first,
                                                                           path=path))}
        return _copy(book.memo[key])
    if kind == "merge":
        # read strictly: a reviewer's file a person edited into something unreadable names its file and line
        fs = [f for k in REVIEWERS for f in parse_review(ctx[k], file=STEPS[k].file(ch)).review.findings]
        return {"findings": _findings(fs), "blocked": checks.blocking(fs)}
    raise KeyError(f"unknown check kind {kind!r} in the step registry")


def _main_path(book) -> tuple[str, ...]:
    """The names of chapter 1's main path, as the front matter gives them to every writer (issue 35)."""
    if "main_path" not in book.memo:
        from ..authoring.mainpath import central_path
        from ..authoring.overview import entry_points

        p = _project(book)
        book.memo["main_path"] = tuple(s.name for s in central_path(p, entry_points(p)))
    return book.memo["main_path"]


def _front(book) -> str:
    if "project_front" not in book.memo:
        from ..authoring.story import front_matter

        book.memo["project_front"] = front_matter(_project(book))
    return book.memo["project_front"]


def _claim_facts(book):
    """The map's resolved references, for R1's check of claims (once per process and tree)."""
    if "claim_facts" not in book.memo:
        from ..authoring.facts import ClaimFacts
        from ..authoring.handoff import next_steps
        from ..authoring.project import load

        book.memo["claim_facts"] = ClaimFacts(load(book.cfg.source_dir, book.root / STATE_DB), steps=next_steps)
    return book.memo["claim_facts"]


def _per_outline(book, o, name: str, make):
    """`make(o)`, once per outline object (a new outline is a new object: the scanner reloads it)."""
    hit = book.memo.get(("per_outline", name))
    if hit is None or hit[0] is not o:
        hit = book.memo[("per_outline", name)] = (o, make(o))
    return hit[1]


def _chapter_rows(book, o) -> list[dict[str, Any]]:
    """The outline's chapters as the prompts read them: built once per outline; each context gets
    its own list and rows (a context is its caller's to change)."""
    if o is None:
        return []
    rows = _per_outline(book, o, "rows", lambda o: [
        {"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary} for c in o.chapters])
    return [r.copy() for r in rows]


def _titles(book, o) -> tuple[tuple[str, str], ...]:
    return _per_outline(book, o, "titles", lambda o: tuple((c.id, c.title) for c in o.chapters))


def _visible(book, o, ch: str) -> list[str]:
    """o.visible(ch), once per outline and chapter."""
    seen = _per_outline(book, o, "visible", lambda o: {})
    if ch not in seen:
        seen[ch] = o.visible(ch)
    return seen[ch]


def _copy(found: dict[str, list]) -> dict[str, list]:
    """A memoised check's result for one context: its lists are the context's own to change."""
    return {k: [dict(x) if isinstance(x, dict) else x for x in v] for k, v in found.items()}


def _source_index(book):
    """R1's index of the source tree, once per run (a source edited mid-run counts from the next run)."""
    if "r1_index" not in book.memo:
        book.memo["r1_index"] = checks.source_index(book.cfg.source_dir, state_db=book.root / STATE_DB)
    return book.memo["r1_index"]


_LOADING = threading.Lock()  # steps that start together walk the tree once between them


def _project(book):
    """The source tree walked and mapped (once per run: book.memo; stoppable)."""
    with _LOADING:
        if "project" not in book.memo:
            book.memo["project"] = source_context.load_project(
                book.cfg.source_dir, book.root / STATE_DB,
                progress=source_context.progress_printer("reading the source: "))
    return book.memo["project"]


def refresh_quality(book) -> bool:
    """At a run's start, the audit's figures measured again when they may have moved
    (agents.quality_context.refresh), with the map and R1's index of this run."""
    from .quality_context import refresh

    return refresh(book, lambda: (_project(book).map, _source_index(book)))


def warm(book) -> None:
    """Walk and map the source and read its front matter now, off the event loop's thread
    (the runner awaits this in a daemon thread): seconds on a huge tree, during which a stop
    signal must still end the run at once, and `gather` then finds them made."""
    _front(book)


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
    if sum(len(t) for t in out.values()) > limit:  # a small window (issue 27): each chapter's share, cut at a line
        share = max(200, limit // max(1, len(out)))
        out = {ch: (t[:share].rsplit("\n", 1)[0] + "\n(cut to fit the context window)\n") if len(t) > share else t
               for ch, t in out.items()}
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
    out: dict[str, str] = {}
    for c in o.chapters:
        if c.id != ch:
            for s in c.sources:
                out.setdefault(s, c.id)
    return out
