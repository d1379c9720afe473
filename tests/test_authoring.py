"""The offline authors on a small Go project: the plan groups packages and orders them by real
dependencies, tests are evidence and never chapters, every quoted block is verified by R1, a
`calls` claim names only resolved callees, and a Chinese chapter's prose is Chinese."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestrator import checks
from orchestrator.agents import VALIDATORS
from orchestrator.outline import parse as parse_outline
from orchestrator.steps import ALL_STEPS
from orchestrator.text.measure import cjk_share

MUX = '''package web

import "net/http"

// Mux is a request multiplexer: it finds the handler registered for a path.
type Mux struct {
	tree *node
	mws  []func(http.Handler) http.Handler
}

// NewMux returns an empty Mux ready for routes.
func NewMux() *Mux {
	return &Mux{tree: &node{}}
}

// Handle registers handler for pattern.
func (mx *Mux) Handle(pattern string, handler http.Handler) {
	if pattern == "" {
		panic("web: empty pattern")
	}
	mx.tree.insert(pattern, handler)
}

// ServeHTTP finds the handler for the request's path and calls it.
func (mx *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := mx.tree.find(r.URL.Path)
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}
'''

TREE = '''package web

import "net/http"

// node is one segment of the routing tree.
type node struct {
	prefix   string
	handler  http.Handler
	children []*node
}

// insert adds a handler for pattern below this node.
func (n *node) insert(pattern string, h http.Handler) {
	for _, c := range n.children {
		if c.prefix == pattern {
			c.handler = h
			return
		}
	}
	n.children = append(n.children, &node{prefix: pattern, handler: h})
}

// find returns the handler for path, or nil.
func (n *node) find(path string) http.Handler {
	for _, c := range n.children {
		if c.prefix == path {
			return c.handler
		}
	}
	return nil
}
'''

LOGGER = '''package middleware

import (
	"log"
	"net/http"
)

// Logger logs the method and path of every request before passing it on.
func Logger(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Printf("%s %s", r.Method, r.URL.Path)
		next.ServeHTTP(w, r)
	})
}

// Recoverer turns a panic in a handler into a 500 response.
func Recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if err := recover(); err != nil {
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
'''

TEST = '''package web

import "testing"

func TestHandle(t *testing.T) {
	mx := NewMux()
	mx.Handle("/a", nil)
}
'''


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "middleware").mkdir(parents=True)
    (src / "go.mod").write_text("module example.com/webkit\n\ngo 1.22\n")
    (src / "mux.go").write_text(MUX)
    (src / "tree.go").write_text(TREE)
    (src / "mux_test.go").write_text(TEST)
    (src / "middleware" / "logger.go").write_text(LOGGER)
    return src


def _ctx(src: Path, language: str = "en", **more) -> dict:
    return {"source_root": str(src), "language": language, "limits": {"max_chapters": 12, "batch_size": 3},
            "book": {"title": "A Book About a Codebase", "audience": "readers", "brief": "How it works."},
            "personas": ["Newcomer: new to the code", "Expert: knows Go"], "memory": {"metaphors": [], "glossary": []},
            "chapters": [], **more}


def _book(src: Path, language: str = "en") -> tuple[object, dict[str, str]]:
    from orchestrator.authoring import authors as authoring

    outline_md = authoring.write_outline(_ctx(src, language))
    o = parse_outline(outline_md, "the plan", src)
    chapters = [{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary} for c in o.chapters]
    drafts = {}
    for c in o.chapters:
        ctx = _ctx(src, language, chapter=c.entry(), chapters=chapters, outline_yaml=o.to_yaml())
        research = authoring.write_research(ctx)
        drafts[c.id] = authoring.write_draft(dict(ctx, research=research))
    return o, drafts


def test_plan_groups_packages_orders_by_use_and_keeps_tests_out(project: Path):
    o, _ = _book(project)
    assert o.title == "Inside webkit"  # the project's name, from go.mod
    sources = [s for c in o.chapters for s in c.sources]
    assert "mux_test.go" not in sources and sorted(sources) == ["middleware/logger.go", "mux.go", "tree.go"]
    titles = [c.title for c in o.chapters]
    assert len(set(titles)) == len(titles)
    assert not any(re.search(r"\.(go|py|ts)\b|\bmodule\b", t) for t in titles)
    where = {s: c for c in o.chapters for s in c.sources}
    # mux.go uses the tree: the tree's chapter comes first and is a real dependency
    assert where["tree.go"].id <= where["mux.go"].id
    if where["tree.go"].id != where["mux.go"].id:
        assert where["tree.go"].id in where["mux.go"].depends_on
    # the middleware package uses neither: it depends on no chapter and shares the first batch
    assert where["middleware/logger.go"].depends_on == ()
    assert where["middleware/logger.go"].batch == 1


def test_chapters_quote_verified_code_and_claim_only_resolved_calls(project: Path):
    _, drafts = _book(project)
    for ch, text in drafts.items():
        assert VALIDATORS[ALL_STEPS["draft"].answer](text, {"language": "en"}) == [], ch
        found, verified = checks.check_code(text, project)
        assert not [f for f in found if f.severity == "blocking"], (ch, found)
        assert verified, ch  # every chapter quotes code from the source
    text = "\n".join(drafts.values())
    assert "Logger logs the method and path" in text  # the doc comment, once, as prose
    assert text.count("Logger logs the method and path") == 1
    # ServeHTTP calls mx.tree.find: a method of another type, through a field: not claimed as resolved
    # (the walk's sections hold chains of calls: what follows ServeHTTP's code up to the next code)
    serve = text[text.index("func (mx *Mux) ServeHTTP"):]
    serve = serve[serve.index("```") + 3:]
    assert "`NewMux`" not in serve[: serve.index("```")]
    # the test is shown as evidence of use
    assert "mux_test.go" in text


def test_chinese_chapters_are_chinese(project: Path):
    _, drafts = _book(project, "zh")
    for ch, text in drafts.items():
        assert cjk_share(text) >= 0.6, (ch, cjk_share(text))
        assert "Logger logs" not in "\n".join(ln for ln in text.splitlines() if not ln.startswith(">"))


def test_chinese_sentences_are_joined_without_a_space_outside_code():
    from orchestrator.text.zh_punct import normalise as _tidy_cjk

    text = "有些工作不应在每个处理函数里重复编写。 本章讲解它。\n\n```go\nx := \"。 a\"\n```\n> English. Quoted."
    out = _tidy_cjk(text)
    assert "重复编写。本章" in out
    assert 'x := "。 a"' in out and "> English. Quoted." in out


def test_a_completion_script_is_about_completion_not_commands():
    # cobra's powershell_completions.go was titled "Commands and flags": the commands role counted
    # "completion" and "shell" as its own words
    from orchestrator.authoring import roles

    scored = roles.detect(["GenPowerShellCompletion", "GenPowerShellCompletionWithDesc"], ["powershell_completions"], "")
    assert scored[0][1].key == "completion"
    assert all(r.key != "commands" for _s, r in scored)


def test_a_symbol_kept_only_for_old_callers_is_not_a_key_symbol(tmp_path):
    # cobra.go's chapter was built around Gt and Eq, which a FIXME above them says are unused
    from orchestrator.authoring.plan import key_symbols, retired
    from orchestrator.authoring.project import load

    src = tmp_path / "src"
    src.mkdir()
    body = "\tif a == nil {\n\t\treturn false\n\t}\n\tx := 1\n\ty := 2\n\treturn x < y\n"
    (src / "util.go").write_text(
        "package util\n\n// FIXME Gt is unused and should be removed in a version 2.\n\n"
        f"// Gt compares two values.\nfunc Gt(a interface{{}}, b interface{{}}) bool {{\n{body}}}\n\n"
        f"// OnInit registers a function to run first.\nfunc OnInit(a interface{{}}, b interface{{}}) bool {{\n{body}}}\n")
    (src / "main.go").write_text("package util\n\nfunc run() {\n\tGt(1, 2)\n\tOnInit(1, 2)\n}\n")
    p = load(src)
    gt = next(s for s in p.symbols() if s.name == "Gt")
    on = next(s for s in p.symbols() if s.name == "OnInit")
    assert retired(p, gt) and not retired(p, on)
    assert [s.name for s in key_symbols(p, ["util.go"], 2)][0] == "OnInit"


def test_a_go_name_of_another_package_is_used_only_through_its_qualifier(tmp_path):
    # chi's mux.go (`mux.pool.New = ...`) was said to use middleware's `New`
    from orchestrator.authoring.project import load
    from orchestrator.authoring.research import _go_reachable

    src = tmp_path / "src"
    (src / "middleware").mkdir(parents=True)
    (src / "mux.go").write_text("package chi\n\nfunc NewMux() *Mux {\n\tmux := &Mux{}\n\tmux.pool.New = func() any { return nil }\n"
                                "\treturn mux\n}\n")
    (src / "app.go").write_text("package chi\n\nimport \"x/middleware\"\n\nvar h = middleware.New(nil)\n")
    (src / "middleware" / "middleware.go").write_text("package middleware\n\nfunc New(h any) any {\n\treturn h\n}\n")
    p = load(src)
    assert not _go_reachable(p, ["mux.go"], "middleware/middleware.go", "New")
    assert _go_reachable(p, ["app.go"], "middleware/middleware.go", "New")
    assert _go_reachable(p, ["mux.go"], "app.go", "h")  # the same package: no qualifier needed


def test_one_go_package_rule_for_the_dependency_graph_the_relations_and_the_calls(tmp_path):
    # the plan's dependency graph and the calls a chapter explains follow the research report's
    # rule: a bare `New` in package chi is not middleware's `New`; `mw.New` (an alias) and
    # `middleware.Logger` are
    from orchestrator.authoring.codeinfo import resolved_calls
    from orchestrator.authoring.plan import dep_graph
    from orchestrator.authoring.project import load

    src = tmp_path / "src"
    (src / "middleware").mkdir(parents=True)
    (src / "mux.go").write_text("package chi\n\nfunc NewMux() *Mux {\n\tmux := &Mux{}\n\tmux.pool.New = New\n"
                                "\treturn mux\n}\n\ntype Mux struct{ pool any }\n")
    (src / "app.go").write_text("package chi\n\nimport mw \"x/middleware\"\n\nfunc Build() any {\n"
                                "\treturn mw.New(nil)\n}\n")
    (src / "middleware" / "middleware.go").write_text(
        "package middleware\n\nfunc New(h any) any {\n\treturn h\n}\n\nfunc Logger(h any) any {\n\treturn New(h)\n}\n")
    (src / "middleware" / "logger.go").write_text("package middleware\n\nfunc Other() any {\n\treturn Logger(nil)\n}\n")
    p = load(src)
    g = dep_graph(p)
    assert "middleware/middleware.go" not in g["mux.go"]
    assert "middleware/middleware.go" in g["app.go"]
    assert "middleware/middleware.go" in g["middleware/logger.go"]  # the same package: bare names reach
    assert p.reaches("app.go", "middleware/middleware.go", "New")
    assert not p.reaches("mux.go", "middleware/middleware.go", "New")
    build = next(s for s in p.symbols(["app.go"]) if s.short == "Build")
    code = "\n".join(p.lines_of("app.go")[build.d.start_line - 1:build.d.end_line])
    assert [x.name for x in resolved_calls(p, build, code)] == ["New"]
    other = next(s for s in p.symbols(["middleware/logger.go"]) if s.short == "Other")
    assert [x.rel for x in resolved_calls(p, other, "return Logger(nil)")] == ["middleware/middleware.go"]
    newmux = next(s for s in p.symbols(["mux.go"]) if s.short == "NewMux")
    assert resolved_calls(p, newmux, "mux.pool.New = New()") == []


def test_the_book_opens_with_what_a_newcomer_meets_first(tmp_path):
    # anyhow's book opened with ptr.rs (every file uses it, no user writes it): the crate root and
    # what the README's code writes come first, the low-level internals later
    from orchestrator.authoring.entry import entry_scores
    from orchestrator.authoring.plan import batches, order_groups

    src = tmp_path / "crate"
    (src / "src").mkdir(parents=True)
    (src / "README.md").write_text("# demo\n\n- Use it:\n\n  ```rust\n  let e = demo::Error::msg(\"x\");\n"
                                   "  e.context(\"y\");\n  ```\n")
    (src / "src" / "lib.rs").write_text("mod error;\nmod ptr;\nmod fmt;\n\npub use crate::error::Error;\n\n"
                                        "pub type Result<T> = std::result::Result<T, Error>;\n\n"
                                        "pub fn root(r: Ref) -> Own { Own::new(r) }\n")
    (src / "src" / "error.rs").write_text("pub struct Error { inner: Own }\n\nimpl Error {\n"
                                          "    pub fn msg(m: &str) -> Self { Error { inner: Own::new(Ref::new(m)) } }\n"
                                          "    pub fn context(self, c: &str) -> Self { let _ = Indent::new(c); self }\n}\n")
    (src / "src" / "ptr.rs").write_text("pub struct Own { p: usize }\npub struct Ref { p: usize }\n\n"
                                        "impl Own {\n    pub fn new(r: Ref) -> Self { Own { p: r.p } }\n}\n"
                                        "impl Ref {\n    pub fn new(_m: &str) -> Self { Ref { p: 0 } }\n}\n")
    (src / "src" / "fmt.rs").write_text("pub struct Indent { n: usize }\n\nimpl Indent {\n"
                                        "    pub fn new(_c: &str) -> Self { let _ = Ref::new(\"\"); Indent { n: 0 } }\n}\n")
    from orchestrator.authoring.project import load

    p = load(src)
    groups = [["src/error.rs"], ["src/fmt.rs"], ["src/lib.rs"], ["src/ptr.rs"]]
    scores = entry_scores(p, groups)
    assert scores[2] > scores[0] > 0 and scores[1] == scores[3] == 0  # the root file; Error, .context(
    order, deps = order_groups(p, groups)
    # issue 23: the book opens with the first name the README's example writes (`demo::Error`),
    # then the root file; the internals after the public chapters, in their dependency order
    assert [groups[g][0] for g in order] == ["src/error.rs", "src/lib.rs", "src/ptr.rs", "src/fmt.rs"]
    b = batches(order, deps, 3)
    assert [b[g] for g in order] == sorted(b[g] for g in order)  # batches never run ahead of the reading order


def test_an_entry_file_that_only_re_exports_hands_the_root_to_what_it_exports(tmp_path):
    # express's index.js is `module.exports = require('./lib/express')`; flask's __init__.py imports
    from orchestrator.authoring.entry import root_files
    from orchestrator.authoring.project import load

    src = tmp_path / "js"
    (src / "lib").mkdir(parents=True)
    (src / "index.js").write_text("'use strict';\n\nmodule.exports = require('./lib/app');\n")
    (src / "lib" / "app.js").write_text("function createApp() {\n  return {};\n}\n\nmodule.exports = createApp;\n")
    (src / "lib" / "util.js").write_text("function helper() {\n  return 1;\n}\n\nmodule.exports = helper;\n")
    assert root_files(load(src)) == {"lib/app.js"}
    py = tmp_path / "py"
    (py / "pkg").mkdir(parents=True)
    (py / "pkg" / "__init__.py").write_text("from .core import Thing as Thing\nfrom .util import helper as helper\n")
    (py / "pkg" / "core.py").write_text("class Thing:\n    def run(self):\n        return 1\n")
    (py / "pkg" / "util.py").write_text("def helper():\n    return 2\n")
    assert root_files(load(py)) == {"pkg/core.py"}


def test_the_tools_configuration_is_no_chapter(tmp_path):
    # zustand's eslint.config.mjs and rollup.config.mjs made a chapter "Configuration"
    from orchestrator.authoring.project import is_tooling, load

    src = tmp_path / "p"
    (src / "src").mkdir(parents=True)
    (src / "fuzz" / "fuzz_targets").mkdir(parents=True)
    (src / "eslint.config.mjs").write_text("export default [{ rules: {} }]\n")
    (src / "src" / "config.ts").write_text("export function configure(x: number): number {\n  return x\n}\n")
    (src / "fuzz" / "fuzz_targets" / "parse.rs").write_text("fn fuzz(data: &[u8]) {\n    let _ = data;\n}\n")
    assert load(src).code_files() == ["src/config.ts"]
    assert is_tooling("vite.config.ts") and is_tooling("wdio.conf.js") and is_tooling(".eslintrc.js") and is_tooling("setup.py")
    assert is_tooling("config/rollup.coverage.config.js")  # (a dotted config name: DOMPurify's)
    assert not is_tooling("src/flask/config.py") and not is_tooling("pkg/setup.py")


def test_a_method_of_a_plain_object_is_used_only_where_the_code_writes_it(tmp_path):
    # express's express.js (`exports.json = bodyParser.json`) was said to use `res.json`
    from orchestrator.authoring.project import load
    from orchestrator.authoring.research import _really_used

    src = tmp_path / "lib"
    src.mkdir()
    (src / "response.js").write_text("var res = Object.create(http.ServerResponse.prototype);\n"
                                     "res.json = function json(obj) {\n  return this.send(obj);\n};\n"
                                     "module.exports = res;\n")
    (src / "express.js").write_text("var res = require('./response');\nexports.response = res;\n"
                                    "exports.json = bodyParser.json;\n")
    (src / "app.js").write_text("var res = require('./response');\nfunction reply(o) {\n  return res.json(o);\n}\n"
                                "module.exports = reply;\n")
    p = load(src)
    d = next(s.d for s in p.symbols(["response.js"]) if s.short == "json")
    refs = {"res": 2, "json": 1}
    assert not _really_used(d, refs, p, ["express.js"])
    assert _really_used(d, refs, p, ["app.js"])


def test_the_next_definitions_head_inside_a_span_is_no_call(tmp_path):
    """A Scala method written `def f(x) = …` without braces: the map's span runs on to the next
    `def`, whose head `def valueName(` was taken for a call (scopt's "`text` calls `valueName`")."""
    from orchestrator.authoring.codeinfo import resolved_calls
    from orchestrator.authoring.project import load

    src = tmp_path / "src"
    src.mkdir()
    (src / "Opt.scala").write_text("class Opt {\n  def text(x: String): Opt =\n    fire(x)\n\n"
                                   "  def valueName(x: String): Opt =\n    fire(x)\n\n  def fire(x: String): Opt = this\n}\n")
    p = load(src)
    text = next(s for s in p.symbols() if s.short == "text")
    code = "\n".join(p.lines_of("Opt.scala")[1:5])  # `text` and the next head, as a long span gives it
    assert [x.short for x in resolved_calls(p, text, code)] == ["fire"]


def test_a_quote_of_code_that_mixes_tabs_and_spaces_keeps_its_shape_as_r1_reads_it():
    from orchestrator.authoring.project import _dedent

    # JSON-java's `        \t throw …` among lines indented by spaces: cutting four spaces would move the tab's stop
    src = "    if (x) {\n        y();\n            z();\n                q();\n        \t w();\n    }"
    out = _dedent(src)
    assert out.splitlines()[4] == " " * 13 + "w();" and out.splitlines()[3] == " " * 12 + "q();", out
    assert _dedent("\tfunc() {\n\t\tx()\n\t}") == "func() {\n\tx()\n}"  # tabs alone stay tabs


def test_a_definition_named_for_its_file_is_cited_at_its_own_head(tmp_path):
    from orchestrator.authoring import project as project_mod
    from orchestrator.authoring.tracing import name_line

    # debug's karma.conf.js: `module.exports = function (config)`, named `karma`; a comment's `karma-adapter` below
    (tmp_path / "karma.conf.js").write_text("module.exports = function (config) {\n\tconfig.set({\n"
                                            "\t\t// see https://npmjs.org/browse/keyword/karma-adapter\n"
                                            "\t\tframeworks: ['mocha'],\n\t});\n};\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# k\n\nK.\n", encoding="utf-8")
    p = project_mod.load(tmp_path)
    s = next(x for x in p.symbols() if x.rel == "karma.conf.js")
    assert name_line(p, s) == 1, (s.name, s.d.signature)
