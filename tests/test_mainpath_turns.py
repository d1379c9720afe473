"""Where chapter 1's main path turns (issue 35, session 21): an if/else whose every branch makes a call
is no condition; a print helper's own print calls are its work, and a Go `defer` is its clean-up; a
builder's chain gives back what its last link declares; an overload generic in its arity is implemented by
the generic one; a call handed to an interface several types implement is where the work goes. Each on a
small source, failing without its rule."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.example_setup import setup_path
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load
from orchestrator.authoring.sideroads import either_branch


def _path(p: Project) -> list[str]:
    entries = entry_points(p)
    path = central_path(p, entries)
    return [s.dotted for s in setup_path(p, entries, path) + path]


def test_an_if_else_chain_that_ends_in_else_runs_one_of_its_branches():
    go = "x := 1\nif len(a) == 0 {\n\tc.Print(f)\n} else if b {\n\td()\n} else {\n\tc.Printf(f, a...)\n}\ny()"
    assert either_branch(go, "go") == [[range(2, 3), range(4, 5), range(6, 7)]]
    assert either_branch("if a {\n\tb()\n}\nc()", "go") == []  # no else: the branch may not run
    assert either_branch("if a {\n\tb()\n} else if c {\n\td()\n}", "go") == []
    py = "if a:\n    f()\nelif b:\n    g()\nelse:\n    h()\nz()"
    assert either_branch(py, "python") == [[range(1, 2), range(3, 4), range(5, 6)]]
    assert either_branch("if a\n  f\nelse\n  g\nend", "ruby") == [[range(1, 2), range(3, 4)]]


COLOR = {
    "README.md": "# color\n\n```go\n// Print with default helper functions\ncolor.Cyan(\"Prints text in cyan.\")\n```\n",
    "go.mod": "module github.com/tiny/color\n",
    "color.go": """package color

import (
\t"fmt"
\t"strings"
)

type Attribute int

type Color struct {
\tparams []Attribute
}

var Output = os.Stdout

func New(value ...Attribute) *Color {
\tc := &Color{params: make([]Attribute, 0)}
\tc.Add(value...)
\treturn c
}

func (c *Color) Add(value ...Attribute) *Color {
\tc.params = append(c.params, value...)
\treturn c
}

func (c *Color) Set() *Color {
\tfmt.Fprint(Output, c.format())
\treturn c
}

func (c *Color) unset() {
\tUnset()
}

func Unset() {
\tfmt.Fprintf(Output, "%s[%dm", escape, 0)
}

func (c *Color) sequence() string {
\tformat := make([]string, len(c.params))
\tfor i, v := range c.params {
\t\tformat[i] = strconv.Itoa(int(v))
\t}
\treturn strings.Join(format, ";")
}

func (c *Color) format() string {
\treturn fmt.Sprintf("%s[%sm", escape, c.sequence())
}

func (c *Color) Print(a ...interface{}) (n int, err error) {
\tc.Set()
\tdefer c.unset()
\treturn fmt.Fprint(Output, a...)
}

func (c *Color) Printf(format string, a ...interface{}) (n int, err error) {
\tc.Set()
\tdefer c.unset()
\treturn fmt.Fprintf(Output, format, a...)
}

func getCachedColor(p Attribute) *Color {
\tc := New(p)
\treturn c
}

func colorPrint(format string, p Attribute, a ...interface{}) {
\tc := getCachedColor(p)

\tif !strings.HasSuffix(format, "\\n") {
\t\tformat += "\\n"
\t}

\tif len(a) == 0 {
\t\tc.Print(format)
\t} else {
\t\tc.Printf(format, a...)
\t}
}

// Cyan is a convenient helper function to print with cyan foreground.
func Cyan(format string, a ...interface{}) { colorPrint(format, FgCyan, a...) }

// Red is a convenient helper function to print with red foreground.
func Red(format string, a ...interface{}) { colorPrint(format, FgRed, a...) }
""",
}


def test_a_print_helper_prints_in_either_branch_and_its_deferred_reset_is_no_step(tmp_path: Path):
    p = load(_write(tmp_path / "color", COLOR))
    # `colorPrint` prints: its `c.Printf` is its work, not a trace print, and runs whichever branch is taken;
    # `Printf`'s `defer c.unset()` runs last but is the clean-up after `c.Set()`
    assert _path(p)[:6] == ["Cyan", "colorPrint", "Color.Printf", "Color.Set", "Color.format", "Color.sequence"]


YDN = "YamlDotNet/Serialization/"
YAMLDOTNET = {
    "README.md": """# YamlDotNet

