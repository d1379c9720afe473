"""Where chapter 1's main path starts when the README does not say it plainly (issue 35, session 20):
a project whose README shows no use starts from its tests' own use; a crate's doc example under a
`{.rust}` fence is read; a name imported under another (`import { v4 as uuidv4 }`) is its own; a
Kotlin Multiplatform `expect` starts at its JVM `actual`, overloads the arguments cannot tell apart
are the one they all call, a call in a lambda with a receiver is the receiver's; a Rust lifetime
opens no quote in a signature. Each on a small source, failing without its rule."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.example_setup import setup_path
from orchestrator.authoring.mainpath import call_path, central_path
from orchestrator.authoring.overview import entry_points, first_example
from orchestrator.authoring.project import Project, load
from orchestrator.authoring.signature import signature_parts
from orchestrator.authoring.story import overview_sections
from orchestrator.authoring.usage_in_tests import examples_in_tests


def _path(p: Project) -> list[str]:
    entries = entry_points(p)
    path = central_path(p, entries)
    return [s.dotted for s in setup_path(p, entries, path) + path]


YAML_MAIN = "src/main/java/org/tiny/yaml/"
YAML_TEST = "src/test/java/org/tiny/yaml/"
YAML = {
    "README.md": "# tinyyaml\n\n***The art of simplicity.***\n\n```\nBenchmark        (entries)  Mode\nParse.load     1000  avgt\n```\n",
    YAML_MAIN + "Yaml.java": """package org.tiny.yaml;

public class Yaml {
    private final Composer composer = new Composer();

    public Object load(String text) {
        Composer c = new Composer();
        return c.getSingleNode(text);
    }

    public String dump(Object data) {
        return String.valueOf(data);
    }
}
""",
    YAML_MAIN + "Composer.java": """package org.tiny.yaml;

public class Composer {
    public Object getSingleNode(String text) {
        Object node = composeNode(text);
        return node;
    }

    Object composeNode(String text) {
        String trimmed = text.trim();
        String[] parts = trimmed.split(":");
        Object out = parts.length > 1 ? parts[1].trim() : trimmed;
        return out;
    }
}
""",
    YAML_MAIN + "Escaper.java": """package org.tiny.yaml;

public class Escaper {
    public String escape(String s) {
        return s.replace("\\n", "\\\\n");
    }
}
""",
}
for k, name in enumerate(["Load", "Dump", "Nested"]):
    YAML[YAML_TEST + f"{name}Test.java"] = f"""package org.tiny.yaml;

import org.junit.Test;
import static org.junit.Assert.*;

public class {name}Test {{
    @Test
    public void works{k}() {{
        Yaml yaml = new Yaml();
        Object data = yaml.load("a: {k}");
        assertEquals("{k}", data);
    }}

    @Test(expected = IllegalStateException.class)
    public void fails{k}() {{
        Yaml yaml = new Yaml();
        yaml.load(null);
    }}
}}
"""


def test_a_project_whose_readme_shows_no_use_starts_from_its_tests_own_use(tmp_path: Path):
    p = load(_write(tmp_path / "tinyyaml", YAML))
    found = examples_in_tests(p)
    assert found, "no test body read as an example"
    rel, a, b, lang, code = found[0]
    assert rel.startswith(YAML_TEST) and lang == "java"
    assert code.startswith("Yaml yaml = new Yaml();") and "yaml.load(" in code
    assert "expected" not in "".join(p.lines_of(rel)[a - 3:b]), "a test of a failure is no first example"
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.from_tests and ex.rel == rel
    assert [e.short for e in entry_points(p)][:1] == ["Yaml"]  # not the helper a benchmark table's words name
    assert _path(p)[:2] == ["Yaml.load", "Composer.getSingleNode"]
    text = "\n".join(overview_sections({}, p, [], "en"))
    assert "its tests do" in text and f"`{rel}` (lines {a}–{b})" in text


GETOPTS = {
    "Cargo.toml": '[package]\nname = "getopts"\nversion = "0.2.0"\n',
    "README.md": "getopts\n===\n\nA Rust library for option parsing.\n\n```toml\n[dependencies]\ngetopts = \"0.2\"\n```\n",
    "src/lib.rs": """//! Simple getopt alternative.
