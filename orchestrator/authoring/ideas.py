"""Chapter titles that name an idea, not an inventory (issue 35): what the reader will
understand, in the project's own vocabulary, with the symbol names left for the chapter.

Two sources, best first:

- the docs' own headings: the README's and guides' sections ("Commands and Groups", "Sharing
  state with handlers"), each matched to the chapter whose key names its text mentions most,
  and more than any other chapter's (a section about everything names nobody's chapter);
- the chapter's main flow: the best verb-object method on its chain of calls, said as what it
  does (`Group.resolve_command` → "How a group resolves its command", `node.FindRoute` → "How a
  node finds a route").

A title either source gives is held to contracts.title_shape (not a module's name, not a list
of symbols); a chapter neither source fits keeps the role or module subject titles.py gives."""

from __future__ import annotations

import dataclasses
import math
import posixpath
import re

from ..contracts.title_shape import _IDENT, name_title
from .doc_phrases import _DOC_CUT, doc_noun_title, doc_title, section_title
from .plan import key_symbols
from .project import Project, Sym, project_name
from .verbs import VERBS, gerund as _gerund

# headings every project has, which say nothing about one chapter's idea
GENERIC_HEADINGS = frozenset("""
installation install installing license licence contributing contributors contribute example examples usage features
contents table-of-contents api api-reference reference changelog changes credits support tests quickstart quick-start
getting-started documentation docs links security sponsors sponsor backers faq status benchmarks benchmark performance
introduction overview motivation community acknowledgements acknowledgments authors requirements dependencies
see-also notes todo roadmap versions version release-notes releases migration upgrading help people philosophy goals
design summary conclusion more related-projects related who-uses-it code-of-conduct donate development building
testing-the-library running-tests questions issues resources guide tutorial tutorials what-next next-steps history
about features-overview description setup configuration-reference project-links in-the-wild alternatives
""".split())
MAX_HEADING_WORDS = 6
# a heading with one of these words is about the project's people, history or pitfalls, not an idea of its code
_OFF_WORDS = frozenset({"welcome", "why", "debugging", "troubleshooting", "limitation", "limitations", "useful", "remarks",
                        "caveats", "caveat", "note", "notes", "deprecated", "deprecation", "breaking", "migration",
                        "migrating", "faq", "what", "how", "your", "you", "tips", "gotchas", "known", "issues", "requires", "thanks", "license",
                        "sponsors", "install", "installing", "installation", "contributing", "changelog", "v1", "v2",
                        "other", "more", "additional", "misc", "miscellaneous"})  # a leftover section, not an idea
