"""The offline writer: a chapter that teaches, built from the research report and the map.

The chapter opens with the problem its code solves and for whom, gives an image only where the
project's docs draw one of its code (never one the book has used), says where the chapter sits among the
others, defines its key terms, then walks through each key symbol: what it is for (its doc
comment, converted, shown once), its code (quoted exactly, with its path), what happens step
by step, its parameters and result, and what it calls (only calls the map resolves). The
tests show it in use; a summary closes. In a Chinese book every sentence the tool writes is
Chinese, and English from the source stays in block quotes."""

from __future__ import annotations

import re
from typing import Any

from .. import diagrams
from ..checks import grammar
from ..steps import MEMORY, RESEARCH
from ..text import docstrings, zh_punct
from . import facts, images, story
from .codeinfo import resolved_calls, signature_parts, steps
from .facts import resolved_users
from .opening import opening
from .phrases import kind_name, lang_name, phrases, result_note, result_sentence, step_sentence, steps_intro
from .plan import key_symbols
from .project import Project, Sym
from .research import _quote, chapter_of_files, outline_chapters, parse_excerpts
from .spine import CONTAINERS
from .variety import seed, steps_prose, vary
from .write_cites import calls_cite, cite_of, cited_item, member_cited, sig_cite


def _section(md: str, title: str) -> str:
    from ..text.markdown import section

    return section(md, title)


def _find_sym(p: Project, rel: str, name: str) -> Sym | None:
    for s in p.symbols(within=[rel]):
        if s.name == name:
            return s
    return None


def _image(ctx: dict[str, Any], p: Project, t: dict[str, str]) -> images.Image | None:
    """This chapter's image, if the project's docs draw one of its code (authoring/images.py).
    The book's chapters are assigned in reading order, each the first free image about it, so
    chapters of one batch (which cannot read each other's memory) never share one; the registry
    of earlier chapters is honoured too."""
    taken = {str(m[0]).lower() for m in ctx.get(MEMORY, {}).get("metaphors", [])}
    me = ctx["chapter"]["id"]
    for c in outline_chapters(ctx) or [ctx["chapter"]]:
        files = [f for f in (c.get("sources") or []) if f in p.map.files]
        about = [str(c.get("title") or "")] + files + [s.short for s in key_symbols(p, files, 4)]
        im = images.chapter_image(p, about, taken, t["lang"])
        if c.get("id") == me:
            return im
        if im is not None:
            taken.add(im.phrase.lower())
    return None


def _term_lines(syms: list[Sym], known: set[str], t: dict[str, str], p: Project | None = None) -> list[str]:
    """Glossary entries for the chapter's key types. An English entry says what the term is,
    from the first sentence of its doc comment; a Chinese one, which cannot carry the English,
    says what the type offers and who uses it (from the map), and quotes the doc's sentence
    below. A type with nothing to say is left to its section (an entry that only says where a
    name is defined teaches nothing)."""
    out = []
    for s in syms:
        if s.kind not in ("class", "struct", "interface", "trait", "enum", "type") or s.short.lower() in known:
            continue
        if "." in s.dotted:
            continue
        if t["lang"] == "zh":
            entry = _zh_term(s, t, p)
            if not entry:
                continue
            out.append(entry)
        else:
            pd = docstrings.parse(s.d.doc, s.lang) if s.d.doc else docstrings.DocParts()
            summary = " ".join(pd.summary.split()).rstrip(".")
            if not summary:
                continue
            # Go's "Mux is a request multiplexer" defines the term as "a request multiplexer"
            summary = re.sub(rf"^(?:The\s+)?{re.escape(s.short)}\s+(?:is|are)\s+(?=\S)", "", summary, flags=re.I)
            out.append(t["term_doc"].format(name=s.short, summary=summary, kind=kind_name(s.kind, t), file=s.rel) + ".")
        out.append("")
        known.add(s.short.lower())
    return out


