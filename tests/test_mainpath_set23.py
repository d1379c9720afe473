"""Where chapter 1's main path starts and how it goes on (issue 35, session 27, set 23): a JavaScript factory whose
call is what the module exports; an example's bare calls on a value before the one that runs it. Each on a small
source, failing without its rule."""

from __future__ import annotations

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.project import load

# DOMPurify's shape: the module exports what `createPurify()` builds; its methods are assigned in the factory's body,
# and the helpers they call are the factory's own `const x = function`
_PURIFY = """function createPurify(window) {
  const Purify = (root) => createPurify(root);

  const _initDocument = function (dirty) {
    const doc = window.parse(dirty);
    return doc.body;
  };

  const _sanitizeElements = function (node) {
    if (node.bad) {
      node.remove();
      return true;
    }
    return false;
  };

  Purify.sanitize = function (dirty, cfg) {
    const body = _initDocument(dirty);
    let node = body.first;
    while (node) {
      _sanitizeElements(node);
      node = node.next;
    }
    return body.html;
  };

  return Purify;
}

export default createPurify();
"""


def test_a_factory_whose_call_the_module_exports_defines_the_modules_api(tmp_path):
    files = {"package.json": '{"name": "purify", "main": "src/purify.js"}\n', "src/purify.js": _PURIFY,
             "README.md": "# purify\n\n```js\nconst clean = Purify.sanitize(dirty);\n```\n"}
    p = load(_write(tmp_path / "purify", files))
    assert {"Purify.sanitize", "_initDocument", "_sanitizeElements"} <= {s.dotted for s in p.symbols()}
    assert _path(p)[1:] == ["Purify.sanitize", "_sanitizeElements"]
    # a function the module only calls (its export is something else) keeps its locals its own
    local = dict(files, **{"src/purify.js": _PURIFY.replace("export default createPurify();", "createPurify();\nexport default 1;")})
    q = load(_write(tmp_path / "local", local))
    assert not {"_initDocument", "_sanitizeElements"} & {s.dotted for s in q.symbols()}


_TABLE = """package grid

import "io"

type Table struct {
	w    io.Writer
	head []string
	rows [][]string
}

// NewWriter makes a table that writes to w.
func NewWriter(w io.Writer) *Table {
	return &Table{w: w}
}

// Header sets the header row.
func (t *Table) Header(cells []string) {
	t.head = t.prepare(cells)
}

// Bulk appends rows.
func (t *Table) Bulk(rows [][]string) {
	for _, r := range rows {
		t.rows = append(t.rows, t.prepare(r))
	}
}

func (t *Table) prepare(cells []string) []string {
	out := []string{}
	for _, c := range cells {
		out = append(out, pad(c))
	}
	return out
}

func pad(c string) string {
	return " " + c + " "
}

// Render writes the table.
func (t *Table) Render() error {
	return t.render()
}

func (t *Table) render() error {
	t.line(t.head)
	for _, r := range t.rows {
		t.line(r)
	}
	t.border()
	t.border()
	t.border()
	return nil
}

func (t *Table) line(cells []string) {
	for _, c := range cells {
		io.WriteString(t.w, c)
	}
}

func (t *Table) border() {
	io.WriteString(t.w, "+")
}
"""


def test_bare_calls_on_a_value_before_another_feed_it_the_last_runs_it(tmp_path):
    # tablewriter: `table.Header(…)` and `table.Bulk(…)` fill the table, `table.Render()` runs it
    readme = ("# grid\n\n```go\nfunc main() {\n\ttable := grid.NewWriter(os.Stdout)\n\ttable.Header(data[0])\n"
              "\ttable.Bulk(data[1:])\n\ttable.Render()\n}\n```\n")
    p = load(_write(tmp_path / "table", {"go.mod": "module example.com/grid\n\ngo 1.21\n", "table.go": _TABLE, "README.md": readme}))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Table.Render", "Table.render"]
    # calls whose results are kept side by side are variants of one run: the first that does more than set up
    kept = readme.replace("\ttable.Header(data[0])\n", "\thead := table.Header(data[0])\n")
    q = load(_write(tmp_path / "kept", {"go.mod": "module example.com/grid\n\ngo 1.21\n", "table.go": _TABLE, "README.md": kept}))
    path = _path(q)
    assert path[path.index("|") + 1] == "Table.Header"


