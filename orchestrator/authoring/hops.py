"""Calls the main path follows that a call graph cannot see (issue 35): the conventions of a
framework or runtime by which one definition's work goes on in another without a call that names it.

* served: a value handed to a server is called by it for each request, through its serving
  method (`http.createServer(this)` in express's `app.listen` runs `app.handle`; a Go
  `http.Handler` is served through its `ServeHTTP`; the `Router` the README hands to `axum::serve`
  through its `Service::call`, where the server calls its generic `make_service`);
* field: a field that holds one of the type's own methods is called through the field (chi's
  `mx.handler.ServeHTTP(w, r)`, where `mx.handler` is built from `mx.routeHTTP`);
* local: a method of a local made from a type of the project (`with Client(…) as client:
  client.request(…)` is `Client.request`);
* deferred: the calls of the handler a definition returns (koa's `callback` returns the handler
  a server runs, which calls `this.handleRequest`);
* future: a Rust function returning a type that implements `IntoFuture` (axum's `serve`) runs its
  `into_future` when awaited;
* iterated: a function returning an iterator of the project (rust-csv's `records` returns a
  `StringRecordsIter`) runs its `next` when looped over;
* apply: JavaScript's `f.call(this, …)`, `f.apply(…)` and `f.bind(this)` (called later) run `f`;
* called: a Python object called as a function (`md(text)`, `md = create_markdown(…)`) runs its `__call__`;
* generated: C#'s `Name(…)`, written by a source generator from the `NameAsync` marked `[CreateSyncVersion]`, runs it;
* implemented: an abstract or interface method runs its one implementation;
* default, registry: or, of several, the one the code gives as its value (`default_storage_class = JSONStorage`) or its table of them for the example's data (`'add': AddOperation`);
* table, serde, callback, yielded: dispatch_tables.convention_calls.

Each hop is a line of the caller's code (and, for a field, the line that fills it), so a traced
step still cites what it says."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .project import Project, Sym
from .subtypes import example_makes, go_built, implementations, made as _made, made_how, subtype as _subtype

# the method by which a server calls a handler of each language (Python's WSGI/ASGI `__call__`)
SERVE_METHODS = {"go": ("ServeHTTP",), "javascript": ("handle", "handleRequest"), "typescript": ("handle", "handleRequest"),
                 "python": ("__call__",), "rust": ("call",)}
_SERVER = re.compile(r"(?<![\w$])((?:https?2?|http2|net)\.(?:createServer|createSecureServer)|http\.(?:ListenAndServe(?:TLS)?|"
                     r"Serve(?:TLS)?)|(?:hyper|axum|tokio)::serve|(?:make_server|run_simple|serve))\s*\(")
_WITH = re.compile(r"\bwith\s+([\w.]*[A-Z]\w*)\s*\(")
_BOUND = {"python": re.compile(r"^\s*(\w+)\s*=\s*([\w.]*[A-Z]\w*)\s*\("),
          "javascript": re.compile(r"\b(?:const|let|var)\s+(\w+)\s*=\s*new\s+([\w.]+)\s*\("),
          "go": re.compile(r"\b(\w+)\s*:=\s*&?([\w.]+)\s*\{"),
          "rust": re.compile(r"\blet\s+(?:mut\s+)?(\w+)\s*=\s*([\w:]+)::new\s*\(")}
_BOUND["typescript"] = _BOUND["javascript"]
_REBOUND = re.compile(r"\s*((?:this\.)?[\w$]+)\s*=\s*\1\.bind\s*\(")  # hookable's `this.hook = this.hook.bind(this)`: no call
_GO_MULTI = re.compile(r"\s*(\w+)\s*,[\w\s,]*:?=\s*(\w+)\.(\w+)\s*\(")
_BOUND["java"] = re.compile(r"\b([a-z]\w*)\s*=\s*new\s+([\w.]+)\s*[(<]")  # (a typed local: the map's own calls)
_FIELD_DECL = {"java": re.compile(r"^[ \t]+(?:(?:public|private|protected|final|static|transient|volatile)\s+)*"
                                  r"([A-Z]\w*)(?:<[^>\n]*>)?\s+([a-z]\w*)\s*[;=]")}


@dataclass(frozen=True)
class Hop:
    callee: Sym
    at: int  # the caller's line that makes the call
    how: str  # served | future | iterated | field | local | deferred | returned | apply | called | generated | implemented
    # | platform | made | handed | plain (one implementation of several, and why) | default | registry | table | serde | callback | yielded
    via: str = ""  # what that line calls when it is not the callee's name (`http.createServer`)
    tie: tuple[str, int] | None = None  # (file, line) that ties `via` to the callee: the field's assignment

    @property
    def named(self) -> bool:
        """The call line writes the callee's name (`client.request(`): "`a` calls `b`" holds there."""
        return self.how in ("local", "deferred")


