"""A chapter's opening paragraphs, written from what the chapter is about.

The problem the chapter's role solves is stated once in the book, by the first chapter (in
reading order) that has the role; a later chapter of the same role says which chapter began
the subject and what part it adds. The audience is named once, in the first chapter. The
next sentence follows the chapter's shape: a type at its centre, a set of functions, or
macros. The module doc quoted is the one of the file that defines the chapter's central
symbol, so a chapter about `cache.py` quotes `cache.py`, never the package's `__init__.py`
because it came first in the list; the words that lead into the quote follow the doc's own
form (a Go package doc, a noun phrase, anything else)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from ..text import docstrings
from .phrases import audience_in
from .plan import assign_roles, chapter_roles
from .project import Project, Sym
from .research import _quote, outline_chapters
from .roles import Role
from .variety import vary

# files that introduce a package rather than hold its code: their doc speaks for the whole
# package, so a chapter quotes it only when no file of its own has a doc
PACKAGE_FILES = {"__init__.py", "index.ts", "index.js", "index.mjs", "mod.rs", "lib.rs", "main.rs", "doc.go"}
# a summary with one of these is a sentence of its own, not a noun phrase to continue ours
_VERB_RE = re.compile(r"\b(?:is|are|was|were|has|have|does|do|can|will|provides|implements|contains|defines|holds|"
                      r"returns|makes|lets|allows)\b")
TYPE_KINDS = ("class", "struct", "interface", "trait", "enum", "type")


def doc_file(p: Project, files: list[str], key: list[Sym]) -> tuple[str, docstrings.DocParts] | None:
    """The file whose module doc introduces the chapter, and the doc: the file of the first key
    symbol that has one, else the first non-package file with one, else any file with one."""
    docs: dict[str, docstrings.DocParts] = {}
    for f in files:
        pd = docstrings.parse(p.module_doc(f), p.lang(f))
        if pd.summary:
            docs[f] = pd
    if not docs:
        return None
    for s in key:
        if s.rel in docs:
            return s.rel, docs[s.rel]
    own = [f for f in docs if posixpath.basename(f) not in PACKAGE_FILES]
    f = (own or list(docs))[0]
    return f, docs[f]


STRONG_FIT = 4.0  # a role scoring less (roles.detect) is a loose fit: its problem would mislead


def _strong_roles(p: Project, groups: list[list[str]]) -> list[Role | None]:
    """Each chapter's assigned role when it fits the chapter's code strongly, else None (anyhow's
    lib.rs is not about a request's context, serde_json's cached powers table not a cache)."""
    out: list[Role | None] = []
    for files, role in zip(groups, assign_roles(p, groups)):
        score = next((sc for sc, r in chapter_roles(p, files) if role is not None and r.key == role.key), 0.0) \
            if files else 0.0
        out.append(role if score >= STRONG_FIT else None)
    return out


def chapter_role(ctx: dict[str, Any], p: Project, files: list[str]) -> tuple[Role | None, str | None]:
    """The role the planner gave this chapter when it fits strongly, and the id of the first
    chapter (in reading order) with the same role when that is an earlier one (None when this
    chapter is the first)."""
    ch = ctx["chapter"]
    chs = outline_chapters(ctx)
    ids = [str(c.get("id")) for c in chs]
    if ch["id"] not in ids:
        rs = chapter_roles(p, files) if files else []
        return (rs[0][1] if rs and rs[0][0] >= STRONG_FIT else None), None
    groups = [[f for f in (c.get("sources") or []) if f in p.map.files] for c in chs]
    roles = _strong_roles(p, groups)
    me = ids.index(ch["id"])
    role = roles[me]
    if role is None:
        return None, None
    first = next(i for i, r in enumerate(roles) if r is not None and r.key == role.key)
    return role, (ids[first] if first < me else None)


def _nth_of_role(ctx: dict[str, Any], p: Project, role: Role) -> int:
    """How many earlier chapters (in reading order) share this chapter's role."""
    chs = outline_chapters(ctx)
    ids = [str(c.get("id")) for c in chs]
    groups = [[f for f in (c.get("sources") or []) if f in p.map.files] for c in chs]
    roles = _strong_roles(p, groups)
    me = ids.index(ctx["chapter"]["id"])
    return sum(1 for r in roles[:me] if r is not None and r.key == role.key)


