"""What a group of code is for, read from its names and docs: the role gives a chapter its
title's topic. Each role lists words that betray it (in file and directory names, the top
symbols' names, the package doc) and, per language of the book, a topic. (Roles once carried a
fixed list of metaphors each, shared by every book: a chapter's image now comes only from the
project's own docs, see images.py.)"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    key: str
    words: tuple[str, ...]  # every word that betrays the role
    topic: dict[str, str]  # language -> a title's topic ("Routing requests")
    core: frozenset[str] = frozenset()  # the words that name the topic itself: one must be there


def _r(key, core, more, en, zh) -> Role:
    return Role(key, tuple(core.split() + more.split()), {"en": en, "zh": zh}, frozenset(core.split()))


ROLES: tuple[Role, ...] = (
    _r("app", "app application", "wsgi asgi server",
       "The application object", "应用对象"),
    _r("routing", "router route routes routing mux multiplexer", "dispatch dispatcher url",
       "Routing requests", "请求路由"),
    _r("tree", "tree trie radix", "node",
       "The lookup tree", "查找树"),
    _r("middleware", "middleware middlewares interceptor hook hooks plugin", "chain wrap wrapper",
       "Middleware and hooks", "中间件与钩子"),
    _r("context", "context ctx", "locals globals scope state current",
       "Context and state", "上下文与状态"),
    _r("errors", "error errors exception exceptions panic failure", "err exc fail backtrace",
       "Errors and failures", "错误与失败"),
    # not "store": the store role; not "table": a text table (terminal-table) stores nothing
    _r("storage", "storage storages persistence database db", "disk file table tables record",
       "Storing data", "数据存储"),
    # not "cached": `cached powers` are tables kept precomputed (serde_json's lexical/cached.rs), not a cache
    _r("cache", "cache caching memo memoize memoized lru", "evict eviction",
       "Caching", "缓存"),
    _r("iterators", "iterator iterators iter iterable generator", "iterate iteration next yield",
       "Iterators", "迭代器"),
    _r("query", "query queries search", "filter select where condition predicate match",
       "Queries", "查询"),
    # not "completion" or "shell": a completion script's code is about the shell, and the
    # completion role has it (cobra's PowerShell chapter was titled "Commands and flags")
    _r("commands", "command commands cli cmd subcommand", "args argv flag flags",
       "Commands and flags", "命令与参数"),
    _r("completion", "completion completions", "complete bash zsh fish powershell",
       "Shell completion", "命令行补全"),
    # not "parse" alone: a template's or a document's parser decodes no data (jinja's parser.py)
    _r("serialization", "json serialize serializer serialization deserialize deserializer encode encoder decode "
       "decoder marshal unmarshal", "parse parser tag tagged ser de value",
       "Encoding and decoding data", "数据的编码与解码"),
    _r("http", "request requests response responses http", "client fetch send headers body status wsgi asgi "
       "transport",
       "Requests and responses", "请求与响应"),
    _r("retry", "retry retries backoff timeout timeouts", "delay limit jitter",
       "Retries and timeouts", "重试与超时"),
    _r("config", "config configuration settings options", "option defaults env environment",
       "Configuration", "配置"),
    # not "render" alone: goquery renders a node's HTML, no template
    _r("templates", "template templates templating jinja", "render rendering view views",
       "Templates and rendering", "模板与渲染"),
    _r("sessions", "session sessions cookie cookies", "signing signer secure auth",
       "Sessions", "会话"),
    # single words: `createStore`, `setState` are split into create/set + store/state by _words; not
    # "slice" alone: a Go slice is no store's slice
    _r("store", "store stores", "subscribe subscriber listener listeners selector selectors slice immer devtools "
       "persist",
       "State stores", "状态仓库"),
    _r("macros", "macro macros macro_rules", "ensure bail format",
       "Macros", "宏"),
    # not "engine" alone: base64's engines encode, they hold no connection; nor "pool" alone: fastjson's pool.go
    # keeps parsers for reuse (a pool of connections says "connection" too)
    _r("engine", "connection connections cursor transaction", "engine dialect driver execute pool pooling",
       "Connections and execution", "连接与执行"),
    _r("dialects", "dialect dialects mysql postgresql postgres sqlite oracle mssql mariadb pg", "",
       "Database dialects", "数据库方言"),
    _r("orm", "orm relationship relationships declarative unitofwork", "mapper mapped mapping identity",
       "Mapping objects to rows", "对象与数据行的映射"),
    _r("events", "event events signal signals emitter observer", "emit listen dispatch_event",
       "Events and signals", "事件与信号"),
    _r("logging", "log logger logging logs", "debug trace",
       "Logging", "日志"),
    _r("utils", "util utils utility utilities helper helpers", "common internal misc tools shared",
       "Helpers used everywhere", "到处用到的辅助函数"),
    _r("types", "types typing interface interfaces protocol protocols trait traits", "type schema",
       "Types and interfaces", "类型与接口"),
)

def _words(text: str) -> list[str]:
    """Lower-case words of identifiers and prose: `ServeHTTP` → serve, http; `url_for` → url, for."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w for w in re.split(r"[^A-Za-z]+", text.lower()) if len(w) > 1]