def _owner(s: Sym) -> str:
    return s.dotted.rsplit(".", 1)[0] if "." in s.dotted else ""


def _method(p: Project, owner: str, name: str, lang: str) -> Sym | None:
    hit = [x for x in p.find(name) if x.dotted == f"{owner}.{name}" and x.lang == lang and x.kind in ("method", "function")]
    return hit[0] if len(hit) == 1 else None


def _receiver(s: Sym) -> str:
    """The name a method's own object has in its body: `self`, `this`, a Go receiver (`mx`)."""
    m = re.match(r"\s*func\s*\(\s*(\w+)\s", s.d.signature) if s.lang == "go" else None
    return m.group(1) if m else ("self" if s.lang in ("python", "rust") else "this")


def _body(p: Project, s: Sym) -> list[tuple[int, str]]:
    from .codetext import mask_text

    lines = p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]
    code = mask_text("\n".join(lines), s.lang).split("\n")
    return [(s.d.start_line + k, ln) for k, ln in enumerate(code)][1:]


def served(p: Project, s: Sym) -> list[Hop]:
    """A method that hands its own object to a server (or, in Go, to a function of the project that
    takes an `http.Handler`: echo's `e.Start` hands `e` to `StartConfig.Start`): the server runs the
    object's serving method."""
    owner, me = _owner(s), _receiver(s)
    if not owner:
        return []
    out: list[Hop] = []
    for n, text in _body(p, s):
        m = _SERVER.search(text)
        if m is None:
            continue
        from .valuetypes import call_args

        args = call_args(text, m.end() - 1)
        if not re.fullmatch(rf"\s*(?:[^,()]+,\s*)*{re.escape(me)}\s*(?:,[^()]*)?", args):
            continue  # a handler other than the object itself (koa's `this.callback()` is a call the map follows)
        for name in SERVE_METHODS.get(s.lang, ()):
            hit = _method(p, owner, name, s.lang)
            if hit is not None and hit is not s:
                out.append(Hop(hit, n, "served", m.group(1)))
                break
    serve = _method(p, owner, "ServeHTTP", "go") if s.lang == "go" and not out else None
    if serve is not None and serve is not s:  # gin's `Run`: `server := &http.Server{Handler: engine.Handler()}`
        body = _body(p, s)
        starts = any(re.search(r"\.(?:ListenAndServe(?:TLS)?|Serve(?:TLS)?)\s*\(", t) for _, t in body)
        for n, text in body if starts else ():
            m = re.search(rf"\bHandler\s*:\s*{re.escape(me)}\s*(?:\.\s*(\w+)\s*\(\s*\))?\s*,?\s*(?:}}|$)", text)
            if m and (m.group(1) is None or _method(p, owner, m.group(1), "go") is not None):
                return [Hop(serve, n, "served", "http.Server")]
    if serve is not None and serve is not s:  # echo's `Start`: `sc.Start(ctx, e)`, declared `Start(ctx, h http.Handler)`
        from .facts import all_calls
        from .signature import signature_parts
        from .valuetypes import call_args

        takers = {c.short: c for c in all_calls(p, s) + [h.callee for h in locals_made(p, s)]  # (`sc := StartConfig{…}`)
                  if any(re.fullmatch(r"\s*http\.Handler\s*", prm.type) for prm in signature_parts(c)[0])}
        for n, text in _body(p, s):
            for m in re.finditer(r"(?<![\w$])(?:\w+\.)?(\w+)\s*\(", text):
                args = call_args(text, m.end() - 1)
                if m.group(1) in takers and re.search(rf"(?:^|,)\s*{re.escape(me)}\s*(?:,|$)", args):
                    return [Hop(serve, n, "served", takers[m.group(1)].name)]
    return out


