"""Chapter titles that say what each chapter teaches, distinct across the book.

A title is a subject and the chapter's key names (`Routing requests — Mux and ServeHTTP`).
The subject is the chapter's role topic when the chapter holds that role alone (the role
fits it best of all the chapters); a second chapter of the same kind does not repeat the
topic (five chapters called "Middleware and hooks — …" tell a reader nothing apart): it takes
another role that still fits it well, or else its own module's name (`throttle.go` in
`middleware/` → "Throttle middleware", `zsh_completions.go` → "Zsh completions"). The names
leave out entry-point names that say nothing alone (`main`, `New`, `init`)."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict

from ..contracts.title_shape import name_title
from . import roles as roles_mod
from .phrases import phrases
from .plan import PLAIN_KINDS, TITLE_KINDS, key_symbols, peripheral, settled_roles
from .project import Project, Sym, project_name

# File stems that name no subject: the module is named for its place, not its job.
GENERIC_STEMS = frozenset({
    "main", "__main__", "index", "init", "__init__", "mod", "lib", "core", "base", "common", "utils", "util",
    "helpers", "helper", "misc", "types", "src", "source", "internal", "pkg", "_internal", "shared", "root",
})
ENTRY_STEMS = frozenset({"lib", "index", "__init__", "main", "mod"})  # a package's own entry file
# Names that say nothing as the whole of a title.
GENERIC_NAMES = frozenset({"main", "new", "New", "init", "Init", "default", "index", "__init__", "__main__", "setup",
                           "constructor", "__new__"})


def humanize(stem: str) -> str:
    """`bash_completionsV2` -> `Bash completions v2`, `route_headers` -> `Route headers`."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", stem.strip("_"))
    words = re.sub(r"[_\-.\s]+", " ", words).strip()
    parts = [w if w.isupper() and len(w) > 1 else w.lower() for w in words.split()]
    text = " ".join(parts)
    return text[:1].upper() + text[1:]


def title_names(p: Project, files: list[str], count: int = 2) -> list[str]:
    """The two names a title shows: exported types first, then functions; generic entry names
    (`main`, `New`) only when nothing else is there."""
    top = key_symbols(p, files, 10)
    typed = [s.short for s in top if s.kind in TITLE_KINDS and s.d.exported]
    # a public method of the chapter's type counts as exported (TypeScript's `static create` is not marked so)
    plain = [s.short for s in top if s.kind in PLAIN_KINDS and (s.d.exported or (
        s.kind == "method" and not s.short.startswith(("_", "#")) and s.short != "constructor"))]
    names: list[str] = []
    public = [s.short for s in top if not s.short.startswith(("_", "#")) and s.short != "constructor"]
    for n in typed + plain + public:
        if n not in names and n.strip("_") and n not in GENERIC_NAMES:
            names.append(n)
    if not names:
        names = [s.short for s in top if s.short.strip("_")][:1]
    return names[:count]


# Module names that are short for a word a reader knows (`ser.rs`, `ptr.rs`): said in full.
ABBREVIATIONS = {
    "ser": "serialization", "de": "deserialization", "num": "numbers", "ptr": "pointers", "fmt": "formatting",
    "cfg": "configuration", "conf": "configuration", "err": "errors", "ctx": "context", "req": "request",
    "res": "response", "resp": "response", "msg": "messages", "conn": "connections", "auth": "authentication",
    "env": "environment", "iter": "iterators", "str": "strings", "impl": "implementation", "mw": "middleware",
    "io": "I/O", "db": "database", "exc": "exceptions", "fs": "file system", "os": "operating system", "cli": "command line",
}


def _phrase(stem: str) -> str:
    full = ABBREVIATIONS.get(stem.lower().strip("_"))
    return (full[:1].upper() + full[1:]) if full else humanize(stem)


# "The write-ahead log: an append-only file ..." names the module `wal.py` in its author's words.
_DOC_NAME = re.compile(r"^(?:the |an? )?([A-Za-z][\w-]*(?: [\w-]+){0,3}):\s", re.IGNORECASE)