//!
//! # Example
//!
//! ```{.rust}
//! use getopts::Options;
//!
//! fn print_usage(program: &str, opts: Options) {
//!     let brief = format!("Usage: {} FILE", program);
//!     print!("{}", brief);
//! }
//!
//! fn do_work(inp: &str) {
//!     println!("{}", inp);
//! }
//!
//! fn helper_one() {
//!     println!("one");
//! }
//!
//! fn helper_two() {
//!     println!("two");
//! }
//!
//! fn helper_four() {
//!     println!("four");
//!     println!("four");
//! }
//!
//! fn helper_three() {
//!     println!("three");
//!     println!("three");
//!     println!("three");
//!     println!("three");
//! }
//!
//! fn main() {
//!     let args: Vec<String> = std::env::args().collect();
//!     let mut opts = Options::new();
//!     opts.optflag("h", "help", "print this help menu");
//!     let matches = match opts.parse(&args[1..]) {
//!         Ok(m) => m,
//!         Err(f) => panic!("{}", f),
//!     };
//!     if matches.opt_present("h") {
//!         return;
//!     }
//!     do_work(&args[0]);
//! }
//! ```

pub struct Options {
    grps: Vec<String>,
}

pub struct Matches {
    vals: Vec<String>,
}

impl Options {
    pub fn new() -> Options {
        Options { grps: Vec::new() }
    }

    pub fn optflag(&mut self, short: &str, long: &str, desc: &str) -> &mut Options {
        self.grps.push(short.to_string());
        self
    }

    pub fn parse(&self, args: &[String]) -> Result<Matches, String> {
        let vals = args.iter().map(|a| a.to_string()).collect();
        let found = find_opt(&self.grps, &args[0]);
        if found.is_none() {
            return Err("unknown".to_string());
        }
        Ok(Matches { vals })
    }
}

impl Matches {
    pub fn opt_present(&self, name: &str) -> bool {
        self.vals.iter().any(|v| v == name)
    }
}

fn find_opt(opts: &[String], name: &str) -> Option<usize> {
    let mut at = 0;
    for o in opts {
        if o == name {
            return Some(at);
        }
        at += 1;
    }
    None
}
""",
}


def test_a_crates_doc_example_under_a_braced_fence_is_read_to_its_main(tmp_path: Path):
    p = load(_write(tmp_path / "getopts", GETOPTS))
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.rel == "src/lib.rs" and not ex.from_tests
    assert ex.code.startswith("fn main() {") and "opts.parse(" in ex.code  # the helpers before it left out
    assert "Options.parse" in _path(p)


UUID = {
    "package.json": '{"name": "uuid", "version": "1.0.0", "main": "src/index.js"}\n',
    "README.md": """# uuid

**1. Install**

```shell
npm install uuid
```

**2. Create a UUID**

```javascript
import { v4 as uuidv4 } from 'uuid';

uuidv4(); // ⇨ 'b18794e8-5d0d-417c-b361-ba38e78411b4'
```

## API

```javascript
import { parse as uuidParse } from 'uuid';

uuidParse('6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b');
```
""",
    "src/index.js": "export { default as v4 } from './v4.js';\nexport { default as parse } from './parse.js';\n",
    "src/v4.js": """import rng from './rng.js';
import { unsafeStringify } from './stringify.js';

function v4(options, buf) {
  const rnds = rng();
  rnds[6] = (rnds[6] & 0x0f) | 0x40;
  return unsafeStringify(rnds);
}

export default v4;
""",
    "src/rng.js": "export default function rng() {\n  const out = new Uint8Array(16);\n  return out;\n}\n",
    "src/stringify.js": """export function unsafeStringify(arr) {
  let out = '';
  for (const b of arr) {
    out += b.toString(16);
  }
  return out.toLowerCase();
}
""",
    "src/parse.js": """function parse(uuid) {
  const v = uuid.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = parseInt(v.slice(i * 2, i * 2 + 2), 16);
  }
  return out;
}

export default parse;
""",
}


def test_a_name_imported_under_another_is_the_projects_own(tmp_path: Path):
    p = load(_write(tmp_path / "uuid", UUID))
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and "uuidv4()" in ex.code  # the README's first example, not its later `parse`
    assert "v4(" in ex.as_calls and "uuidv4(" not in ex.as_calls
    assert _path(p)[:1] == ["v4"]


KCSV = "src/commonMain/kotlin/csv/"
KCSV_JVM = "src/jvmMain/kotlin/csv/"
KOTLIN_CSV = {
    "README.md": """# kotlin-csv

