"""Facts from resolution, not from names (issue 34): "used from N files" and "In use" count a
file only where the map resolves its reference to that definition (a method by its receiver's
type, a script's function by its import followed through re-exports); docstrings are no calls."""

from __future__ import annotations

from pathlib import Path

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


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


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