def _zh_term(s: Sym, t: dict[str, str], p: Project | None) -> str:
    """A Chinese glossary entry from facts: the type's methods (the most important first) and
    how many other files use it, then its doc's first sentence quoted; '' when none is known."""
    facts = []
    if p is not None:
        methods = [m for m in p.symbols(within=[s.rel]) if m.dotted.startswith(s.dotted + ".") and m.kind == "method"
                   and not m.short.startswith("_")]
        if methods:
            facts.append(t["term_methods"].format(n=len(methods), names=join([f"`{m.short}`" for m in methods[:3]], t)))
        users = resolved_users(p, s)
        if users:
            facts.append(t["term_users"].format(n=len(users)))
    pd = docstrings.parse(s.d.doc, s.lang) if s.d.doc else docstrings.DocParts()
    if not facts and not pd.summary:
        return ""
    line = t["term_zh"].format(name=s.short, kind=kind_name(s.kind, t), file=s.rel,
                               facts=("，" + "，".join(facts)) if facts else "") + "。"
    summary = " ".join(pd.summary.split())
    if summary and len(summary) <= 200 and "「" not in summary and "」" not in summary:
        line += t["term_said"].format(summary=summary)  # the source's own words, quoted: what the term is for
    elif summary:
        line += "\n\n" + _quote(pd.summary)
    return line


def shows_use(example: str, name: str) -> bool:
    """A doc comment's example shows the symbol in use when it names it or calls something;
    a sample of output (`2021-03-15 12:05:57`) is not an example of use."""
    if re.search(rf"(?<![\w$]){re.escape(name.lstrip('#'))}(?![\w$])", example):
        return True
    return bool(re.search(r"[A-Za-z_$][\w$]*!?\s*\(|\b(?:import|use|let|const|var|def|fn|func)\b", example))


_TEST_HEAD = re.compile(r"^\s*(?:async\s+)?(?:def\s+(test\w*)|func\s+(Test\w*)|(?:it|test)\s*\(\s*(['\"`])(.+?)\3)")


def enclosing_test(lines: list[str], line: int) -> str:
    """The test (a `def test_…`, Go `func Test…`, or JS `it('…')`/`test('…')`) a line of a test
    file belongs to: the nearest one opening above it, or ''."""
    for i in range(min(line, len(lines)) - 1, -1, -1):
        m = _TEST_HEAD.match(lines[i])
        if m:
            return m.group(1) or m.group(2) or m.group(4)
    return ""


