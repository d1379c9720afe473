"""Facts from resolution, not from names (issue 34): "used from N files" and "In use" count a
file only where the map resolves its reference to that definition (a method by its receiver's
type, a script's function by its import followed through re-exports); docstrings are no calls."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.facts import all_calls, refers_at, resolved_users
from orchestrator.authoring.project import Project, Sym, load

CTX = '''class AppContext:
    def push(self):
        pass

    def pop(self):
        """Pops the context. See :meth:`RequestContext.pop`."""
        pass


class RequestContext:
    def pop(self, exc=None):
        pass
'''
APP = '''from .ctx import AppContext, RequestContext


class App:
    def request_context(self, environ) -> RequestContext:
        return RequestContext()

    def wsgi_app(self, environ):
        ctx = self.request_context(environ)
        try:
            return 1
        finally:
            ctx.pop(None)

    def teardown(self):
        """Calls :meth:`AppContext.pop()` on the way out."""
        data = {}
        data.pop("x", None)
'''
INIT = "from .app import App as App\nfrom .ctx import AppContext as AppContext\n"
USER = '''import pkg


def test_ctx():
    ctx = pkg.AppContext()
    ctx.push()
    ctx.pop()


def test_other():
    d = {"a": 1}
    d.pop("a")
'''
OTHER = '''class Headers:
    def pop(self, key):
        return key


def run(res):
    res.pop("x")
'''
JS_PARSE = "function parse(body) {\n  return body\n}\nmodule.exports = { parse }\n"
JS_USER = "const { parse } = require('./parse')\nmodule.exports = function (b) { return parse(b) }\n"
JS_OTHERS = "module.exports = function (s) { return JSON.parse(s) }\n"


def _sym(p: Project, name: str) -> Sym:
    return next(s for s in p.symbols() if s.name == name)


def test_a_method_is_used_only_where_its_receiver_is_its_type(tmp_path: Path):
    p = load(_write(tmp_path / "src", {"pkg/ctx.py": CTX, "pkg/app.py": APP, "pkg/__init__.py": INIT,
                                       "tests/test_ctx.py": USER, "pkg/other.py": OTHER}))
    # `.pop(` on a dict, on another type's object, in a docstring: none is AppContext.pop
    assert resolved_users(p, _sym(p, "AppContext.pop")) == ["tests/test_ctx.py"]
    assert refers_at(p, "tests/test_ctx.py", 7, _sym(p, "AppContext.pop"))
    assert not refers_at(p, "tests/test_ctx.py", 12, _sym(p, "AppContext.pop"))
    # `ctx = self.request_context(environ)` is declared to return a RequestContext
    assert resolved_users(p, _sym(p, "RequestContext.pop")) == ["pkg/app.py"]
    # a docstring's `:meth:`AppContext.pop()`` is no call
    assert not any(c.name == "AppContext.pop" for c in all_calls(p, _sym(p, "App.teardown")))
    assert not any(c.name == "RequestContext.pop" for c in all_calls(p, _sym(p, "AppContext.pop")))


def test_a_script_function_is_used_only_where_it_is_imported(tmp_path: Path):
    p = load(_write(tmp_path / "src", {"lib/parse.js": JS_PARSE, "lib/read.js": JS_USER, "lib/a.js": JS_OTHERS,
                                       "lib/b.js": JS_OTHERS}))
    assert resolved_users(p, _sym(p, "parse")) == ["lib/read.js"]


def test_two_definitions_of_one_name_are_told_apart_by_where_the_import_leads(tmp_path: Path):
    files = {"pkg/sansio/bp.py": "class Blueprint:\n    pass\n",
             "pkg/bp.py": "from .sansio.bp import Blueprint as SansioBlueprint\n\n\nclass Blueprint(SansioBlueprint):\n    pass\n",
             "pkg/__init__.py": "from .bp import Blueprint as Blueprint\n",
             "examples/app.py": "import pkg\n\nbp = pkg.Blueprint('x')\n"}
    p = load(_write(tmp_path / "src", files))
    sansio = next(s for s in p.symbols() if s.name == "Blueprint" and s.rel == "pkg/sansio/bp.py")
    flask = next(s for s in p.symbols() if s.name == "Blueprint" and s.rel == "pkg/bp.py")
    assert resolved_users(p, sansio) == ["pkg/bp.py"]
    assert sorted(resolved_users(p, flask)) == ["examples/app.py", "pkg/__init__.py"]


def test_an_object_named_by_habit_counts_only_where_its_method_has_no_namesake(tmp_path: Path):
    files = {"lib/response.js": "var res = module.exports = {}\nres.send = function (body) { return this }\n"
                                "res.status = function (code) { return this }\n",
             "lib/client.js": "var res = module.exports = {}\nres.status = function () { return 1 }\n",
             "test/send.js": "var app = require('../lib/response')\n\nfunction h (req, res) {\n  res.send('x')\n"
                             "  res.status(404)\n}\n",
             "test/other.js": "function h (err, res) {\n  res.send(1)\n}\n"}
    p = load(_write(tmp_path / "src", files))
    send = next(s for s in p.symbols() if s.name == "res.send")
    status = next(s for s in p.symbols() if s.name == "res.status" and s.rel == "lib/response.js")
    assert resolved_users(p, send) == ["test/send.js"]  # test/other.js imports nothing of the project
    assert resolved_users(p, status) == []  # two `status` of two objects: the map cannot tell them apart


def test_a_rust_associated_item_or_a_method_of_another_value_is_not_the_free_name(tmp_path: Path):
    files = {"core/src/error.rs": "pub struct Error {\n    inner: u8,\n}\n",
             "core/src/body.rs": "pub async fn to_bytes(body: Body) -> Vec<u8> {\n    body.0\n}\n",
             "app/tests/t.rs": "use core::error::Error;\nuse core::body::to_bytes;\n\nimpl Service for S {\n"
                               "    type Error = S::Error;\n}\n\nfn t(res: R) {\n    let b = res.collect().to_bytes();\n"
                               "    let c = to_bytes(res.body());\n    let e: Error = make();\n}\n"}
    p = load(_write(tmp_path / "src", files))
    err = next(s for s in p.symbols() if s.name == "Error")
    tb = next(s for s in p.symbols() if s.name == "to_bytes")
    assert not refers_at(p, "app/tests/t.rs", 5, err)  # `type Error = S::Error;`
    assert refers_at(p, "app/tests/t.rs", 11, err)
    assert not refers_at(p, "app/tests/t.rs", 9, tb)  # `.to_bytes()` of a collected body
    assert refers_at(p, "app/tests/t.rs", 10, tb)


def test_go_a_method_of_a_value_a_local_of_the_same_name_or_a_string_is_not_the_definition(tmp_path: Path):
    files = {"tree.go": "package chi\n\n// Route is one route.\ntype Route struct {\n\tPattern string\n}\n",
             "real.go": "package chi\n\nfunc realIP(r int) string {\n\treturn \"\"\n}\n",
             "mux_test.go": "package chi\n\nfunc TestX(t *T) {\n\tr.Get(\"/*\", h)\n\tr.Route(\"/foo\", fn)\n"
                            "\trealIP := \"1.2.3.4\"\n\tif realIP != \"\" {\n\t}\n}\n",
             "walk.go": "package chi\n\n/* see walk */\nfunc Walk() []Route {\n\treturn nil\n}\n"}
    p = load(_write(tmp_path / "src", files))
    route = next(s for s in p.symbols() if s.name == "Route")
    real = next(s for s in p.symbols() if s.name == "realIP")
    assert resolved_users(p, route) == ["walk.go"]  # `r.Route(` is a method of the router
    assert resolved_users(p, real) == []  # a local `realIP :=`
    assert not refers_at(p, "mux_test.go", 7, real)


def test_a_parameter_typed_by_another_crates_path_does_not_resolve_to_the_projects_namesake(tmp_path: Path):
    files = {"src/error.rs": "pub struct Error {\n    inner: u8,\n}\n\nimpl Error {\n    pub fn source(&self) -> u8 {\n"
                             "        self.inner\n    }\n}\n",
             "src/multipart.rs": "fn status(err: &multer::Error) -> u16 {\n    err.source();\n    1\n}\n\n"
                                 "fn mine(err: &crate::error::Error) -> u8 {\n    err.source()\n}\n"}
    p = load(_write(tmp_path / "src", files))
    assert [c.name for c in all_calls(p, _sym(p, "status"))] == []
    assert [c.name for c in all_calls(p, _sym(p, "mine"))] == ["Error::source"]


def test_a_middlewares_returned_handler_makes_its_calls_later_not_when_the_middleware_is_called(tmp_path: Path):
    files = {"ctx.go": "package chi\n\nfunc NewRouteContext() *Context {\n\treturn &Context{}\n}\n\n"
                       "type Context struct {\n\tn int\n}\n",
             "mw.go": "package chi\n\nfunc GetHead(next Handler) Handler {\n\tfn := func(w W, r *R) {\n"
                      "\t\ttctx := NewRouteContext()\n\t\tnext.Serve(w, r)\n\t}\n\treturn HandlerFunc(fn)\n}\n\n"
                      "func Setup() *Context {\n\treturn NewRouteContext()\n}\n"}
    p = load(_write(tmp_path / "src", files))
    assert [c.name for c in all_calls(p, _sym(p, "GetHead"))] == []
    assert [c.name for c in all_calls(p, _sym(p, "Setup"))] == ["NewRouteContext"]


# Found by the hand check of issue 34 on books of httpx, gson, koa and cobra (benchmarks/TRUST.md).

def test_a_function_literal_stored_in_a_field_makes_its_calls_later(tmp_path: Path):
    # cobra's InitDefaultHelpCmd builds `&Command{ValidArgsFunction: func(…) {… CompletionWithDesc(…) …}}`:
    # the completion runs when the help command completes, not when InitDefaultHelpCmd is called
    files = {"comp.go": "package cobra\n\nfunc CompletionWithDesc(a string) string {\n\treturn a\n}\n",
             "cmd.go": "package cobra\n\ntype Command struct {\n\tRun func()\n}\n\n"
                       "func (c *Command) InitHelp() {\n\tc.help = &Command{\n\t\tRun: func() {\n"
                       "\t\t\tCompletionWithDesc(\"x\")\n\t\t},\n\t}\n\tc.hook = func() { CompletionWithDesc(\"y\") }\n}\n\n"
                       "func (c *Command) Visit() {\n\tvisitAll(func(f int) { CompletionWithDesc(\"z\") })\n}\n\n"
                       "func visitAll(fn func(int)) {\n\tfn(1)\n}\n"}
    p = load(_write(tmp_path / "src", files))
    assert [c.name for c in all_calls(p, _sym(p, "Command.InitHelp"))] == []
    assert "CompletionWithDesc" in [c.name for c in all_calls(p, _sym(p, "Command.Visit"))]  # run now, by visitAll


def test_a_call_on_a_calls_result_is_not_the_own_classs_method(tmp_path: Path):
    # gson's JsonReader.nextUnquotedValue: `builder.append(buffer, pos, i).toString()` is StringBuilder's
    files = {"com/x/Reader.java": "package com.x;\n\npublic class Reader {\n  String next() {\n"
                                  "    StringBuilder builder = new StringBuilder();\n"
                                  "    return builder.append(\"a\").toString();\n  }\n\n"
                                  "  String again() {\n    return toString();\n  }\n\n"
                                  "  @Override public String toString() {\n    return \"Reader\";\n  }\n}\n"}
    p = load(_write(tmp_path / "src", files))
    assert [c.name for c in all_calls(p, _sym(p, "Reader.next"))] == []
    assert [c.name for c in all_calls(p, _sym(p, "Reader.again"))] == ["Reader.toString"]


def test_an_object_literals_getter_is_not_a_function_in_scope(tmp_path: Path):
    # koa's request.js: `get URL () {…}` of `module.exports = {…}`; `new URL(…)` in `get host ()` is the global URL
    files = {"lib/request.js": "module.exports = {\n  get host () {\n    return new URL('http://' + x).host\n  },\n\n"
                               "  get URL () {\n    return split(this.href)\n  }\n}\n\nfunction split (v) {\n  return v\n}\n"}
    p = load(_write(tmp_path / "src", files))
    host = next(s for s in p.symbols() if s.short == "host")
    url = next(s for s in p.symbols() if s.short == "URL")
    assert [c.name for c in all_calls(p, host)] == []
    assert [c.name for c in all_calls(p, url)] == ["split"]


def test_a_commonjs_default_export_is_used_where_its_module_is_required(tmp_path: Path):
    # koa's is-stream.js: `module.exports = (stream) => …`, `const isStream = require('./is-stream.js')`
    files = {"lib/is-stream.js": "module.exports = (stream) => {\n  return !!stream\n}\n",
             "lib/app.js": "const isStream = require('./is-stream.js')\n\nfunction respond (b) {\n"
                           "  return isStream(b)\n}\n",
             "lib/ctx.js": "const proto = module.exports = {\n  inspect () {\n    return 1\n  }\n}\n"}
    p = load(_write(tmp_path / "src", files))
    s = next(x for x in p.symbols() if x.rel == "lib/is-stream.js")
    assert resolved_users(p, s) == ["lib/app.js"]
    assert refers_at(p, "lib/app.js", 4, s)


KOA = {"lib/search-params.js": "module.exports = {\n  stringify: (obj) => {\n    return String(obj)\n  }\n}\n",
       "lib/request.js": "const sp = require('./search-params.js')\n\nmodule.exports = {\n  get length () {\n"
                         "    return 1\n  },\n  get querystring () {\n    return sp.stringify(this.query)\n  }\n}\n",
       "lib/only.js": "module.exports = (obj, keys) => {\n  for (let i = 0; i < keys.length; i++) {\n  }\n}\n",
       "lib/app.js": "const request = require('./request')\n\nfunction respond (body) {\n"
                     "  return JSON.stringify(body)\n}\n"}


def test_a_chapter_takes_from_another_only_what_it_uses_by_resolution(tmp_path: Path):
    # koa: "only.js uses `length` from [Request aliases]" (`keys.length`), "application.js uses
    # `stringify`" (`JSON.stringify(`): names spelled alike, not uses
    from orchestrator.authoring.research import _resolved_use

    p = load(_write(tmp_path / "src", KOA))

    def d(rel: str, name: str):
        return next(x.d for x in p.symbols(within=[rel]) if x.short == name)
    assert not _resolved_use(p, ["lib/only.js"], "lib/request.js", d("lib/request.js", "length"))
    assert not _resolved_use(p, ["lib/app.js"], "lib/search-params.js", d("lib/search-params.js", "stringify"))
    assert _resolved_use(p, ["lib/request.js"], "lib/search-params.js", d("lib/search-params.js", "stringify"))


def test_the_parts_picture_labels_a_use_only_with_a_name_the_part_really_uses(tmp_path: Path):
    from orchestrator.authoring.parts import _called

    p = load(_write(tmp_path / "src", KOA))
    assert _called(p, ["lib/app.js"], ["lib/search-params.js"]) == ""  # only JSON.stringify
    assert _called(p, ["lib/request.js"], ["lib/search-params.js"]) == "stringify"


def test_the_traced_paths_call_line_is_the_call_not_the_docstring_that_names_it(tmp_path: Path):
    # httpx's `get`: its docstring's "See `httpx.request`." (line 4) came before `return request(` (line 6)
    from orchestrator.authoring.tracing import call_line

    files = {"pkg/_api.py": 'def get(url):\n    """\n    Sends a GET.\n    See `httpx.request`.\n    """\n'
                            '    return request("GET", url)\n\n\ndef request(method, url):\n    return method\n'}
    p = load(_write(tmp_path / "src", files))
    assert call_line(p, _sym(p, "get"), _sym(p, "request")) == 6


def test_the_parts_picture_draws_no_edge_for_a_name_only_spelled_alike(tmp_path: Path):
    from orchestrator.authoring.parts import architecture_diagram

    p = load(_write(tmp_path / "src", KOA))
    chapters = [{"title": "App", "sources": ["lib/app.js"]}, {"title": "Params", "sources": ["lib/search-params.js"]},
                {"title": "Request", "sources": ["lib/request.js"]}]
    chart = architecture_diagram(p, chapters)
    assert "s0 -->" not in chart  # app.js's JSON.stringify is no use of search-params.js
    assert "s2 -->|stringify| s1" in chart


def test_a_package_given_as_the_source_is_imported_by_its_own_name(tmp_path: Path):
    """`book init --source starlette/`: the package's files import each other absolutely
    (`from starlette.requests import Request`); those are the project's own imports."""
    pkg = tmp_path / "starlette"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "requests.py").write_text("class Request:\n    def json(self):\n        return {}\n")
    (pkg / "routing.py").write_text("from starlette.requests import Request\n\n\ndef handle(scope):\n"
                                    "    return Request(scope)\n")
    p = load(pkg)
    req = next(s for s in p.symbols() if s.name == "Request")
    assert resolved_users(p, req) == ["routing.py"]


def test_a_methods_result_types_a_variable_only_through_a_receiver_of_its_type(tmp_path: Path):
    """`path = path.replace("{x}", v)` on a `str` is no `URL.replace`, though that one is declared
    `-> URL` (starlette's routing.py was counted as a user of `URL.replace`)."""
    (tmp_path / "urls.py").write_text("class URL:\n    def replace(self, **kw) -> URL:\n        return self\n")
    (tmp_path / "routing.py").write_text(
        "from .urls import URL\n\n\ndef fill(path: str, v):\n    path = path.replace('{x}', v)\n"
        "    return path.replace('{y}', v)\n\n\ndef moved(u):\n    url = URL()\n    url = url.replace(path='/')\n"
        "    return url.replace(path='/x')\n")
    (tmp_path / "other.py").write_text("def fill(path, v):\n    path = path.replace('{x}', v)\n"
                                       "    return path.replace('{y}', v)\n")
    p = load(tmp_path)
    rep = next(s for s in p.symbols() if s.dotted == "URL.replace")
    assert resolved_users(p, rep) == ["routing.py"]
    from orchestrator.authoring.references import receiver_lines

    assert receiver_lines(p, "routing.py", rep) == {11, 12}  # not lines 5 and 6 (a str's replace)
