"""Where chapter 1's main path starts and how it goes on (issue 35, session 26, set 21): a Go interface the project's own
constructor builds; the calls that made what the run is given; a Python class's `__init__` as the set-up; an example
that names the project only in strings or through another package's import is none. Each on a small source, failing
without its rule."""

from __future__ import annotations

from conftest import symbol as _sym, traced as _path, write_files as _write

from orchestrator.authoring.handoff import next_steps
from orchestrator.authoring.overview import entry_points, example_of
from orchestrator.authoring.project import load

_CONVERT = """package mark

import "io"

var defaultMarkdown = New()

// Convert renders Markdown source to w.
func Convert(source []byte, w io.Writer) error {
	return defaultMarkdown.Convert(source, w)
}

// Markdown converts Markdown text.
type Markdown interface {
	Convert(source []byte, w io.Writer) error
	Renderer() string
}

type markdown struct {
	name string
	size int
}

// New returns a new Markdown.
func New() Markdown {
	md := &markdown{name: "md"}
	md.size = 4
	return md
}

func (m *markdown) Convert(source []byte, w io.Writer) error {
	doc := parseBlocks(source)
	return renderNodes(w, doc)
}

func (m *markdown) Renderer() string {
	return m.name
}
"""


def test_a_go_interface_runs_the_type_the_projects_own_constructor_of_it_builds(tmp_path):
    # goldmark: `Convert` calls `defaultMarkdown.Convert`, a `Markdown` made by `New()`, which builds a `markdown`
    files = {"go.mod": "module example.com/mark\n\ngo 1.21\n", "markdown.go": _CONVERT,
             "README.md": "# mark\n\n```go\nvar buf bytes.Buffer\nif err := mark.Convert(source, &buf); err != nil {\n  panic(err)\n}\n```\n",
             "blocks.go": "package mark\n\nfunc parseBlocks(source []byte) []string {\n\tout := []string{}\n"
                          + "".join(f"\tout = append(out, string(source[{k}:]))\n" for k in range(8)) + "\treturn out\n}\n\n"
                          "func renderNodes(w interface{}, doc []string) error {\n\treturn nil\n}\n"}
    p = load(_write(tmp_path / "mark", files))
    assert "markdown.Convert" in [c.dotted for c in next_steps(p, _sym(p, "Markdown.Convert"))]
    # the constructor returns the type only on an error, and another package's value at its end: no way to tell
    other = dict(files, **{"markdown.go": _CONVERT.replace(
        "\tmd := &markdown{name: \"md\"}\n\tmd.size = 4\n\treturn md\n",
        "\tif bad {\n\t\treturn markdown{}\n\t}\n\treturn foreign.Make()\n")})
    q = load(_write(tmp_path / "other", other))
    assert "markdown.Convert" not in [c.dotted for c in next_steps(q, _sym(q, "Markdown.Convert"))]


def test_the_call_that_made_what_the_run_is_given_is_its_set_up(tmp_path):
    # expr: `program, err := calc.Compile(code)` then `calc.Run(program, env)`: Compile is the set-up
    p = load(_write(tmp_path / "calc", {
        "go.mod": "module example.com/calc\n\ngo 1.21\n",
        "README.md": "# calc\n\n```go\nfunc main() {\n\tprogram, err := calc.Compile(`1 + 2`)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n"
                     "\toutput, err := calc.Run(program, env)\n\tfmt.Println(output)\n}\n```\n",
        "calc.go": """package calc

// Compile parses and checks code.
func Compile(code string) (*Program, error) {
	tree := parse(code)
	check(tree)
	return emit(tree), nil
}

// Run runs a program.
func Run(p *Program, env map[string]int) (int, error) {
	return execute(p, env), nil
}

type Program struct{ ops []int }

func parse(code string) []string {
	out := []string{}
	for _, c := range code {
		out = append(out, string(c))
	}
	return lex(out)
}

func lex(parts []string) []string {
	return parts
}

func check(tree []string) {
	for range tree {
	}
}

func emit(tree []string) *Program {
	return &Program{ops: make([]int, len(tree))}
}

func execute(p *Program, env map[string]int) int {
	total := 0
	for _, op := range p.ops {
		total += op
	}
	return step(total)
}

func step(n int) int {
	return n + 1
}
""",
    }))
    traced = _path(p)
    assert traced[traced.index("|") + 1] == "Run"
    assert traced[0] == "Compile"