def doc_name(doc: str) -> str:
    """The name a module's doc gives it, when its first line opens with one ("The write-ahead
    log: …" → "Write-ahead log", "Sorted string tables: …"): a better title subject than a
    file stem (`wal`, `sstable`). Not a prose lead-in ("Note: …", "Example: …")."""
    from ..contracts.lists import PROSE_LEADS

    m = _DOC_NAME.match(doc.strip().split("\n", 1)[0])
    if not m or m.group(1).lower() in PROSE_LEADS:
        return ""
    name = m.group(1)
    return name[:1].upper() + name[1:]


def module_subjects(p: Project, files: list[str], role: roles_mod.Role | None, language: str) -> list[str]:
    """Subjects from the chapter's own modules, best first: the file of its top symbol, then
    its other files by size; a generic stem (`mod.rs`, `__init__.py`) gives way to its
    directory, and the package's own entry file (`src/lib.rs`, `index.ts`) is its public API.
    A directory that names the chapter's kind (`middleware/`) is said after the module; the
    module's directory is the second choice when another chapter has the module's name."""
    t = phrases(language)
    zh = t["lang"] == "zh"
    order: list[str] = []
    # the file of the title's first name leads, so subject and names agree (chi's
    # "Client ip middleware — HeaderRouter and Pattern" named one file and showed another's)
    shown = title_names(p, files)[:1]
    for s in [s for s in key_symbols(p, files, 10) if s.short in shown] + key_symbols(p, files, 10):
        if s.rel not in order:
            order.append(s.rel)
    order += sorted((f for f in files if f not in order), key=lambda f: (-p.size(f), f))
    # a tiny helper (koa's 20-line `is-stream.js`) names no chapter that holds a module ten times its size
    big = max((p.size(f) for f in files), default=0)
    order = [f for f in order if p.size(f) * 10 >= big] + [f for f in order if p.size(f) * 10 < big]
    first, second = [], []
    for f in order:
        stem = posixpath.basename(f).split(".", 1)[0]
        parent = posixpath.basename(posixpath.dirname(f))
        if stem.lower() in GENERIC_STEMS:
            # a Python package's entry is its `__init__.py` (or `main.py`): its `index.py` is an index
            if stem.lower() in ENTRY_STEMS and _is_entry(p, f) and (
                    p.lang(f) != "python" or stem.lower() in ("__init__", "main")):
                first.append(t["title_api"])
                continue
            if not parent or parent.lower() in GENERIC_STEMS:
                continue
            stem, parent = parent, posixpath.basename(posixpath.dirname(posixpath.dirname(f)))
        words = set(roles_mod._words(stem))
        # `middleware/throttle.go` is "Throttle middleware": the directory is the chapter's kind
        kind = parent if (parent and role and parent.lower() in role.words and parent.lower() not in words
                          and parent.lower() in role.topic["en"].lower()) else ""
        if zh:  # the module's name in its doc, said in Chinese ("The write-ahead log: …" → 预写日志)
            from .zh_titles import zh_title

            said = "" if kind else zh_title(doc_name(p.module_doc(f)))
            first.append(said or t["title_module"].format(name=(kind + "/" if kind else "") + stem))
        else:
            own = "" if kind else doc_name(p.module_doc(f))
            first.append(own or _phrase(stem) + (" " + kind.lower() if kind else ""))
        if parent and not kind and parent.lower() not in GENERIC_STEMS:
            second.append(t["title_module"].format(name=parent + "/" + stem) if zh
                          else t["title_in"].format(what=_phrase(stem), where=parent))
    out: list[str] = []
    for subject in first + second:
        if subject not in out:
            out.append(subject)
    return out


def _is_entry(p: Project, rel: str) -> bool:
    """The package's own entry file: a generic stem at the top of the code (`src/lib.rs`,
    `index.ts`, `httpx/__init__.py`), not one of a sub-package."""
    depth = rel.count("/")
    shallowest = min((f.count("/") for f in p.code_files()), default=0)
    return depth <= shallowest + (1 if rel.startswith(("src/", "lib/", "source/")) else 0)