def _shape(p: Project, key: list[Sym], t: dict[str, str], join: Any, n: int = 0) -> str:
    """What kind of chapter this is, from its key symbols: a type and its methods, functions,
    or macros; said the `n`-th of its ways (the chapter's number: a book of twelve small chapters
    opened six of them with the one sentence "At its centre is the class …")."""
    if not key:
        return ""
    head = key[0]
    if head.kind in TYPE_KINDS:
        methods = [s for s in key[1:] if s.dotted.startswith(head.dotted + ".")]
        others = [s for s in key[1:] if s not in methods]
        with_m = t["open_type_methods"].format(names=join([f"`{s.short}`" for s in methods[:3]], t)) if methods else ""
        # a trait or an interface is a contract, an enum a set of cases: neither "holds" nor is "made"
        form = {"trait": "open_contract", "interface": "open_contract", "enum": "open_enum"}.get(head.kind, "open_type")
        line = vary(form, n, t).format(kind=_kind(head.kind, t), name=head.name, methods=with_m)
        if others:
            line += " " + vary("open_beside", n, t).format(names=join([f"`{s.name}`" for s in others[:3]], t))
        return line
    if all(s.kind in (*TYPE_KINDS, "type alias") for s in key[:3]):  # declarations only: nothing runs "step by step"
        return t["open_types"].format(names=join([f"`{s.name}`" for s in key[:3]], t))
    if all(s.kind == "macro" for s in key[:3]):
        return t["open_macros"].format(names=join([f"`{s.name}`" for s in key[:3]], t))
    owners = {s.dotted.rpartition(".")[0] for s in key[:3]}
    if len(owners) == 1 and "" not in owners and all(s.kind == "method" for s in key[:3]):
        owner = owners.pop()
        home = next((o for o in p.find(owner) if o.kind in TYPE_KINDS), None)
        where = t["open_methods_from"].format(file=home.rel) if home is not None and home.rel != key[0].rel else ""
        return t["open_methods"].format(owner=owner, where=where, names=join([f"`{s.short}`" for s in key[:3]], t))
    def private(s: Sym) -> bool:
        return s.short[:1] == "_" or (s.lang == "go" and s.short[:1].islower())

    public = [s for s in key[:3] if not private(s)]
    helper = next((s for s in key[1:4] if private(s)), None)
    if public and helper is not None:  # a chapter's entry points and the helper behind them
        return t["open_funcs_helper"].format(names=join([f"`{s.name}`" for s in public], t), helper=helper.name)
    names = join([f"`{s.name}`" for s in key[:3]], t)
    return t["open_funcs"].format(names=names)


_IRREGULAR = {"do": "does", "go": "goes", "be": "is", "have": "has"}