def served_wsgi(p: Project, s: Sym) -> list[Hop]:
    """Python: a function handing the application (`app`) to a server (bottle's `run` ends in `server.run(app)`,
    flask's `run_simple(host, port, self)` is `served`): the server calls the project's one WSGI application
    class, the one whose `__call__` takes `(environ, start_response)`, for each request."""
    if s.lang != "python" or _owner(s):
        return []
    key = ("wsgi_call",)
    if key not in p._keys:
        calls = [x for x in p.find("__call__") if x.kind == "method" and re.search(r"\(\s*self\s*,\s*environ\s*,\s*start_response\b",
                                                                                   x.d.signature)]
        p._keys[key] = calls[0] if len(calls) == 1 else None
    app = p._keys[key]
    for n, text in _body(p, s) if app is not None else ():
        m = re.search(r"(?<![\w$])((?:\w+\.)?(?:run|serve|serve_forever|make_server|run_simple))\s*\([^()]*\b(?:app|application)\s*[,)]", text)
        if m:
            return [Hop(app, n, "served", m.group(1))]
    return []


def served_generic(p: Project, s: Sym) -> list[Hop]:
    """`make_service.call(…)` on a parameter of a generic type, in a server the README example hands a
    value of the project (`axum::serve(listener, app)`, `let app = Router::new()…`: mainpath records
    `served_type`): the server calls that value for each request, through its `call` that takes a request."""
    typ = p._keys.get(("served_type",))
    if not typ or s.lang not in SERVE_METHODS:
        return []
    from .signature import signature_parts

    generic = {prm.name for prm in signature_parts(s)[0] if re.fullmatch(r"&?(?:mut\s+)?[A-Z]\w?", prm.type.strip())}
    runs = SERVE_METHODS[s.lang][0]
    cands = [x for x in p.find(runs) if x.dotted == f"{typ}.{runs}" and x.kind == "method"]
    per_request = [x for x in cands if re.search(r"\b(?:req|request)\b\s*:\s*&?\s*(?:mut\s+)?(?:http::)?Request\b|\bRequest\b",
                                                 x.d.signature)] or cands
    if not generic or not per_request:
        return []
    want = min(per_request, key=lambda x: "IncomingStream" in x.d.signature)
    for n, text in _body(p, s):
        m = re.search(rf"(?<![\w$.])({'|'.join(map(re.escape, sorted(generic)))})\s*(?:\.\s*{re.escape(runs)}|$)", text)
        if m and m.group(0).endswith(runs):
            return [Hop(want, n, "served", f"{m.group(1)}.{runs}")]
        if m and re.match(rf"\s*\.{re.escape(runs)}\s*\(", _next_line(p, s, n)):  # `make_service⏎ .call(…)`
            return [Hop(want, n + 1, "served", f"{m.group(1)}.{runs}")]
    return []


def _next_line(p: Project, s: Sym, n: int) -> str:
    lines = p.lines_of(s.rel)
    return lines[n] if n < len(lines) else ""


# What using a returned value runs: (language, the trait or interface, its method, the hop's name)
_RUNS_ON_USE = (("rust", "IntoFuture", "into_future", "future"),  # awaited
                ("rust", "Iterator", "next", "iterated"),  # `for record in rdr.records()`
                ("java", "Iterator", "next", "iterated"),
                ("python", "", "__next__", "iterated"))


def awaited(p: Project, s: Sym) -> list[Hop]:
    """A function returning a type of the project that is used by a convention: a Rust `IntoFuture`
    (axum's `serve` returns a `Serve`; the example awaits it) runs its `into_future`; an iterator
    (rust-csv's `records` returns a `StringRecordsIter`; the example loops over it) its `next`."""
    if s.kind not in ("function", "method"):
        return []
    from .signature import signature_parts

    ret = signature_parts(s)[1]
    head = re.match(r"\s*(?:[\w.]+\.)?([A-Z]\w*)", ret)
    if head is None:
        return []
    typ = head.group(1)
    if _owner(s).rsplit(".", 1)[-1] == typ:
        return []  # the type's own constructor (`StringRecordsIter::new`): making one runs nothing
    out: list[Hop] = []
    for lang, trait, name, how in _RUNS_ON_USE:
        hit = _method(p, typ, name, lang) if lang == s.lang else None
        if hit is None or hit is s:
            continue
        impl = next((k for k in range(hit.d.start_line - 1, max(0, hit.d.start_line - 30), -1)
                     if re.search(rf"\bimpl\b.*\b{trait}\b.*\bfor\s+{re.escape(typ)}\b|\bclass\s+{re.escape(typ)}\b.*"
                                  rf"\bimplements\b.*\b{trait}\b", p.lines_of(hit.rel)[k - 1])), 0) if trait else 0
        if trait and not impl:
            continue  # a method that happens to be called `next`, not the trait's
        at = next((k for k in range(s.d.start_line, s.d.end_line + 1) if "->" in p.lines_of(s.rel)[k - 1]), s.d.start_line)
        out.append(Hop(hit, at, how, trait or name, (hit.rel, impl) if impl else None))
    return out