_SET = """package edit

// Set sets a value at path.
func Set(json, path, raw string) (string, error) {
	if optimistic(path) {
		i := locate(json, path)
		if i > 0 {
			out := splice(json, i, raw)
			return out, nil
		}
	}
	if path == "" {
		return json, errEmpty
	}
	parts := parsePath(path)
	return appendPaths(json, parts, raw)
}

func optimistic(path string) bool {
	return path != ""
}

func locate(json, path string) int {
	n := 0
	for i := range json {
		n += i
	}
	for range path {
		n--
	}
	return n
}

func splice(json string, i int, raw string) string {
	a := json[:i]
	b := json[i:]
	c := a + raw
	d := c + b
	e := d + ""
	return scan(e)
}

func scan(s string) string {
	return s
}

func Insert(json string, raw string) string {
	return splice(json, 1, raw)
}

func Prepend(json string, raw string) string {
	return splice(json, 0, raw)
}

func Replace(json string, raw string) string {
	return splice(json, 2, raw)
}

func parsePath(path string) []string {
	out := []string{}
	for _, c := range path {
		out = append(out, string(c))
	}
	out = append(out, "")
	out = append(out, "")
	return scanAll(out)
}

func scanAll(p []string) []string {
	return p
}

func appendPaths(json string, parts []string, raw string) (string, error) {
	for _, p := range parts {
		json = json + p
	}
	return json + raw, nil
}
"""


def test_a_call_in_a_branch_that_returns_the_result_itself_prepares_nothing(tmp_path):
    # sjson's `set`: an optimistic branch splices the bytes and returns them; the main line parses the path, then
    # hands on to `appendRawPaths`: what was done before the hand-off is `parsePath` (no accessor for its name)
    from orchestrator.authoring.path_steps import _fast_path, prepared

    p = load(_write(tmp_path / "edit", {"go.mod": "module example.com/edit\n\ngo 1.21\n", "edit.go": _SET}))
    s = next(x for x in p.symbols() if x.dotted == "Set")
    on = next(x for x in p.symbols() if x.dotted == "appendPaths")
    at = next(k for k, ln in enumerate(p.lines_of("edit.go"), 1) if "return appendPaths(" in ln)
    prep = prepared(p, s, on, at, [s, on])
    assert prep is not None and prep[0].dotted == "parsePath"
    lines = p.lines_of("edit.go")
    splice_at = next(k for k, ln in enumerate(lines, 1) if "splice(json, i, raw)" in ln)
    assert _fast_path(lines, splice_at, at)
    # an error's return is no other way to the result: a call in its branch is still on the way
    assert not _fast_path(["func f() {", "\tif bad {", "\t\tlog(x)", "\t\treturn nil, err", "\t}", "\tgo()", "}"], 3, 6)


def test_a_with_statements_manager_and_a_callable_parameters_call_have_the_type_they_give(tmp_path):
    # mistletoe's `markdown`: `with renderer() as r: return r.render(Document(iterable))`, where
    # `renderer: Callable[..., BaseRenderer] = HtmlRenderer`
    from orchestrator.authoring.facts import all_calls

    p = load(_write(tmp_path / "mark", {
        "mark/__init__.py": "from mark.render import BaseRenderer, HtmlRenderer\nfrom typing import Callable\n\n\n"
                            "def markdown(text: str, renderer: Callable[..., BaseRenderer] = HtmlRenderer):\n"
                            "    with renderer() as r:\n        return r.render(text)\n\n\n"
                            "def plain(text: str, renderer=HtmlRenderer):\n    with renderer() as r:\n        return r.render(text)\n",
        "mark/render.py": "class BaseRenderer:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *a):\n"
                          "        pass\n\n    def render(self, token):\n        return str(token)\n\n\n"
                          "class HtmlRenderer(BaseRenderer):\n    pass\n\n\nclass Other:\n    def render(self, token):\n        return token\n"}))
    fn = next(s for s in p.symbols() if s.dotted == "markdown")
    assert "BaseRenderer.render" in [c.dotted for c in all_calls(p, fn)]
    # (no annotation: which class the caller passes is not written, and two types have a `render`)
    bare = next(s for s in p.symbols() if s.dotted == "plain")
    assert "BaseRenderer.render" not in [c.dotted for c in all_calls(p, bare)]


