"""The offline researcher: for one chapter, what the writer needs, read from the repository map.

The report lists the chapter's files, its most important symbols by rank (signature and the
doc comment converted to Markdown), verbatim excerpts of the top symbols with their paths and
line ranges (R1 verifies every one against the source), how the tests and examples use them,
what the chapter takes from other chapters, the questions the book's readers would ask, and
the chapter's central use case. The writer reads the excerpts back from this report, so a
person who edits it at the research gate edits what the chapter quotes."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import Any

from ..text import docstrings
from .codeinfo import signature_parts
from .facts import refers_at
from .phrases import kind_name, lang_name, phrases
from .plan import key_symbols
from .project import Project, Sym

EXCERPT_RE = re.compile(r"^### `(.+?)` — (\S+?):(\d+)-(\d+)\n\n(`{3,})(\S*) file=(\S+)(?: lines=\S+)?\n(.*?)\n\5\s*$",
                        re.S | re.M)


def n_key(p: Project, files: list[str]) -> int:
    """How many symbols a chapter explains: by its lines, more when it holds a type with many
    methods (chi's `Mux` has 33 in 532 lines: five sections would leave out `Use` and `Mount`),
    and more when it covers many files."""
    lines = sum(p.size(f) for f in files)
    methods: dict[str, int] = {}
    for s in p.symbols(within=files):
        if s.kind == "method" and "." in s.dotted:
            owner = s.dotted.rsplit(".", 1)[0]
            methods[owner] = methods.get(owner, 0) + 1
    widest = max(methods.values(), default=0)
    # and a section for each file it covers, as far as room allows (a chapter of eleven middlewares)
    return max(3, min(10, max(lines // 150 + 2, 3 + widest // 6, 2 + len(files))))


def outline_chapters(ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """Every chapter of the plan with its sources and dependencies (from the outline's YAML)."""
    return list(_outline_chapters(ctx.get("outline_yaml") or ""))


@lru_cache(maxsize=4)
def _outline_chapters(text: str) -> tuple[dict[str, Any], ...]:
    """Parsed once per outline text: every step of every chapter asks for it (read-only)."""
    import yaml

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except yaml.YAMLError:
        return ()
    if not isinstance(data, dict):
        return ()
    if isinstance(data.get("parts"), list):  # chapters under their parts: each carries its part's title, in book order
        from ..steps import chapter_sort_key

        found = [c | {"part": str(pt.get("title") or "")} for pt in data["parts"] if isinstance(pt, dict)
                 for c in pt.get("chapters") or [] if isinstance(c, dict)]
        return tuple(sorted(found, key=lambda c: chapter_sort_key(str(c.get("id")))))
    return tuple(c for c in data.get("chapters", []) if isinstance(c, dict))


def chapter_of_files(ctx: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """source path -> (chapter id, title) of the chapter that covers it."""
    out: dict[str, tuple[str, str]] = {}
    for c in outline_chapters(ctx):
        for s in c.get("sources") or []:
            out.setdefault(s, (str(c.get("id")), str(c.get("title"))))
    return out


_STRINGS = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\\n]|\\.)*`""")


def usage_snippets(p: Project, files: list[str], syms: list[Sym], limit: int = 3) -> list[tuple[str, int, int, str, str]]:
    """(test or example file, first line, last line, code, symbol) where the evidence calls a key
    symbol: one whole statement each, exactly as in the file."""
    evidence = p.map.tests_for(files)
    for f in files:
        for u in p.map.users_of(f):
            if p.files.get(u, (None, ""))[1] == "example" and u not in evidence:
                evidence.append(u)
    out: list[tuple[str, int, int, str, str]] = []
    used_syms: set[str] = set()
    for rel in evidence[:12]:
        lines = p.lines_of(rel)
        for s in syms:
            if s.name in used_syms or len(s.short) < 3:
                continue
            rx = re.compile(rf"(?<![\w$]){re.escape(s.short)}\s*[(!{{]|[.:]{re.escape(s.short)}\b(?!\s*=[^=])")
            for i, ln in enumerate(lines):
                # a name inside a string (a MIME type in a test table) is not the symbol at work
                if not rx.search(_STRINGS.sub('""', ln)) or ln.lstrip().startswith(("#", "//", "*", "import", "from ", "use ")):
                    continue
                if not refers_at(p, rel, i + 1, s):  # `res.headers()` of another type is not this one at work
                    continue
                a, b, depth = i, i, 0
                for j in range(i, min(len(lines), i + 14)):
                    depth += sum(lines[j].count(c) for c in "([{") - sum(lines[j].count(c) for c in ")]}")
                    b = j
                    if depth <= 0:
                        break
                if depth > 0:
                    continue
                code = "\n".join(lines[a:b + 1])
                if "```" in code or not code.strip():
                    continue
                out.append((rel, a + 1, b + 1, _dedent(code), s.name))
                used_syms.add(s.name)
                break
            if len(out) >= limit:
                return out
    return out


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).rstrip()


