"""Whether a chapter title says an idea or only names code (issue 35).

A title such as "Routing a request" or "How a command finds its subcommand" tells a reader
what they will understand; "Termui — prompt and style", "The router module" or "Provider —
JSONProvider and DefaultJSONProvider" is an inventory: a module's name, or a list of the
symbols inside. Read from the title and the chapter's source paths alone (no map), so the
outline checks, the planner's answer and the benchmarks hold both planners to one rule."""

from __future__ import annotations

import posixpath
import re

# words that say what kind of thing a name is, not what it does
KIND_WORDS = frozenset({
    "module", "modules", "package", "packages", "file", "files", "class", "classes", "type", "types", "impl",
    "implementation", "implementations", "part", "library", "crate", "source", "code", "api", "public", "the", "its",
    "模块", "包", "文件", "类", "类型", "部分", "实现", "中间件", "函数", "方法", "结构体", "接口", "辅助函数",
})
STOP = frozenset({
    "a", "an", "the", "and", "or", "of", "in", "on", "for", "to", "with", "by", "at", "from", "into", "its", "it",
    "how", "what", "why", "when", "where", "which", "who", "is", "are", "be", "does", "do", "work", "works", "inside",
    "与", "和", "的", "及",
})
_CODE = re.compile(r"`[^`]+`")
# an identifier a reader takes for code: CamelCase with an inner capital, snake_case, dotted or
# `::` paths, a call `x()`
_IDENT = re.compile(r"^(?:[A-Za-z_$][\w$]*(?:\.|::)[\w$.:]+|\w*_\w*|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*|"
                    r"\w+\(\)|[A-Z][A-Z0-9_]{2,})$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ACRONYM = re.compile(r"^[A-Z]{2,5}s?$")
_TAIL = re.compile(r"\s+—\s+|：|:\s+")
_ITEMS = re.compile(r"\s*(?:,|、|\band\b|与|和|&)\s*")


def _words(text: str) -> list[str]:
    """`bash_completionsV2` -> bash, completions, v2; CJK runs kept as words."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*|[\u4e00-\u9fff]+", text)]


def stem(w: str) -> str:
    for suf in ("ings", "ing", "ers", "er", "ions", "ion", "es", "s", "ed", "e"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


def is_name(token: str, names: frozenset[str] | set[str] = frozenset()) -> bool:
    token = token.strip().strip("`*\"'“”")
    return bool(token) and (bool(_IDENT.match(token)) or token in names)


def path_words(sources: list[str] | tuple[str, ...]) -> set[str]:
    """The stems of the words of the sources' file names and directories."""
    out: set[str] = set()
    for s in sources:
        base = posixpath.basename(s).split(".", 1)[0]
        for w in _words(base) + _words(posixpath.dirname(s)):
            out.add(stem(w))
    return out


def name_title(title: str, sources: list[str] | tuple[str, ...] = (), names: frozenset[str] | set[str] = frozenset(),
               project: str = "") -> str:
    """Why `title` only names code ('' when it says an idea): it lists symbols ("Routing — Mux and
    ServeHTTP"), it is code alone ("`Router`"), or its words are its module's name ("Termui",
    "Throttle middleware", "The router module"). `names` are the code's known names (a lowercase
    `echo` is a name only if the code defines it); `project` the project's name (the overview's
    "click at a glance" is an idea: the project's name is the subject, "at a glance" the idea)."""
    t = " ".join(title.split())
    # in a Chinese title a Latin word is code (`Response`, `_models`), unless it is an acronym (HTTP)
    cjk = bool(_CJK.search(t))
    names = set(names) | ({w for w in re.findall(r"[A-Za-z_$][\w$.]*", _CODE.sub(" ", t)) if not _ACRONYM.match(w)}
                          if cjk else set())
    parts = _TAIL.split(t, maxsplit=1)
    if len(parts) == 2:
        items = [x for x in _ITEMS.split(parts[1]) if x.strip()]
        if items and all(len(x.split()) == 1 and (x.startswith("`") or is_name(x, names)) for x in items):
            return f"it lists names ({parts[1]})"
    codes = _CODE.findall(t) + [w for w in re.findall(r"[\w$.:()]+", _CODE.sub(" ", t)) if _IDENT.match(w)]
    if len(codes) >= 2:
        return f"it names {len(codes)} symbols"
    own = {stem(w) for w in _words(project)}
    # a word the code defines as written (`echo`, not `Object` for "object") is a name, unless it is
    # a common word of the trade a title may well say
    plain = [x for x in re.findall(r"\S+", _CODE.sub(" ", t)) if not _IDENT.match(x)
             and not (x.strip(",.:;!?\"'") in names and (cjk or x.strip(",.:;!?\"'").lower() not in _ENGLISHISH))]
    if cjk:  # "throttle 中间件", "_models 模块": the Latin part is the module's name, the rest its kind
        plain = [w for x in plain for w in re.split(r"([A-Za-z_$][\w$.]*)", x) if w.strip() and w not in names]
    rest = [w for w in _words(" ".join(plain)) if w not in STOP and w not in KIND_WORDS]
    if not rest:
        return "it is only code names"
    mods = path_words(sources) - own
    # a verb said of the module's things is what the code does ("Capturing blocks" for capture_block.rb), unless
    # the module is named by that very word ("Routing" for routing.go)
    # (its object counts though the code also names it: lark's "Loading a grammar" for load_grammar.py, where
    # `grammar` is a variable too, says what the module does as much as "Capturing blocks" does)
    said = [w for w in _words(_CODE.sub(" ", t)) if w not in STOP and w not in KIND_WORDS]
    doing = bool(re.fullmatch(r"[a-z]{3,}ing", rest[0])) and rest[0] not in _NOT_GERUNDS and len(said) >= 2 \
        and rest[0] not in _words(" ".join(sources))
    if all(stem(w) in mods for w in rest) and not doing:
        return "its words are its module's name"
    return ""


# common words a project may also define as names (`echo`, `command`): as a title's word they still
# say something, unless the title lists them (the tail rule above)
_ENGLISHISH = frozenset({
    "command", "commands", "option", "options", "request", "requests", "response", "responses", "context", "router",
    "route", "routes", "routing", "query", "queries", "table", "tables", "storage", "middleware", "error", "errors",
    "client", "clients", "server", "handler", "handlers", "group", "groups", "application", "app", "parser",
    "parsing", "argument", "arguments", "type", "types", "value", "values", "stream", "streams", "test", "testing",
    "object", "objects", "data", "event", "events", "message", "messages", "session", "sessions", "template", "templates",
})


_NOT_GERUNDS = frozenset({"string", "thing", "setting", "settings", "mapping", "binding", "encoding", "building", "ring", "king",
                          "padding", "logging", "listing", "heading", "spring", "warning", "offering", "timing", "typing"})


def name_title_share(titles: list[tuple[str, list[str] | tuple[str, ...]]], names: frozenset[str] | set[str] = frozenset(),
                     project: str = "") -> tuple[int, int]:
    """(titles that only name code, all titles) of (title, sources) pairs."""
    return sum(1 for t, src in titles if name_title(t, src, names, project)), len(titles)