_MD_HEAD = re.compile(r"^(#{1,4})\s+(.+?)\s*#*\s*$")
_RST_UNDER = re.compile(r"^([=\-~^*+#\"'`])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def doc_texts(p: Project) -> list[tuple[str, str]]:
    """(file, text) of the README and the guides, in reading order, read once (titles and images use them)."""
    key = ("doc_texts",)
    if key not in p._keys:
        from .entry import not_a_guide
        from .overview import info_of

        info = info_of(p)
        out: list[tuple[str, str]] = []
        if info is not None:
            for rel in ([info.readme] if info.readme else []) + [d for d in info.docs if not not_a_guide(d)][:40]:
                try:
                    out.append((rel, info.read(rel)))
                except OSError:
                    continue
        p._keys[key] = out
    return p._keys[key]


def doc_sections(p: Project) -> list[tuple[str, str, str]]:
    """(heading, section text, file) of the README's and guides' sections, in reading order; a
    deep heading (a detail: `###`, an rST third underline) is marked with a leading '+'."""
    key = ("doc_sections",)
    if key not in p._keys:
        p._keys[key] = [sec for rel, text in doc_texts(p) for sec in _sections(text, rel)]
    return list(p._keys[key])


def _sections(text: str, rel: str) -> list[tuple[str, str, str]]:
    lines = text.splitlines()
    heads: list[tuple[int, str]] = []
    unders: list[str] = []  # rST: the underline characters in the order the file uses them
    fenced = False
    for i, ln in enumerate(lines):
        if _FENCE.match(ln):
            fenced = not fenced
        if fenced:
            continue
        m = _MD_HEAD.match(ln)
        if m:
            heads.append((i, ("+" if len(m.group(1)) >= 3 else "") + m.group(2)))
        elif i and _RST_UNDER.match(ln) and lines[i - 1].strip() and len(ln.strip()) >= len(lines[i - 1].strip()) - 1 \
                and not _RST_UNDER.match(lines[i - 1]):
            under = ln.strip()[0]
            if under not in unders:
                unders.append(under)
            heads.append((i - 1, ("+" if unders.index(under) >= 2 else "") + lines[i - 1].strip()))
    out = []
    for k, (at, head) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        out.append((head, "\n".join(lines[at + 1:end]), rel))
    return out


def clean_heading(head: str) -> str:
    """The heading as a title: links to their text, emphasis, HTML and emoji off; '' when it is code (a member's
    `.interval` too), a question, a generic heading or too long to be a title."""
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", head)
    h = re.sub(r"<(sup|sub|small)>.*?</\1>|<[^<>]*>", " ", h)  # (HTML: ora's `.color <sup>get/set</sup>`)
    if re.search(r"\w[.#:]\w|\(\)|(?:^|\s)[.#][A-Za-z_]", h) or any(_IDENT.match(w.strip(",:;!?")) for w in h.split()):
        return ""  # a heading that names code (`ky.stop`, `AxiosHeaders#set`) is a reference entry, not an idea
    h = re.sub(r"[*_]{1,2}([^*_]+)[*_]{1,2}", r"\1", h)
    h = re.sub(r"[^\w\s,'’&/-]", " ", h) if "`" not in h and "(" not in h else ""
    h = " ".join(h.split()).strip(" -,&/")
    words = h.split()
    if not words or len(words) > MAX_HEADING_WORDS or h.endswith("?") or re.match(r"^\d", h):
        return ""
    if "-".join(w.lower() for w in words) in GENERIC_HEADINGS or words[0].lower() in ("v", "version") \
            or any(w.lower() in _OFF_WORDS for w in words):
        return ""
    if not re.search(r"[A-Za-z]{3,}", h):
        return ""
    return h[:1].upper() + h[1:]


def _shares_words(head: str, vocab: set[str]) -> bool:
    heads = {w[:5] for w in _words(head) if len(w) > 3 and w not in ("with", "from", "your", "into", "using")}
    return bool(heads & {v[:5] for v in vocab if len(v) > 3})


def _mentions(text: str, name: str) -> int:
    return len(re.findall(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text))


def heading_titles(p: Project, groups: list[list[str]]) -> list[str | None]:
    """Each chapter's docs heading, or None: the section whose text names the chapter's key names
    most, and mostly the chapter's (a heading is used once; the strongest matches first)."""
    # (a heading that is an option's or a function's name, gray-matter's `options.excerpt`, is kept as written: no
    # title itself, its section's first sentence may say the idea)
    sections = [(h, text, head.startswith("+")) for head, text, _rel in doc_sections(p)
                if (h := clean_heading(head.lstrip("+")) or (head.lstrip("+") if re.fullmatch(r"[\w$]+(?:\.[\w$]+)+", head.lstrip("+")) else ""))]
    if not sections:
        return [None] * len(groups)
    names = []
    for files in groups:
        ks = [s for s in key_symbols(p, files, 12) if len(s.short) >= 3 and s.short.lower() not in _WEAK_NAMES]
        names.append([(s.short, 1.0 / (1.0 + 0.25 * k)) for k, s in enumerate(ks)])
    own = project_name(p.root)
    # the chapter's own words: its key names' and files' (a heading must say one of them)
    vocab = [{w for n, _w in ns for w in _words(n)} | {w for f in files for w in _words(f.rsplit(".", 1)[0].replace("/", " "))}
             for ns, files in zip(names, groups)]
    scores: list[tuple[float, int, int]] = []
    for si, (head, text, deep) in enumerate(sections):
        body = head + "\n" + text
        per = [sum(w * min(3, _mentions(body, n)) for n, w in ns) for ns in names]
        total = sum(per) or 1.0
        for gi, m in enumerate(per):
            if m < 1.5:
                continue
            share = m / total
            if share < 0.4:
                continue  # the section is about several chapters: no one's title
            in_head = sum(1 for n, _w in names[gi] if _mentions(head, n))
            scores.append(((share * math.log2(1 + m) + 0.5 * in_head) * (0.6 if deep else 1.0), si, gi))
    out: list[str | None] = [None] * len(groups)
    used: set[str] = set()
    for _sc, si, gi in sorted(scores, key=lambda x: (-x[0], x[1], x[2])):
        head = sections[si][0]
        if out[gi] is not None or head.lower() in used or head.lower() == own.lower():
            continue
        if not _shares_words(head, vocab[gi]) or not covers(head, sections[si][1], [n for n, _w in names[gi]], own):
            continue  # a detail of the chapter ("Printing Filenames" for click's echo), not its idea
        if name_title(head, groups[gi], {n for n, _w in names[gi]}, own):
            # a heading that is only the module's name (sanitize's "Transformers") may say its idea in the
            # sentence under it ("Transformers allow you to filter and modify HTML nodes …")
            said = section_title(sections[si][1])
            if not said or said.lower() in used or name_title(said, groups[gi], {n for n, _w in names[gi]}, own):
                continue
            used.add(head.lower())
            head = said
        out[gi] = head
        used.add(head.lower())
    for gi, files in enumerate(groups):  # (a section named for the chapter's own directory names none of its code)
        if out[gi] is None and (said := _directory_section(sections, files, groups, used)):
            if not name_title(said, files, {n for n, _w in names[gi]}, own):
                out[gi] = said
                used.add(said.lower())
    return out


def _directory_section(sections: list[tuple[str, str, bool]], files: list[str], groups: list[list[str]], used: set[str]) -> str:
    """What the docs' section named for a directory most of whose files are this chapter's says its subject lets a
    user do (sanitize's "## Transformers" for `lib/sanitize/transformers/`: "Filtering and modifying HTML nodes"),
    or ''."""
    from ..contracts.title_shape import stem

    mine = set(files)
    dirs = {posixpath.basename(posixpath.dirname(f)) for f in files}
    for head, text, _deep in sections:
        words = [stem(w) for w in _words(head)]
        if len(words) != 1 or head.lower() in used:
            continue
        for d in dirs:
            held = [f for g in groups for f in g if posixpath.basename(posixpath.dirname(f)) == d]
            if d and [stem(w) for w in _words(d)] == words and 2 * sum(f in mine for f in held) > len(held) \
                    and (said := section_title(text)) and said.lower() not in used:
                return said
    return ""


def covers(head: str, text: str, key: list[str], project: str = "") -> bool:
    """Whether a docs section is about the chapter's main definitions, not one detail of it: it
    names three or more of the chapter's key names (a name that reads as an English word, `body`,
    `stdout`, counts for nothing) with one of its first two among them, or its heading says the
    central name's own word (not the project's: "Flask Extension Development") and the section
    names that name or the next one at least twice ("Global Context Access" for
    `get_current_context`, "Query Language" for `QueryLike` and `Query`)."""
    body = head + "\n" + text
    strong = [n for n in key[:8] if not re.fullmatch(r"[a-z]+", n) and _mentions(body, n)]
    if len(strong) >= 3 and any(n in strong for n in key[:2]):
        return True
    if not key:
        return False
    own = {w[:5] for w in _words(project)}
    central = {w[:5] for w in _words(key[0]) if len(w) > 3} - own
    said = {w[:5] for w in _words(head) if len(w) > 3} - own
    return bool(central & said) and any(_mentions(body, n) >= 2 for n in key[:2])


_WEAK_NAMES = frozenset({"new", "init", "main", "get", "set", "run", "call", "use", "default", "index", "setup", "test",
                         "string", "name", "value", "data", "type", "error", "err", "self", "this", "args"})

_OBJECT_STOP = frozenset({"by", "with", "without", "if", "or", "and", "to", "from", "for", "as", "into", "via", "impl", "internal", "all", "async", "sync",
                          "at", "of", "in", "until", "when", "then", "than", "per"})  # (jopt-simple's `removeAtEndOf`)


def _words(name: str) -> list[str]:
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name.strip("_"))
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