```csharp
var deserializer = new DeserializerBuilder()
    .WithNamingConvention(UnderscoredNamingConvention.Instance)  // see height_in_inches in sample yml
    .Build();

var p = deserializer.Deserialize<Person>(yml);
```
""",
    YDN + "IDeserializer.cs": """namespace YamlDotNet.Serialization
{
    public interface IDeserializer
    {
        T Deserialize<T>(string input);
        object? Deserialize(string input);
    }
}
""",
    YDN + "IValueDeserializer.cs": """namespace YamlDotNet.Serialization
{
    public interface IValueDeserializer
    {
        object? DeserializeValue(IParser parser, Type expectedType, SerializerState state, IValueDeserializer nested);
    }
}
""",
    YDN + "DeserializerBuilder.cs": """namespace YamlDotNet.Serialization
{
    public sealed class DeserializerBuilder
    {
        private INamingConvention namingConvention;

        public DeserializerBuilder WithNamingConvention(INamingConvention namingConvention)
        {
            this.namingConvention = namingConvention;
            return this;
        }

        public IDeserializer Build()
        {
            return Deserializer.FromValueDeserializer(BuildValueDeserializer());
        }

        public IValueDeserializer BuildValueDeserializer()
        {
            return new AliasValueDeserializer(new NodeValueDeserializer());
        }
    }
}
""",
    YDN + "Deserializer.cs": """namespace YamlDotNet.Serialization
{
    public sealed class Deserializer : IDeserializer
    {
        private readonly IValueDeserializer valueDeserializer;

        private Deserializer(IValueDeserializer valueDeserializer)
        {
            this.valueDeserializer = valueDeserializer;
        }

        public static Deserializer FromValueDeserializer(IValueDeserializer valueDeserializer)
        {
            return new Deserializer(valueDeserializer);
        }

        public T Deserialize<T>(string input)
        {
            using var reader = new StringReader(input);
            return (T)Deserialize(new Parser(reader), typeof(T))!;
        }

        public object? Deserialize(string input)
        {
            return Deserialize(input, typeof(object));
        }

        public object? Deserialize(IParser parser, Type type)
        {
            var state = new SerializerState();
            var result = valueDeserializer.DeserializeValue(parser, type, state, valueDeserializer);
            state.OnDeserialization();
            return result;
        }
    }
}
""",
    YDN + "SerializerState.cs": """namespace YamlDotNet.Serialization
{
    public sealed class SerializerState
    {
        private readonly List<IPostDeserializationCallback> callbacks = new();

        public void OnDeserialization()
        {
            foreach (var callback in callbacks)
            {
                callback.OnDeserialization();
            }
        }
    }
}
""",
    YDN + "NodeValueDeserializer.cs": """namespace YamlDotNet.Serialization
{
    public sealed class NodeValueDeserializer : IValueDeserializer
    {
        public object? DeserializeValue(IParser parser, Type expectedType, SerializerState state, IValueDeserializer nested)
        {
            parser.Accept<NodeEvent>(out var nodeEvent);
            var nodeType = GetTypeFromEvent(nodeEvent, expectedType);
            var value = Deserialize(parser, nodeType, state, nested);
            return TypeConverter.ChangeType(value, expectedType);
        }

        private object? Deserialize(IParser parser, Type nodeType, SerializerState state, IValueDeserializer nested)
        {
            var scalar = parser.Consume<Scalar>();
            return scalar.Value;
        }

        private Type GetTypeFromEvent(NodeEvent? nodeEvent, Type currentType)
        {
            return currentType;
        }
    }
}
""",
    YDN + "AliasValueDeserializer.cs": """namespace YamlDotNet.Serialization
{
    public sealed class AliasValueDeserializer : IValueDeserializer
    {
        private readonly IValueDeserializer innerDeserializer;

        public AliasValueDeserializer(IValueDeserializer innerDeserializer)
        {
            this.innerDeserializer = innerDeserializer;
        }

        public object? DeserializeValue(IParser parser, Type expectedType, SerializerState state, IValueDeserializer nested)
        {
            if (parser.Accept<AnchorAlias>(out var alias))
            {
                return alias.Value;
            }
            return innerDeserializer.DeserializeValue(parser, expectedType, state, nested);
        }
    }
}
""",
}


def test_a_builders_chain_gives_what_its_last_link_declares_and_work_handed_to_an_interface_goes_there(tmp_path: Path):
    from orchestrator.authoring.example_calls import built_type
    from orchestrator.authoring.subtypes import implementations

    p = load(_write(tmp_path / "yamldotnet", YAMLDOTNET))
    code = YAMLDOTNET["README.md"].split("```csharp\n")[1].split("```")[0]
    # the variable holds what `Build` declares, past a comment inside the chain
    assert built_type(p, code, "deserializer", "csharp") == "IDeserializer"
    # `T Deserialize<T>(string)` is implemented by the generic overload, not by `object? Deserialize(string)`
    generic = next(s for s in p.symbols() if s.dotted == "IDeserializer.Deserialize" and "<T>" in s.d.signature)
    assert [x.d.signature for x in implementations(p, generic)] == ["public T Deserialize<T>(string input)"]
    path = _path(p)
    assert "IDeserializer.Deserialize" in path and "Deserializer.Deserialize" in path
    # the work goes to the value deserializers, whichever the run picks: not to the callbacks run after it
    # (here the builder makes the alias deserializer the outer one: the run starts there, and goes on to the inner one
    # its one construction is given, `new AliasValueDeserializer(new NodeValueDeserializer())`)
    entries = entry_points(p)
    main = central_path(p, entries)
    assert [s.dotted for s in main[3:6]] == ["IValueDeserializer.DeserializeValue", "AliasValueDeserializer.DeserializeValue",
                                            "NodeValueDeserializer.DeserializeValue"], path
    # and the value is set up by the chain's last link, past the comment before it: the builder's `Build`
    assert [s.dotted for s in setup_path(p, entries, main)][:1] == ["DeserializerBuilder.Build"]


I18N = {
    "README.md": """# Ruby I18n