```kotlin
val rows: List<List<String>> = csvReader().readAll(csvData)
```
""",
    KCSV + "Dsl.kt": "package csv\n\nfun csvReader(): CsvReader {\n    return CsvReader()\n}\n",
    KCSV + "CsvReader.kt": """package csv

expect class CsvReader() {
    fun readAll(data: String): List<List<String>>
}
""",
    KCSV_JVM + "CsvReader.kt": """package csv

import java.io.File
import java.io.Reader

actual class CsvReader actual constructor() {
    actual fun readAll(data: String): List<List<String>> {
        val br = data.reader()
        return open(br) { readAllAsSequence().toList() }
    }

    fun <T> open(file: File, read: CsvFileReader.() -> T): T {
        val br = file.reader()
        return open(br, read)
    }

    fun <T> open(name: String, read: CsvFileReader.() -> T): T {
        return open(File(name), read)
    }

    private fun <T> open(br: Reader, doRead: CsvFileReader.() -> T): T {
        val reader = CsvFileReader(br)
        return reader.doRead()
    }
}
""",
    KCSV + "CsvFileReader.kt": """package csv

import java.io.Reader

class CsvFileReader(private val reader: Reader) {
    private val parser = CsvParser(',')

    fun readAllAsSequence(): Sequence<List<String>> {
        return generateSequence { readNext() }
    }

    fun readNext(): List<String>? {
        val line = reader.readText()
        val row = parser.parseRow(line)
        return row
    }
}
""",
    KCSV + "CsvParser.kt": """package csv

class CsvParser(private val delimiter: Char) {
    fun parseRow(line: String): List<String>? {
        val fields = line.split(delimiter)
        val trimmed = fields.map { it.trim() }
        val kept = trimmed.filter { it.isNotEmpty() }
        return kept
    }
}
""",
}


def test_kotlin_multiplatform_starts_at_the_actual_and_follows_overloads_lambdas_and_fields(tmp_path: Path):
    p = load(_write(tmp_path / "kotlin-csv", KOTLIN_CSV))
    path = [s for s in central_path(p, entry_points(p))]
    names = [s.dotted for s in path]
    assert "CsvReader.readAll" in names
    assert next(s for s in path if s.dotted == "CsvReader.readAll").rel.startswith(KCSV_JVM)  # where it runs
    # `open(br) { readAllAsSequence() }`: the lambda's receiver is a CsvFileReader; `parser` is a CsvParser
    assert "CsvFileReader.readAllAsSequence" in names or "CsvFileReader.readNext" in names
    assert "CsvParser.parseRow" in names


def test_a_rust_lifetime_opens_no_quote_in_a_signature(tmp_path: Path):
    p = load(_write(tmp_path / "hb", {
        "Cargo.toml": '[package]\nname = "hb"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub struct Template;\npub struct Context;\n\npub fn render(name: Option<&str>, template: "
                      "Cow<'_, Template>, ctx: &Context) -> String {\n    String::new()\n}\n",
    }))
    fn = next(s for s in p.symbols() if s.short == "render")
    params, _ret = signature_parts(fn)
    assert [(x.name, x.type) for x in params] == [("name", "Option<&str>"), ("template", "Cow<'_, Template>"),
                                                   ("ctx", "&Context")]


RODA = {
    "roda.gemspec": 'Gem::Specification.new do |s|\n  s.name = "roda"\nend\n',
    "README.rdoc": """= Roda

A routing tree web toolkit, designed for building fast and maintainable web applications in Ruby.

== Goals

* Simplicity
  which stays simple

== Usage

Here's a simple application, showing how the routing tree works:

  require "roda"

  class App < Roda
    route do |r|
      r.on "hello" do
        r.get "world" do
          "Hello world!"
        end
      end
    end
  end

  run App.freeze.app
""",
    "lib/roda.rb": """class Roda
  def self.route(&block)
    @route_block = block
  end

  def self.app
    @app ||= build_rack_app
  end

  def self.build_rack_app
    lambda { |env| new(env).call(&@route_block) }
  end