def _article(noun: str) -> str:
    low = noun.lower()
    # a URL, a user, a unit: said with a consonant
    return "a" if low.startswith(("us", "uri", "url", "uni", "use", "one")) else "an" if low[:1] in "aeiou" else "a"


# the last word of a method name that is no thing a reader could picture
_NOT_NOUNS = frozenset({"accessible", "ready", "read", "write", "info", "str", "impl", "inner", "ok", "err", "mut", "ref",
                        "all", "any", "once", "now", "sync", "async", "raw", "internal", "unchecked", "unsafe", "opt", "func",
                        "fn", "cb", "callback", "helper", "data", "value", "values", "item", "items", "it", "this", "self",
                        "to", "from", "with", "by", "if", "or", "and", "in", "on", "just", "first", "last", "single", "none",
                        "empty", "only", "some", "default"})  # (C#'s `MatchJust`, `ReadFirst`: no "matches its just")


_NOT_OBJECTS = frozenset("multiple all one many single async sync internal new default raw impl inner once now later each "
                         "every more next prev before after pre post on".split())


def flow_title(s: Sym, project: str = "") -> str:
    """'How a group resolves its command' from `Group.resolve_command`; '' when the name does not
    open with a verb and an object (`toJson`, `wsgi_app`)."""
    raw = [w for w in re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", s.short.strip("_")).split("_") if w]
    words = [w.lower() for w in raw]
    if len(words) < 2 or words[0] not in VERBS or any(w in _OBJECT_STOP or w in _NOT_OBJECTS for w in words[1:4]):
        return ""
    obj = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in raw[1:4])
    owner = s.dotted.rsplit(".", 1)[0] if "." in s.dotted else ""
    owner = owner.rsplit(".", 1)[-1].strip("*&") if owner else ""
    subject = " ".join(_words(owner)) if owner and re.fullmatch(r"[A-Za-z_]\w*", owner) else ""
    if raw[-1].lower() in _NOT_NOUNS or len(raw[-1]) < 3 or words[1] in ("no", "not", "non", "unsupported", "deferred") \
            or re.fullmatch(r"[a-z]{3,}ed", raw[-1].lower()) \
            or raw[-1].lower() in ("exception", "error", "name", "size", "header", "limits", "len", "count"):
        return ""  # `make_accessible`, `poll_ready`, `write_str`: no thing the reader could picture
    if owner and re.search(r"(?:Io|IO|Ext|Extensions?|Impl|Helpers?|Guide|Utils?|Internal|Inner|Builder|Visitor|Future|Methods)$", owner):
        return ""  # a helper type's method (C#'s `MaybeExtensions.MatchJust`, a Ruby plugin's `InstanceMethods`) says how the code is arranged, not what it does
    if owner and re.search(r"[a-z](?:ed|able|ible|ous|ful|ive)$", owner):
        return ""  # no noun to be a subject: roda's plugin `Chunked` ("How a chunked loads …")
    verb = VERBS[words[0]]
    if subject:
        if obj.lower() in subject or subject in obj.lower():
            return ""
        its = "its"
        if project and owner.lower() == project.lower():
            who = owner
        elif re.search(r"[^su]s$", subject):  # `Options`, `Stubs`: "How the stubs verify …", not "a stubs verifies"
            who, verb, its = f"the {subject}", _plural_verb(verb), "their"
        else:
            who = f"{_article(subject)} {subject}"
        return f"How {who} {verb} {its if len(words) == 2 else 'the'} {obj}"
    plural = re.search(r"[^siu]s$", obj)  # "Reading partials", not "Reading a partials"
    return f"{_gerund(words[0]).capitalize()} {'' if plural else _article(obj) + ' '}{obj}"