def _params_block(s: Sym, pd: docstrings.DocParts, t: dict[str, str], given: dict[str, str] | None = None,
                  sig_cite: str = "") -> list[str]:
    """Parameters and result as a list: the doc's own descriptions when it has them (quoted in a
    Chinese book), the signature's names and types otherwise. `given`: the lists this chapter has
    given, by the symbol that gave them; an overload documented word for word the same (Dapper's
    forty `Query` overloads) points back to it instead of repeating it."""
    zh = t["lang"] == "zh"
    sig_params, ret = signature_parts(s) if s.kind in ("function", "method", "macro") else ([], "")
    out: list[str] = []
    if pd.params or pd.returns or pd.raises:
        items = docstrings.render_items(pd.params)
        rets = docstrings.render_items(pd.returns)
        raises = docstrings.render_items(pd.raises)
        before = sorted({given[i] for i in items + rets + raises if given is not None and given.get(i, s.name) != s.name})
        if given is not None:  # each description once in the chapter: the others were given above
            for item in items + rets + raises:
                given.setdefault(item, s.name)
            items, rets, raises = ([i for i in xs if given[i] == s.name] for xs in (items, rets, raises))
        names = {x.name.lstrip("*&") for x in sig_params}
        # (cited at the signature only when it shows every name the item gives: "the `String` to send" is the
        # doc's, and the annotator cites the doc)
        items = [cited_item(it, sig_cite) if (m := re.match(r"- `\**([\w$]+)`", it)) and m.group(1) in names
                 and all(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", s.d.signature) for n in re.findall(r"`([^`]+)`", it))
                 else it for it in items]
        body = []
        if items:
            body += [f"**{t['params']}**", ""] + items + [""]
        if rets:
            body += [f"**{t['returns']}**", ""] + rets + [""]
        if raises:
            body += [f"**{t['raises']}**", ""] + raises + [""]
        text = "\n".join(body).strip()
        same = [vary("params_same", seed(s.name, "same"), t).format(name=before[0]), ""] if before else []
        if not text:
            return same
        # (in English the list's bold labels say what it is; a Chinese book says it quotes the doc's English)
        return out + ([t["params_from_doc"], ""] if zh else []) + [_quote(text) if zh else text, ""] + same
    if sig_params:
        # (in English the bold label the doc's own list has: a lead-in sentence for every function, however it is
        # worded, is the form issue 35 counted; a Chinese book keeps its sentence)
        lead = f"**{t['params']}**" if t["lang"] == "en" else \
            vary("params_from_sig_one" if len(sig_params) == 1 else "params_from_sig", seed(s.name), t).format(name=s.short)
        out += [lead, ""]
        for x in sig_params:
            typ = t["param_type"].format(type=x.type) if x.type and "`" not in x.type else ""
            dflt = t["param_default"].format(default=x.default) if x.default and "`" not in x.default else ""
            out.append(f"- `{x.name}`{typ}{dflt}{sig_cite}")
        out.append("")
    if ret and "`" not in ret and t["lang"] == "en":
        note = result_note(ret)
        if note is not None:  # (nothing given back: the signature says so, no line needed)
            out += [f"**{t['returns']}**", "", f"- `{ret.strip()}`{note}{cite_of(s)}", ""]
    elif ret and "`" not in ret:
        said = result_sentence(ret, t)
        if said == t["result_type"].format(ret=ret.strip()):
            said = vary("result_type", seed(s.name, "ret"), t).format(ret=ret.strip())
        out += [said + cite_of(s), ""]
    return out


def _steps_block(code: str, s: Sym, t: dict[str, str]) -> list[str]:
    if getattr(s, "kind", "function") in (*CONTAINERS, "type alias", "impl", "module"):
        return []  # a type's body declares, it does not run: its "steps" would be its doc's example
    from ..evidence.resolve import MAX_SPAN

    if getattr(s, "lines", 0) > MAX_SPAN:
        return []  # no sentence can be checked against so long a body (handlebars' 152-line `JavaScriptCompiler.compile`)
    st = steps(code, s.lang)
    if len(st) < 2:
        return []
    if t["lang"] == "en":  # a walk through the code in joined sentences, not a numbered form (issue 35)
        said = []
        for k, (kind, frag) in enumerate(st, 1):
            if kind in ("try_do", "try_catch"):
                acts, _, handler = frag.partition("\x1f")
                again = "_again" if any(kk in ("try_do", "try_catch") for kk, _ in st[:k - 1]) else ""
                said.append(t["step_" + kind + again].format(codes=join([f"`{a}`" for a in acts.split("\n")], t),
                                                             handler=handler))
                continue
            seen = sum(1 for kk, _ in st[:k - 1] if kk == kind)
            said.append(step_sentence(kind, frag.replace("`", "'"), seen, k == len(st), t))
        return [steps_prose(said, seed(s.name, s.rel)) + cite_of(s), ""]
    out = [steps_intro(s.short, len(st), t), ""]
    for k, (kind, frag) in enumerate(st, 1):
        if kind in ("try_do", "try_catch"):  # the block's actions, and what runs when they fail
            acts, _, handler = frag.partition("\x1f")
            codes = join([f"`{a}`" for a in acts.split("\n")], t)
            again = "_again" if any(kk in ("try_do", "try_catch") for kk, _ in st[:k - 1]) else ""  # a second try
            out.append(f"{k}. " + t["step_" + kind + again].format(codes=codes, handler=handler))
            continue
        seen = sum(1 for kk, _ in st[:k - 1] if kk == kind)
        out.append(f"{k}. " + step_sentence(kind, frag.replace("`", "'"), seen, k == len(st), t))
    return out + [""]