end
""",
}


def test_an_rdoc_readme_is_read_with_its_verbatim_blocks_as_code(tmp_path: Path):
    from orchestrator.authoring.entry import rdoc_blocks
    from orchestrator.authoring.purpose import purpose

    root = _write(tmp_path / "roda", RODA)
    text = (root / "README.rdoc").read_text()
    blocks = rdoc_blocks(text)
    assert [b[3].splitlines()[0] for b in blocks] == ['require "roda"']  # not the list item's continued line
    p = load(root)
    said = purpose(p)
    assert said is not None and said[0] == "README.rdoc" and said[2].startswith("A routing tree web toolkit")
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.rel == "README.rdoc" and ex.lang == "ruby" and "route do |r|" in ex.code


CONNECT = {
    "package.json": '{"name": "connect", "version": "3.7.0", "main": "index.js"}\n',
    "README.md": """<div align="center">
<img src="logo.png">
</div>

  Connect is an extensible HTTP server framework.

```js
var connect = require('connect');
var http = require('http');

var app = connect();

app.use(function(req, res){
  res.end('Hello from Connect!\\n');
});

http.createServer(app).listen(3000);
```

## Getting Started

### Mount middleware

```js
app.use('/foo', function fooMiddleware(req, res, next) {
  next();
});
```
""",
    "index.js": """var merge = require('utils-merge');

module.exports = createServer;

var proto = {};

/**
 * Create a new connect server.
 */
function createServer() {
  function app(req, res, next){ app.handle(req, res, next); }
  merge(app, proto);
  app.stack = [];
  return app;
}

proto.use = function use(route, fn) {
  this.stack.push({ route: route, handle: fn });
  return this;
};

proto.handle = function handle(req, res, out) {
  var index = 0;
  var stack = this.stack;
  function next(err) {
    var layer = stack[index++];
    if (!layer) {
      return;
    }
    call(layer.handle, err, req, res, next);
  }
  next();
};

proto.listen = function listen() {
  var server = http.createServer(this);
  return server.listen.apply(server, arguments);
};

function call(handle, err, req, res, next) {
  var arity = handle.length;
  var error = err;
  try {
    handle(req, res, next);
    return;
  } catch (e) {
    error = e;
  }
  next(error);
}
""",
}


def test_nodes_server_runs_the_function_the_project_made_and_a_readmes_opening_block_is_its_example(tmp_path: Path):
    p = load(_write(tmp_path / "connect", CONNECT))
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.first == 8, "the block before any heading is the README's own example"
    # not `proto.listen` (the `.listen` is Node's server's): what Node's server calls is the `app` that
    # `createServer` made and returned; it mixed `proto` in, so `app.handle` is `proto.handle`
    assert _path(p)[:3] == ["createServer", "createServer.app", "proto.handle"]


CORS = {
    "go.mod": "module github.com/rs/cors\n\ngo 1.20\n",
    "README.md": """# Go CORS handler

```go
package main

import (
    "net/http"

    "github.com/rs/cors"
)

func main() {
    mux := http.NewServeMux()
    handler := cors.Default().Handler(mux)
    http.ListenAndServe(":8080", handler)
}
```
""",
    "cors.go": """package cors

import "net/http"

type Cors struct {
	allowedOrigins []string
}

func New() *Cors {
	return &Cors{}
}

func Default() *Cors {
	return New()
}

func (c *Cors) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			c.handlePreflight(w, r)
			return
		}
		c.handleActualRequest(w, r)
		h.ServeHTTP(w, r)
	})
}

func (c *Cors) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.handleActualRequest(w, r)
}