def _plural_verb(verb: str) -> str:
    """"verifies the" → "verify the": the form a plural subject takes (the first word)."""
    first, _, rest = verb.partition(" ")
    known = next((k for k, v in VERBS.items() if v.split(" ")[0] == first and " " not in k), None)
    base = known if known else first[:-3] + "y" if first.endswith("ies") else first[:-2] \
        if first.endswith(("ches", "shes", "sses", "xes", "zes")) else first[:-1] if first.endswith("s") else first
    return f"{base} {rest}".strip()


def flow_titles(p: Project, groups: list[list[str]]) -> list[str | None]:
    """Each chapter's main flow said as an idea, or None: the best-ranked verb-object method (or
    function) among its key symbols that calls another key symbol, else any of them."""
    out: list[str | None] = []
    used: set[str] = set()
    own = project_name(p.root)
    for files in groups:
        ranked = key_symbols(p, files, 12)
        # the chapter's central flows only: its first key names and the ranked methods of its central
        # type (ky's `Ky` chapter is not "Creating a text decoder", one helper among its methods)
        central = ranked[0].dotted if ranked and ranked[0].kind in ("class", "struct", "interface", "trait", "type") \
            else ""
        key = ranked[:4] + [s for s in ranked[4:] if central and s.dotted.rsplit(".", 1)[0] == central]
        names = {s.short for s in key}
        best = None
        for s in key:
            if s.kind not in ("method", "function") or s.short.startswith("_"):
                continue
            t = flow_title(s, own)
            if t and t.lower() not in used and not name_title(t, files, names, own):
                best = t
                break
        if not best and central:
            t = _verbs_title(p, files, ranked[0], own)
            best = t if t and t.lower() not in used and not name_title(t, files, names, own) else None
        if best:
            used.add(best.lower())
        out.append(best)
    return out


