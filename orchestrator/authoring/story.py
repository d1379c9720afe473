"""The book's shape and a chapter's story (issue 23), for the offline writer.

The book: Part 1, the big picture (chapter 1), then the parts in the order a newcomer
explores: using the project (chapters holding what the README's code writes), inside it (the
machinery those chapters lead to), and foundations and utilities (what several chapters lean
on) last. Parts are contiguous: a chapter's part is never before its predecessor's.

A chapter: its key symbols walked in the order the work flows (a caller before the code it
calls, only calls the map resolves), each chain of calls one section; the rest in one section
beside the main path; per-symbol detail (kind, place, users, summary) in a compact reference
table; and a closing that says what the reader can now do. Every sentence here is built from
facts of the map (facts.py), in en and zh."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..evidence.cite import citation_link
from ..text import docstrings
from . import facts
from .codetext import mask_text
from .commands import command_call
from .example_run import exported_fetch, ghost_call, invoked_call, made_by, made_fn, package_made, served_by
from .example_setup import setup_path
from .handoff import handed_to
from .hops import hop_between
from .made_members import made_members
from .mainpath import central_path, handed_out
from .overview import Example, entry_points, example_of
from .parts import architecture_diagram
from .path_steps import prepared, sequence_diagram
from .phrases import audience_in, kind_name
from .project import Project, Sym, project_name
from .purpose import purpose
from .story_phrases import ZH, phrases
from .tracing import (
    alias_line,
    call_line,
    imported_as,
    longest_call_path,
    name_line,
    step_cites,
    unresolved_tail,
)
from .write_cites import cite_of, cited_item

PARTS = ("overview", "using", "inside", "foundations")


# ---------------------------------------------------------------- the book's parts

def chapter_parts(p: Project, chapters: list[dict[str, Any]]) -> list[str]:
    """Each chapter's part (PARTS), contiguous in reading order: the first chapter is the big
    picture; a chapter holding names the README's code writes (or the root file) is about using
    the project; one that two or more chapters depend on, or made only of utility modules, is a
    foundation; the rest is inside. A chapter's part is never before its predecessor's."""
    from .entry import entry_scores

    groups = [[f for f in (c.get("sources") or []) if f in p.map.files] for c in chapters]
    entry = entry_scores(p, groups) if groups else []
    leaned: dict[str, int] = {}
    for c in chapters:
        for d in c.get("depends_on") or []:
            leaned[str(d)] = leaned.get(str(d), 0) + 1
    out: list[str] = []
    level = 0
    for k, c in enumerate(chapters):
        if k == 0:
            out.append("overview")
            continue
        if entry[k] > 0:
            want = 1
        elif leaned.get(str(c.get("id")), 0) >= 2 or _utility(groups[k]):
            want = 3
        else:
            want = 2
        level = max(level, want)
        out.append(PARTS[level])
    return out


_UTIL_WORDS = re.compile(r"(?i)(?:^|/|_)(?:util|utils|helpers?|compat|common|internal|support|misc|_?private)")


def _utility(files: list[str]) -> bool:
    return bool(files) and all(_UTIL_WORDS.search(f) for f in files)


def part_groups(p: Project, chapters: list[dict[str, Any]], lang: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """The book's parts, (title, chapters) in reading order: the outline's, when its chapters
    carry their part's title (`part`); else the planner's shape (chapter_parts), titled in the
    book's language."""
    if chapters and all(c.get("part") for c in chapters):
        groups: dict[str, list[dict[str, Any]]] = {}
        for c in chapters:
            groups.setdefault(str(c["part"]), []).append(c)
        return list(groups.items())
    s = phrases(lang)
    name = project_name(p.root)
    parts = chapter_parts(p, chapters)
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for key in PARTS:
        members = [c for c, pt in zip(chapters, parts) if pt == key]
        if members:
            out.append((s["part_" + key].format(name=name), members))
    return out