func (c *Cors) handlePreflight(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if !c.isOriginAllowed(origin) {
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
}

func (c *Cors) handleActualRequest(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if !c.isOriginAllowed(origin) {
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	w.Header().Add("Vary", "Origin")
}

func (c *Cors) isOriginAllowed(origin string) bool {
	for _, o := range c.allowedOrigins {
		if o == origin {
			return true
		}
	}
	return false
}
""",
}


def test_a_server_handed_a_methods_result_runs_what_that_method_returns(tmp_path: Path):
    p = load(_write(tmp_path / "cors", CORS))
    # `handler := cors.Default().Handler(mux)`: the server runs the function `Handler` returns, not `Cors.ServeHTTP`
    assert _path(p)[:1] == ["Cors.Handler"]
    assert "Cors.isOriginAllowed" in _path(p)


TENACITY = {
    "pyproject.toml": '[project]\nname = "tenacity"\nversion = "1.0"\n',
    "README.rst": "Tenacity\n========\n\nRetrying library.\n",
    "doc/source/index.rst": """Tenacity
========

The simplest use case is retrying a flaky function.

.. testcode::

    from tenacity import retry

    @retry
    def do_something_unreliable():
        return "Awesome sauce!"

    print(do_something_unreliable())

Examples
--------

Basic Retry
~~~~~~~~~~~

As you saw above, the default is to retry forever.

Stopping
~~~~~~~~

Let's be a little less persistent.
""",
    "tenacity/__init__.py": '''import typing as t
from abc import abstractmethod


class BaseRetrying:
    def __init__(self, stop=None):
        self.stop = stop

    def copy(self, stop=None) -> "BaseRetrying":
        return self.__class__(stop=stop or self.stop)

    def wraps(self, f):
        def wrapped_f(*args, **kw):
            copy = self.copy()
            copy.statistics = {}
            return copy(f, *args, **kw)

        wrapped_f.retry = self
        return t.cast("Wrapped", wrapped_f)

    def iter(self, retry_state):
        actions = []
        for action in self.stop or []:
            actions.append(action)
        result = None
        for action in actions:
            result = action(retry_state)
        return result

    @abstractmethod
    def __call__(self, fn, *args, **kwargs):
        pass


class Retrying(BaseRetrying):
    def __call__(self, fn, *args, **kwargs):
        retry_state = {"fn": fn}
        while True:
            do = self.iter(retry_state=retry_state)
            if do is None:
                return fn(*args, **kwargs)


class AsyncRetrying(BaseRetrying):
    async def __call__(self, fn, *args, **kwargs):
        return await fn(*args, **kwargs)


def is_coroutine_callable(call):
    return False


def retry(*dargs, **dkw):
    if len(dargs) == 1 and callable(dargs[0]):
        return retry()(dargs[0])

    def wrap(f):
        r: BaseRetrying
        if is_coroutine_callable(f):
            r = AsyncRetrying(*dargs, **dkw)
        else:
            r = Retrying(*dargs, **dkw)
        return r.wraps(f)

    return wrap
''',
}


def test_a_python_decorator_is_traced_through_the_functions_it_defines_and_returns(tmp_path: Path):
    p = load(_write(tmp_path / "tenacity", TENACITY))
    ex = first_example(p, {e.short for e in entry_points(p)})
    # a Sphinx `.. testcode::` is Python; an rST `~~~~` underline opens no fence
    assert ex is not None and ex.lang == "python" and ex.code.startswith("from tenacity import retry")
    # `retry` returns its local `wrap`, which makes a `BaseRetrying` (declared alone, filled in branches) and
    # returns what `wraps` returns: `wrapped_f`, which calls the object `self.copy()` made: its `__call__`,
    # the plain variant's (`Retrying`, not `AsyncRetrying`)
    start = next(s for s in p.symbols() if s.dotted == "retry")
    assert [s.dotted for s in call_path(p, start)][:7] == [
        "retry", "retry.wrap", "BaseRetrying.wraps", "BaseRetrying.wraps.wrapped_f",
        "BaseRetrying.__call__", "Retrying.__call__", "BaseRetrying.iter"]


def test_a_rust_bare_call_is_its_own_modules_function_before_a_namesake_beside_it(tmp_path: Path):
    p = load(_write(tmp_path / "textwrap", {
        "Cargo.toml": '[package]\nname = "textwrap"\nversion = "0.1.0"\n',
        "README.md": "# textwrap\n\n```rust\nlet lines = textwrap::wrap(\"some text\", 28);\n```\n",
        "src/lib.rs": "mod wrap;\nmod fuzzing;\npub use wrap::wrap;\n",
        "src/fuzzing.rs": "pub fn wrap_single_line(line: &str, lines: &mut Vec<String>) {\n    lines.push(line.to_string());\n}\n",
        "src/wrap.rs": """pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.split('\\n') {
        wrap_single_line(line, width, &mut lines);
    }
    lines
}

pub(crate) fn wrap_single_line(line: &str, width: usize, lines: &mut Vec<String>) {
    if line.len() <= width {
        lines.push(line.to_string());
    } else {
        wrap_single_line_slow_path(line, width, lines)
    }
}

fn wrap_single_line_slow_path(line: &str, width: usize, lines: &mut Vec<String>) {
    let mut cur = String::new();
    for word in line.split(' ') {
        if cur.len() + word.len() > width {
            lines.push(cur.clone());
            cur.clear();
        }
        cur.push_str(word);
    }
    lines.push(cur);
}
""",
    }))
    assert _path(p)[:2] == ["wrap", "wrap_single_line"]
    assert next(s for s in central_path(p, entry_points(p)) if s.short == "wrap_single_line").rel == "src/wrap.rs"


SERILOG = {
    "README.md": """# Serilog

```csharp
var log = new LoggerConfiguration().CreateLogger();
log.Write(LogEventLevel.Information, "Hello, {Name}!", name);
```
""",
    "src/Serilog/Serilog.csproj": "<Project><PropertyGroup><PackageId>Serilog</PackageId></PropertyGroup></Project>\n",
    "src/Serilog/Core/Logger.cs": """namespace Serilog.Core;

public sealed class Logger
{
    readonly MessageTemplateProcessor _messageTemplateProcessor = new MessageTemplateProcessor();
    readonly ILogEventSink _sink;

    public void Write(LogEventLevel level, string messageTemplate, params object[] propertyValues)
    {
        if (messageTemplate == null) return;
        _messageTemplateProcessor.Process(messageTemplate, propertyValues, out var parsedTemplate);
        var logEvent = new LogEvent(level, parsedTemplate);
        Dispatch(logEvent);
    }

    public void Dispatch(LogEvent logEvent)
    {
        if (logEvent == null) return;
        _sink.Emit(logEvent);
    }
}
""",
    "src/Serilog/Core/ILogEventSink.cs": "namespace Serilog.Core;\n\npublic interface ILogEventSink\n{\n    void Emit(LogEvent logEvent);\n}\n",
    "src/Serilog/Sinks/ConsoleSink.cs": """namespace Serilog.Sinks;

public class ConsoleSink : ILogEventSink
{
    public void Emit(LogEvent logEvent) { System.Console.WriteLine(logEvent); }
}
""",
    "src/Serilog/Sinks/FileSink.cs": """namespace Serilog.Sinks;

public class FileSink : ILogEventSink
{
    public void Emit(LogEvent logEvent) { System.IO.File.AppendAllText("log", logEvent.ToString()); }
}
""",
    "src/Serilog/Capturing/MessageTemplateProcessor.cs": """namespace Serilog.Capturing;

public class MessageTemplateProcessor
{
    readonly MessageTemplateParser _parser = new MessageTemplateParser();
    readonly PropertyBinder _binder = new PropertyBinder();

    public void Process(string messageTemplate, object[] values, out MessageTemplate parsed)
    {
        parsed = _parser.Parse(messageTemplate);
        _binder.Bind(parsed, values);
    }
}
""",
    "src/Serilog/Capturing/MessageTemplateParser.cs": """namespace Serilog.Capturing;

public class MessageTemplateParser
{
    public MessageTemplate Parse(string text)
    {
        var tokens = Tokenize(text);
        return new MessageTemplate(tokens);
    }

    IEnumerable<string> Tokenize(string text)
    {
        return Split(text);
    }

    IEnumerable<string> Split(string text)
    {
        return text.Split(' ');
    }
}
""",
    "src/Serilog/Capturing/PropertyBinder.cs": """namespace Serilog.Capturing;

public class PropertyBinder
{
    public void Bind(MessageTemplate template, object[] values)
    {
        ConstructProperties(template, values);
    }

    void ConstructProperties(MessageTemplate template, object[] values)
    {
        ConstructNamed(template, values);
    }

    void ConstructNamed(MessageTemplate template, object[] values)
    {
        System.Console.WriteLine(values.Length);
    }
}
""",
}


def test_a_call_that_hands_its_work_to_implementations_chosen_at_run_time_is_no_detail(tmp_path: Path):
    from orchestrator.authoring.handoff import handed_to

    p = load(_write(tmp_path / "serilog", SERILOG))
    write = next(s for s in p.symbols() if s.dotted == "Logger.Write")
    # `Dispatch` reaches little (each sink's `Emit` is chosen at run time), but it is where the event goes:
    # not a detail after `Process`, which reaches more
    dispatch = next(s for s in p.symbols() if s.dotted == "Logger.Dispatch")
    assert handed_to(p, write) == (dispatch.rel, dispatch.d.start_line)


def test_a_declared_type_is_on_its_variables_line(tmp_path: Path):
    from orchestrator.authoring.example_calls import built_type

    p = load(_write(tmp_path / "schema", {
        "schema.py": "class SchemaError(Exception):\n    pass\n\n\nclass Schema:\n    def validate(self, data):\n        return data\n",
    }))
    code = "from schema import Schema, SchemaError\n\nschema = Schema([int])\nschema.validate([1])\n"
    assert built_type(p, code, "schema", "python") == "Schema"  # not the import line's last name


def test_a_steps_citation_is_a_range_when_told_at_a_decorated_definitions_first_line():
    from orchestrator.authoring.project import Sym
    from orchestrator.authoring.tracing import step_cites
    from orchestrator.repo.parse import Definition

    def sym(name: str, a: int, b: int) -> Sym:
        return Sym("tenacity/__init__.py", Definition(kind="method", name=name.rsplit(".", 1)[-1], qualified_name=name,
                                                      signature="", doc="", start_line=a, end_line=b, exported=True,
                                                      aliases=[]), 1.0, "python")

    base, impl = sym("BaseRetrying.__call__", 504, 511), sym("Retrying.__call__", 514, 530)
    cites = step_cites(base, impl, 504, None, (505, 517))  # `@abstractmethod` on 504, `def __call__` on 505
    assert "#L504-L505" in cites and "L505-L504" not in cites


RESTY = {
    "go.mod": "module github.com/go-resty/resty\n\ngo 1.20\n",
    "README.md": """# resty

```go
// Create a Resty Client
client := resty.New()

resp, err := client.R().
      SetHeader("Accept", "application/json").
      Get("/search_result")

// Sample of using Request.SetAuthToken method
resp, err := client.R().
      SetAuthToken("BC594900518B4F7EAC75BD37F019E08F").
      Get("/show_product")
```
""",
    "client.go": """package resty

import "net/http"

type Client struct {
	RetryCount int
	httpClient *http.Client
	logger     Logger
}

func New() *Client {
	return createClient(&http.Client{})
}

func createClient(hc *http.Client) *Client {
	c := &Client{httpClient: hc}
	c.SetLogger(nil)
	return c
}

func (c *Client) SetLogger(l Logger) *Client {
	c.logger = l
	return c
}

func (c *Client) R() *Request {
	return &Request{client: c}
}

func (c *Client) execute(req *Request) (*Response, error) {
	hr, err := http.NewRequest(req.Method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.httpClient.Do(hr)
	response := &Response{Request: req, RawResponse: res}
	if err != nil {
		return response, err
	}
	err = parseResponseBody(c, response)
	return response, err
}

func parseResponseBody(c *Client, res *Response) error {
	if res.RawResponse == nil {
		return nil
	}
	body := res.RawResponse.Body
	defer body.Close()
	res.body = []byte{}
	return nil
}
""",
    "request.go": """package resty

type Request struct {
	Method string
	URL    string
	client *Client
}

type Response struct {
	Request     *Request
	RawResponse *http.Response
	body        []byte
}

func (r *Request) SetHeader(k, v string) *Request {
	return r
}

func (r *Request) SetAuthToken(t string) *Request {
	return r
}

func (r *Request) Get(url string) (*Response, error) {
	return r.Execute("GET", url)
}

func (r *Request) Execute(method, url string) (*Response, error) {
	var resp *Response
	var err error
	r.Method = method
	r.URL = url
	if r.client.RetryCount == 0 {
		resp, err = r.client.execute(r)
		return resp, err
	}
	err = Backoff(
		func() (*Response, error) {
			resp, err = r.client.execute(r)
			return resp, err
		},
		r.client.RetryCount,
	)
	return resp, err
}
""",
    "retry.go": """package resty

import "time"

func Backoff(operation func() (*Response, error), retries int) error {
	var err error
	for attempt := 0; attempt <= retries; attempt++ {
		_, err = operation()
		if err == nil {
			return nil
		}
		time.Sleep(sleepDuration(attempt))
	}
	return err
}

func sleepDuration(attempt int) time.Duration {
	return jitterBackoff(attempt)
}

func jitterBackoff(attempt int) time.Duration {
	return randDuration(int64(attempt) * 100)
}

func randDuration(center int64) time.Duration {
	return time.Duration(center)
}
""",
}


def test_a_chain_on_a_made_client_runs_its_last_link_and_a_wrapper_handed_a_closure_runs_its_work(tmp_path: Path):
    p = load(_write(tmp_path / "resty", RESTY))
    # `client := resty.New()`, then chains on `client.R()`: each chain's last link (`Get`) runs what the links set;
    # `Execute` hands `Backoff` a closure that runs `r.client.execute(r)`: the retries are the manner, not the way
    assert _path(p)[:3] == ["Request.Get", "Request.Execute", "Client.execute"]
