"""The types of values the code says (authoring/valuetypes.py): a local made from a construction or
a call, a field its type's methods fill, what a call returns, an inherited method; and the main path
they let chapter 1 follow (issue 35), on small sources."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load


def _calls(p: Project, dotted: str) -> list[str]:
    s = next(x for x in p.symbols() if x.dotted == dotted)
    return [c.dotted for c in all_calls(p, s)]


def _path(p: Project) -> list[str]:
    return [s.dotted for s in central_path(p, entry_points(p))]


MARKDOWN = {
    "README.md": "# mdown\n\n```python\nimport mdown\nhtml = mdown.markdown(text)\n```\n",
    "mdown/__init__.py": "from .core import markdown\n",
    "mdown/core.py": (
        "from .blockparser import build_block_parser\n\n\n"
        "class Markdown:\n    def __init__(self):\n        self.build_parser()\n\n"
        "    def build_parser(self):\n        self.parser = build_block_parser(self)\n\n"
        "    def convert(self, source):\n        lines = source.split('\\n')\n"
        "        root = self.parser.parseDocument(lines)\n        return root\n\n\n"
        "def markdown(text):\n    md = Markdown()\n    return md.convert(text)\n"),
    "mdown/blockparser.py": (
        "class State:\n    def set(self, s):\n        self.s = s\n\n\n"
        "class BlockParser:\n    def __init__(self, md):\n        self.md = md\n        self.state = State()\n\n"
        "    def parseDocument(self, lines):\n        self.state.set('start')\n        self.parseChunk(lines)\n\n"
        "    def parseChunk(self, lines):\n        self.parseBlocks(lines)\n\n"
        "    def parseBlocks(self, blocks):\n        for b in blocks:\n            self.state.set(b)\n\n\n"
        "def build_block_parser(md):\n    parser = BlockParser(md)\n    return parser\n"),
}


def test_a_field_filled_from_a_function_that_returns_what_it_built_is_typed(tmp_path: Path):
    p = load(_write(tmp_path / "repo", MARKDOWN))
    # `self.parser = build_block_parser(self)` in another method; the function returns the `BlockParser(md)` it made
    assert _calls(p, "Markdown.convert") == ["BlockParser.parseDocument"]
    assert _calls(p, "markdown") == ["Markdown", "Markdown.convert"]  # `md = Markdown(); md.convert(…)`
    assert "State.set" in _calls(p, "BlockParser.parseDocument")  # `self.state = State()` in `__init__`
    assert _path(p)[:5] == ["markdown", "Markdown.convert", "BlockParser.parseDocument", "BlockParser.parseChunk",
                            "BlockParser.parseBlocks"]


def test_a_chain_on_a_module_qualified_construction_and_an_inherited_method(tmp_path: Path):
    files = {
        "README.md": "# jpath\n\n```python\nimport jpath\njpath.search('a.b', data)\n```\n",
        "jpath/__init__.py": "from jpath import parser\n\n\ndef search(expression, data):\n"
                             "    return parser.Parser().parse(expression).search(data)\n",
        "jpath/parser.py": (
            "from jpath import visitor\n\n\nclass Parser:\n    def parse(self, expression):\n"
            "        return self._do_parse(expression)\n\n    def _do_parse(self, expression):\n"
            "        result = self._parse(expression)\n        return result\n\n"
            "    def _parse(self, expression):\n        return ParsedResult(expression)\n\n\n"
            "class ParsedResult:\n    def __init__(self, parsed):\n        self.parsed = parsed\n\n"
            "    def search(self, value):\n        interpreter = visitor.TreeInterpreter()\n"
            "        return interpreter.visit(self.parsed, value)\n"),
        "jpath/visitor.py": (
            "class Visitor:\n    def visit(self, node, *args):\n        method = getattr(self, 'visit_' + node['type'])\n"
            "        return method(node, *args)\n\n\nclass TreeInterpreter(Visitor):\n"
            "    def visit_field(self, node, value):\n        return value.get(node['value'])\n"),
    }
    p = load(_write(tmp_path / "repo", files))
    # `Parser()` of the module `parser`, its `parse` returning what `_parse` builds, then that value's `search`
    assert _calls(p, "search") == ["Parser", "Parser.parse", "ParsedResult.search"]  # (the class it makes, too)
    assert _calls(p, "ParsedResult.search") == ["TreeInterpreter", "Visitor.visit"]  # `visit` is inherited from `Visitor`
    # the README's one call is the main path, handed on through the chain's last link
    assert _path(p) == ["search", "ParsedResult.search", "Visitor.visit"]


def test_ruby_and_javascript_fields_made_in_the_constructor(tmp_path: Path):
    rb = ("module Http\n  class Parser\n    def parse(body)\n      body.strip\n    end\n  end\n\n"
          "  class Request\n    def initialize(opts)\n      @parser = Parser.new\n    end\n\n"
          "    def perform(body)\n      @parser.parse(body)\n    end\n  end\nend\n")
    js = ("class Lexer {\n  lex(src) {\n    return src.split(' ')\n  }\n}\n\n"
          "class Marked {\n  constructor() {\n    this.lexer = new Lexer()\n  }\n\n"
          "  parse(src) {\n    const tokens = this.lexer.lex(src)\n    return tokens\n  }\n}\n\nmodule.exports = Marked\n")
    p = load(_write(tmp_path / "repo", {"lib/http.rb": rb, "src/marked.js": js}))
    assert _calls(p, "Http.Request.perform") == ["Http.Parser.parse"]
    assert _calls(p, "Marked.parse") == ["Lexer.lex"]


def test_a_go_element_of_a_named_slice_type_and_a_long_leaf_ends_the_path(tmp_path: Path):
    readme = "# gn\n\n```go\nfunc main() {\n  r := gn.New()\n  http.ListenAndServe(\":8080\", r)\n}\n```\n"
    body = "".join(f"\t\tpath = path[{k % 3}:]\n" for k in range(30))
    code = ("package gn\n\nimport \"net/http\"\n\ntype node struct {\n\tpath string\n}\n\n"
            "type methodTree struct {\n\tmethod string\n\troot   *node\n}\n\n"
            "type methodTrees []methodTree\n\n"
            "type Engine struct {\n\ttrees methodTrees\n}\n\n"
            "func New() *Engine {\n\treturn &Engine{}\n}\n\n"
            "func (engine *Engine) ServeHTTP(w http.ResponseWriter, req *http.Request) {\n\tengine.handle(req)\n}\n\n"
            "func (engine *Engine) handle(req *http.Request) {\n\tt := engine.trees\n"
            "\tfor i, tl := 0, len(t); i < tl; i++ {\n\t\troot := t[i].root\n\t\troot.getValue(req.URL.Path)\n\t}\n"
            "\tserveError(req)\n}\n\n"
            "func serveError(req *http.Request) {\n\tlogIt(req)\n}\n\nfunc logIt(req *http.Request) {\n\tlogIt2(req)\n}\n\n"
            "func logIt2(req *http.Request) {\n\treq.URL.Path = \"\"\n}\n\n"
            f"func (n *node) getValue(path string) {{\n\tfor len(path) > 0 {{\n{body}\t}}\n}}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "go.mod": "module example.com/gn\n", "gin.go": code}))
    assert "node.getValue" in _calls(p, "Engine.handle")  # `root := t[i].root`: a `methodTree`'s `*node`
    # the 404 at the end is no hand-off; the long `getValue` that calls nothing further is where the work is done
    assert _path(p) == ["Engine.ServeHTTP", "Engine.handle", "node.getValue"]


def test_an_overload_the_examples_arguments_cannot_reach_is_not_where_it_starts(tmp_path: Path):
    readme = ("# gs\n\n```java\nGs gs = new Gs();\ngs.toJson(1);\nint[] values = { 1 };\ngs.toJson(values);\n```\n")
    code = ("package gs;\n\npublic class Gs {\n"
            "  public String toJson(Object src) {\n    return toJson(src, src.getClass());\n  }\n\n"
            "  public String toJson(Object src, Class<?> type) {\n    return write(src);\n  }\n\n"
            "  private String write(Object src) {\n    return src.toString();\n  }\n\n"
            "  public String toJson(Element e) {\n    return e.walk().walk().walk().name();\n  }\n}\n")
    elem = ("package gs;\n\npublic class Element {\n  public Element walk() {\n    return deeper();\n  }\n\n"
            "  private Element deeper() {\n    return deepest();\n  }\n\n  private Element deepest() {\n"
            "    return more();\n  }\n\n  private Element more() {\n    return this;\n  }\n\n"
            "  public String name() {\n    return \"e\";\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "src/main/java/gs/Gs.java": code,
                                        "src/main/java/gs/Element.java": elem}))
    # `toJson(1)` and `toJson(values)` (an `int[]`) can only be `toJson(Object)`, however deep the other goes
    assert _path(p)[:3] == ["Gs.toJson", "Gs.toJson", "Gs.write"]


def test_a_method_the_readme_calls_on_another_librarys_value_is_not_the_projects(tmp_path: Path):
    from orchestrator.authoring.entry import foreign_values, readme_names

    readme = ("# @koa/router\n\n```js\nconst Koa = require('koa');\nconst Router = require('@koa/router');\n\n"
              "const app = new Koa();\nconst router = new Router();\n\nrouter.get('/', (ctx) => {});\n"
              "app.use(router.routes());\n```\n")
    code = ("class Router {\n  get(path, fn) {\n    return this.register(path, fn)\n  }\n  register(path, fn) {\n"
            "    return this\n  }\n  use(fn) {\n    return this\n  }\n  routes() {\n    return (ctx) => ctx\n  }\n}\n\n"
            "module.exports = Router\n")
    p = load(_write(tmp_path / "repo", {"README.md": readme, "package.json": '{"name": "@koa/router"}\n',
                                        "lib/router.js": code}))
    assert foreign_values(p, readme) == {"app"}
    called = readme_names(p)[1]
    assert "get" in called and "routes" in called and "use" not in called  # `app.use` is Koa's
    own = _write(tmp_path / "koa", {"README.md": "# koa\n\n```js\nconst Koa = require('koa');\nconst app = new Koa();\n"
                                                 "app.listen(3000);\n```\n", "package.json": '{"name": "koa"}\n',
                                    "lib/application.js": "module.exports = class Application {\n  listen() {}\n}\n"})
    assert foreign_values(load(own), (own / "README.md").read_text()) == set()  # koa's own README: its own value


def test_a_package_doc_comments_example_is_the_first_example_when_the_readme_has_none(tmp_path: Path):
    from orchestrator.authoring.doc_examples import doc_examples
    from orchestrator.authoring.overview import first_example

    info = ("/*\n * Licensed to you.\n */\n\n/**\n * Reads CSV.\n *\n * <pre>\n"
            " * Reader in = new StringReader(&quot;a,b,c&quot;);\n * for (CSVRecord record : CSVFormat.DEFAULT.parse(in)) {\n"
            " *     record.get(0);\n * }\n * </pre>\n */\npackage org.csv;\n")
    fmt = ("package org.csv;\n\npublic class CSVFormat {\n  public static final CSVFormat DEFAULT = new CSVFormat();\n\n"
           "  public CSVParser parse(Reader in) {\n    return new CSVParser(in);\n  }\n}\n")
    parser = "package org.csv;\n\npublic class CSVParser {\n  public CSVParser(Reader in) {\n  }\n}\n"
    rec = "package org.csv;\n\npublic class CSVRecord {\n  public String get(int i) {\n    return \"\";\n  }\n}\n"
    lib = ("//! A crate.\n//!\n//! ```\n//! # use tiny::Reader;\n//! let r = tiny::Reader::new(\"x\");\n//! r.read();\n"
           "//! ```\n//!\n//! ```text\n//! not code\n//! ```\n\npub struct Reader;\n")
    root = _write(tmp_path / "repo", {"README.md": "# csv\n\nCSV files, read and written.\n", "pom.xml": "<project/>\n",
                                      "src/main/java/org/csv/package-info.java": info,
                                      "src/main/java/org/csv/CSVFormat.java": fmt,
                                      "src/main/java/org/csv/CSVParser.java": parser,
                                      "src/main/java/org/csv/CSVRecord.java": rec})
    p = load(root / "src" / "main" / "java")
    ex = first_example(p, {"CSVFormat", "CSVRecord"})
    assert ex is not None and ex.rel == "src/main/java/org/csv/package-info.java" and (ex.first, ex.last) == (8, 13)
    assert ex.code.splitlines()[0] == 'Reader in = new StringReader("a,b,c");' and ex.source_rel is None
    rust = load(_write(tmp_path / "crate", {"src/lib.rs": lib}))
    assert [(a, b, code) for _rel, a, b, _lang, code in doc_examples(rust)] == [
        (3, 7, 'let r = tiny::Reader::new("x");\nr.read();')]  # the doctest's hidden line and the `text` fence left out


def test_a_typescript_function_is_its_implementation_and_a_module_value_its_class(tmp_path: Path):
    ts = ("import { Marked } from './Instance.ts';\n\nconst markedInstance = new Marked();\n\n"
          "/** Compiles markdown. */\nexport function marked(src: string, options: { async: true }): Promise<string>;\n"
          "export function marked(src: string): string;\n"
          "export function marked(src: string, opt?: object): string | Promise<string> {\n"
          "  return markedInstance.parse(src, opt);\n}\n")
    inst = ("export class Marked {\n  parse = this.parseMarkdown(true);\n\n  private parseMarkdown(block: boolean) {\n"
            "    return (src: string, opt?: object) => src;\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/marked.ts": ts, "src/Instance.ts": inst}))
    fns = [x for x in p.find("marked") if x.kind == "function"]
    assert [(x.d.start_line, x.d.end_line) for x in fns] == [(8, 10)]  # the overloads' declarations are not the function
    assert "Compiles markdown" in fns[0].d.doc
    # `markedInstance` is the file's `new Marked()`; its `parse` field is made by `parseMarkdown`: a hop
    # that names the field (R1 holds "`marked` runs `parseMarkdown` through `markedInstance.parse`", not "calls")
    from orchestrator.authoring.hops import hops

    marked = next(x for x in p.symbols() if x.dotted == "marked" and x.kind == "function")
    assert _calls(p, "marked") == []
    assert [(h.callee.dotted, h.how, h.via, h.tie) for h in hops(p, marked)] == [
        ("Marked.parseMarkdown", "field", "markedInstance.parse", ("src/Instance.ts", 2))]


def test_a_traced_step_cites_the_line_the_call_was_resolved_on(tmp_path: Path):
    from orchestrator.authoring.tracing import call_line

    rb = ("module Sin\n  class Hash2\n    def delete(k)\n      k\n    end\n  end\n\n"
          "  class Base\n    def call!(env)\n      @params = Hash2.new\n    end\n\n"
          "    def process_route(pattern)\n      params = pattern.params\n      params.delete('ignore')\n"
          "      # @params.delete(x) in a comment\n      @params.delete(:k)\n    end\n  end\nend\n")
    p = load(_write(tmp_path / "repo", {"lib/sin.rb": rb}))
    route = next(x for x in p.symbols() if x.dotted == "Sin.Base.process_route")
    delete = next(x for x in p.symbols() if x.dotted == "Sin.Hash2.delete")
    # line 15 calls a local's `delete` (of no type the code says); line 17 the field's, `Hash2#delete`
    assert _calls(p, "Sin.Base.process_route") == ["Sin.Hash2.delete"] and call_line(p, route, delete) == 17


def test_a_field_declared_as_an_interface_is_what_a_subclass_fills_it_with(tmp_path: Path):
    base = ("import type { Router } from './router'\n\nexport class AppBase {\n  router!: Router\n\n"
            "  dispatch(method: string, path: string) {\n    return this.router.match(method, path)\n  }\n}\n")
    app = ("import { AppBase } from './app-base'\nimport { SmartRouter } from './smart'\n\n"
           "export class App extends AppBase {\n  constructor(options: { router?: Router } = {}) {\n    super()\n"
           "    this.router =\n      options.router ??\n      new SmartRouter({\n        routers: [],\n      })\n  }\n}\n")
    router = "export interface Router {\n  match(method: string, path: string): string\n}\n"
    smart = ("import type { Router } from './router'\n\nexport class SmartRouter implements Router {\n"
             "  constructor(init: object) {}\n\n  match(method: string, path: string): string {\n    return path\n  }\n}\n")
    p = load(_write(tmp_path / "repo", {"src/app-base.ts": base, "src/app.ts": app, "src/router.ts": router,
                                        "src/smart.ts": smart}))
    # `router!: Router` (an interface) is filled by the subclass's constructor: the option given, else a SmartRouter
    assert _calls(p, "AppBase.dispatch") == ["SmartRouter.match"]


def test_an_es5_constructor_function_with_prototype_methods_is_a_class(tmp_path: Path):
    js = ("function Writer () {\n  this.cache = {};\n}\n\nWriter.prototype.render = function render (template, view) {\n"
          "  return this.renderTokens(template, view);\n};\n\n"
          "Writer.prototype.renderTokens = function renderTokens (tokens, view) {\n  return tokens + view;\n};\n\n"
          "var mustache = {};\nvar defaultWriter = new Writer();\n\n"
          "mustache.render = function render (template, view) {\n  return defaultWriter.render(template, view);\n};\n\n"
          "module.exports = mustache;\n")
    p = load(_write(tmp_path / "repo", {"mustache.js": js}))
    assert _calls(p, "mustache.render") == ["Writer.render"]  # `defaultWriter` is the file's `new Writer()`


def test_a_go_type_assertion_says_the_type_whatever_gave_the_value(tmp_path: Path):
    code = ("package gn\n\nimport (\n\t\"net/http\"\n\t\"sync\"\n)\n\ntype Context struct {\n\tw http.ResponseWriter\n}\n\n"
            "func (c *Context) reset(w http.ResponseWriter) {\n\tc.w = w\n}\n\ntype Engine struct {\n\tpool sync.Pool\n}\n\n"
            "func (engine *Engine) ServeHTTP(w http.ResponseWriter, req *http.Request) {\n"
            "\tc := engine.pool.Get().(*Context)\n\tc.reset(w)\n\tengine.pool.Put(c)\n}\n")
    p = load(_write(tmp_path / "repo", {"go.mod": "module example.com/gn\n", "gin.go": code}))
    assert _calls(p, "Engine.ServeHTTP") == ["Context.reset"]  # `sync.Pool`'s `Get` is another package's


def test_a_mixins_call_of_what_the_combining_class_gives_is_resolved(tmp_path: Path):
    code = ("class Composer:\n    def get_single_node(self):\n        return self.compose_node()\n\n"
            "    def compose_node(self):\n        return 1\n\n\n"
            "class Constructor:\n    def get_single_data(self):\n        node = self.get_single_node()\n"
            "        return self.construct_document(node)\n\n    def construct_document(self, node):\n        return node\n\n\n"
            "class Loader(Composer, Constructor):\n    def __init__(self, stream):\n        self.stream = stream\n\n\n"
            "class SafeLoader(Composer, Constructor):\n    def __init__(self, stream):\n        self.stream = stream\n")
    p = load(_write(tmp_path / "repo", {"yl/loader.py": code}))
    # `Constructor` has no `get_single_node`; every class that combines it takes the one of `Composer`
    assert _calls(p, "Constructor.get_single_data") == ["Composer.get_single_node", "Constructor.construct_document"]


def test_a_java_chain_on_a_construction_is_followed(tmp_path: Path):
    files = {
        "src/jp/DocumentContext.java": "package jp;\n\npublic interface DocumentContext {\n    Object read(String path);\n}\n",
        "src/jp/ParseContextImpl.java": ("package jp;\n\npublic class ParseContextImpl {\n"
                                         "    public DocumentContext parse(String json) {\n        return null;\n    }\n}\n"),
        "src/jp/JsonPath.java": ("package jp;\n\npublic class JsonPath {\n    public static Object read(String json, String path) {\n"
                                 "        return new ParseContextImpl().parse(json).read(path);\n    }\n}\n")}
    p = load(_write(tmp_path / "repo", files))
    # `new ParseContextImpl()` has no constructor of its own to resolve: the chain goes on from its type
    assert _calls(p, "JsonPath.read") == ["ParseContextImpl.parse", "DocumentContext.read"]
