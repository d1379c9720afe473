"""Where chapter 1's main path starts when the example makes its values (issue 35, session 22): a Rust crate's
doc fence opened by `#![cfg_attr(…, doc = "```")]`; Ruby's `alias from_cents new` names the constructor; a
one-link call on a fresh value in a showcase is no builder's chain; an object made in place from the
example's values (`HtmlGenerator(src, tree, flavour).generateHtml()`) is run by the example, set up by what
made those values; a Go example's `html.NewRenderer(opts)` is typed through its package. Each on a small
source, failing without its rule."""

from __future__ import annotations

from conftest import write_files as _write

from orchestrator.authoring.call_form import call_form
from orchestrator.authoring.doc_examples import _rust_fences
from orchestrator.authoring.example_setup import setup_path
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load


def _path(p: Project) -> list[str]:
    entries = entry_points(p)
    path = central_path(p, entries)
    return [s.dotted for s in setup_path(p, entries, path) + path]


def test_a_doc_fence_opened_by_a_cfg_attr_is_read_and_its_not_twin_is_not():
    lines = ["//! Use an engine.", "//!", '#![cfg_attr(feature = "alloc", doc = "```")]',
             '#![cfg_attr(not(feature = "alloc"), doc = "```ignore")]', "//! use b64::prelude::*;", "//!",
             '//! assert_eq!(STANDARD.encode(b"x"), "eA==");', "//! ```", "//!", "//! [link]: https://example.com"]
    assert _rust_fences(lines) == [(3, 8, 'use b64::prelude::*;\n\nassert_eq!(STANDARD.encode(b"x"), "eA==");')]


MONEY = {
    "README.md": """# money

```ruby
money = Money.from_cents(1000, "USD")
money.cents     #=> 1000

Money.from_cents(1000, "USD") == Money.from_cents(1000, "USD")   #=> true
Money.from_amount(5, "USD") == Money.from_cents(500, "USD")

Money.from_cents(1000, "USD").with_currency("EUR") == Money.from_cents(1000, "EUR")
```
""",
    "lib/money.rb": """class Money
  class << self
    alias from_cents new

    def from_amount(amount, currency)
      new(amount * 100, currency)
    end
  end

  def initialize(obj, currency = nil)
    @fractional = obj
    @currency = Currency.wrap(currency)
  end

  def with_currency(new_currency)
    self.class.new(@fractional, Currency.wrap(new_currency))
  end
end

class Currency
  def self.wrap(object)
    object.is_a?(Currency) ? object : new(object)
  end

  def initialize(id)
    @id = id
    initialize_data!
  end

  def initialize_data!
    data = self.class.table[@id]
    @name = data[:name]
    @symbol = data[:symbol]
    @priority = data[:priority]
  end

  def self.table
    @table ||= {}
  end
end
""",
}


def test_rubys_alias_of_new_names_the_constructor_and_a_showcase_line_is_no_builders_chain(tmp_path):
    p = load(_write(tmp_path / "money", MONEY))
    assert [s.d.aliases for s in p.find("from_cents")] == [["from_cents"]]
    assert _path(p)[0] == "Money.initialize", _path(p)


def test_an_object_made_in_place_from_the_examples_values_is_written_apart():
    kt = "val tree = MarkdownParser(flavour).buildTree(src)\nval html = HtmlGenerator(src, tree).generateHtml()"
    assert call_form(kt, "kotlin") == ("_made1 = MarkdownParser(flavour)\nval tree = _made1.buildTree(src)\n"
                                       "_made2 = HtmlGenerator(src, tree)\nval html = _made2.generateHtml()")
    # a builder's chain, or a value made from no value of the example, stays as written
    for code in ['let app = Router::new().route("/", get(handler));', "new CommandLine(new Example()).execute(args);"]:
        assert call_form(code, "rust") == code


JBMD = {
    "README.md": """# markdown

```kotlin
val src = "Some *Markdown*"
val flavour = CommonMarkFlavourDescriptor()
val parsedTree = MarkdownParser(flavour).buildMarkdownTreeFromString(src)
val html = HtmlGenerator(src, parsedTree, flavour).generateHtml()
```
""",
    "src/main/kotlin/md/MarkdownParser.kt": """package md

class MarkdownParser(private val flavour: CommonMarkFlavourDescriptor) {
    fun buildMarkdownTreeFromString(text: String): ASTNode {
        return parse(text)
    }

    fun parse(text: String): ASTNode {
        val builder = TreeBuilder(flavour)
        val events = builder.tokens(text)
        return builder.buildTree(events)
    }
}

class TreeBuilder(private val flavour: CommonMarkFlavourDescriptor) {
    fun tokens(text: String): List<String> {
        return text.split(" ").filter { it.isNotEmpty() }.map { it.trim() }
    }

    fun buildTree(events: List<String>): ASTNode {
        val root = ASTNode("root")
        for (e in events) {
            root.add(ASTNode(e))
        }
        return root
    }
}

class CommonMarkFlavourDescriptor {
    val name = "commonmark"
}
""",
    "src/main/kotlin/md/HtmlGenerator.kt": """package md

class HtmlGenerator(private val text: String, private val root: ASTNode, private val flavour: CommonMarkFlavourDescriptor) {
    private val out = StringBuilder()

    fun generateHtml(): String {
        HtmlGeneratingVisitor().visitNode(root)
        return out.toString()
    }

    inner class HtmlGeneratingVisitor {
        fun visitNode(node: ASTNode) {
            out.append("<").append(node.type).append(">")
            node.acceptChildren(this)
            out.append("</").append(node.type).append(">")
        }
    }
}

class ASTNode(val type: String) {
    val children = mutableListOf<ASTNode>()

    fun add(child: ASTNode) {
        children.add(child)
    }

    fun acceptChildren(visitor: HtmlGenerator.HtmlGeneratingVisitor) {
        for (child in children) {
            visitor.visitNode(child)
        }
    }
}
""",
}