def part_lines(p: Project, chapters: list[dict[str, Any]], lang: str) -> list[str]:
    """The overview's list of parts: `- **Part k, Title**: chapters`."""
    s = phrases(lang)
    out: list[str] = []
    for k, (title, members) in enumerate(part_groups(p, chapters, lang), 1):
        # (chapter 1, where this list is, is named, not linked)
        links = ("、" if s is ZH else ", ").join(f"[{c.get('title')}]({c.get('id')}.md)" if c is not chapters[0]
                                                else str(c.get("title")) for c in members)
        out.append(s["ov_part_line"].format(k=k, part=title, chapters=links))
    return out


# ---------------------------------------------------------------- Part 1: the big picture

def overview_sections(ctx: dict[str, Any], p: Project, chapters: list[dict[str, Any]], lang: str) -> list[str]:
    """The big-picture sections of chapter 1 (see overview.py for where each fact comes from)."""
    from .research import _quote

    s = phrases(lang)
    name = project_name(p.root)
    # (a step or an entry point of chapter 1's own files links nowhere: the reader is already here)
    own = str(chapters[0].get("id")) if chapters else ""
    here = {f: (str(c.get("id")), str(c.get("title"))) for c in chapters for f in (c.get("sources") or [])
            if str(c.get("id")) != own}
    mine = {f for c in chapters[:1] for f in (c.get("sources") or [])}
    entries = entry_points(p)
    out: list[str] = []
    said = purpose(p)
    if said:  # no README: no section (an empty heading says nothing)
        rel, line, text = said
        out += [f"## {s['ov_for'].format(name=name)}", "", s["ov_own_words"].format(file=rel, line=line), "",
                _quote(text), ""]
    ex = example_of(p, entries)
    out += [f"## {s['ov_example']}", ""] + _example_block(ex, entries, s, name)
    if entries:
        out += [f"## {s['ov_entries']}", "", s["ov_entries_intro"], "", s["ov_table_head"]]
        for e in entries:
            ch = here.get(e.rel)
            where = f"[{ch[1]}]({ch[0]}.md)" if ch else s["ov_here"] if e.rel in mine else "—"
            out.append(f"| `{e.name}` | {kind_name(e.kind, _t(lang))} | `{e.rel}` | {where} |")
        out.append("")
    out += [f"## {s['ov_arch']}", ""]
    diagram = architecture_diagram(p, chapters)  # DIAGRAM SLOT: '' until orchestrator/diagrams is wired
    if diagram:
        out += [diagram, ""]
    lines = part_lines(p, chapters, lang)
    out += [s["ov_arch_intro" if len(lines) != 1 else "ov_arch_one"].format(n=len(lines)), ""] + lines + [""]  # (not "1 parts")
    path = central_path(p, entries)
    setup = setup_path(p, entries, path)
    if setup:  # what the example sets up first (`router.GET(…)`), then the call that runs it
        # (one call that makes what the run runs, okhttp's `client.newCall(request)`: no steps to list)
        at = {"first": setup[0].name, "file": setup[0].rel, "line": setup[0].d.start_line}
        setup_intro = s["ov_path_setup" if len(setup) > 1 else "ov_path_setup_one"].format(**at)
        if made := package_made(p, setup[0]):  # the package made it, not the example: its line, then the constructor's
            setup_intro = cited_item(s["ov_path_setup_package"].format(var=made[0], cls=made[1], index=made[2], at=made[3]),
                                     f" ({citation_link(made[2], made[3], made[3])})") + ("" if lang == "zh" else " ") + \
                s["ov_path_setup_package2"].format(**at)
        out += [f"## {s['ov_path']}", "", setup_intro, ""] + _steps(p, setup, here, lang) + [""]
    else:
        out += [f"## {s['ov_path']}", ""]
    out += _path_walk(p, path, here, lang, after_setup=bool(setup)) or _docs_walk(ex, s)
    seq = sequence_diagram(p, path)  # DIAGRAM SLOT
    if seq:
        out += [seq, ""]
    return out


