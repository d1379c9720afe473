"""The offline planner's outline: the chapters of plan.py (groups of files, their order and
batches) with the titles of titles.py and a summary each, rendered as the editable outline."""

from __future__ import annotations

from typing import Any

from ..defaults import DEFAULT_TITLE, LOCALIZED_DEFAULTS
from .phrases import audience_in, phrases
from .plan import MIN_LINES_PER_CHAPTER, batches, fold_peripheral, group_files, key_symbols, order_groups
from .project import Project, project_name
from .titles import make_titles, title_names


def book_title(ctx: dict[str, Any], root: str) -> str:
    title = ctx["book"]["title"]
    if title and title != DEFAULT_TITLE and title not in {d.get("title") for d in LOCALIZED_DEFAULTS.values()}:
        return title
    t = phrases(ctx.get("language", "en"))
    return t["book_title"].format(name=project_name(root))


def overview_title(p: Project, files: list[str], language: str) -> str:
    """Chapter 1's title: the project's name at a glance, with the names a user writes first."""
    from .overview import entry_points
    from .story import phrases as story_phrases

    s = story_phrases(language)
    t = phrases(language)
    names = [e.short for e in entry_points(p, 3) if e.rel in files][:2] or title_names(p, files, 2)
    name = project_name(p.root)
    del names, t  # an idea in either language ("click at a glance", "chi 全景"): the names inside (issue 35)
    return s["ov_title"].format(name=name)


NAME_SHARE = 0.2  # of the chapters after the first, at most this share may be titled by a module's name


def fold_nameless(p: Project, groups: list[list[str]], language: str) -> list[list[str]]:
    """The groups, with those whose only possible title is a module's name (no docs' heading, no
    doc comment, no flow or role says an idea of them) folded into the group they use or serve
    most, the least ranked first, until at most NAME_SHARE of the book's titles name a module
    (issue 35): a module with no idea of its own is a section of the chapter it belongs with."""
    from ..contracts.title_shape import name_title
    from .overview import opening_symbol
    from .plan import group_graph
    from .roles import ROLES

    topics = {r.topic.get(language, r.topic["en"]) for r in ROLES}
    groups = [list(g) for g in groups]
    first = opening_symbol(p)
    own = project_name(p.root)
    rank = p.map.file_rank()
    known = {s.short for s in p.symbols()}  # the code's names, as a reader of the book meets them (`Gson`)
    floor = max(3, (len(groups) + 1) // 2)  # a book keeps at least half its chapters: a section is no chapter's loss
    while len(groups) > 2:
        titles = make_titles(p, groups, language)
        # a role's topic ("Caching" for cache.py) is an idea the book keeps, even where it sounds
        # like the module; the big picture is never folded away
        named = [i for i, (t, g) in enumerate(zip(titles, groups))
                 if name_title(t, g, known, project=own) and t not in topics
                 and not (first is not None and first.rel in g)]
        if not named or len(named) <= NAME_SHARE * (len(groups) - 1):
            break
        # below the floor, only a module too small to be a chapter (koa's 20-line `is-stream.js`) is folded, though
        # the share counts every title that names a module (Cronos' 96-line `CronField.cs` beside `CalendarHelper.cs`)
        if len(groups) <= floor:
            named = [i for i in named if sum(p.size(f) for f in groups[i]) < MIN_LINES_PER_CHAPTER]
            if not named:
                break
        i = min(named, key=lambda k: (sum(rank.get(f, 0.0) for f in groups[k]), k))
        gg = group_graph(p, groups)
        holder = next((k for k, g in enumerate(groups) if first is not None and first.rel in g), None)
        j = max((k for k in range(len(groups)) if k != i and (k != holder or len(groups) == 2)),
                key=lambda k: (gg.get(i, {}).get(k, 0.0) + gg.get(k, {}).get(i, 0.0), -abs(k - i)))
        groups[j] = sorted(groups[j] + groups[i])
        del groups[i]
    return groups


def plan(ctx: dict[str, Any], p: Project) -> str:
    from ..errors import StepFailed
    from ..outline import Chapter, Outline, Part, render as render_outline

    language = ctx.get("language", "en")
    t = phrases(language)
    limits = ctx.get("limits", {})
    max_ch, batch_size = int(limits.get("max_chapters", 12)), max(1, int(limits.get("batch_size", 3)))
    if not p.code_files():
        raise StepFailed(f"the source tree {ctx.get('source_root', '')} has no code files the map can read "
                         "(tests and examples alone are not a subject): point `source:` in book.yaml at the "
                         "code", retryable=False)
    groups = fold_nameless(p, fold_peripheral(p, group_files(p, max_ch)), language)
    order, deps = order_groups(p, groups)
    batch_of = batches(order, deps, batch_size)
    final = sorted(order, key=lambda g: (batch_of[g], order.index(g)))
    width = max(2, len(str(len(final))))
    ids = {g: f"ch{k + 1:0{width}d}" for k, g in enumerate(final)}
    titles = dict(zip(final, make_titles(p, [groups[g] for g in final], language)))
    titles[final[0]] = overview_title(p, groups[final[0]], language)  # Part 1: the big picture
    chapters = []
    for g in final:
        files = groups[g]
        names = [s.short for s in key_symbols(p, files, 3)]
        shown = [f"`{n}`" for n in names]
        listed = (t["comma"].join(shown[:-1]) + t["and"] + shown[-1]) if len(shown) > 1 else "".join(shown)
        summary = t["ch_summary"].format(names=listed or t["these_files"],
                                      n=len(files), files=", ".join(f"`{f}`" for f in files[:3])
                                      + (t["and_more"].format(n=len(files) - 3) if len(files) > 3 else ""))
        dep_ids = tuple(sorted(ids[d] for d in deps[g]))
        chapters.append(Chapter(ids[g], titles[g], batch_of[g], summary, dep_ids, tuple(files)))
    from .story import part_groups

    book = ctx["book"]
    # the parts: Part 1 the big picture, then using the project, inside it, foundations last
    shape = part_groups(p, [{"id": c.id, "title": c.title, "sources": list(c.sources),
                             "depends_on": list(c.depends_on)} for c in chapters], language)
    parts = tuple(Part(title, tuple(str(c["id"]) for c in members)) for title, members in shape)
    o = Outline(book_title(ctx, str(p.root)), tuple(chapters), parts=parts)
    intro = t["outline_intro"].format(src=ctx.get("source_name", p.root.name),
                                      audience=audience_in(book["audience"], language),
                                      brief=audience_in(book["brief"], language),  # a person's English, quoted
                                      n=len(chapters), b=len({c.batch for c in chapters}))
    return render_outline(o, intro + ("" if language == "zh" else " ") + t["outline_parts"].format(k=len(parts)))