def test_a_value_taken_from_another_was_built_by_that_ones_call(tmp_path):
    # yaml-rust: `let docs = YamlLoader::load_from_str(s)…; let doc = &docs[0]; emitter.dump(doc)`
    from orchestrator.authoring.example_calls import built_by

    p = load(_write(tmp_path / "yl", {"Cargo.toml": "[package]\nname = \"yl\"\n", "src/lib.rs": "pub struct YamlLoader;\n"}))
    code = "let docs = YamlLoader::load_from_str(s).unwrap();\nlet doc = &docs[0];\nemitter.dump(doc).unwrap();\n"
    assert built_by(p, code, "doc", "rust") == "YamlLoader::load_from_str"
    assert built_by(p, "let doc = doc;\n", "doc", "rust") == ""


def test_a_python_class_the_example_calls_sets_up_through_its_init(tmp_path):
    # lark: `l = Lark(grammar)` then `print(l.parse(text))`: Lark.__init__ is the set-up
    body = "".join(f"        self.rules.append(compile_rule(grammar, {k}))\n" for k in range(6))
    p = load(_write(tmp_path / "lk", {
        "README.md": "# lk\n\n```python\nfrom lk import Lark\n\nl = Lark('start: WORD')\n\nprint( l.parse(\"Hello\") )\n```\n",
        "lk/__init__.py": "from .lark import Lark\n",
        "lk/lark.py": f'''"""The parser's front door."""
from .grammar import compile_rule, load_grammar


class Lark:
    """A parser built from a grammar."""

    def __init__(self, grammar):
        self.rules = []
        self.grammar = load_grammar(grammar)
{body}
    def parse(self, text):
        """Parse text."""
        tokens = self.lex(text)
        return self.build(tokens)

    def lex(self, text):
        return text.split()

    def build(self, tokens):
        tree = []
        for t in tokens:
            tree.append(t)
        return tree
''',
        "lk/grammar.py": "def load_grammar(text):\n    rules = text.split(':')\n    rules = [r.strip() for r in rules]\n"
                         "    return resolve(rules)\n\n\ndef resolve(rules):\n    out = {}\n    for r in rules:\n        out[r] = r\n"
                         "    return out\n\n\ndef compile_rule(grammar, k):\n    return (grammar, k)\n",
    }))
    traced = _path(p)
    assert traced[0] == "Lark.__init__" and traced[traced.index("|") + 1] == "Lark.parse"


def test_an_example_naming_the_project_only_in_strings_or_another_packages_import_is_not_the_example(tmp_path):
    # postcss: a config that requires 'postcss-nested', a Gulp recipe binding `postcss` to 'gulp-postcss', then the JS API
    readme = """# pc

```js
const config = {
  plugins: [require('autoprefixer'), require('pc-nested')]
}

module.exports = config
```

```js
gulp.task('css', () => {
  const pc = require('gulp-pc')
  return gulp.src('src/**/*.css').pipe(pc([require('autoprefixer')]))
})
```

```js
const pc = require('pc')

pc([plugin]).process(css, { from: 'a.css' }).then(result => console.log(result.css))
```
"""
    p = load(_write(tmp_path / "pc", {
        "README.md": readme, "package.json": '{"name": "pc", "main": "lib/pc.js"}\n',
        "lib/pc.js": "const Processor = require('./processor')\n\nfunction pc(...plugins) {\n  return new Processor(plugins)\n}\n\n"
                     "module.exports = pc\n",
        "lib/processor.js": "class Processor {\n  constructor(plugins) {\n    this.plugins = plugins\n  }\n\n"
                            "  process(css, opts) {\n    return {css, opts}\n  }\n}\n\nmodule.exports = Processor\n",
    }))
    ex = example_of(p, entry_points(p))
    assert ex is not None and "process(css" in ex.code