def field_methods(p: Project, s: Sym) -> list[Hop]:
    """`recv.field.M(…)` or `recv.field(…)` where the type's code sets `recv.field` from one of its
    own methods (`mx.handler = chain(mx.middlewares, http.HandlerFunc(mx.routeHTTP))`)."""
    owner, me = _owner(s), _receiver(s)
    if not owner:
        return []
    files = [f for f in p.code_files() if f.rsplit("/", 1)[0] == s.rel.rsplit("/", 1)[0]] if s.lang == "go" else [s.rel]
    out: list[Hop] = []
    for n, text in _body(p, s):
        for m in re.finditer(rf"(?<![\w$.]){re.escape(me)}\.(\w+)(\.\w+)?\s*\(", text):
            field = m.group(1)
            if _method(p, owner, field, s.lang) is not None:
                continue  # a method of its own, which the map resolves
            sets: dict[str, tuple[str, int]] = {}
            for rel in files:
                for k, ln in enumerate(p.lines_of(rel), 1):
                    a = re.search(rf"\b\w+\.{re.escape(field)}\s*=(?!=)\s*(.+)", ln)
                    for ref in re.finditer(r"\b\w+\.(\w+)\b(?!\s*\()", a.group(1)) if a else ():
                        hit = _method(p, owner, ref.group(1), s.lang)
                        if hit is not None and hit is not s:
                            sets.setdefault(hit.name, (rel, k))
            if len(sets) == 1:
                name, tie = next(iter(sets.items()))
                hit = next(x for x in p.find(name.rsplit(".", 1)[-1]) if x.name == name)
                out.append(Hop(hit, n, "field", f"{me}.{field}{m.group(2) or ''}", tie))
    return out


def locals_made(p: Project, s: Sym) -> list[Hop]:
    """`x.m(…)` where the body made `x` from a type of the project (`with Client() as x`, `x = T(…)`,
    `const x = new T(…)`, `x := &T{…}`, `let x = T::new(…)`): the type's method `m`."""
    bound = _BOUND.get(s.lang)
    if bound is None:
        return []
    made: dict[str, tuple[str, int]] = {}
    out: list[Hop] = []
    body = _body(p, s)
    code = "\n".join(t for _, t in body)
    for m in _WITH.finditer(code) if s.lang == "python" else ():  # `with Client(…⏎…) as client:`
        from .valuetypes import call_args

        after = code[m.end() + len(call_args(code, m.end() - 1)) + 1:]
        var = re.match(r"\s*as\s+(\w+)", after)
        if var:
            made[var.group(1)] = (m.group(1).rsplit(".", 1)[-1], body[0][0] + code.count("\n", 0, m.start()))
    if s.lang in _FIELD_DECL and _owner(s):  # a field of the type, called without `this.` (javapoet's `typeSpec.emit(`)
        for k, ln in enumerate(p.lines_of(s.rel), 1):
            d = _FIELD_DECL[s.lang].match(ln)
            if d and not (s.d.start_line <= k <= s.d.end_line):
                made.setdefault(d.group(2), (d.group(1), k))
    for n, text in body:
        for m in bound.finditer(text):
            made[m.group(1)] = (re.split(r"\.|::", m.group(2))[-1], n)
        got = _GO_MULTI.match(text) if s.lang == "go" and _owner(s) else None
        if got:  # `cmd, flags, err = c.Find(args)`, `Find` declared `(*Command, []string, error)`: `cmd` is a Command
            from .signature import signature_parts

            m_ = _method(p, _owner(s), got.group(3), "go")
            ret = re.match(r"\(?\s*\*?([A-Z]\w*)\s*[,)]", signature_parts(m_)[1]) if m_ is not None else None
            if ret and got.group(2) == _receiver(s):
                made[got.group(1)] = (ret.group(1), n)
        for m in re.finditer(r"(?<![\w$.#])(\w+)\.(#?\w+)\s*\(", text):  # (`ky.#retry(`: a private method)
            if m.group(1) == "this" and m.group(2).startswith("#") and _owner(s):  # the map's calls skip `#` names
                hit = _method(p, _owner(s), m.group(2), s.lang)
                if hit is not None and hit is not s:
                    out.append(Hop(hit, n, "local"))
            elif m.group(1) in made:
                typ = made[m.group(1)][0]
                if any(t.kind in ("class", "struct") for t in p.find(typ) if t.dotted == typ):
                    hit = _method(p, typ, m.group(2), s.lang)
                    if hit is not None and hit is not s:
                        out.append(Hop(hit, n, "local", tie=(s.rel, made[m.group(1)][1])))
    return out