def test_the_example_runs_the_object_it_made_in_place_set_up_by_what_made_its_values(tmp_path):
    p = load(_write(tmp_path / "jbmd", JBMD))
    path = _path(p)
    # the parse that made `parsedTree` is the set-up, the generator's run the path, into its inner visitor
    assert path[:2] == ["MarkdownParser.buildMarkdownTreeFromString", "MarkdownParser.parse"], path
    run = path.index("HtmlGenerator.generateHtml")
    assert path[run + 1] == "HtmlGenerator.HtmlGeneratingVisitor.visitNode", path


GOMD = {
    "README.md": """# markdown

```go
package main

import (
\t"github.com/tiny/markdown"
\t"github.com/tiny/markdown/html"
\t"github.com/tiny/markdown/parser"
)

func mdToHTML(md []byte) []byte {
\tp := parser.New()
\tdoc := p.Parse(md)

\topts := html.RendererOptions{Flags: html.CommonFlags}
\trenderer := html.NewRenderer(opts)

\treturn markdown.Render(doc, renderer)
}

func main() {
\thtml := mdToHTML([]byte("# hi"))
\tprintln(string(html))
}
```
""",
    "go.mod": "module github.com/tiny/markdown\n",
    "markdown.go": """package markdown

import (
\t"bytes"

\t"github.com/tiny/markdown/ast"
)

type Renderer interface {
\tRenderNode(w *bytes.Buffer, node ast.Node) int
}

func Render(doc ast.Node, renderer Renderer) []byte {
\tvar buf bytes.Buffer
\tast.Walk(doc, func(node ast.Node) {
\t\trenderer.RenderNode(&buf, node)
\t})
\treturn buf.Bytes()
}
""",
    "ast/node.go": """package ast

type Node interface {
\tChildren() []Node
}

func Walk(n Node, visit func(Node)) {
\tvisit(n)
\tfor _, c := range n.Children() {
\t\tWalk(c, visit)
\t}
}
""",
    "parser/parser.go": """package parser

import "github.com/tiny/markdown/ast"

type Parser struct {
\tdoc ast.Node
}

func New() *Parser {
\treturn &Parser{}
}

func (p *Parser) Parse(input []byte) ast.Node {
\tp.block(input)
\treturn p.doc
}

func (p *Parser) block(data []byte) {
\tfor len(data) > 0 {
\t\tn := p.paragraph(data)
\t\tdata = data[n:]
\t}
}

func (p *Parser) paragraph(data []byte) int {
\ti := 0
\tfor i < len(data) && data[i] != '\\n' {
\t\ti++
\t}
\treturn i + 1
}
""",
    "html/renderer.go": """package html

type Flags int

const CommonFlags Flags = 1

type RendererOptions struct {
\tFlags Flags
}

type Renderer struct {
\topts RendererOptions
}

func NewRenderer(opts RendererOptions) *Renderer {
\treturn &Renderer{opts: opts}
}
""",
}


def test_a_go_example_hands_what_it_parsed_and_the_renderer_it_made_to_the_projects_render(tmp_path):
    p = load(_write(tmp_path / "gomd", GOMD))
    path = _path(p)
    # `markdown.Render(doc, renderer)` runs; `doc := p.Parse(md)` made what it renders (no longer only the renderer)
    assert path[0] == "Parser.Parse" and "Render" in path, path