def make_titles(p: Project, groups: list[list[str]], language: str) -> list[str]:
    # a chapter is titled by its own code, not by the scripts or build logic folded into it as a section
    groups = [[f for f in g if not peripheral(p, f)] or g for g in groups]
    t = phrases(language)
    lang = t["lang"]
    roles, alone = settled_roles(p, groups)
    subjects: list[str | None] = [None] * len(groups)
    taken: set[str] = set()
    for i in sorted(alone):
        role = roles[i]
        assert role is not None
        subjects[i] = role.topic[lang]
        taken.add(role.topic[lang].lower())
    for i, files in enumerate(groups):
        if subjects[i] is not None:
            continue
        # not another role that fits less well: a module's own name says more than a loose fit
        subjects[i] = next((s for s in module_subjects(p, files, roles[i], language) if s.lower() not in taken),
                           None)
        # a module named for a kind of code that a topic says more fully (mux's `middleware.go`: "Middleware and
        # hooks") takes that topic when no chapter has it; `Client.ts` stays "Client", not "Requests and responses"
        said = set(roles_mod._words(str(subjects[i] or "")))
        kind = next((r.topic[lang] for r in roles_mod.ROLES if said and r.topic[lang].lower() not in taken
                     and said <= set(r.words) and said & set(roles_mod._words(r.topic["en"]))), None)  # (the name is the kind)
        subjects[i] = kind or subjects[i]
        if subjects[i]:
            taken.add(str(subjects[i]).lower())
    # an idea, not an inventory (issue 35), in either language: the names go inside the chapter
    subjects = _idea_subjects(p, groups, subjects, alone, lang)
    return _distinct(groups, [s or t["title_part"].format(name=posixpath.basename(f[0]).rsplit(".", 1)[0])
                              for s, f in zip(subjects, groups)], t)


def _idea_subjects(p: Project, groups: list[list[str]], subjects: list[str | None], alone: set[int],
                   lang: str = "en") -> list[str | None]:
    """Each chapter's subject as an idea: the docs' heading that is about it, else the main path's step
    in it (path_titles), else its central symbol's doc said as what it does, else its role's topic when
    it holds the role alone, else another key symbol's doc, else its main flow (ideas.py), else the
    flow of another of its public functions, else the module subject; each once in the book. In Chinese the English ideas are said by zh_titles (those it cannot say whole are
    left out), the role's topic and the module subject are already Chinese."""
    from .ideas import doc_titles, flow_titles, heading_titles, module_doc_titles
    from .zh_titles import zh_title

    central: list[bool] = []
    heads, docs, flows = heading_titles(p, groups), doc_titles(p, groups, central), flow_titles(p, groups)
    mods, paths = module_doc_titles(p, groups), path_titles(p, groups)
    own = project_name(p.root)
    if lang == "zh":
        heads, docs, flows, mods, paths = ([(zh_title(x, own) or None) if x else None for x in xs]
                                           for xs in (heads, docs, flows, mods, paths))
    out: list[str | None] = []
    used: set[str] = set()
    for i in range(len(groups)):
        role = subjects[i] if i in alone else None
        # the central type's own doc before a role's topic; a method's doc after it (chi's `Mux`
        # chapter is "Routing requests", not the doc of `Mux.Handle`); the module's own doc ("Handle
        # WebSocket connections") before a method's doc or flow
        # a chapter the main path goes through is about that step (httparty's `Request#handle_response`)
        ways = (heads[i], paths[i], docs[i], role, mods[i]) if central[i] else (heads[i], paths[i], role, mods[i], docs[i])
        # a way that only says the module's name ("Commands and flags" for command.go and flag.go)
        # comes last, after every way that says an idea
        cands = [x for x in (*ways, flows[i], subjects[i]) if x and x.lower() not in used]
        pick = next((x for x in cands if not name_title(x, groups[i], project=own)), None)
        if pick is None:  # every way says a name: the flow of any of its public functions says an idea
            wide = wide_flow_title(p, groups[i], used)
            pick = (zh_title(wide, own) or None) if wide and lang == "zh" else wide
            pick = pick or (cands[0] if cands else None)
        if pick:
            used.add(pick.lower())
        out.append(pick)
    return out