def test_an_example_that_only_makes_a_value_runs_the_later_block_that_prints_it(tmp_path):
    # prettytable: `table = PrettyTable()` under "Importing", rows added under another heading, `print(table)` under
    # "Printing": printing runs `__str__`, and the constructor is the set-up
    readme = ("# tab\n\n## Tutorial\n\n### Importing\n\n```python\nfrom tab import Table\ntable = Table()\n```\n\n"
              "### Adding rows\n\nRows are lists.\n\n### Printing\n\n```python\nprint(table)\n```\n")
    rows = "".join(f"            line += self._cell(row, {k})\n" for k in range(4))
    p = load(_write(tmp_path / "tab", {
        "README.md": readme, "tab/__init__.py": "from .table import Table\n",
        "tab/table.py": f'''"""Tables as text."""


class Table:
    """A table of rows."""

    def __init__(self):
        self.rows = []
        self.width = self._measure()

    def _measure(self):
        width = self._validate(len(self.rows))
        width += 1
        width *= 2
        return width

    def _validate(self, n):
        if n < 0:
            raise ValueError(n)
        return n

    def add_row(self, row):
        """Add a row."""
        self.rows.append(row)

    def __str__(self):
        return self.get_string()

    def get_string(self):
        """The table as text."""
        out = []
        for row in self.rows:
            out.append(self._stringify_row(row))
        return "\\n".join(out)

    def _stringify_row(self, row):
        line = ""
        for _ in range(2):
{rows}        return line

    def _cell(self, row, k):
        return str(row[k])
''',
    }))
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.then is not None and ex.then.code == "print(table)"
    traced = _path(p)
    assert traced[0] == "Table.__init__" and traced[traced.index("|") + 1:][:3] == ["Table.__str__", "Table.get_string", "Table._stringify_row"]


def test_a_call_in_a_conditions_test_inside_a_callback_is_no_hand_off(tmp_path):
    # unified: `self.run(tree, file, function (error, tree, file) { … self.stringify(…); if (looksLikeAValue(r)) … })`:
    # the work the callback hands on is `stringify`, not the predicate its `if` tests
    from orchestrator.authoring.handoff import handed_to

    p = load(_write(tmp_path / "uni", {
        "package.json": '{"name": "uni", "main": "index.js"}\n',
        "index.js": """class Processor {
  process(file, done) {
    const self = this
    return done ? executor(done) : new Promise(executor)

    function executor(resolve) {
      const tree = self.parse(file)
      self.run(tree, file, function (error, tree, file) {
        const result = self.stringify(tree, file)
        if (looksLikeAValue(result)) {
          file.value = result
        }
        resolve(file)
      })
    }
  }

  parse(file) {
    return check(file)
  }

  run(tree, file, done) {
    check(tree)
    done(undefined, tree, file)
  }

  stringify(tree, file) {
    check(tree)
    return String(tree)
  }
}

function looksLikeAValue(value) {
  return typeof value === 'string' || isText(value)
}

function isText(value) {
  return Boolean(value && value.length)
}

function check(x) {
  return x
}

module.exports = Processor
""",
    }))
    executor = next(c for c in next_steps(p, _sym(p, "Processor.process")) if c.short == "executor")
    assert handed_to(p, executor) == ("index.js", _sym(p, "Processor.stringify").d.start_line)


def test_a_path_goes_into_the_long_body_not_through_a_short_constructor(tmp_path):
    # goldmark: `Parse` calls `parseBlocks` (long, ranked low), makes a reader with `NewBlockReader` (short, whose
    # `Reset` chain ranks high), and ends handing the tree to each `ASTTransformer` (an interface: no way on)
    long_body = "".join(f"\tif len(src) > {k} {{\n\t\tn += openBlocks(src[{k}:])\n\t}}\n" for k in range(12))
    p = load(_write(tmp_path / "gm", {
        "go.mod": "module example.com/gm\n\ngo 1.21\n",
        "README.md": "# gm\n\n```go\nvar buf bytes.Buffer\nif err := gm.Parse(source, &buf); err != nil {\n  panic(err)\n}\n```\n",
        "parse.go": f"""package gm

// ASTTransformer changes a tree.
type ASTTransformer interface {{
	Transform(n int)
}}

var transformers []ASTTransformer

// Parse parses a document.
func Parse(src []byte, w interface{{}}) error {{
	n := parseBlocks(src)
	r := NewBlockReader(src)
	r.Use()
	for _, at := range transformers {{
		at.Transform(n)
	}}
	return nil
}}

func parseBlocks(src []byte) int {{
	n := 0
{long_body}	return n
}}

func openBlocks(src []byte) int {{
	return closeBlocks(len(src))
}}

func closeBlocks(n int) int {{
	return n - 1
}}

type BlockReader struct{{ pos int }}

// NewBlockReader makes a reader.
func NewBlockReader(src []byte) *BlockReader {{
	r := &BlockReader{{}}
	r.Reset(src)
	return r
}}

func (r *BlockReader) Reset(src []byte) {{
	r.ResetPosition(len(src))
}}

func (r *BlockReader) ResetPosition(n int) {{
	r.pos = n
}}

func (r *BlockReader) Use() {{
	r.pos++
}}
""",
    }))
    traced = _path(p)
    assert traced[traced.index("|") + 1:][:3] == ["Parse", "parseBlocks", "openBlocks"]