def research(ctx: dict[str, Any], p: Project) -> str:
    t = phrases(ctx.get("language", "en"))
    zh = t["lang"] == "zh"
    ch = ctx["chapter"]
    files = [f for f in ch["sources"] if f in p.map.files]
    out = [f"# {t['research_report']}: {ch['id']} — {ch['title']}", "", f"## {t['sources']}", ""]
    for f in ch["sources"]:
        pd = docstrings.parse(p.module_doc(f), p.lang(f))
        doc = "" if zh else pd.summary
        out.append(t["src_line"].format(file=f, n=p.size(f), lang=lang_name(p.lang(f))) + (f" {doc}" if doc else ""))
    overview = []
    for f in files:
        pd = docstrings.parse(p.module_doc(f), p.lang(f))
        if not pd.empty():
            overview += docstrings.render_blocks(pd.blocks)[:4]
    if overview:
        body = "\n\n".join(overview)
        out += ["", f"## {t['overview']}", "", _quote(body) if zh else body]
    syms = key_symbols(p, files, n_key(p, files)) if files else []
    out += ["", f"## {t['key_symbols']}", ""]
    for s in syms:
        pd = docstrings.parse(s.d.doc, s.lang)
        summ = "" if zh or not pd.summary else " — " + pd.summary
        out.append(t["sym_line"].format(name=s.name, kind=kind_name(s.kind, t), file=s.rel, a=s.d.start_line,
                                        b=s.d.end_line, score=f"{s.score:.4f}") + summ)
        sig = " ".join(s.d.signature.split())
        if sig and "`" not in sig:
            out.append(f"  - `{sig[:200]}`")
        params, ret = signature_parts(s)
        if params or ret:
            out.append("  - " + t["sig_params"].format(
                params=", ".join(f"`{x.name}`" for x in params) or t["none"], ret=f"`{ret}`" if ret else t["none"]))
    out += ["", f"## {t['excerpts']}", ""]
    for s in syms:
        code, a, b = p.excerpt(s)
        if not code.strip():
            continue
        out += [f"### `{s.name}` — {s.rel}:{a}-{b}", "", docstrings.fence(code, f"{s.lang} file={s.rel} lines={a}-{b}"), ""]
    snippets = usage_snippets(p, files, syms)
    out += [f"## {t['usage']}", ""]
    if snippets:
        for rel, a, b, code, name in snippets:
            out += [f"### `{name}` — {rel}:{a}-{b}", "", docstrings.fence(code, f"{p.lang(rel)} file={rel} lines={a}-{b}"), ""]
    else:
        out += [t["no_usage"], ""]
    # What this chapter takes from the others: the names of their files its files reference.
    where = chapter_of_files(ctx)
    taken: dict[str, set[str]] = {}
    refs: dict[str, int] = {}
    for f in files:
        for name, k in p.map.files[f].references.items():
            refs[name] = refs.get(name, 0) + k
        if p.lang(f) == "go":  # `middleware.New`: the map keeps only the qualifier (as plan.dep_graph reads it)
            for _q, name in p.go_qualified(f):
                refs[name] = refs.get(name, 0) + 1
    # a name the chapter's own files define is its own (koa's context.js and response.js both define
    # `inspect` and `toJSON`: context.js does not take them from the response chapter)
    own = {d.name for f in files if f in p.map.files for d in p.map.files[f].definitions}
    for other, (cid, _title) in where.items():
        if cid == ch["id"] or other not in p.map.files:
            continue
        for d in p.map.files[other].definitions:
            if d.exported and d.name in refs and d.name not in own and len(d.name) > 2 \
                    and _really_used(d, refs, p, files) and _go_reachable(p, files, other, d.name) \
                    and _resolved_use(p, files, other, d):
                # a CommonJS module's default export is named by its file: two chapters' `module.exports` are two things
                taken.setdefault(cid, set()).add(posixpath.basename(other) if d.qualified_name == "module.exports"
                                                 else d.qualified_name.replace("::", "."))
    out += [f"## {t['relations']}", ""]
    titles = {c["id"]: c["title"] for c in ctx.get("chapters", [])}

    def first(n: str) -> tuple[bool, int, str]:  # types and functions before methods, the most used first
        return ("." in n, -refs.get(n.rsplit(".", 1)[-1], 0), n)

    rel_lines = [t["rel_uses"].format(names=t["comma"].join(f"`{n}`" for n in sorted(ns, key=first)[:6]), ch=cid,
                                      title=titles.get(cid, cid))
                 for cid, ns in sorted(taken.items())]
    out += [f"- {x}" for x in rel_lines] or [f"- {t['none']}"]
    out += ["", f"## {t['questions']}", ""]
    personas = [x.partition(":")[0].strip() for x in ctx.get("personas", [])] or ["reader"]
    qs = _questions(syms, snippets, t)
    for k, q in enumerate(qs):
        out.append(f"- {personas[k % len(personas)]}: {q}")
    out += ["", f"## {t['use_case']}", ""]
    if syms:
        s = syms[0]
        via = next((sn for sn in snippets if sn[4] == s.name), snippets[0] if snippets else None)
        out.append(t["use_case_text"].format(name=s.name, file=s.rel) +
                   (" " + t["use_case_seen"].format(file=via[0], line=via[1]) if via else ""))
    return "\n".join(out)