def _calls_block(p: Project, s: Sym, code: str, here: dict[str, tuple[str, str]], me: str, in_chapter: set[str],
                 t: dict[str, str]) -> list[str]:
    calls = resolved_calls(p, s, code)
    if not calls:
        return []
    local = [c for c in calls if c.name in in_chapter]
    inner = [c for c in calls if c.name not in in_chapter and here.get(c.rel, (me,))[0] == me]
    outer = [c for c in calls if here.get(c.rel, (me,))[0] != me]
    parts = []
    n = seed(s.name, "calls")
    if local:
        parts.append(vary("calls_local" if len(local) > 1 else "calls_local1", n, t).format(
            names=join([f"`{c.name}`" for c in local[:4]], t)))
    if inner:
        parts.append(vary("calls_inner", n + 1, t).format(names=join([f"`{c.name}`" for c in inner[:4]], t)))
    by_ch: dict[str, list[Sym]] = {}
    for c in outer:
        by_ch.setdefault(here[c.rel][0], []).append(c)
    for cid, cs in sorted(by_ch.items()):
        parts.append(vary("calls_other", n + 2 + len(parts), t).format(names=join([f"`{c.name}`" for c in cs[:3]], t),
                                                                        ch=cid, title=here[cs[0].rel][1]))
    named = local[:4] + inner[:4] + [c for cs in by_ch.values() for c in cs[:3]]
    text = " ".join(parts) + calls_cite(p, s, named)
    return [text[:1].upper() + text[1:], ""]  # a sentence may open with a name list's code span


def _count(said: dict[str, str], key: str) -> int:
    """How many times the chapter has said `key` so far (kept in its `said` record), and one more."""
    k = int(said.get("\x00" + key, "0"))
    said["\x00" + key] = str(k + 1)
    return k


def _symbol_section(p: Project, s: Sym, code: str, a: int, b: int, lang: str, ctx: dict[str, Any],
                    here: dict[str, tuple[str, str]], in_chapter: set[str], t: dict[str, str],
                    lead: str | None = None, said: dict[str, str] | None = None) -> list[str]:
    """One step of the chapter's walk: what the symbol is for, its code, its steps, parameters,
    notes and resolved calls. `lead`: the sentence that joins it to the step before (the walk's
    sections hold a chain of calls; a symbol no longer gets a heading of its own); `said`: the
    chapter's parameter lists so far (_params_block)."""
    zh = t["lang"] == "zh"
    pd = docstrings.parse(s.d.doc, s.lang) if s.d.doc else docstrings.DocParts()
    out: list[str] = []
    # (the chapter's n-th such sentence, from a place its id chooses: a book of many small chapters said its classes in
    # three of the six ways, six times each, when the way was chosen by each name alone)
    n = seed(s.name, s.rel) if said is None else seed(str(ctx.get("chapter", {}).get("id", ""))) + _count(said, "defined")
    where = lead or vary("defined" if b > a else "defined_line", n, t).format(name=s.name, kind=kind_name(s.kind, t),
                                                                             file=s.rel, a=a, b=b)
    if pd.summary:
        if zh:
            says = t["doc_says_one" if len(pd.blocks) == 1 else "doc_says"]  # a one-line comment is said to be one
            out += [where + says, "", _quote("\n\n".join(docstrings.render_blocks(pd.blocks))), ""]
        else:  # (a lead that cites its own lines keeps them: the doc's words are cited on their own)
            out += [where, "", pd.summary, ""] if "](source:" in where else [where + " " + pd.summary, ""]
            out += [x for blk in docstrings.render_blocks(pd.paragraphs) for x in (blk, "")]
    else:  # no doc comment: the code below speaks (no filler sentence about it)
        out += [where, ""]
    if pd.deprecated:
        out += [(t["deprecated"] + "\n\n" + _quote(pd.deprecated)) if zh else t["deprecated"] + " " + pd.deprecated, ""]
    out += [docstrings.fence(code, f"{lang} file={s.rel} lines={a}-{b}"), ""]
    out += _steps_block(code, s, t)
    out += _params_block(s, pd, t, said, sig_cite(p, s))
    out += _notes_block(pd, t)
    out += _calls_block(p, s, code, here, ctx["chapter"]["id"], in_chapter, t)
    shown = [e for e in pd.examples if shows_use(e.text, s.short)][:MAX_EXAMPLES]
    if shown:
        out += [vary("doc_example", seed(s.name, "example"), t), ""]
        for e in shown:
            out += [docstrings.fence(e.text, e.lang or "text"), ""]
    return out