def test_a_showcase_of_calls_on_literals_has_no_builders_last_link_as_its_run(tmp_path):
    # colored: one `"text".blue();` per line, and among them `String::from("x").green().bold();`: no builder's chain
    # whose last link runs what it built; the README's first call is where the path starts
    shows = "".join(f'    "line {k}".{m}();\n' for k, m in enumerate(["blue", "red", "blue", "red"]))
    p = load(_write(tmp_path / "paint", {
        "Cargo.toml": "[package]\nname = \"paint\"\n",
        "README.md": f"# paint\n\n```rust\nuse paint::Colorize;\n\nfn main() {{\n{shows}"
                     "    String::from(\"this also works!\").green().bold();\n}\n```\n",
        "src/lib.rs": """pub struct Painted {
    code: u8,
    text: String,
}

pub trait Colorize {
    fn blue(self) -> Painted
    where
        Self: Sized,
    {
        self.color(34)
    }
    fn red(self) -> Painted
    where
        Self: Sized,
    {
        self.color(31)
    }
    fn green(self) -> Painted
    where
        Self: Sized,
    {
        self.color(32)
    }
    fn color(self, code: u8) -> Painted;
}

impl Colorize for String {
    fn color(self, code: u8) -> Painted {
        paint(self, code)
    }
}

impl Painted {
    pub fn bold(self) -> Painted {
        let code = restyle(self.code);
        Painted { code, text: self.text }
    }
}

fn restyle(code: u8) -> u8 {
    let shifted = shift(code);
    shifted + 60
}

fn shift(code: u8) -> u8 {
    let c = code % 100;
    c
}

fn paint(text: String, code: u8) -> Painted {
    let text = escape(text);
    Painted { code, text }
}

fn escape(text: String) -> String {
    text.replace('\\x1b', "")
}
""",
    }))
    traced = _path(p)
    assert traced[traced.index("|") + 1:][:2] == ["Colorize.blue", "Colorize.color"]


def test_what_the_hand_off_is_given_runs_before_it_and_chapter_one_says_so(tmp_path):
    # markdown-it: `render(src)` is `return this.renderer.render(this.parse(src, env), this.options, env)`: the parse
    # runs first, in the hand-off's own arguments
    from orchestrator.authoring.path_steps import prepared

    steps = "".join(f"    tokens.push(src.slice({k}))\n" for k in range(10))
    p = load(_write(tmp_path / "md", {
        "package.json": '{"name": "md", "main": "index.js"}\n',
        "README.md": "# md\n\n```js\nconst MarkdownIt = require('md')\nconst md = new MarkdownIt()\nconst html = md.render('# hi')\n```\n",
        "index.js": f"""const Renderer = require('./renderer')

class MarkdownIt {{
  constructor () {{
    this.renderer = new Renderer()
  }}

  parse (src, env) {{
    const tokens = []
{steps}    return this.normalize(tokens)
  }}

  normalize (tokens) {{
    return tokens.filter(Boolean)
  }}

  render (src, env) {{
    return this.renderer.render(this.parse(src, env), this.options, env)
  }}
}}

module.exports = MarkdownIt
""",
        "renderer.js": "class Renderer {\n  render (tokens, options, env) {\n    let out = ''\n"
                       "    for (const t of tokens) {\n      out += this.renderToken(t)\n    }\n    return out\n  }\n\n"
                       "  renderToken (t) {\n    return escapeHtml(String(t))\n  }\n}\n\n"
                       "function escapeHtml (s) {\n  return s.replace(/</g, '&lt;')\n}\n\nmodule.exports = Renderer\n",
    }))
    render, inner = _sym(p, "MarkdownIt.render"), _sym(p, "Renderer.render")
    prep = prepared(p, render, inner, render.d.start_line + 1, [render, inner])
    assert prep is not None and prep[0].dotted == "MarkdownIt.parse"