def _go_reachable(p: Project, files: list[str], other: str, name: str) -> bool:
    """Some file of the chapter can use the name `other` defines (Project.reaches, the rule the
    plan's dependency graph and the calls a chapter explains follow too)."""
    return any(p.reaches(f, other, name) for f in files)


def _resolved_use(p: Project, files: list[str], other: str, d: Any) -> bool:
    """Some file of the chapter uses that very definition, by resolved reference (facts.uses):
    `JSON.stringify(` is no use of a `stringify` of the project, `keys.length` none of a getter."""
    from .facts import uses

    s = next((x for x in p.symbols(within=[other]) if x.d is d or (x.name == d.qualified_name
                                                                   and x.d.start_line == d.start_line)), None)
    return s is not None and any(uses(p, f, s) for f in files)


def _really_used(d: Any, refs: dict[str, int], p: Project | None = None, files: list[str] | None = None) -> bool:
    """A method is taken from another chapter only when its type is named here too and its own
    name says something (`fmt`, `read`, `new` are every type's: a call to one is no link). A
    method of a plain object (express's `res.json`, `app.handle`: a lower-case owner is an object,
    not a class whose instances go by other names) only where the code writes `owner.name`:
    express.js's `exports.json = bodyParser.json` does not use `res.json`."""
    q = d.qualified_name.replace("::", ".")
    if "." not in q:
        return True
    from ..repo.rank import COMMON_NAMES

    owner = q.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    if owner not in refs or d.name in COMMON_NAMES:
        return False
    if owner[:1].islower() and p is not None and files:
        rx = re.compile(rf"(?<![\w$]){re.escape(owner)}\s*\.\s*{re.escape(d.name)}(?![\w$])")
        return any(rx.search("\n".join(p.lines_of(f))) for f in files)
    return True


def _questions(syms: list[Sym], snippets, t: dict[str, str]) -> list[str]:
    qs = []
    if syms:
        qs.append(t["q_what"].format(name=syms[0].name))
    funcs = [s for s in syms if s.kind in ("function", "method")]
    if funcs:
        qs.append(t["q_fail"].format(name=funcs[0].name))
    if len(syms) > 1:
        qs.append(t["q_together"].format(a=syms[0].name, b=syms[1].name))
    if not snippets and syms:
        qs.append(t["q_untested"].format(name=syms[0].name))
    nodoc = [s for s in syms if not s.d.doc]
    if nodoc:
        qs.append(t["q_nodoc"].format(name=nodoc[0].name))
    return qs


def _quote(md: str) -> str:
    """Markdown as a block quote (source text quoted in a book of another language)."""
    out = []
    for ln in md.splitlines():
        out.append("> " + ln if ln.strip() else ">")
    return "\n".join(out)


def parse_excerpts(md: str, section_text: str) -> list[tuple[str, str, int, int, str, str, str]]:
    """(name, path, first, last, lang, file, code) of each excerpt in a section of a report."""
    return [(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), m.group(6), m.group(7), m.group(8))
            for m in EXCERPT_RE.finditer(section_text)]


def basename(rel: str) -> str:
    return posixpath.basename(rel)