def third_person(verb: str) -> str:
    """`Construct` -> `constructs`, `Wrap` -> `wraps`, `Apply` -> `applies`, `Push` -> `pushes`."""
    v = verb.lower()
    if v in _IRREGULAR:
        return _IRREGULAR[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


# a doc summary that starts with one of these is an imperative ("Construct an ad-hoc error ...")
_IMPERATIVE_RE = re.compile(
    r"^(?:Add|Adapt|Allocate|Append|Apply|Attach|Build|Call|Cast|Check|Clear|Clone|Collect|Compare|Compute|"
    r"Construct|Convert|Copy|Create|Decode|Deserialize|Determine|Drop|Encode|Ensure|Execute|Extract|Find|"
    r"Format|Generate|Get|Handle|Insert|Load|Look|Make|Mark|Match|Merge|Move|Parse|Print|Produce|Provide|"
    r"Push|Read|Register|Remove|Render|Replace|Report|Reset|Resolve|Return|Run|Send|Serialize|Set|Split|"
    r"Start|Stop|Take|Try|Turn|Update|Validate|Wrap|Write)\b")


def _doc_elsewhere(p: Project | None, s: Sym) -> str:
    """The doc of the symbol's documented declaration in another file (anyhow's `Chain` is
    declared with its doc in lib.rs and implemented in chain.rs)."""
    if p is None:
        return ""
    return next((o.d.doc for o in p.find(s.name) if o.d.doc and o.kind == s.kind and o.rel != s.rel), "")


def _own_words(key: list[Sym], t: dict[str, str], p: Project | None = None) -> str:
    """The first key symbol's doc sentence as a sentence about the symbol, with the name as code:
    the chapter's subject in the code's own words. Go's form (`GenFishCompletion generates ...`)
    is kept; an imperative (`Construct an ad-hoc error`) becomes `msg` constructs ...; a noun
    phrase (`Iterator of a chain of source errors`) becomes `Chain` is an iterator of ....
    A Chinese book quotes the English sentence as the source's own (it cannot carry it as its
    prose). '' when no key symbol has such a sentence."""
    for s in key[:2]:
        doc = s.d.doc or _doc_elsewhere(p, s)
        if not doc:
            continue
        summary = docstrings.parse(doc, s.lang).summary.strip()
        if not summary or len(summary) > 240 or not summary.endswith("."):
            continue
        if t["lang"] != "en":
            return t["own_quote"].format(name=s.name, summary=summary) if t.get("own_quote") else ""
        # Go's form: the name, then a verb ("generates", "is", "returns"); not "The `Error` type, ..."
        m = re.match(rf"^`?{re.escape(s.short)}`?\s+(?=(?:is|are|can|will|[a-z]+s)\b)", summary)
        if m:
            return f"`{s.name}` " + summary[m.end():]
        if s.kind in ("function", "method", "macro") and _IMPERATIVE_RE.match(summary):
            verb, _, rest = summary.partition(" ")
            return f"`{s.name}` {third_person(verb)} {rest}"
        head = re.split(r"[:,;(]|\s(?:that|which|who|where)\s", summary, maxsplit=1)[0]
        if s.kind in TYPE_KINDS and not _VERB_RE.search(head) and re.match(r"^[A-Z][a-z]+\b", summary) \
                and not summary.startswith(("This ", "These ", "It ", "We ", "You ", "If ", "When ", "Note")):
            what = summary[0].lower() + summary[1:]
            if not re.match(r"^(?:a|an|the)\s", what):
                what = ("an " if what[0] in "aeiou" else "a ") + what
            return t["own_is"].format(name=s.name, what=what)
    return ""


def used_by(p: Project, files: list[str], s: Sym) -> list[str]:
    """The code files outside the chapter that use the symbol by resolved reference (facts.uses:
    the name written as code, reachable, its module imported when several files define the
    name), most uses first. Tests and examples are evidence, not users."""
    from .facts import resolved_users

    return [f for f in resolved_users(p, s) if f not in files and p.files.get(f, (None, ""))[1] == "code"]


def _uses_sentence(p: Project, files: list[str], key: list[Sym], t: dict[str, str], join: Any) -> str:
    """Who uses the chapter's central symbol, said as the fact it is (none, one, a few, many):
    what the code is to the rest of the project, where no doc says what it is."""
    if not key:
        return ""
    s = key[0]
    if s.kind == "method":  # `source`, `write_str`: every type has one; the type is what others use
        owner = next((o for o in p.find(s.dotted.rsplit(".", 1)[0]) if o.kind in TYPE_KINDS and o.rel in files), None)
        if owner is None:
            return ""
        s = owner
    users = used_by(p, files, s)
    shown = join([f"`{f}`" for f in users[:3]], t)
    if not users:
        return t["open_used_none"].format(file=join([f"`{f}`" for f in files[:2]], t), name=s.name)
    fn = "" if s.kind in TYPE_KINDS else "_f"  # a type is used, a function or a macro is called
    if len(users) == 1:
        return t["open_used_one" + fn].format(name=s.name, files=shown)
    if len(users) <= 3:
        return t["open_used_few"].format(name=s.name, files=shown)
    return t["open_used_many" + fn].format(name=s.name, n=len(users), files=shown)


def _kind(kind: str, t: dict[str, str]) -> str:
    from .phrases import kind_name

    return kind_name(kind, t)


def _quoted_before(ctx: dict[str, Any], p: Project, f: str) -> bool:
    """The doc of `f` is an earlier chapter's too, which quotes it: a Java package's doc is the doc of each
    of its files (commons-cli's opened nine chapters with the same paragraph)."""
    doc = p.module_doc(f)
    for c in outline_chapters(ctx):
        if str(c.get("id")) == ctx["chapter"]["id"]:
            return False
        if any(p.module_doc(str(g)) == doc for g in c.get("sources") or ()):
            return True
    return False


def _lead_in(f: str, pd: docstrings.DocParts, lang: str, t: dict[str, str]) -> tuple[str, bool]:
    """The words before the module doc's first paragraph, and whether that paragraph continues
    the sentence (English only: a Chinese book quotes the English as a block)."""
    first = next((b.text for b in pd.blocks if b.kind == "p"), "")
    if lang == "go" and re.match(r"^Package\s+\w+", first):
        return t["pkg_doc_go"].format(file=f), False
    head = re.split(r"[:,;(]|\s(?:that|which|who|where)\s", pd.summary, maxsplit=1)[0]  # its main clause
    if t["lang"] == "en" and re.match(r"^(?:A|An|The)\s", first) and not _VERB_RE.search(head):
        return t["pkg_doc_as"].format(file=f), True
    return t["pkg_doc"].format(file=f), False


def opening(ctx: dict[str, Any], p: Project, files: list[str], key: list[Sym], t: dict[str, str],
            join: Any) -> list[str]:
    """The chapter's first paragraphs (see the module doc)."""
    role, earlier = chapter_role(ctx, p, files)
    chs = outline_chapters(ctx)
    first_chapter = not chs or str(chs[0].get("id")) == ctx["chapter"]["id"]
    names = join([f"`{s.name}`" for s in key[:3]], t) or t["these_files"]
    sentences = []
    if role is None and not first_chapter:  # no problem to state: the code's own words lead,
        # else what the code is to the rest of the project (who uses its central symbol)
        sentences.append(_own_words(key, t, p) or _uses_sentence(p, files, key, t, join))
    if role is not None and earlier is None:
        sentences.append(t.get("problem_" + role.key, ""))
    elif role is not None and earlier is not None:
        title = next((str(c.get("title")) for c in chs if str(c.get("id")) == earlier), earlier)
        part = join([f"`{f}`" for f in files[:2]], t)
        # the same link said the same way in every later chapter of a role reads as a template
        forms = [t["problem_more"], t["problem_more2"], t["problem_more3"]]
        form = forms[(_nth_of_role(ctx, p, role) - 1) % len(forms)]
        lead = _own_words(key, t, p)  # what this chapter's code says it does comes first
        if lead:
            sentences.append(lead)
        sentences.append(form.format(title=title, ch=earlier, files=part))
    if first_chapter:
        sentences.append(t["for_whom"].format(audience=audience_in(ctx["book"]["audience"], t["lang"]), names=names))
    else:
        sentences.append(_shape(p, key, t, join, int(re.sub(r"\D", "", str(ctx["chapter"]["id"])) or 0)))
    out = [" ".join(s for s in sentences if s).strip(), ""]
    found = doc_file(p, files, key)
    if found is None or _quoted_before(ctx, p, found[0]):
        return out
    f, pd = found
    lead, continues = _lead_in(f, pd, p.lang(f), t)
    if t["lang"] == "zh":
        out += [lead, "", _quote("\n\n".join(docstrings.render_blocks(pd.blocks[:3]))), ""]
        return out
    # the summary's paragraph (a heading may come before it), then the two blocks after it
    at = next(i for i, b in enumerate(pd.blocks) if b.kind == "p")  # doc_file kept only docs with a summary
    para = pd.blocks[at].text
    if continues:
        para = para[0].lower() + para[1:]
    out += [lead + " " + para, ""]
    out += [x for b in docstrings.render_blocks(pd.blocks[at + 1:at + 3]) for x in (b, "")]
    return out