def test_a_javascript_prototype_alias_defines_the_classs_methods(tmp_path):
    # acorn: `const pp = Parser.prototype`, `pp.parseTopLevel = function (node) {…}`; the class's `parse()` calls
    # `this.parseTopLevel(node)`, and that one `this.startNode()`, which the class declares itself
    p = load(_write(tmp_path / "ac", {
        "package.json": '{"name": "ac", "main": "src/index.js"}\n',
        "src/state.js": "export class Parser {\n  constructor (input) {\n    this.input = input\n  }\n\n"
                        "  startNode () {\n    return {start: 0}\n  }\n\n  parse () {\n    const node = this.startNode()\n"
                        "    return this.parseTopLevel(node)\n  }\n}\n",
        "src/statement.js": "import {Parser} from './state.js'\n\nconst pp = Parser.prototype\n\n"
                            "pp.parseTopLevel = function (node) {\n  const inner = this.startNode()\n  node.body = [inner]\n"
                            "  return node\n}\n",
    }))
    assert [c.dotted for c in next_steps(p, _sym(p, "Parser.parse"))] == ["Parser.startNode", "pp.parseTopLevel"]
    assert [c.dotted for c in next_steps(p, _sym(p, "pp.parseTopLevel"))] == ["Parser.startNode"]


def test_a_name_a_package_binds_to_an_instances_method_calls_that_method(tmp_path):
    # pyjwt: api_jwt.py ends `_jwt_global_obj = PyJWT()`, `encode = _jwt_global_obj.encode`; __init__ re-exports it,
    # so the README's `jwt.encode(…)` is PyJWT.encode, not PyJWS.encode of api_jws.py
    sign = "".join(f"        out.append(self._part({k}))\n" for k in range(6))
    p = load(_write(tmp_path / "tok", {
        "README.md": "# tok\n\n```python\n>>> import tok\n>>> encoded = tok.encode({'a': 1}, 'secret')\n```\n",
        "tok/__init__.py": "from .api_jws import PyJWS\nfrom .api_jwt import PyJWT, encode\n",
        "tok/api_jws.py": f'''class PyJWS:
    """Signs bytes."""

    def encode(self, payload, key):
        """Sign a payload."""
        out = []
{sign}        return b".".join(out)

    def _part(self, k):
        return str(k).encode()


_jws_global_obj = PyJWS()
encode = _jws_global_obj.encode
''',
        "tok/api_jwt.py": '''import json

from .api_jws import PyJWS


class PyJWT:
    """Signs claims."""

    def __init__(self):
        self._jws = PyJWS()

    def encode(self, payload, key):
        """Encode claims."""
        data = json.dumps(payload).encode()
        return self._jws.encode(data, key)


_jwt_global_obj = PyJWT()
encode = _jwt_global_obj.encode
''',
    }))
    from orchestrator.authoring.bound_names import bound_methods
    from orchestrator.authoring.mainpath import _starts

    assert bound_methods(p)["encode"].dotted == "PyJWT.encode"
    assert all(b == 0.0 for s, b in _starts(p, entry_points(p)) if s.dotted == "PyJWS.encode")


def test_the_readmes_own_import_alias_names_the_projects_functions(tmp_path):
    # squirrel: `import sq "github.com/Masterminds/squirrel"`, then `sq.Select("*")`: the package's `Select`, not the
    # `InsertBuilder.Select` method of the same name
    from orchestrator.authoring.entry import own_aliases

    assert own_aliases('import sq "github.com/Masterminds/squirrel"\nimport numpy as np\nconst x = require("other")\n'
                       'import * as ac from "acorn"\n', {"squirrel", "numpy", "acorn"}) == {"sq", "np", "ac"}
    p = load(_write(tmp_path / "squirrel", {
        "go.mod": "module github.com/Masterminds/squirrel\n\ngo 1.21\n",
        "README.md": '# squirrel\n\n```go\nimport sq "github.com/Masterminds/squirrel"\n\n'
                     'users := sq.Select("*").From("users")\n```\n',
        "statement.go": "package squirrel\n\n// Select starts a SELECT.\nfunc Select(columns ...string) SelectBuilder {\n"
                        "\treturn SelectBuilder{cols: columns}\n}\n",
        "select.go": "package squirrel\n\n// SelectBuilder builds a SELECT.\ntype SelectBuilder struct {\n\tcols []string\n\tfrom string\n}\n\n"
                     "// From sets the table.\nfunc (b SelectBuilder) From(t string) SelectBuilder {\n\tb.from = t\n\treturn b\n}\n",
        "insert.go": "package squirrel\n\n// InsertBuilder builds an INSERT.\ntype InsertBuilder struct {\n\tsel SelectBuilder\n}\n\n"
                     "// Select sets a SELECT to insert from.\nfunc (b InsertBuilder) Select(s SelectBuilder) InsertBuilder {\n"
                     "\tb.sel = s\n\treturn b\n}\n",
    }))
    assert entry_points(p)[0].dotted == "Select"