def _walk(p: Project, syms: list[tuple[Sym, str, int, int, str]], ctx: dict[str, Any],
          here: dict[str, tuple[str, str]], in_chapter: set[str], t: dict[str, str]) -> list[str]:
    """The key symbols in the order the work flows (story.flow_chains): a section per chain of
    resolved calls, a caller before what it calls; the symbols on no chain share one section."""
    st = story.phrases(t["lang"])
    by_name = {x.name: (x, code, a, b, lang) for x, code, a, b, lang in syms}
    chains = story.flow_chains(p, [x for x, *_ in syms])
    said: dict[str, str] = {}  # each parameter list once in the chapter
    out: list[str] = []
    alone: list[Sym] = []
    for k, chain in enumerate(chains):
        if len(chain) == 1 and k > 0:
            alone.append(chain[0])
            continue
        head = chain[0]
        head_form = vary("flow_head", seed(head.name), t) if len(chain) > 1 and t["lang"] == "en" else \
            st["flow_head" if len(chain) > 1 else "flow_head_one"]
        out += [f"## {head_form.format(name=head.short)}", ""]
        if len(chain) > 2 and all(facts.calls(p, u, v.name) for u, v in zip(chain, chain[1:])):
            out += [st["flow_intro"].format(chain=" → ".join(f"`{x.name}`" for x in chain)), ""]
        for j, x in enumerate(chain):
            sym, code, a, b, lang = by_name[x.name]
            lead = None
            if j:  # a call the map resolves, else the type the method belongs to: never a call not made
                caller = next((c for c in chain[:j] if facts.calls(p, c, x.name)), None)
                owner = next((c for c in chain[:j] if x.dotted.startswith(c.dotted + ".")), None)
                if caller is not None:
                    lead = (vary("flow_next", seed(x.name), t) if t["lang"] == "en" else st["flow_next"]).format(caller=caller.name, name=x.name, kind=kind_name(x.kind, t),
                                                  file=x.rel, a=a, b=b)
                elif owner is not None:
                    form = "flow_member_short" if b - a < 5 else "flow_member_also" if any(  # said by its size, or as one more
                        c.dotted.startswith(owner.dotted + ".") for c in chain[:j]) else "flow_member"
                    lead = (vary(form, seed(x.name), t) if t["lang"] == "en" else st[form]).format(name=x.name, owner=owner.name, kind=kind_name(x.kind, t),
                                           file=x.rel, a=a, b=b, n=b - a + 1)
                    lead = member_cited(p, lead, owner, x, a, b)
            out += _symbol_section(p, sym, code, a, b, lang, ctx, here, in_chapter, t, lead=lead, said=said)
    if alone:
        out += [f"## {st['beside']}", ""]
        for x in alone:
            sym, code, a, b, lang = by_name[x.name]
            pd = docstrings.parse(x.d.doc, x.lang) if x.d.doc and t["lang"] != "zh" else docstrings.DocParts()
            summary = (": " + pd.summary) if pd.summary else "."
            line = (vary("beside_line", seed(x.name), t) if t["lang"] == "en" else st["beside_line"]).format(name=x.name, kind=kind_name(x.kind, t), file=x.rel, a=a, b=b, summary=summary)
            out += [line if line.rstrip().endswith((".", "。", "!", "?", ":")) else line + ".", "",
                    docstrings.fence(code, f"{lang} file={x.rel} lines={a}-{b}"), ""]
            out += _calls_block(p, x, code, here, ctx["chapter"]["id"], in_chapter, t)
    return out