def test_where_the_map_stops_is_not_a_log_line(tmp_path):
    # tablewriter's `render`: "goes on with `t.logger.Info(…)`" told the reader a log line was where the work went
    from orchestrator.authoring.tracing import unresolved_tail

    p = load(_write(tmp_path / "tw", {"go.mod": "module example.com/tw\n\ngo 1.21\n", "tw.go": (
        "package tw\n\nimport \"io\"\n\ntype Table struct {\n\tw      io.Writer\n\tlogger Logger\n}\n\n"
        "func (t *Table) render() error {\n\tt.w.Write([]byte(\"x\"))\n\tt.logger.Info(\"done\")\n\treturn nil\n}\n")}))
    s = next(x for x in p.symbols() if x.dotted == "Table.render")
    assert unresolved_tail(p, s) == ("t.w.Write", 11)
    # nor is a call that gathers debugging information or hands out the logger a step of the set-up
    from orchestrator.authoring.handoff import trace_print

    assert trace_print(s, "Debugging") and trace_print(s, "Logger") and not trace_print(s, "Render")


def test_what_the_hand_off_is_given_over_several_lines_is_what_it_did_first(tmp_path):
    # yaml's `parseDocument`: `parseOptions(options)` lines before, then `for (const d of composer.compose(⏎
    # parser.parse(source), ⏎ true))`: the hand-off is fed by `Parser.parse`
    from orchestrator.authoring.path_steps import prepared

    src = """export function parseOptions(options) {
  const counter = options.counter || makeCounter(options)
  const pretty = options.pretty !== false
  const strict = Boolean(options.strict)
  const level = options.level || 'warn'
  const extra = readExtra(options)
  const merged = Object.assign({}, options, extra)
  const out = { counter, pretty, strict, level, merged }
  return out
}

function makeCounter(options) {
  return { n: 0, options }
}

function readExtra(options) {
  return { extra: options.extra }
}

export function parseDocument(source, options = {}) {
  const { counter } = parseOptions(options)
  const parser = new Parser(counter)
  const composer = new Composer(options)
  let doc = null
  for (const d of composer.compose(
    parser.parse(source),
    true
  )) {
    doc = d
  }
  return doc
}

export class Parser {
  constructor(counter) {
    this.counter = counter
  }

  *parse(source) {
    for (const line of source.split('\\n')) {
      yield this.lex(line)
    }
  }

  lex(line) {
    return line.trim()
  }
}

export class Composer {
  constructor(options) {
    this.options = options
  }

  *compose(tokens, atEnd) {
    for (const t of tokens) {
      yield this.next(t)
    }
  }

  next(t) {
    return { t }
  }
}
"""
    p = load(_write(tmp_path / "yml", {"package.json": '{"name": "yml", "main": "index.js"}\n', "index.js": src}))
    a = next(x for x in p.symbols() if x.dotted == "parseDocument")
    b = next(x for x in p.symbols() if x.dotted == "Composer.compose")
    at = next(k for k, ln in enumerate(p.lines_of("index.js"), 1) if "composer.compose(" in ln)
    prep = prepared(p, a, b, at, [a, b])
    assert prep is not None and (prep[0].dotted, prep[1]) == ("Parser.parse", at + 1)


_CSV = """class Sheet
  def self.foreach(path, &block)
    open(path) do |sheet|
      sheet.each(&block)
    end
  end

  def self.open(path)
    sheet = new(File.read(path))
    yield sheet
  ensure
    sheet.close
  end

  def initialize(data)
    @data = data
  end

  def each(&block)
    rows.each(&block)
  end

  def rows
    @rows ||= reader.parse
  end

  def reader
    @reader ||= Reader.new(@data)
  end

  def close
    @data = nil
  end
end

class Reader
  def initialize(data)
    @data = data
  end

  def parse
    begin
      split_lines(@data)
    rescue ArgumentError => error
      message = "bad data: #{error.message}"
      raise BadData.new(message)
    end
  end

  def split_lines(data)
    data.split("\\n").map { |line| line.split(",") }
  end
end

class BadData < StandardError
  def initialize(message)
    super(message)
  end
end
"""