def deferred(p: Project, s: Sym) -> list[Hop]:
    """The calls of a function literal the definition returns (the handler a server will run)."""
    from .callres import CALL_RE, Resolver
    from .codeinfo import _sym_index
    from .codetext import deferred_spans, mask_text
    from .local_defs import local_functions, spans as own_spans
    from .valuetypes import call_args

    code = mask_text("\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]), s.lang)
    out: list[Hop] = []
    by_name = {x.short: x for x in local_functions(p, s)}
    # connect's `function app(…) {…} … return app;`, tenacity's `return t.cast("…", wrapped_f)`
    for m in re.finditer(r"\breturn\s+(?:(?:[\w.]+\.)?cast\s*\([^\n]*?,\s*)?([A-Za-z_$][\w$]*)\s*\)?\s*;?\s*$", code, re.M):
        if m.group(1) in by_name:
            out.append(Hop(by_name[m.group(1)], s.d.start_line + code.count("\n", 0, m.start()), "returned"))
    spans = deferred_spans(code, s.lang)
    if not spans:
        return out
    res = Resolver(p, s, *_sym_index(p), code=code)
    named = {x.d.start_line: x for x in local_functions(p, s)}
    for a, b in list(spans):  # a named function it returns (body-parser's `return function jsonParser (…)`) is a step
        first = s.d.start_line + code.count("\n", 0, a)
        if first in named:
            out.append(Hop(named[first], first, "returned"))
            spans.remove((a, b))
    theirs = own_spans(p, s)  # (an ES5 constructor's `this.parse = function …` is a method of its own)
    for m in CALL_RE.finditer(code):
        if any(a <= m.start() < b for a, b in spans) and \
                not any(x <= s.d.start_line + code.count("\n", 0, m.start()) <= y for x, y in theirs):
            hit = res.resolve(m.group(1), bool(m.group(2)), call_args(code, m.end() - 1))
            if hit is not None and hit is not s and hit.kind in ("method", "function"):
                out.append(Hop(hit, s.d.start_line + code.count("\n", 0, m.start()), "deferred"))
    return out


def _js_imported(p: Project, s: Sym, name: str) -> Sym | None:
    """The function `name` of the file the caller's file imports it from (`import dispatchRequest from
    './dispatchRequest.js'`, `const x = require('./x')`), when that file defines it once."""
    import posixpath

    text = "\n".join(p.lines_of(s.rel))
    m = re.search(rf"\bimport\s+{re.escape(name)}\s+from\s+['\"](\.[^'\"]+)['\"]|\b(?:const|let|var)\s+{re.escape(name)}\s*="
                  rf"\s*require\(\s*['\"](\.[^'\"]+)['\"]", text)
    if m is None:
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(s.rel), m.group(1) or m.group(2)))
    for cand in (path, path + ".js", path + ".ts", posixpath.join(path, "index.js")):
        hit = [x for x in p.symbols(within=[cand]) if x.short == name and x.kind == "function"] if cand in p.files else []
        if len(hit) == 1:
            return hit[0]
    return None


def applied(p: Project, s: Sym) -> list[Hop]:
    """JavaScript's `f.call(this, …)`, `f.apply(this, …)`, `f.bind(this)`: `f` runs (bound, later)."""
    if s.lang not in ("javascript", "typescript"):
        return []
    from .callres import Resolver
    from .codeinfo import _sym_index

    res = Resolver(p, s, *_sym_index(p))
    out: list[Hop] = []
    for n, text in ((n, t) for n, t in _body(p, s) if not _REBOUND.match(t)):
        for m in re.finditer(r"(?<![\w$.])((?:this\.)?[A-Za-z_$][\w$]*)\.(call|apply|bind)\s*\(", text):  # (eta's `this.compileToString.call(this, …)`)
            hit = res.resolve(m.group(1), False, "") or _js_imported(p, s, m.group(1))
            if hit is not None and hit is not s and hit.kind in ("method", "function"):
                out.append(Hop(hit, n, "apply", f"{m.group(1)}.{m.group(2)}"))
    return sorted(out, key=lambda h: h.via.endswith(".bind"))  # a call now before a function bound for later