MAX_EXAMPLES = 3  # a doc comment's examples of use shown in a section; more belong in its docs


def _notes_block(pd: docstrings.DocParts, t: dict[str, str]) -> list[str]:
    """The doc comment's notes and warnings, each followed by the code it shows (a note's
    example is part of what it says, never dropped). In a Chinese book the English words are
    quoted."""
    notes = [n for n in pd.notes if n.text][:4]
    if not notes:
        return []
    zh = t["lang"] == "zh"
    lab = docstrings.LABELS["en"]
    out = [vary("notes_intro", len(notes) + len(notes[0].text), t), ""]
    for n in notes:
        line = f"- **{lab.get(n.name, n.name)}{(' ' + n.type) if n.type else ''}**: {n.text}"
        out += [_quote(line) if zh else line, ""]
        for c in n.code:
            out += [docstrings.fence(c.text, c.lang or "text"), ""]
    return out


def write(ctx: dict[str, Any], p: Project) -> str:
    t = phrases(ctx.get("language", "en"))
    zh = t["lang"] == "zh"
    ch = ctx["chapter"]
    files = [f for f in ch["sources"] if f in p.map.files]
    research = ctx.get(RESEARCH, "")
    excerpts = parse_excerpts(research, _section(research, t["excerpts"]))
    usage = parse_excerpts(research, _section(research, t["usage"]))
    syms: list[tuple[Sym, str, int, int, str]] = []
    for name, rel, a, b, lang, _file, code in excerpts:
        s = _find_sym(p, rel, name)
        if s is not None:
            syms.append((s, code, a, b, lang))
    key = [s for s, *_ in syms] or key_symbols(p, files, 4)
    here = chapter_of_files(ctx)
    titles = {c["id"]: c["title"] for c in ctx.get("chapters", [])}
    image = _image(ctx, p, t)
    out = [f"# {ch['title']}", ""]
    chs = outline_chapters(ctx)
    if not chs or str(chs[0].get("id")) == ch["id"]:  # Part 1: the big picture opens the book
        out += story.overview_lead(ctx, p, key, t["lang"])
        out += story.overview_sections(ctx, p, chs or [ch], t["lang"])
        out += [f"## {story.phrases(t['lang'])['ov_code']}", ""]
    out += opening(ctx, p, files, key, t, join)
    if image is not None:  # the project's own picture, quoted where it is drawn
        out += [t["image"].format(phrase=image.phrase, sentence=image.sentence, file=image.file, line=image.line), ""]
    # where this fits
    out += [f"## {t['fits']}", ""]
    num = num_of(ch)
    if t["lang"] == "en":  # the files in one sentence, said this chapter's way
        srcs = list(ch["sources"])
        langs = {lang_name(p.lang(f)) for f in srcs}
        total = sum(p.size(f) for f in srcs)
        which = "files_one" if len(srcs) == 1 else "files_many"
        listed = join([f"`{f}`" for f in srcs[:6]], t) + (t["and_more"].format(n=len(srcs) - 6) if len(srcs) > 6 else "")
        out += [vary(which, num, t).format(file=srcs[0] if srcs else "", files=listed, n=total,
                                         lang=" and ".join(sorted(langs)) or "code"), ""]
    else:
        for f in ch["sources"]:
            out.append(t["file_line"].format(file=f, n=p.size(f), lang=lang_name(p.lang(f))))
        out.append("")
    taken_from = [line[2:] for line in _section(research, t["relations"]).splitlines()
                  if line.startswith("- ") and "](" in line]
    deps = list(ch.get("depends_on") or [])
    if deps:
        out += [vary("builds_on", num, t).format(links=join([f"[{titles.get(d, d)}]({d}.md)" for d in deps], t)), ""]
    if taken_from:
        out += [vary("takes_from", num, t), ""] + [f"- {x}" for x in taken_from[:5]] + [""]
    later = [c for c in outline_chapters(ctx) if ch["id"] in (c.get("depends_on") or [])]
    if later:
        line = vary("used_by", num, t).format(links=join([f"[{c.get('title')}]({c.get('id')}.md)" for c in later[:4]], t))
        if len(later) == 1:
            line = line.replace(") build on", ") builds on").replace(") come back", ") comes back").replace(
                ") rely on", ") relies on").replace(") pick up", ") picks up")
        out += [line[:1].upper() + line[1:], ""]
    out += diagrams.for_chapter(p, files, key, resolved_calls, t["lang"])  # the main path and key types, drawn from the map
    known = {str(g[0]).lower() for g in ctx.get(MEMORY, {}).get("glossary", [])}
    terms = _term_lines(key, known, t, p)
    if terms:
        out += [f"## {t['terms']}", ""] + terms
    in_chapter = {s.name for s in key}
    out += _walk(p, syms, ctx, here, in_chapter, t)
    if usage:
        out += [f"## {t['in_use']}", ""]
        said: list[str] = []  # the tests already named: a later one is said shortly, the same one as the same
        for k, (name, rel, a, b, lang, _file, code) in enumerate(usage):
            test = enclosing_test(p.lines_of(rel), a) if rel in p.files else ""
            short = name.rsplit(".", 1)[-1]
            form = "usage_after" if not test else "usage_same_test" if test in said else \
                "usage_in_test_more" if said else "usage_in_test"
            after = vary(form, seed(name, str(k)), t).format(test=test, name=short)
            said += [test] if test else []
            out += [vary("usage_intro" if k == 0 else "usage_intro_more", seed(name, rel, str(k)), t).format(name=name, file=rel, a=a), "",
                    docstrings.fence(code, f"{lang} file={rel} lines={a}-{b}"), "", after, ""]
    others = [s for s in key_symbols(p, files, len(key) + 12) if s.name not in in_chapter][:12]
    out += story.reference_table(p, key + others, t["lang"], shown={x.name for x, *_ in syms})  # per-symbol detail: a table, not the body
    nxt = [c for c in outline_chapters(ctx) if ch["id"] in (c.get("depends_on") or [])]
    out += story.closing(p, key, nxt[0] if nxt else None, t["lang"], num)
    text = "\n".join(out)
    if zh:
        text = zh_punct.normalise(text)  # one language's punctuation at a time, code and quotes untouched
    else:
        text = grammar.fix(text)
    text = re.sub(r"\n{3,}", "\n\n", text)  # what came from the source was made safe where it entered
    text = _cited(text, p)
    return zh_punct.normalise(text) if zh else text  # the citations, too, in Chinese brackets