def test_a_ruby_blocks_parameter_is_what_the_method_yields_and_a_bare_chain_hands_to_its_last_link(tmp_path):
    # ruby/csv: `open(path) do |csv| csv.each(&block) end`, with `open` yielding `csv = new(…)`; `parser.parse`
    # hands to `parse`, not to the `parser` it is called on; a `rescue` clause's `raise X.new(…)` is a side road
    from orchestrator.authoring.facts import all_calls, side_calls
    from orchestrator.authoring.handoff import handed_to

    p = load(_write(tmp_path / "sheet", {"lib/sheet.rb": _CSV, "sheet.gemspec": "Gem::Specification.new do |s|\n  s.name = 'sheet'\nend\n"}))

    def sym(d):
        return next(x for x in p.symbols() if x.dotted == d)

    assert "Sheet.each" in [c.dotted for c in all_calls(p, sym("Sheet.foreach"))]
    parse = sym("Reader.parse")
    assert handed_to(p, sym("Sheet.rows")) == (parse.rel, parse.d.start_line)
    error = sym("BadData.initialize")
    assert (error.rel, error.d.start_line) in side_calls(p, parse)
    assert handed_to(p, parse) == (sym("Reader.split_lines").rel, sym("Reader.split_lines").d.start_line)


def test_a_go_example_runs_the_value_a_chain_under_an_import_alias_built(tmp_path):
    # squirrel: `import sq ".../squirrel"`, `users := sq.Select("*").From("users")`, `active := users.Where(…)`,
    # `sql, args, err := active.ToSql()`; `SelectBuilder` is a type defined on another (`type SelectBuilder Builder`)
    src = """package squirrel

type Builder struct {
	parts []string
}

type SelectBuilder Builder

// Select starts a query.
func Select(columns ...string) SelectBuilder {
	return SelectBuilder{parts: columns}
}

// From sets the table.
func (b SelectBuilder) From(from string) SelectBuilder {
	b.parts = append(b.parts, from)
	return b
}

// Where adds a condition.
func (b SelectBuilder) Where(pred string) SelectBuilder {
	b.parts = append(b.parts, addPart(pred))
	return b
}

func addPart(pred string) string {
	clean := normalize(pred)
	clean = normalize(clean)
	return clean
}

func normalize(pred string) string {
	out := validate(pred)
	out = validate(out)
	return out
}

func validate(pred string) string {
	if pred == "" {
		return "TRUE"
	}
	return pred
}

// ToSql builds the query.
func (b SelectBuilder) ToSql() (string, []interface{}, error) {
	return render(b.parts), nil, nil
}

func render(parts []string) string {
	out := ""
	for _, p := range parts {
		out += join(p)
	}
	return out
}

func join(p string) string {
	return p + " "
}
"""
    readme = ('# squirrel\n\n```go\nimport sq "github.com/example/squirrel"\n\nusers := sq.Select("*").From("users")\n\n'
              'active := users.Where("deleted_at IS NULL")\n\nsql, args, err := active.ToSql()\n```\n')
    p = load(_write(tmp_path / "squirrel", {"go.mod": "module github.com/example/squirrel\n\ngo 1.21\n", "select.go": src, "README.md": readme}))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["SelectBuilder.ToSql", "render"], path