def overview_lead(ctx: dict[str, Any], p: Project, key: list[Sym], lang: str) -> list[str]:
    s = phrases(lang)
    names = _join([f"`{x.name}`" for x in key[:3]], s) or "—"
    name = project_name(p.root)
    lead = s["ov_lead"].format(name=name, audience=audience_in(ctx["book"]["audience"], lang), names=names)
    said = purpose(p)
    if said and lang != "zh":  # the project's own first sentence opens the book (a zh book quotes it below)
        first = re.split(r"(?<=[.!?])\s+", " ".join(said[2].split()), maxsplit=1)[0]
        lead = s["ov_said"].format(name=name, said=first.replace("“", "\"").replace("”", "\"")) + " " + lead
    return [lead, ""]


def _t(lang: str) -> dict[str, str]:
    from .phrases import phrases as base

    return base(lang)


def _example_block(ex: Example | None, entries: list[Sym], s: dict[str, str], name: str) -> list[str]:
    if ex is None:
        return [s["ov_no_example"], ""]
    name_of = ex.rel
    info = f"{ex.lang} file={ex.source_rel} lines={ex.first}-{ex.last}" if ex.source_rel else ex.lang
    out = [s["ov_example_test" if ex.from_tests else "ov_example_from"].format(name=name, file=name_of, a=ex.first, b=ex.last),
           "", docstrings.fence(ex.code, info), ""]
    # (a word of a string or a comment is no name it writes: whenever's "raw cron syntax")
    code = re.sub(r"(?m)#.*$" if ex.lang in ("ruby", "python", "elixir") else r"(?m)//.*$", "", mask_text(ex.code, ex.lang))
    written = [e for e in entries if re.search(rf"(?<![\w$]){re.escape(e.short)}(?![\w$])", code)]
    if written:
        key = "ov_example_names" if len(written) > 1 else "ov_example_name"
        out += [s[key].format(names=_join([f"`{e.name}`" for e in written], s)), ""]
    if ex.then is not None:  # the block that runs what the example set up
        t = ex.then
        info = f"{t.lang} file={t.source_rel} lines={t.first}-{t.last}" if t.source_rel else t.lang
        key = "ov_example_then" if t.rel == ex.rel else "ov_example_command"  # (or the project's command: whenever's)
        out += [s[key].format(file=t.rel, a=t.first, b=t.last, command=posixpath.splitext(posixpath.basename(t.rel))[0]), "",
                docstrings.fence(t.code, info), ""]
    return out