## Usage

Then configure I18n with some translations:

```ruby
gem 'i18n'
```

You can then access this translation by doing:

```ruby
I18n.t(:test)
```
""",
    "lib/i18n.rb": """module I18n
  class InvalidLocale < ArgumentError
    def initialize(locale)
      @locale = locale
      super "#{locale.inspect} is not a valid locale"
    end
  end

  module Base
    def config
      Thread.current[:i18n_config] ||= I18n::Config.new
      Thread.current[:i18n_config]
    end

    def translate(key = nil, throw: false, locale: nil, **options)
      locale ||= config.locale
      enforce_available_locales!(locale)

      backend = config.backend

      if key.is_a?(Array)
        key.map do |k|
          translate_key(k, throw, locale, backend, options)
        end
      else
        translate_key(key, throw, locale, backend, options)
      end
    end
    alias :t :translate

    def enforce_available_locales!(locale)
      if locale != false && config.enforce_available_locales
        raise I18n::InvalidLocale.new(locale) if !config.available_locales.include?(locale)
      end
    end

    private

    def translate_key(key, throw, locale, backend, options)
      result = catch(:exception) do
        backend.translate(locale, key, options)
      end
      result
    end
  end

  extend Base
end
""",
    "lib/i18n/config.rb": """module I18n
  class Config
    def locale
      @locale ||= :en
    end

    def enforce_available_locales
      true
    end

    def available_locales
      [:en]
    end

    def backend
      @@backend ||= Backend::Simple.new
    end
  end
end
""",
    "lib/i18n/backend/base.rb": """module I18n
  module Backend
    module Base
      def translate(locale, key, options = EMPTY_HASH)
        entry = lookup(locale, key, options[:scope], options)
        entry = interpolate(locale, entry, options)
        entry
      end

      def interpolate(locale, subject, values)
        subject % values
      end
    end
  end
end
""",
    "lib/i18n/backend/simple.rb": """module I18n
  module Backend
    class Simple
      module Implementation
        include Base

        def lookup(locale, key, scope = [], options = EMPTY_HASH)
          translations[locale][key]
        end

        def translations
          @translations ||= {}
        end
      end

      include Implementation
    end
  end