def test_a_rust_crate_function_runs_the_client_its_own_use_brings_in_through_a_fallible_chain(tmp_path):
    # reqwest: `reqwest::get(url)` is lib.rs' `get`, `Client::builder().build()?.get(url).send()`, with a `Client` in
    # `async_impl` (the first `pub use`) and one in `blocking`; an error's constructor (`fn bad_url(…) -> Error`) is
    # no step, and `build`, long as it is, does not outweigh `send`, the chain's last link on its line
    lib = ("mod async_impl;\npub mod blocking;\nmod error;\n\npub use self::async_impl::{Client, ClientBuilder, RequestBuilder};\n"
           "pub use self::error::Error;\n\n/// Sends a GET request.\npub async fn get(url: &str) -> Result<String, Error> {\n"
           "    Client::builder().build()?.get(url).send().await\n}\n")
    build_body = "".join(f"        let t{k} = self.tls + {k};\n" for k in range(120)) + "".join(f"        let u{k} = step{k}(t{k});\n" for k in range(12))
    client = ("use crate::error::{bad_url, Error};\n\npub struct ClientBuilder {\n    tls: u32,\n}\n\npub struct Client {\n    tls: u32,\n}\n\n"
              "pub struct RequestBuilder {\n    url: String,\n    client: Client,\n}\n\nimpl ClientBuilder {\n"
              "    pub fn build(self) -> Result<Client, Error> {\n" + build_body + "        Ok(Client { tls: connector(self.tls) })\n    }\n}\n\n"
              "fn connector(tls: u32) -> u32 {\n    handshake(tls)\n}\n\nfn handshake(tls: u32) -> u32 {\n    tls + 1\n}\n\n"
              + "".join(f"fn step{k}(x: u32) -> u32 {{\n    x + {k}\n}}\n\n" for k in range(12)) +
              "impl Client {\n    pub fn builder() -> ClientBuilder {\n        ClientBuilder { tls: 0 }\n    }\n\n"
              "    pub fn get(self, url: &str) -> RequestBuilder {\n        RequestBuilder { url: url.to_string(), client: self }\n    }\n\n"
              "    fn execute_request(&self, url: &str) -> Result<String, Error> {\n        if url.is_empty() {\n"
              "            return Err(bad_url(url));\n        }\n        let req = encode(url);\n        Ok(req)\n    }\n}\n\n"
              "fn encode(url: &str) -> String {\n    let mut s = String::new();\n    s.push_str(url);\n    s.push_str(\" HTTP/1.1\");\n    s\n}\n\n"
              "impl RequestBuilder {\n    pub async fn send(self) -> Result<String, Error> {\n        self.client.execute_request(&self.url)\n    }\n}\n")
    blocking = ("pub struct Client {\n    inner: u32,\n}\n\nimpl Client {\n    pub fn builder() -> u32 {\n        0\n    }\n\n"
                "    pub fn get(&self, url: &str) -> String {\n        url.to_string()\n    }\n}\n")
    error = "pub struct Error {\n    msg: String,\n}\n\npub(crate) fn bad_url(url: &str) -> Error {\n    Error { msg: url.to_string() }\n}\n"
    readme = '# req\n\n```rust\nlet body = req::get("https://example.com").await?;\n```\n'
    p = load(_write(tmp_path / "req", {"Cargo.toml": '[package]\nname = "req"\nversion = "0.1.0"\n', "src/lib.rs": lib,
                                       "src/async_impl/mod.rs": "mod client;\npub use self::client::{Client, ClientBuilder, RequestBuilder};\n",
                                       "src/async_impl/client.rs": client, "src/blocking/mod.rs": "mod client;\npub use self::client::Client;\n",
                                       "src/blocking/client.rs": blocking, "src/error.rs": error, "README.md": readme}))
    path = _path(p)
    assert path[path.index("|") + 1:] == ["get", "RequestBuilder.send", "Client.execute_request", "encode"], path
    from orchestrator.authoring.sideroads import side_road

    assert side_road(next(x for x in p.symbols() if x.dotted == "bad_url"))
    assert not side_road(next(x for x in p.symbols() if x.dotted == "encode"))


def test_a_cache_gives_back_what_it_stores_and_an_option_a_caller_may_give_is_a_side_road(tmp_path):
    # parso: `load_grammar` returns `_loaded.setdefault(path, grammar)` with `grammar = PythonGrammar(…)`, so
    # `grammar.parse(code)` is `Grammar.parse`; there `if cache or diff_cache:` saves the tree only when asked
    from orchestrator.authoring.facts import all_calls, side_calls

    p = load(_write(tmp_path / "pso", {"pso/__init__.py": "from pso.grammar import load_grammar\n\n\n"
                                       "def parse(code):\n    grammar = load_grammar()\n    return grammar.parse(code)\n",
                                       "pso/grammar.py": (
        "_loaded = {}\n\n\nclass Grammar:\n    def parse(self, code, cache=False, diff_cache=False):\n"
        "        tree = self.tokenize(code)\n        if cache or diff_cache:\n            save(tree)\n        return tree\n\n"
        "    def tokenize(self, code):\n        return code.split()\n\n\nclass PythonGrammar(Grammar):\n    pass\n\n\n"
        "def save(tree):\n    return tree\n\n\ndef load_grammar(path='g.txt'):\n    try:\n        return _loaded[path]\n"
        "    except KeyError:\n        grammar = PythonGrammar()\n        return _loaded.setdefault(path, grammar)\n")}))
    parse = next(x for x in p.symbols() if x.dotted == "parse")
    assert "Grammar.parse" in [c.dotted for c in all_calls(p, parse)]
    gp = next(x for x in p.symbols() if x.dotted == "Grammar.parse")
    save = next(x for x in p.symbols() if x.dotted == "save")
    assert (save.rel, save.d.start_line) in side_calls(p, gp)