def _join(items: list[str], s: dict[str, str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    sep, last = ("、", " 与 ") if s is ZH else (", ", " and ")
    return sep.join(items[:-1]) + last + items[-1]


def _path_walk(p: Project, path: list[Sym], here: dict[str, tuple[str, str]], lang: str, after_setup: bool = False) -> list[str]:
    s = phrases(lang)
    lead = s["ov_path_then" if after_setup else "ov_path_lead"]
    if not path:
        return []
    first = path[0]
    if len(path) < 2:
        return [s["ov_path_none"].format(first=first.name, file=first.rel, line=first.d.start_line), ""]
    made = made_by(p, first)
    server = served_by(p, first)
    fetched = exported_fetch(p, first)
    fn = made_fn(p, first)
    at = {"lead": lead, "first": first.name, "file": first.rel, "line": first.d.start_line}
    if fn:
        intro = s["ov_path_made_fn"].format(entry=fn[0], maker=fn[1].name, **at)
    elif fetched:
        intro = s["ov_path_fetch"].format(type=fetched, **at)
    elif made:
        intro = s["ov_path_served" if server else "ov_path_made"].format(entry=made[0].name, type=made[1].name, server=server, **at)
    elif called := command_call(p, first):  # (whenever's `bin/whenever`: `Whenever::CommandLine.execute(options)`)
        intro = s["ov_path_command"].format(script=called[0], at=called[1], **at)
    elif invoked_call(p, first):  # (konform's `validateUser(invalidUser)`)
        intro = s["ov_path_invoked"].format(**at)
    elif (ghost := ghost_call(p, first)) and (members := made_members(p, first.dotted.rsplit(".", 1)[0])):
        intro = s["ov_path_made_member" if members[0] is not members[1] else "ov_path_bound_member"].format(call=ghost, type=first.dotted.rsplit(".", 1)[0], maker=members[0].name,
                                                made_at=members[2], **at)  # (consola's `consola.info(…)`: `_wrapLogFn` made it)
    elif ghost:  # (pastel's `pastel.red(…)`, answered by `Delegator#method_missing`)
        intro = s["ov_path_missing"].format(call=ghost, type=first.name.rsplit("::", 1)[0] if "::" in first.name
                                            else first.dotted.rsplit(".", 1)[0], **at)
    elif p._keys.get(("looped",)) == (first.rel, first.d.start_line):
        intro = s["ov_path_looped"].format(type=first.dotted.rsplit(".", 1)[0], **at)
    else:
        intro = s["ov_path_intro"].format(**at)
    # (of overloads, Kotlin's two `Validation.invoke`, cited by the lines of the one the path starts from)
    overloaded = sum(1 for x in p.find(first.short) if x.dotted == first.dotted) > 1
    out = [cited_item(intro, cite_of(first)) if overloaded else intro, ""] + _steps(p, path, here, lang) + [""]
    # where the map lost the way (a short path), or the work goes on in an object it cannot follow
    beyond = handed_out(p, path[-1]) or (unresolved_tail(p, path[-1]) if len(path) < 4 else None)
    if beyond:
        out += [s["ov_path_beyond"].format(last=path[-1].name, call=beyond[0], at=beyond[1]), ""]
    return out + [s["ov_path_end"], ""]


def _steps(p: Project, path: list[Sym], here: dict[str, tuple[str, str]], lang: str) -> list[str]:
    """The numbered steps of a path, each "`a` calls `b`" (or a convention's hop) with its lines."""
    s, t = phrases(lang), _t(lang)
    out: list[str] = []
    for k, (a, b) in enumerate(zip(path, path[1:]), 1):
        ch = here.get(b.rel)
        where = s["ov_path_where"].format(title=ch[1], ch=ch[0]) if ch else ""
        hop = hop_between(p, a, b)
        at = hop.at if hop is not None else call_line(p, a, b)
        if hop is not None and hop.how == "returned":  # body-parser's `return function jsonParser (…)`
            step = s["ov_path_returned"].format(k=k, caller=a.name, callee=b.name, kind=kind_name(b.kind, t), at=at, where=where)
        elif hop is not None and not hop.named:  # a convention's step: what the line calls is not `b` itself
            why = s["hop_" + hop.how].format(short=b.short, via=hop.via, type=_owner_name(b), tie_file=hop.tie[0] if hop.tie else "",
                                              tie=hop.tie[1] if hop.tie else 0)
            step = s["ov_path_hop"].format(k=k, caller=a.name, callee=b.name, via=hop.via, at=at, why=why,
                                           kind=kind_name(b.kind, t), file=b.rel, line=b.d.start_line, where=where)
        else:
            # the steps say the same thing three ways, so that six steps read as a walk, not a form; "hands it the work"
            # only where the body does (handoff.handed_to), never as a fourth way of saying "calls"
            handed = handed_to(p, a) == (b.rel, b.d.start_line)
            key = ("ov_path_step_at2" if handed else ("ov_path_step_at", "ov_path_step_at3", "ov_path_step_at4")[(k - 1) % 3]) \
                if at else "ov_path_step"
            # (by the name the line calls it: multer's `memoryStorage()` for storage/memory.js's unnamed export)
            step = s[key].format(k=k, caller=a.name, callee=imported_as(p, b, a.rel, at) or b.name, kind=kind_name(b.kind, t),
                                 at=at, file=b.rel, line=b.d.start_line, where=where)
        mix = _mixin(p, a, b, at) if hop is None and b.lang == "ruby" and at else None
        if mix:  # the line writes `Basement.get`: say where `Basement` has that `get` from, and cite it
            step = cited_item(step, s["ov_path_mixin"].format(cls=mix[0], mod=mix[1], text=mix[4], file=mix[2], line=mix[3]))
        tie = hop.tie if hop is not None else (mix[2], mix[3]) if mix else alias_line(p, b, a.rel, at)
        # (and the hook's line that names the module: `base.extend ClassMethods`)
        hooked = "".join(f" ({citation_link(f, n, n)})" for f, n in mix[5]) if mix else ""
        if hop is not None and hop.how in ("default", "registry", "implemented", "platform", "made", "handed", "plain"):  # (and the type's name
            impl = next((t for t in p.find(b.dotted.rsplit(".", 2)[-2]) if t.dotted == b.dotted.rsplit(".", 1)[0]), None)
            if impl is not None and (impl.rel, name_line(p, impl)) != hop.tie:  # klaxon's `class DefaultConverter(…) : Converter {`)
                hooked += f" ({citation_link(impl.rel, name_line(p, impl), name_line(p, impl))})"
            # (and the declaring type's head, which the step names: jayway's `public interface JsonProvider {`, which
            # `JsonSmartJsonProvider` implements only through `AbstractJsonProvider`)
            decl = next((t for t in p.find(a.dotted.rsplit(".", 2)[-2]) if t.dotted == a.dotted.rsplit(".", 1)[0]), None) if "." in a.dotted else None
            if decl is not None and hop.how != "implemented" and (decl.rel, name_line(p, decl)) != hop.tie:
                hooked += f" ({citation_link(decl.rel, name_line(p, decl), name_line(p, decl))})"
        item = cited_item(step, step_cites(a, b, at, tie, (name_line(p, a), name_line(p, b))) + hooked)  # (before the stop)
        prep = prepared(p, a, b, at, path) if at else None
        if prep is not None:  # the work the caller does before it hands on (`gatherInfo`, then `processField`)
            c, line = prep
            said = s[("ov_path_before", "ov_path_before2", "ov_path_before3")[(k - 1) % 3]].format(
                pat=line, prep=imported_as(p, c, a.rel, line) or c.name, file=c.rel, line=c.d.start_line)
            item += ("" if lang == "zh" else " ") + cited_item(said, f" ({citation_link(a.rel, line, line)})"
                                           f" ({citation_link(c.rel, c.d.start_line, min(c.d.end_line, max(c.d.start_line + 2, name_line(p, c))))})")
        out.append(item)
    return out


def _mixin(p: Project, a: Sym, b: Sym, at: int) -> tuple[str, str, str, int, str, list[tuple[str, int]]] | None:
    """(class, module, file, line, text, the hook's lines) when line `at` of Ruby method `a` calls `b` on a
    class that has `b` from a module it mixes in (`Basement.get` runs `HTTParty::ClassMethods#get`)."""
    from .codeinfo import _sym_index
    from .ruby_mixins import constant, hook_lines, mixin_line

    text = p.lines_of(a.rel)[at - 1] if 0 < at <= len(p.lines_of(a.rel)) else ""
    m = re.search(rf"([A-Z][\w:]*)\s*\.\s*{re.escape(b.short)}(?![\w!?])", text)
    by_dotted = _sym_index(p)[0]
    cls = constant(by_dotted, a.dotted.split(".")[:-1], m.group(1)) if m else ""
    mod = b.dotted.rsplit(".", 1)[0] if "." in b.dotted else ""
    found = mixin_line(p, by_dotted, cls, mod) if cls and mod and cls != mod else None
    if not (m and found):
        return None
    mixed = found[3]  # the module the line names: `mod` itself, or one whose hook adds `mod`
    hooks = [(f, n) for d, f, n in hook_lines(p, by_dotted, mixed) if d == mod] if mixed != mod else []
    return m.group(1), mod.replace(".", "::"), found[0], found[1], found[2], hooks


def _owner_name(b: Sym) -> str:
    return re.split(r"\.|::", b.name)[-2] if re.search(r"\.|::", b.name) else b.name


def _docs_walk(ex: Example | None, s: dict[str, str]) -> list[str]:
    """When the map resolves no call from where a user comes in (generic code, a macro-built API):
    the way the first example's calls go, as the docs show it, and a plain word that the map
    could not follow it (never an empty section)."""
    if ex is None:
        return [s["ov_path_unknown"], ""]
    calls = list(dict.fromkeys(m.group(1) for m in re.finditer(r"(?<![\w$])([A-Za-z_$][\w$]*(?:::[A-Za-z_]\w*)?)!?\s*\(",
                                                                ex.code)
                               if m.group(1) not in ("if", "for", "while", "return", "match", "print", "println")))[:5]
    if not calls:
        return [s["ov_path_unknown"], ""]
    return [s["ov_path_docs"].format(file=ex.rel, calls=_join([f"`{c}`" for c in calls], s)), ""]


# ---------------------------------------------------------------- a chapter's flow

def flow_chains(p: Project, key: list[Sym]) -> list[list[Sym]]:
    """The key symbols as chains of resolved calls, callers first: a chain starts at a symbol no
    other key symbol calls and follows the calls it makes among the key symbols."""
    names = {s.name: s for s in key}
    calls: dict[str, list[str]] = {}
    for s in key:
        calls[s.name] = [c.name for c in facts.all_calls(p, s) if c.name in names and c.name != s.name]
    # a type's methods belong to its chain: the type leads, its methods follow
    for s in key:
        owner = s.dotted.rsplit(".", 1)[0] if "." in s.dotted else ""
        for o in key:
            if o.dotted == owner and s.name not in calls[o.name]:
                calls[o.name].append(s.name)
    called = {c for cs in calls.values() for c in cs}
    chains: list[list[Sym]] = []
    placed: set[str] = set()
    for s in key:  # rank order: the most important head first
        if s.name in placed or (s.name in called and any(s.name in calls[o] and o not in placed for o in calls)):
            continue
        chain, todo = [], [s.name]
        while todo:
            n = todo.pop(0)
            if n in placed:
                continue
            placed.add(n)
            chain.append(names[n])
            todo += [c for c in calls[n] if c not in placed]
        chains.append(chain)
    for s in key:
        if s.name not in placed:
            chains.append([s])
            placed.add(s.name)
    return chains


def reference_table(p: Project, syms: list[Sym], lang: str, shown: set[str] | None = None) -> list[str]:
    """Per-symbol detail as one table: kind, place, how many files use it (resolved references),
    and its doc's first sentence — left out for the symbols the body has already introduced."""
    s = phrases(lang)
    t = _t(lang)
    out = [f"## {s['reference']}", "", s["ref_head"]]
    for x in syms:
        users = facts.resolved_users(p, x)
        n = len(users)
        used = s["ref_used0"] if not n else (s["ref_used1"] if n == 1 else s["ref_used"].format(n=n))
        pd = docstrings.parse(x.d.doc, x.lang) if x.d.doc and lang != "zh" else docstrings.DocParts()
        summary = s["ref_above"] if shown and x.name in shown else " ".join(pd.summary.split()).replace("|", "\\|")[:160]
        out.append(f"| `{x.name}` | {kind_name(x.kind, t)} | `{x.rel}`:{x.d.start_line} | {used} | {summary} |")
    return out + [""]


def closing(p: Project, key: list[Sym], nxt: dict[str, Any] | None, lang: str, n: int = 0) -> list[str]:
    """What the reader can now do, from the chapter's facts: trace its longest chain, find and
    read its central symbol, know who depends on the most used one, and where to go next; said
    the n-th way (the chapter's number) in English, so that chapters do not close alike."""
    from .variety import vary

    s = phrases(lang)
    t = _t(lang)
    out = [f"## {s['can_now']}", "", vary("can_intro", n, t) if lang != "zh" else s["can_intro"], ""]

    def say(k: str, m: int) -> str:
        return vary(k, m, t) if lang != "zh" else s[k]

    longest = longest_call_path(p, key)
    if len(longest) >= 2:
        via = s["can_via"].format(names=_join([f"`{x.name}`" for x in longest[1:-1]], s)) if len(longest) > 2 else ""
        out.append(say("can_trace", n).format(a=longest[0].name, b=longest[-1].name, via=via))
    if key:
        out.append(say("can_use", n + 1).format(name=key[0].name, file=key[0].rel, kind=kind_name(key[0].kind, t)))
    used = sorted(((len(facts.resolved_users(p, x)), x) for x in key[:6]), key=lambda u: -u[0])
    if used and used[0][0] >= 2:
        out.append(say("can_used", n + 2).format(name=used[0][1].name, n=used[0][0]))
    if nxt:
        out.append(say("can_next", n + 3).format(link=f"[{nxt.get('title')}]({nxt.get('id')}.md)"))
    return out + [""]


def front_matter(p: Project) -> str:
    """The project's front door for the Claude roles that shape Part 1 (the planner, and chapter
    1's researcher and writer): its name, what its README says it is for, its first usage
    example exactly as written (with file and lines), its entry points, and one call's resolved
    path. Markdown; in English (the facts are the source's)."""
    from .research import _quote

    name = project_name(p.root)
    out = [f"Project: **{name}**", ""]
    said = purpose(p)
    if said:
        out += [f"What it is for, from `{said[0]}` (line {said[1]}):", "", _quote(said[2]), ""]
    entries = entry_points(p)
    ex = example_of(p, entries)
    if ex is not None:
        info = f"{ex.lang} file={ex.source_rel} lines={ex.first}-{ex.last}" if ex.source_rel else ex.lang
        where = "inside the source tree: keep its `file=`" if ex.source_rel else \
            "outside the source tree: quote it without `file=`, naming the file and lines in the sentence before it"
        out += [f"Its first usage example, `{ex.rel}` lines {ex.first}-{ex.last} ({where}):", "",
                docstrings.fence(ex.code, info), ""]
        if ex.then is not None:
            t = ex.then
            runs = "The same section then runs what it set up" if t.rel == ex.rel else "The README's command runs it, the project's script"
            out += [f"{runs}, `{t.rel}` lines {t.first}-{t.last}:", "",
                    docstrings.fence(t.code, f"{t.lang} file={t.source_rel} lines={t.first}-{t.last}" if t.source_rel else t.lang), ""]
    if entries:
        out += ["Entry points a user writes first:", ""]
        out += [f"- `{e.name}` ({e.kind}, `{e.rel}` line {name_line(p, e)})" for e in entries] + [""]
    path = central_path(p, entries)
    if len(path) > 1:
        def via(a: Sym, b: Sym) -> str:  # a framework's convention: what the line calls is not `b` itself
            h = hop_between(p, a, b)
            at = h.at if h is not None else call_line(p, a, b)  # the work done before the hand-off (mainpath.prepared)
            prep = prepared(p, a, b, at, path) if at else None
            first = f" (first `{prep[0].name}` (`{prep[0].rel}`:{name_line(p, prep[0])}), at line {prep[1]})" if prep else ""
            return first + (f" → (through `{h.via}`, line {h.at})" if h is not None and not h.named else "")

        out += ["One central call, each step a call the repository map resolves (or a convention it follows):", "",
                f"`{path[0].name}` (`{path[0].rel}`:{name_line(p, path[0])})" + "".join(
                    f"{via(a, b)} → `{b.name}` (`{b.rel}`:{name_line(p, b)})" for a, b in zip(path, path[1:])), ""]
        setup = setup_path(p, entries, path)
        if setup:
            out += ["Before it, the example sets up; the first of those calls goes:", "", " → ".join(
                f"`{x.name}` (`{x.rel}`:{name_line(p, x)})" for x in setup), ""]
        gone = handed_out(p, path[-1])
        if gone:
            out += [f"There the map stops: `{path[-1].name}` goes on with `{gone[0]}(…)` (line {gone[1]}).", ""]
    return "\n".join(out).rstrip() + "\n"