def called(p: Project, s: Sym) -> list[Hop]:
    """Python's `md(text)` where the body bound `md` to a value of a project type (`md = create_markdown(…)`,
    declared `-> Markdown`): calling the object runs its type's `__call__` (mistune's `markdown`)."""
    if s.lang != "python":
        return []
    from .callres import Resolver
    from .codeinfo import _sym_index

    body = _body(p, s)
    bound = {m.group(1): n for n, text in body for m in [re.match(r"\s*([a-z_]\w*)\s*=[^=]", text)] if m}
    typer = Resolver(p, s, *_sym_index(p)).typer() if bound else None
    out: list[Hop] = []
    for n, text in body:
        for m in re.finditer(r"(?<![\w$.])([a-z_]\w*)\s*\(", text):
            typ = typer.local_type(s, m.group(1)) if typer is not None and bound.get(m.group(1), n) < n else ""
            hit = typer.member(typ, "__call__") if typer is not None and typ else []
            if len(hit) == 1 and hit[0] is not s:
                out.append(Hop(hit[0], n, "called", m.group(1), tie=(s.rel, bound[m.group(1)])))
    return out


def generated(p: Project, s: Sym) -> list[Hop]:
    """`Name(…)` where the type defines no `Name` but a `NameAsync` marked for a source generator to
    write its synchronous twin (C#'s `[CreateSyncVersion]`: FluentValidation's `Validate` calls the
    `ValidateInternal` generated from `ValidateInternalAsync`): the twin runs that method's code."""
    owner = _owner(s)
    if s.lang != "csharp" or not owner:
        return []
    out: list[Hop] = []
    for n, text in _body(p, s):
        for m in re.finditer(r"(?<![\w$.])([A-Z]\w*)\s*\(", text):
            if _method(p, owner, m.group(1), s.lang) is not None:
                continue
            hit = _method(p, owner, m.group(1) + "Async", s.lang)
            above = p.lines_of(hit.rel)[max(0, hit.d.start_line - 4):hit.d.start_line] if hit is not None else []
            if hit is not None and hit is not s and any("CreateSyncVersion" in ln for ln in above):
                out.append(Hop(hit, n, "generated", m.group(1)))
    return out