def _verbs_title(p: Project, files: list[str], owner: Sym, project: str) -> str:
    """'How Ky fetches and retries' from `Ky`'s methods `_fetch` and `_retry`: the two best-ranked
    verbs among the central type's methods, when no method says a verb and an object."""
    verbs: list[str] = []
    for s in sorted((s for s in p.symbols(within=files) if s.kind == "method"
                     and s.dotted.rsplit(".", 1)[0] == owner.dotted), key=lambda s: -s.score):
        first = _words(s.short.lstrip("_#"))[:1]
        if first and first[0] in VERBS and first[0] not in ("create", "make", "build", "close", "flush", "open", "add") and " " not in VERBS[first[0]] \
                and VERBS[first[0]] not in verbs:  # a factory says nothing of what the type does
            verbs.append(VERBS[first[0]])
        if len(verbs) == 2:
            break
    if len(verbs) < 2 or not re.fullmatch(r"[A-Za-z_]\w*", owner.short):
        return ""
    subject = " ".join(_words(owner.short))
    if owner.short.lower() == project.lower():
        return f"How {owner.short} {verbs[0]} and {verbs[1]}"
    if re.search(r"[^su]s$", subject):  # `Options`: "How the options fetch and merge"
        return f"How the {subject} {_plural_verb(verbs[0])} and {_plural_verb(verbs[1])}"
    return f"How {_article(subject)} {subject} {verbs[0]} and {verbs[1]}"


# verbs that open a doc comment but say nothing of what the code is for
def doc_titles(p: Project, groups: list[list[str]], central: list[bool] | None = None) -> list[str | None]:
    """Each chapter's idea in its maintainers' words, or None: the first of its key symbols whose
    doc's first sentence says what it does (doc_title), else what its first one or two are
    (doc_noun_title). `central`, when given, is filled with whether the words are the chapter's
    central symbol's (its first key symbol): a method's doc says less of a chapter than its type's."""
    out: list[str | None] = []
    used: set[str] = set()
    own = project_name(p.root)
    for files in groups:
        top = [_with_impl_doc(p, s) for s in key_symbols(p, files, 4)]
        key = [s for s in top if s.d.doc and not s.short.startswith("_")]
        names = {s.short for s in key}
        found = next(((t, s) for s in key if (t := doc_title(s)) and t.lower() not in used
                      and not name_title(t, files, names, own)), None) or \
            next(((t, s) for s in key[:2] if (t := doc_noun_title(s)) and t.lower() not in used
                  and not name_title(t, files, names, own)), None)
        if found:
            used.add(found[0].lower())
        out.append(found[0] if found else None)
        if central is not None:
            central.append(found is not None and bool(top) and found[1] is top[0])
    return out


def _with_impl_doc(p: Project, s: Sym) -> Sym:
    """`s`, or for a Rust type with no doc of its own the same type with the doc its inherent `impl` block carries
    (json-rust's `/// A Short is a small string, …` above `impl Short`)."""
    if s.lang != "rust" or s.d.doc or s.kind not in ("struct", "enum"):
        return s
    impl = next((x for x in p.symbols(within=[s.rel]) if x.kind == "impl" and x.d.name == s.d.name and x.d.doc
                 and x.dotted == f"impl {s.short}"), None)
    return Sym(s.rel, dataclasses.replace(s.d, doc=impl.d.doc), s.score, s.lang) if impl else s