def num_of(ch: dict[str, Any]) -> int:
    """The chapter's number (`ch07` → 7): which way this chapter says a thing."""
    return int(re.sub(r"\D", "", str(ch.get("id", ""))) or 0)


def _cited(text: str, p: Project) -> str:
    """Every paragraph about the code cites the lines that show it (evidence.annotate, from the map)."""
    from ..evidence import annotate

    defs = [annotate.Def(s.name, s.rel, s.d.start_line, s.d.end_line) for s in p.symbols()]
    ranked = {s.rel for s in p.symbols()}
    defs += [annotate.Def(d.qualified_name, rel, d.start_line, d.end_line, code=False)  # tests and examples: usage is evidence
             for rel, fm in p.map.files.items() if rel not in ranked for d in fm.definitions]
    return annotate.cite(text, annotate.citer_for(p.root, defs, p._keys))


def _used(n: int, k: int, t: dict[str, str]) -> str:
    text = t["used_n"].format(n=n, k=k)
    if t["lang"] == "en":  # a count of one takes the singular
        if n == 1:
            text = text.replace("1 other source files", t["used_files1"])
        if k == 1:
            text = text.replace("1 tests or examples", t["used_tests1"])
    return text


def join(items: list[str], t: dict[str, str]) -> str:
    """`a, b and c` (en) or `a、b与c` (zh)."""
    if len(items) <= 1:
        return "".join(items)
    return t["comma"].join(items[:-1]) + t["and"] + items[-1]