def wide_flow_title(p: Project, files: list[str], used: set[str]) -> str | None:
    """The flow (ideas.flow_title) of the best-ranked public function or method of the chapter whose
    name says a verb and an object, when its key names gave none ("Validating header names")."""
    from .ideas import flow_title

    own = project_name(p.root)
    ranked = [s for s in sorted(p.symbols(within=files), key=lambda s: -s.score)
              if s.kind in ("method", "function") and not s.short.startswith(("_", "#"))]
    for s in ranked:
        t = flow_title(s, own)
        if t and t.lower() not in used and not name_title(t, files, {s.short}, own):
            return t
    return next((t for s in ranked if (t := verb_param_title(s)) and t.lower() not in used
                 and not name_title(t, files, {s.short}, own)), None)


# parameter names that say no thing a reader could picture
_VAGUE_PARAMS = frozenset({"args", "opts", "options", "config", "cfg", "ctx", "context", "params", "kwargs", "input",
                           "value", "val", "obj", "arg", "data", "str", "fn", "cb", "callback", "self", "this", "cls",
                           "target", "source", "dest", "other", "left", "right", "result", "output", "item"})


def verb_param_title(s: Sym) -> str:
    """'Stringifying an object' from qs's `stringify(object, opts)`: a function named by a verb alone, said
    with the thing its first parameter names; '' when the name is no verb or the parameter no thing."""
    from .ideas import _NOT_NOUNS, _article, _words
    from .signature import signature_parts
    from .verbs import VERBS, gerund as _gerund

    if s.short.lower() not in VERBS or not s.d.exported:  # (toml's unexported `Key.add(piece)` says nothing of its chapter)
        return ""
    first = next((prm.name for prm in signature_parts(s)[0] if prm.name not in ("self", "this", "cls")), "")
    words = _words(first)
    if len(words) != 1 or len(words[0]) < 4 or words[0] in _VAGUE_PARAMS or words[0] in _NOT_NOUNS:
        return ""
    noun = words[0]
    return f"{_gerund(s.short.lower()).capitalize()} {'' if re.search(r'[^siu]s$', noun) else _article(noun) + ' '}{noun}"


def path_titles(p: Project, groups: list[list[str]]) -> list[str | None]:
    """Each chapter's step of the main path (mainpath.central_path) said as what it does, or None: the
    first step in its files whose name says a verb and an object ("How a request handles its
    response"); each once in the book."""
    from .ideas import flow_title
    from .mainpath import central_path
    from .overview import entry_points

    path = central_path(p, entry_points(p))
    own = project_name(p.root)
    out: list[str | None] = []
    used: set[str] = set()
    for files in groups:
        mine = set(files)
        found = next((t for s in path[1:] if s.rel in mine and (t := flow_title(s, own)) and t.lower() not in used
                      and not name_title(t, files, {x.short for x in path}, own)), None)
        if found:
            used.add(found.lower())
        out.append(found)
    return out


def _distinct(groups: list[list[str]], titles: list[str], t: dict[str, str]) -> list[str]:
    # still the same (two chapters with one module name and the same key names): say where
    seen: dict[str, int] = defaultdict(int)
    for tt in titles:
        seen[tt] += 1
    out: list[str] = []
    for files, tt in zip(groups, titles):
        if seen[tt] > 1:
            where = posixpath.dirname(files[0]).rsplit("/", 1)[-1] or posixpath.basename(files[0]).rsplit(".", 1)[0]
            tt = t["title_where"].format(title=tt, where=where)
        while tt in out:
            tt = tt + " (" + str(len(out) + 1) + ")"
        out.append(tt)
    return out