# a module doc's head noun that says what kind of code it is, not what it is for
_GENERIC_HEADS = frozenset({"utilities", "utility", "helpers", "helper", "types", "type", "functions", "function", "macros",
                            "tools", "internal", "misc", "miscellaneous", "definitions", "implementation", "module",
                            "package", "code", "future", "futures", "traits", "constants", "structs"})


def module_doc_title(doc: str) -> str:
    """'Handling WebSocket connections' from `//! Handle WebSocket connections.`, 'Server-Sent
    Events responses' from `//! Server-Sent Events (SSE) responses.`, 'Writing middleware' from
    `//! Utilities for writing middleware`: what the maintainers say the module is for, in a few
    words; '' when its first sentence is a kind of code ("Handler future types") or a package
    clause ("Package cli provides …")."""
    first = re.split(r"(?<=[.!?])\s", " ".join(doc.split()), maxsplit=1)[0] if doc else ""
    first = re.sub(r"\[`?([^\]`]*)`?\]\([^)]*\)|\[`([^\]`]*)`\]", lambda m: m.group(1) or m.group(2) or "", first)
    first = re.sub(r"\s*\([^)]*\)", "", re.sub(r"`([^`]*)`", r"\1", first)).rstrip(".!")
    first = re.sub(r"(?i)^(?:utilities|helpers|tools|types|functions) for ", "", first)
    first = re.split(r"\s+to\s+[a-z]+\s+(?:the|a|an)\s", first, maxsplit=1)[0]  # "… methods to control the HTTP request"
    words = _DOC_CUT.split(" " + first + " ", maxsplit=1)[0].split()
    words = words[:next((k for k, w in enumerate(words) if w.lower() in ("based", "such", "e.g", "i.e")), len(words))]
    while words and words[-1].lower() in ("the", "a", "an", "of", "to", "for", "and", "or", "in", "on", "with", "its", "like"):
        words.pop()
    if not 2 <= len(words) <= 6 or not re.fullmatch(r"[A-Za-z][A-Za-z -]*(?:\.[A-Za-z][A-Za-z -]*)*", " ".join(words)) \
            or words[0].lower() in ("package", "this", "the", "these", "it", "module", "see", "internal") \
            or words[-1].lower() in _GENERIC_HEADS or words[0].lower() in _GENERIC_HEADS:
        return ""
    head = words[0].lower()
    if head in VERBS:  # an imperative: "Handle WebSocket connections"
        return " ".join([_gerund(head).capitalize()] + words[1:])
    if head.endswith("ing"):
        return words[0][:1].upper() + " ".join(words)[1:]
    if sum(1 for w in words if w[:1].isupper()) > 2 and not any(w.isupper() for w in words):
        return ""  # a list of names, not a phrase
    return words[0][:1].upper() + " ".join(words)[1:]


def module_doc_titles(p: Project, groups: list[list[str]]) -> list[str | None]:
    """Each chapter's idea from its main module's doc (the file of its first key symbol, then its
    largest files), or None; each once in the book."""
    out: list[str | None] = []
    used: set[str] = set()
    own = project_name(p.root)
    for files in groups:
        key = key_symbols(p, files, 6)
        order = [s.rel for s in key[:1]] + sorted(files, key=lambda f: -p.size(f))
        found = None
        for rel in dict.fromkeys(order):
            t = module_doc_title(p.module_doc(rel))
            if t and t.lower() not in used and not name_title(t, files, {s.short for s in key}, own):
                found = t
                break
        if found:
            used.add(found.lower())
        out.append(found)
    return out


def idea_titles(p: Project, groups: list[list[str]]) -> list[str | None]:
    """Each chapter's idea title (English), or None: the docs' heading, else its maintainers' doc,
    else its main flow; each used once in the book."""
    out: list[str | None] = []
    heads, docs, flows = heading_titles(p, groups), doc_titles(p, groups), flow_titles(p, groups)
    used: set[str] = set()
    for h, d, f in zip(heads, docs, flows):
        t = next((x for x in (h, d, f) if x and x.lower() not in used), None)
        if t:
            used.add(t.lower())
        out.append(t)
    return out