end
""",
}


def test_a_ruby_alias_a_guard_a_namespaced_construction_and_a_private_methods_argument(tmp_path: Path):
    p = load(_write(tmp_path / "i18n", I18N))
    # `alias :t :translate`: the README's `I18n.t(:test)` is `translate`, and a Ruby symbol is a literal
    assert [s.dotted for s in p.find("t")] == ["I18n.Base.translate"]
    assert [e.dotted for e in entry_points(p)][:1] == ["I18n.Base.translate"]
    # `enforce_available_locales!` only checks and raises: no step, however far its error reaches;
    # `config` makes the `Config` it names, whose `backend` is a `Backend::Simple`, the value every call
    # of the private `translate_key` passes: its `backend.translate` is the backend's; the mixin's bare `lookup(…)`
    # is the method of the module that includes it (`Simple::Implementation`'s `include Base`)
    assert _path(p)[:4] == ["I18n.Base.translate", "I18n.Base.translate_key", "I18n.Backend.Base.translate",
                            "I18n.Backend.Simple.Implementation.lookup"]


PAPA = {
    "README.md": "# Papa Parse\n\n## Usage\n\n```js\nimport Papa from 'papaparse';\n\nPapa.parse(csvString, config);\n```\n",
    "package.json": '{"name": "papaparse", "main": "papaparse.js"}\n',
    "papaparse.js": """(function(root, factory)
{
\tif (typeof module === 'object' && typeof exports !== 'undefined')
\t{
\t\tmodule.exports = factory();
\t}
\telse
\t{
\t\troot.Papa = factory();
\t}
}(this, function moduleFactory()
{
\t'use strict';

\tvar Papa = {};

\tPapa.parse = CsvToJson;

\tfunction CsvToJson(_input, _config)
\t{
\t\t_config = _config || {};
\t\tvar streamer = new StringStreamer(_config);
\t\treturn streamer.stream(_input);
\t}

\tfunction StringStreamer(config)
\t{
\t\tvar remaining;
\t\tthis._handle = new ParserHandle(config);
\t\tthis.stream = function(s)
\t\t{
\t\t\tremaining = s;
\t\t\treturn this._handle.parse(remaining);
\t\t};
\t}

\tfunction ParserHandle(config)
\t{
\t\tvar results = [];
\t\tthis.parse = function(input)
\t\t{
\t\t\tvar parser = new Parser(config);
\t\t\tresults = parser.parse(input);
\t\t\treturn results;
\t\t};
\t}

\tfunction Parser(config)
\t{
\t\tthis.parse = function(input)
\t\t{
\t\t\tvar rows = input.split('\\\\n');
\t\t\treturn rows.map(function(r) { return r.split(config.delimiter || ','); });
\t\t};
\t}

\treturn Papa;
}));
""",
}


def test_a_umd_modules_declarations_are_its_own_and_an_es5_constructors_this_methods_are_methods(tmp_path: Path):
    p = load(_write(tmp_path / "papaparse", PAPA))
    by = {s.dotted: s for s in p.symbols()}
    # declared in the factory a UMD wrapper runs: the module's own; `Papa.parse = CsvToJson` exports it as `parse`
    assert by["CsvToJson"].d.exported and by["CsvToJson"].d.aliases == ["Papa.parse"]
    assert [s.dotted for s in p.find("Papa.parse")] == ["CsvToJson"]
    # `this.stream = function …` in a constructor function: a method, whose calls are not the constructor's
    assert by["StringStreamer.stream"].kind == "method" and by["ParserHandle.parse"].kind == "method"
    from orchestrator.authoring.facts import all_calls
    from orchestrator.authoring.hops import hops

    assert [c.dotted for c in all_calls(p, by["ParserHandle"])] == []
    assert [h.callee.dotted for h in hops(p, by["ParserHandle"])] == []
    assert [e.dotted for e in entry_points(p)][:1] == ["CsvToJson"]
    # the README's `Papa.parse(…)` runs `CsvToJson`, not the other `parse` methods of the module
    assert _path(p) == ["CsvToJson", "StringStreamer.stream", "ParserHandle.parse", "Parser.parse"]


CM = "commonmark/src/main/java/org/commonmark/"
COMMONMARK = {
    "README.md": """# commonmark-java

## Usage

```java
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;

Parser parser = Parser.builder().build();
Node document = parser.parse("This is *Markdown*");
HtmlRenderer renderer = HtmlRenderer.builder().build();
renderer.render(document);
```
""",
    CM + "node/Node.java": "package org.commonmark.node;\n\npublic class Node {\n    public Node next;\n}\n",
    CM + "parser/PostProcessor.java": "package org.commonmark.parser;\n\npublic interface PostProcessor {\n    Node process(Node node);\n}\n",
    CM + "parser/Parser.java": """package org.commonmark.parser;

public class Parser {
    private final List<PostProcessor> postProcessors;

    public static Builder builder() {
        return new Builder();
    }