B64 = {
    "README.md": "# b64\n\n```rust\nuse b64::{Engine as _, STANDARD};\n\nlet s = STANDARD.encode(b\"hello\");\n```\n",
    "Cargo.toml": '[package]\nname = "b64"\n',
    "src/lib.rs": "pub mod encode;\npub mod engine;\n#[cfg(test)]\nmod write;\npub use engine::{Engine, STANDARD};\n",
    "src/engine.rs": """use crate::encode::encode_with_padding;

pub trait Engine {
    fn internal_encode(&self, input: &[u8], output: &mut [u8]) -> usize;

    fn encode<T: AsRef<[u8]>>(&self, input: T) -> String {
        fn inner<E>(engine: &E, input_bytes: &[u8]) -> String
        where
            E: Engine + ?Sized,
        {
            let mut buf = vec![0; input_bytes.len() * 2];
            encode_with_padding(input_bytes, &mut buf[..], engine);
            String::from_utf8(buf).expect("Invalid UTF8")
        }

        inner(self, input.as_ref())
    }
}

pub struct GeneralPurpose;

pub const STANDARD: GeneralPurpose = GeneralPurpose;

impl Engine for GeneralPurpose {
    fn internal_encode(&self, input: &[u8], output: &mut [u8]) -> usize {
        let mut n = 0;
        for (i, b) in input.iter().enumerate() {
            output[i] = *b;
            n += 1;
        }
        n
    }
}
""",
    "src/encode.rs": """use crate::engine::Engine;

pub(crate) fn encode_with_padding<E: Engine + ?Sized>(input: &[u8], output: &mut [u8], engine: &E) {
    let written = engine.internal_encode(input, output);
    let padding = add_padding(written, &mut output[written..]);
    debug_assert!(padding < 3);
}

pub(crate) fn add_padding(unpadded: usize, output: &mut [u8]) -> usize {
    let pad = (4 - unpadded % 4) % 4;
    for byte in output[..pad].iter_mut() {
        *byte = b'=';
    }
    pad
}
""",
    "src/write/mod.rs": "mod encoder_tests;\n",
    "src/write/encoder_tests.rs": """#[test]
fn encode_with_padding() {
    let mut out = Vec::new();
    out.push(1);
    assert_eq!(out.len(), 1);
}
""",
}


def test_a_rust_method_runs_the_function_it_declares_in_its_body_and_a_tests_rs_is_a_test(tmp_path):
    p = load(_write(tmp_path / "b64", B64))
    assert not [s for s in p.symbols() if s.rel.endswith("encoder_tests.rs")]
    # `Engine::encode` calls its own `fn inner`, bound by `where E: Engine`, which hands on to `encode_with_padding`
    assert _path(p)[:3] == ["Engine.encode", "Engine.encode.inner", "encode_with_padding"], _path(p)


HBS = {
    "README.md": "# hbs\n\n```javascript\nvar source = '<p>{{name}}</p>';\nvar template = Handlebars.compile(source);\n"
                 "var result = template({ name: 'Alan' });\n```\n",
    "package.json": '{"name": "hbs", "main": "lib/index.js"}\n',
    "types/index.d.ts": "export const compile: typeof Handlebars.compile;\nexport const template: typeof Handlebars.template;\n",
    "lib/compiler.js": """export function Compiler() {}

Compiler.prototype = {
  compile: function (program, options) {
    this.options = options;
    return this.accept(program);
  },

  accept: function (node) {
    this.opcodes = [];
    this.opcodes.push(node);
    return this;
  }
};

export function compile(input, options) {
  function compileInput() {
    let ast = parse(input);
    return new Compiler().compile(ast, options);
  }
  return function (context) {
    const compiled = compileInput();
    return compiled.accept(context);
  };
}

function parse(input) {
  const out = [];
  for (const ch of input) {
    out.push(ch);
  }
  return out;
}
""",
    "lib/runtime.js": """export function template(spec, env) {
  function ret(context) {
    return setup(context, spec);
  }
  return ret;
}

function setup(context, spec) {
  const merged = Object.assign({}, context);
  merged.spec = spec;
  return helpers(merged);
}

function helpers(merged) {
  merged.helpers = [];
  merged.helpers.push(1);
  return merged;
}
""",
}


def test_a_prototype_objects_members_are_methods_and_a_d_ts_constant_is_its_function(tmp_path):
    from orchestrator.authoring.overview import _implemented

    p = load(_write(tmp_path / "hbs", HBS))
    assert [s.kind for s in p.find("Compiler.compile")] == ["method"]
    assert [s.dotted for s in p.find("Compiler.accept")] == ["Compiler.accept"]
    declared = next(s for s in p.find("compile") if s.rel.endswith(".d.ts"))
    assert _implemented(p, declared).rel == "lib/compiler.js"


def test_no_walk_through_a_body_longer_than_a_sentence_can_be_checked_against():
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import Sym
    from orchestrator.authoring.write import _steps_block
    from orchestrator.repo.parse import Definition

    body = "function compile(env) {\n" + "".join(f"  this.x{k} = env.a{k};\n" for k in range(130)) + "  this.preamble();\n}\n"
    d = Definition(kind="function", name="compile", qualified_name="compile", signature="function compile(env) {",
                   doc="", start_line=1, end_line=body.count("\n"), exported=True, aliases=[])
    assert _steps_block(body, Sym("a.js", d, 1.0, "javascript"), phrases("en")) == []