def implemented(p: Project, s: Sym) -> list[Hop]:
    """An abstract or interface method runs the one implementation its subtypes give (retrofit's
    `ServiceMethod.invoke` is `HttpServiceMethod.invoke`; a subclass of that one overrides nothing
    more); none when several classes implement it apart."""
    owner = _owner(s)
    impls = implementations(p, s)
    # several implementations are no way: the one most named is often a side road (gson's `Excluder`
    # among its TypeAdapterFactory implementations), and which one runs is decided at run time
    roots = list({(x.rel, x.d.start_line): x for x in impls
                  if not any(y is not x and _subtype(p, _owner(x), _owner(y)) for y in impls)}.values())
    how = "implemented"  # (the one type that implements it; else how one of several was chosen, as chapter 1 says)
    if len(roots) > 1:  # (a Kotlin interface implemented once per platform: the JVM's runs)
        from .source_sets import one_platform

        roots, how = one_platform(s, roots), "platform"
    if len(roots) > 1 and len(made := _made(p, roots)) == 1:  # the example's calls make one (java-jwt's
        roots, how = made, made_how(p, made[0])  # `Algorithm.RSA256(…)` makes an `RSAAlgorithm`), whatever the code holds
    if len(roots) > 1:  # unless the code names one of them as the value it uses (tinydb's `default_storage_class = JSONStorage`)
        from .example_made import registry_pick
        from .references import named_as_value

        named = [(x, named_as_value(p, _owner(x).rsplit(".", 1)[-1], {y.rel for y in roots})) for x in roots]
        used = [(x, at, "default") for x, at in named if at] or [(x, at, "registry") for x, at in registry_pick(p, roots)]  # (jsonpatch's `'add': AddOperation`)
        if len(used) == 1:
            return [Hop(used[0][0], s.d.start_line, used[0][2], owner.rsplit(".", 1)[-1], used[0][1])]
        # or one is the plain variant the others name with a prefix (tenacity's `Retrying`, beside `AsyncRetrying`): the default
        name = lambda x: _owner(x).rsplit(".", 1)[-1]  # noqa: E731
        plain = [x for x in roots if all(y is x or name(y).endswith(name(x)) for y in roots)]
        roots, how = (plain, "plain") if len(plain) == 1 else (_made(p, roots), "made")  # (FluentValidation's `RuleFor`)
    if len(roots) == 1 and s.lang == "go" and not example_makes(p, roots[0]) and not go_built(p, roots[0], owner.rsplit(".", 1)[-1]):
        # a Go interface is met by any type with its methods, types of other modules too (goquery's `Matcher` is
        # cascadia's `Selector`, beside the project's `invalidMatcher`): the example's construction says which, or the
        return []  # project's own constructor of the interface (`func New() Markdown { return &markdown{…} }`)
    if len(roots) != 1:
        return []
    hit = roots[0]
    decl = next((t for t in p.find(_owner(hit).rsplit(".", 1)[-1]) if t.dotted == _owner(hit)), None)
    tie = None
    iface = next((t for t in p.find(owner.rsplit(".", 1)[-1]) if t.dotted == owner), None)
    if decl is not None:  # the line of its head that names the interface (`) : HttpLoader {` after its parameters);
        head = p.lines_of(decl.rel)[decl.d.start_line - 1:decl.d.start_line + 11]  # none in Go: the interface's own head
        at = next((k for k, ln in enumerate(head) if re.search(rf"\b{re.escape(owner.rsplit('.', 1)[-1])}\b", ln)), None)
        tie = (decl.rel, decl.d.start_line + (at or 0)) if at is not None or iface is None else (iface.rel, iface.d.start_line)
    return [Hop(hit, s.d.start_line, how, owner.rsplit(".", 1)[-1], tie)]


def made_fields(p: Project, s: Sym) -> list[Hop]:
    """`x.parse(…)` where `x`'s class makes its field `parse` by one of its methods (marked's
    `parse = this.parseMarkdown(true)`, `markedInstance = new Marked()`): the call runs what that method made."""
    if s.lang not in ("javascript", "typescript", "tsx"):
        return []
    from .callres import Resolver
    from .codeinfo import _sym_index
    from .js_values import made_field

    res = Resolver(p, s, *_sym_index(p))
    out: list[Hop] = []
    for n, text in _body(p, s):
        for m in re.finditer(r"(?<![\w$.])([A-Za-z_$][\w$.]*)\.([A-Za-z_$][\w$]*)\s*\(", text):
            typ = res.typer().expr_type(s, m.group(1))
            made = made_field(p, res.by_dotted, typ, m.group(2)) if typ else None
            if made is not None and made[0] is not s:
                out.append(Hop(made[0], n, "field", f"{m.group(1)}.{m.group(2)}", (made[0].rel, made[1])))
    return out


def hops(p: Project, s: Sym) -> list[Hop]:
    """The hops out of `s` to definitions the map's own calls do not already reach, one per callee,
    on its main line (not in an error's branch: cobra's `cmd.UsageString()` after a failure)."""
    key = ("hops", s.rel, s.d.start_line)
    if key not in p._keys:
        from .dispatch_tables import convention_calls
        from .facts import all_calls
        from .sideroads import branch_lines

        known = {(c.rel, c.d.start_line) for c in all_calls(p, s)}
        code = "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])
        side = {s.d.start_line + k for k in branch_lines(code, s.lang)}  # an error's branch: no step of the path
        out: dict[tuple[str, int], Hop] = {}
        for find in (served, served_wsgi, served_generic, awaited, field_methods, made_fields, locals_made, deferred, applied,
                     called, generated, implemented, lambda q, x: [Hop(*t) for t in convention_calls(q, x)]):
            for h in find(p, s):
                at = (h.callee.rel, h.callee.d.start_line)
                if at not in known and at not in out and at != (s.rel, s.d.start_line) and h.at not in side:
                    out[at] = h
        p._keys[key] = list(out.values())
    return list(p._keys[key])


def hop_between(p: Project, a: Sym, b: Sym) -> Hop | None:
    return next((h for h in hops(p, a) if (h.callee.rel, h.callee.d.start_line) == (b.rel, b.d.start_line)), None)