    public Node parse(String input) {
        DocumentParser documentParser = new DocumentParser();
        Node document = documentParser.parse(input);
        return postProcess(document);
    }

    private Node postProcess(Node document) {
        for (PostProcessor postProcessor : postProcessors) {
            document = postProcessor.process(document);
        }
        return document;
    }

    public static class Builder {
        public Parser build() {
            return new Parser();
        }
    }
}
""",
    CM + "internal/DocumentParser.java": """package org.commonmark.internal;

public class DocumentParser {
    private final Node document = new Node();

    public Node parse(String input) {
        for (String line : input.split("\\n")) {
            parseLine(line);
        }
        return finalizeAndProcess();
    }

    private void parseLine(String line) {
        String trimmed = line.trim();
        if (trimmed.isEmpty()) {
            return;
        }
        incorporateLine(trimmed);
    }

    private void incorporateLine(String line) {
        Node paragraph = new Node();
        paragraph.next = document.next;
        document.next = paragraph;
    }

    private Node finalizeAndProcess() {
        Node result = document;
        return result;
    }
}
""",
    CM + "renderer/html/HtmlRenderer.java": """package org.commonmark.renderer.html;

public class HtmlRenderer {
    public static Builder builder() {
        return new Builder();
    }

    public String render(Node node) {
        StringBuilder sb = new StringBuilder();
        renderTo(node, sb);
        return sb.toString();
    }

    private void renderTo(Node node, StringBuilder sb) {
        for (Node n = node.next; n != null; n = n.next) {
            sb.append("<p>");
            sb.append("</p>");
        }
    }

    public static class Builder {
        public HtmlRenderer build() {
            return new HtmlRenderer();
        }
    }
}
""",
    "commonmark-ext-autolink/src/main/java/org/commonmark/ext/autolink/AutolinkPostProcessor.java": """package org.commonmark.ext.autolink;

public class AutolinkPostProcessor implements PostProcessor {
    @Override
    public Node process(Node node) {
        Node linked = linkify(node);
        Node checked = check(linked);
        return wrap(checked);
    }

    private Node linkify(Node node) { return scan(node); }
    private Node scan(Node node) { return visit(node); }
    private Node visit(Node node) { return node; }
    private Node check(Node node) { return node; }
    private Node wrap(Node node) { return node; }
}
""",
    "commonmark-ext-task-list-items/src/main/java/org/commonmark/ext/task/TaskListItemPostProcessor.java": """package org.commonmark.ext.task;

public class TaskListItemPostProcessor implements PostProcessor {
    @Override
    public Node process(Node node) {
        return node;
    }
}
""",
}


def test_what_the_run_is_given_is_set_up_by_the_call_that_made_it_and_an_extensions_work_is_no_step(tmp_path: Path):
    p = load(_write(tmp_path / "commonmark-java", COMMONMARK))
    entries = entry_points(p)
    path = central_path(p, entries)
    assert [s.dotted for s in path][:1] == ["HtmlRenderer.render"]
    # `renderer.render(document)` runs what `parser.parse(…)` made: that parse is the set-up told first;
    # `postProcess` runs the post-processors of an extension a user may not add: the parse is the document parser's
    assert [s.dotted for s in setup_path(p, entries, path)][:3] == ["Parser.parse", "DocumentParser.parse", "DocumentParser.parseLine"]


def test_a_rust_bare_call_the_file_brings_in_with_use_crate_resolves(tmp_path: Path):
    from orchestrator.authoring.facts import all_calls

    p = load(_write(tmp_path / "similar", {
        "Cargo.toml": '[package]\nname = "similar"\n',
        "src/lib.rs": "mod common;\nmod text;\npub use self::common::*;\n",
        "src/common.rs": "pub fn capture_diff_deadline(old: &[u8], new: &[u8]) -> Vec<u8> {\n    let mut out = Vec::new();\n    out.extend_from_slice(old);\n    out\n}\n",
        "src/text/mod.rs": """use crate::{
    Algorithm, capture_diff_deadline,
};

pub struct TextDiffConfig {}

impl TextDiffConfig {
    fn capture_ops(&self, old: &[u8], new: &[u8]) -> Vec<u8> {
        let n = old.len();
        capture_diff_deadline(old, new)
    }
}
""",
    }))
    ops = next(s for s in p.symbols() if s.dotted == "TextDiffConfig.capture_ops")
    assert [c.dotted for c in all_calls(p, ops)] == ["capture_diff_deadline"]