SINGLE_WORD = 0.4  # a role betrayed by one word alone (anyhow's `Chain`, an iterator) is a weak guess
MIN_FIT = 1.5  # below this a role is no explanation at all (ky's Ky class is not "about retries")


def detect(names: list[str], paths: list[str], doc: str, sigs: list[str] | None = None,
           dirs: list[str] | None = None) -> list[tuple[float, Role]]:
    """Roles that fit, best first, with a score: paths weigh most, then names, then the doc and
    the signatures (`impl DoubleEndedIterator for Chain`: what the code is, not only what it is
    called). A role needs one of its core words, the topic's own noun, in a path, a name, the doc or
    two signatures: `render` alone is no template, `parse` alone no encoding. One word is not evidence enough: a role whose only word is that one (`chain` in
    chain.rs, `Chain`, `ChainState`) counts only where the doc says it too, two files or three
    of the key names say it (zustand's `StoreApi`, `createStore`, `useStore`), and then SINGLE_WORD
    of its score, so a role that several words support wins; a role below MIN_FIT is left out. The
    chapter's directory (`dirs`: `middleware/`) is a name someone chose for the role: it counts whole."""
    bag: dict[str, float] = {}
    in_paths: dict[str, int] = {}
    for p in paths:
        for w in _words(p.rsplit(".", 1)[0]):
            bag[w] = bag.get(w, 0) + 3.0
            in_paths[w] = in_paths.get(w, 0) + 1
    folder = {w for d in dirs or [] for w in _words(d)}
    for d in dirs or []:
        for w in _words(d):
            bag[w] = bag.get(w, 0) + 3.0
    in_names: dict[str, set[str]] = {}
    for i, n in enumerate(names):
        for w in _words(n):
            bag[w] = bag.get(w, 0) + 2.0 / (1 + i * 0.3)
            in_names.setdefault(w, set()).add(n)
    in_doc = set(_words(doc))
    for w in _words(doc)[:80]:
        bag[w] = bag.get(w, 0) + 0.5
    in_sigs: dict[str, int] = {}
    for sig in (sigs or [])[:60]:
        for w in set(_words(sig)):
            bag[w] = bag.get(w, 0) + 0.3
            in_sigs[w] = in_sigs.get(w, 0) + 1
    # the doc names a role when it says the word twice: goquery's "run in the context of the document"
    # is no chapter about contexts
    doc_words = _words(doc)
    said = {w for w in in_doc if doc_words.count(w) >= 2}
    named = set(in_paths) | folder | set(in_names) | said | {w for w, k in in_sigs.items() if k >= 2}
    scored = []
    for role in ROLES:
        hits = [w for w in role.words if bag.get(w, 0.0) > 0]
        if role.core and not role.core & named:
            continue  # only words around the topic (`render` without a template, `slice` without a store)
        s = sum(bag[w] for w in hits)
        if len(hits) == 1 and hits[0] not in folder:  # a folder named `middleware/` is chosen, not guessed
            if hits[0] not in in_doc and in_paths.get(hits[0], 0) < 2 and len(in_names.get(hits[0], ())) < 3:
                continue  # a name alone (`context.rs` of anyhow's Context trait) is no evidence of a role;
                # a directory of them (ky's `utils/`) or the doc saying it is
            s *= SINGLE_WORD
        if s >= MIN_FIT:
            scored.append((round(s, 3), role))
    scored.sort(key=lambda x: (-x[0], x[1].key))
    return scored


_ARGV = re.compile(r"\bargparse\b|\bArgumentParser\(|\boptparse\b|\bsys\.argv\b|\bflag\.Parse\(\)|\bos\.Args\b|"
                   r"\bclap::|\bprocess\.argv\b|\bOptionParser\.new\b|\bARGV\b|\bString\[\]\s+args\b")
_PROGRAM = re.compile(r"(?:^|/)(?:bin|cmd)/|(?:^|/)(?:main|cli|__main__)\.\w+$")


def reads_command_line(rel: str, text: str) -> bool:
    """A program's entry that reads its command line (markdownify's main.py with argparse, a Go `cmd/x/main.go`):
    the command-line tool; not a module's own `if __name__ == "__main__":` reading `sys.argv` (parso's tokenize.py)."""
    return bool(_PROGRAM.search(rel) and _ARGV.search(text))
