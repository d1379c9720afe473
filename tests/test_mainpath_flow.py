"""Chapter 1's main path follows what the example's values become (issue 35, session 18): the value a
chain builds and the class it is made of, the implementation the example's own calls make, the element
a map hands out, the work a body does before the call that only fetches the object it runs on; and
the map reads what those need (a README GitHub shows from `.github/`, a core file over 1 MB, a type
nested in the one that names it). Each on a small source, failing without its rule."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.example_setup import setup_path
from orchestrator.authoring.ideas import doc_title
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points, first_example
from orchestrator.authoring.project import Project, load
from orchestrator.contracts.title_shape import name_title


def _path(p: Project) -> list[str]:
    return [s.dotted for s in central_path(p, entry_points(p))]


STACHE = "src/main/java/stache/"
STACHE_README = """# stache

```java
String text = "One, two, {{three}}.";
Template tmpl = Mustache.compiler().compile(text);
System.out.println(tmpl.execute(data));
```
"""
STACHE_MUSTACHE = """package stache;

public class Mustache {
    public static Compiler compiler() {
        return new Compiler();
    }

    public static class Compiler {
        public Template compile(String source) {
            Parser parser = new Parser();
            return new Template(parser.parse(source));
        }
    }

    protected static class VariableSegment extends Template.Segment {
        @Override public void execute(Template tmpl, Object ctx, StringBuilder out) {
            out.append(tmpl.getValue(ctx));
            out.append(tmpl.getValue(ctx));
        }
    }
}
"""
STACHE_PARSER = """package stache;

class Parser {
    Template.Segment[] parse(String source) {
        Template.Segment[] segs = split(source);
        return check(segs);
    }
    Template.Segment[] split(String source) {
        return new Template.Segment[0];
    }
    Template.Segment[] check(Template.Segment[] segs) {
        return segs;
    }
}
"""
STACHE_TEMPLATE = """package stache;

public class Template {
    private final Segment[] segs;

    Template(Segment[] segs) {
        this.segs = segs;
    }

    public String execute(Object context) {
        StringBuilder out = new StringBuilder();
        executeSegs(context, out);
        return out.toString();
    }

    void executeSegs(Object context, StringBuilder out) {
        for (Segment seg : segs) {
            seg.execute(this, context, out);
        }
        finish(out);
    }

    void finish(StringBuilder out) {
        out.trimToSize();
        out.trimToSize();
    }

    Object getValue(Object ctx) {
        return ctx;
    }

    protected static abstract class Segment {
        abstract void execute(Template tmpl, Object ctx, StringBuilder out);
    }
}
"""


def test_the_run_is_the_built_values_method_and_the_chain_that_built_it_is_its_set_up(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": STACHE_README, STACHE + "Mustache.java": STACHE_MUSTACHE,
                                        STACHE + "Parser.java": STACHE_PARSER, STACHE + "Template.java": STACHE_TEMPLATE}))
    entries = entry_points(p)
    path = central_path(p, entries)
    # `tmpl.execute(data)` is Template's, however many `execute`s the project has (a segment's is not the start)
    assert [s.dotted for s in path][:2] == ["Template.execute", "Template.executeSegs"], [s.dotted for s in path]
    # the value was made by the chain's last link, on the nested class `compiler()` returns
    assert [s.dotted for s in setup_path(p, entries, path)][:2] == ["Mustache.Compiler.compile", "Parser.parse"]


CSHARP_README = """# Checky

```csharp
public class CustomerValidator : AbstractValidator<Customer> {
  public CustomerValidator() {
    RuleFor(x => x.Surname).NotEmpty();
  }
}

var validator = new CustomerValidator();
ValidationResult results = validator.Validate(customer);
bool success = results.IsValid;
```
"""
CSHARP_VALIDATOR = """namespace Checky;

public abstract class AbstractValidator<T> {
	internal TrackingCollection<IValidationRule<T>> Rules { get; } = new();

	public ValidationResult Validate(T instance) {
		var context = new ValidationContext<T>(instance);
		return ValidateInternal(context);
	}

	private ValidationResult ValidateInternal(ValidationContext<T> context) {
		var result = new ValidationResult();
		for (int i = 0; i < Rules.Count; i++) {
			Rules[i].Validate(context);
		}
		SetExecuted(result, context);
		return result;
	}

	private void SetExecuted(ValidationResult result, ValidationContext<T> context) {
		result.Done = true;
	}

	public RuleBuilder<T> RuleFor(string expression) {
		var rule = PropertyRule<T>.Create(expression);
		Rules.Add(rule);
		return new RuleBuilder<T>(rule);
	}
}
"""
CSHARP_RULES = """namespace Checky;

public interface IValidationRule<T> {
	void Validate(ValidationContext<T> context);
}

public class PropertyRule<T> : IValidationRule<T> {
	public static PropertyRule<T> Create(string expression) {
		return new PropertyRule<T>();
	}

	public void Validate(ValidationContext<T> context) {
		foreach (var component in Components) {
			component.Validator.IsValid(context);
		}
		Check(context);
	}

	void Check(ValidationContext<T> context) {
		context.Checked = true;
		context.Checked = true;
	}
}

public class CollectionRule<T> : IValidationRule<T> {
	public void Validate(ValidationContext<T> context) {
		Each(context);
		Each(context);
	}

	void Each(ValidationContext<T> context) {
		context.Each = true;
	}
}
"""


def test_of_several_implementations_the_path_runs_the_one_the_examples_calls_make(tmp_path: Path):
    root = _write(tmp_path / "repo", {".github/README.md": CSHARP_README, "src/Checky/AbstractValidator.cs": CSHARP_VALIDATOR,
                                      "src/Checky/Rules.cs": CSHARP_RULES, "src/Checky/Checky.csproj": "<Project/>\n"})
    p = load(root)
    # GitHub shows `.github/README.md` when the root has none: the example is there
    ex = first_example(p, {e.short for e in entry_points(p)})
    assert ex is not None and ex.rel == ".github/README.md"
    path = _path(p)
    # `Rules[i].Validate(…)` is an interface's method with two implementations; `RuleFor`, which the example
    # calls, makes a `PropertyRule`: that is the one the path runs
    assert path[:2] == ["AbstractValidator.Validate", "AbstractValidator.ValidateInternal"], path
    assert "PropertyRule.Validate" in path and "CollectionRule.Validate" not in path, path


RUST_README = """# tiny

```rust
let mut tt = TinyTemplate::new();
tt.add_template("hello", TEMPLATE)?;
let rendered = tt.render("hello", &context)?;
println!("{}", rendered);
```
"""
RUST_LIB = """use std::collections::HashMap;
mod template;
use template::Template;

pub struct TinyTemplate<'template> {
    templates: HashMap<&'template str, Template<'template>>,
}

impl<'template> TinyTemplate<'template> {
    pub fn new() -> TinyTemplate<'template> {
        TinyTemplate { templates: HashMap::new() }
    }

    pub fn add_template(&mut self, name: &'template str, text: &'template str) -> Result<(), String> {
        let template = Template::compile(text)?;
        self.templates.insert(name, template);
        Ok(())
    }

    pub fn render(&self, name: &str, context: &str) -> Result<String, String> {
        match self.templates.get(name) {
            Some(tmpl) => tmpl.render(context),
            None => Err(format!("Unknown template '{}'", name)),
        }
    }
}
"""
RUST_TEMPLATE = """pub struct Template<'template> {
    text: &'template str,
}

impl<'template> Template<'template> {
    pub fn compile(text: &'template str) -> Result<Template<'template>, String> {
        Ok(Template { text })
    }

    pub fn render(&self, context: &str) -> Result<String, String> {
        let mut out = String::new();
        self.render_into(context, &mut out)?;
        Ok(out)
    }

    fn render_into(&self, context: &str, out: &mut String) -> Result<(), String> {
        out.push_str(self.text);
        out.push_str(context);
        out.push_str(self.text);
        Ok(())
    }
}
"""


def test_a_value_a_map_field_hands_out_in_a_match_arm_is_of_the_maps_value_type(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": RUST_README, "Cargo.toml": "[package]\nname = \"tiny\"\n",
                                        "src/lib.rs": RUST_LIB, "src/template.rs": RUST_TEMPLATE}))
    # `HashMap<&'template str, Template<'template>>`: the value type after the key's comma;
    # `match self.templates.get(name) { Some(tmpl) => tmpl.render(…)`: a `Template`
    assert _path(p)[:3] == ["TinyTemplate.render", "Template.render", "Template.render_into"], _path(p)


PICO = "src/main/java/pico/"
PICO_README = """# pico

```java
public class Example implements Runnable {
    public void run() { }

    public static void main(String[] args) {
        int exitCode = new CommandLine(new Example()).execute(args);
        System.exit(exitCode);
    }
}
```
"""
PICO_MAIN = """package pico;

public class CommandLine {
    private final Interpreter interpreter = new Interpreter();
    private IExecutionStrategy strategy = new RunLast();

    public CommandLine(Object command) { }

    public int execute(String... args) {
        clear();
        ParseResult parsed = parseArgs(args);
        return enrich(getExecutionStrategy()).execute(parsed);
    }

    void clear() { }

    public ParseResult parseArgs(String... args) {
        interpreter.parse(args);
        return getParseResult();
    }

    public ParseResult getParseResult() { return interpreter.result; }

    IExecutionStrategy getExecutionStrategy() { return strategy; }

    IExecutionStrategy enrich(IExecutionStrategy s) {
        validate(s);
        return wrap(s);
    }

    void validate(IExecutionStrategy s) { }

    IExecutionStrategy wrap(IExecutionStrategy s) { return s; }

    public interface IExecutionStrategy {
        int execute(ParseResult parsed);
    }

    public static class RunLast implements IExecutionStrategy {
        public int execute(ParseResult parsed) { return 0; }
    }

    public static class RunFirst implements IExecutionStrategy {
        public int execute(ParseResult parsed) { return 1; }
    }

    public static class ParseResult { }

    class Interpreter {
        ParseResult result;

        void parse(String... args) {
            processArguments(args);
            result = new ParseResult();
        }

        void processArguments(String... args) {
            for (String arg : args) {
                processOption(arg);
            }
        }

        void processOption(String arg) {
            arg.trim();
            arg.trim();
        }
    }
}
"""


def test_a_run_on_a_value_made_in_place_and_the_work_before_the_call_that_fetches_its_runner(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": PICO_README, PICO + "CommandLine.java": PICO_MAIN}))
    path = _path(p)
    # `new CommandLine(new Example()).execute(args)` runs CommandLine's `execute`, not a strategy's; its last
    # line only fetches the strategy the map cannot follow (`enrich(…)` gives the object `.execute` runs on):
    # the work is `parseArgs`, and the field `interpreter` is the nested class `CommandLine.Interpreter`
    assert path[:4] == ["CommandLine.execute", "CommandLine.parseArgs", "CommandLine.Interpreter.parse",
                        "CommandLine.Interpreter.processArguments"], path


def test_a_hand_written_core_file_over_a_megabyte_is_mapped(tmp_path: Path):
    note = "    /** Adds to its argument the number this helper is named for, as the generated table of helpers needs. */\n" * 2
    body = "".join(f"{note}    public int helper{k}(int x) {{\n        return x + {k};\n    }}\n\n" for k in range(4000))
    big = "package big;\n\npublic class Core {\n" + body + "}\n"
    assert 1_000_000 < len(big) < 4_000_000
    p = load(_write(tmp_path / "repo", {"src/main/java/big/Core.java": big,
                                        "src/main/java/big/Small.java": "package big;\n\npublic class Small { }\n"}))
    assert [s.dotted for s in p.symbols() if s.short == "Core"] == ["Core"]


def test_a_doc_that_says_what_its_class_supports_doing_titles_the_chapter(tmp_path: Path):
    from orchestrator.authoring.project import Sym
    from orchestrator.repo.parse import Definition

    doc = "An engine class that supports capturing blocks via the <%= and <%== tags:\n\n  <%= form do %>"
    s = Sym("lib/erubi/capture_block.rb", Definition(kind="class", name="CaptureBlockEngine", qualified_name="Erubi.CaptureBlockEngine",
                                                      signature="class CaptureBlockEngine < Engine", doc=doc, start_line=1,
                                                      end_line=9, exported=True, aliases=[]), 1.0, "ruby")
    assert doc_title(s) == "Capturing blocks"
    # said as a doing, the module's words are an idea; the module's name as it is written is not
    files = ["lib/erubi/capture_block.rb", "lib/erubi/capture_end.rb"]
    assert name_title("Capturing blocks", files, project="erubi") == ""
    assert name_title("Capture block", files, project="erubi") != ""
    assert name_title("Routing", ["src/routing.go"]) != "" and name_title("Routing requests", ["src/routing.go", "src/request.go"]) != ""
    # the doing's object counts though the code names it too (lark's `grammar` variable, "Loading a grammar" for
    # load_grammar.py); a doing alone, or of a name in code, is still the module's name
    assert name_title("Loading a grammar", ["lark/load_grammar.py"], {"grammar"}) == ""
    assert name_title("Loading", ["lark/load.py"], {"grammar"}) != ""
    assert name_title("Parsing `Grammar`", ["lark/parse.py"], {"Grammar"}) != ""


MAKO_README = """# tmpl

```python
from tmpl.template import Template
print(Template("hello ${data}!").render(data="world"))
```
"""
MAKO_TEMPLATE = """from tmpl import runtime


class Template:
    def __init__(self, text):
        self.text = text

    def render(self, *args, **data):
        return runtime._render(self, self.callable_, args, data)

    def callable_(self, context):
        return self.text
"""
MAKO_RUNTIME = """def _render(template, callable_, args, data):
    context = Context(data)
    context.prepare(template)
    _render_context(
        template,
        callable_,
        context,
        *args,
        **_kwargs_for_callable(callable_, data),
    )
    return context.value()


def _kwargs_for_callable(callable_, data):
    names = _argspec(callable_)
    kwargs = {}
    for name in names:
        kwargs[name] = data[name]
    return kwargs


def _argspec(callable_):
    return _names(callable_.__code__)


def _names(code):
    return list(code.co_varnames[:code.co_argcount])


def _render_context(template, callable_, context, *args, **kwargs):
    context.push(template)
    _exec_template(callable_, context, args, kwargs)


def _exec_template(callable_, context, args, kwargs):
    context.write(callable_(context, *args, **kwargs))
    context.write("")
    context.write("")


class Context:
    def __init__(self, data):
        self.data = data
        self.out = []

    def prepare(self, template):
        self.template = template

    def push(self, template):
        self.out.append(template)

    def write(self, text):
        self.out.append(text)

    def value(self):
        return "".join(self.out)
"""


def test_a_call_written_in_anothers_arguments_over_several_lines_runs_before_it(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": MAKO_README, "tmpl/__init__.py": "", "tmpl/template.py": MAKO_TEMPLATE,
                                        "tmpl/runtime.py": MAKO_RUNTIME, "pyproject.toml": "[project]\nname = \"tmpl\"\n"}))
    # `**_kwargs_for_callable(…)` is on a later line than `_render_context(` but is its argument: `_render` hands to
    # `_render_context`
    assert _path(p)[:4] == ["Template.render", "_render", "_render_context", "_exec_template"], _path(p)


URI_README = """# addr

```ruby
uri = Addr::URI.parse("http://example.com/path/")
uri.host
```
"""
URI_RB = """module Addr
  class URI
    def self.parse(uri)
      return nil unless uri
      scheme = uri[/^(\\w+):/, 1]
      host = uri[/\\/\\/([^\\/]+)/, 1]
      return new(scheme: scheme, host: host)
    end

    def initialize(options = {})
      @scheme = options[:scheme]
      @host = options[:host]
      validate
    end

    def validate
      raise ArgumentError, "no scheme" if @scheme.nil? && !@host.nil?
      normalize_host
    end

    def normalize_host
      @host = @host.downcase if @host
      @host = @host.strip if @host
    end

    def host
      @host
    end
  end
end
"""


def test_new_in_a_ruby_class_method_makes_an_instance_of_its_own_class(tmp_path: Path):
    p = load(_write(tmp_path / "repo", {"README.md": URI_README, "lib/addr/uri.rb": URI_RB, "addr.gemspec": "Gem::Specification.new\n"}))
    # `return new(scheme: …)` in `def self.parse` runs `URI#initialize`
    assert _path(p)[:3] == ["Addr.URI.parse", "Addr.URI.initialize", "Addr.URI.validate"], _path(p)


KLOG = "src/{}Main/kotlin/klog/"
KLOG_README = """# klog

```kotlin
import klog.KLogging

private val logger = KLogging.logger {}

class Foo {
    fun bar() {
        logger.debug { "hello" }
    }
}
```
"""
KLOG_FILES = {
    KLOG.format("common") + "KLogging.kt": """package klog

public object KLogging {
  public fun logger(func: () -> Unit): KLogger = logger(NameResolver.name(func))

  public fun logger(name: String): KLogger = KLoggerFactory.logger(name)
}
""",
    KLOG.format("common") + "NameResolver.kt": """package klog

internal expect object NameResolver {
  internal fun name(func: () -> Unit): String
}
""",
    KLOG.format("jvm") + "NameResolver.kt": """package klog

internal actual object NameResolver {
  internal actual fun name(func: () -> Unit): String {
    val name = func.javaClass.name
    val slicedName = name.substringBefore("Kt$")
    return slicedName.substringBefore("$")
  }
}
""",
    KLOG.format("common") + "KLoggerFactory.kt": """package klog

internal expect object KLoggerFactory {
  internal fun logger(name: String): KLogger
}
""",
    KLOG.format("jvm") + "KLoggerFactory.kt": """package klog

internal actual object KLoggerFactory {
  internal actual fun logger(name: String): KLogger {
    val underlying = java.util.logging.Logger.getLogger(name)
    val wrapped = JulLogger(underlying)
    return wrapped
  }
}
""",
    KLOG.format("js") + "KLoggerFactory.kt": """package klog

internal actual object KLoggerFactory {
  internal actual fun logger(name: String): KLogger {
    val wrapped = ConsoleLogger(name)
    console.log(name)
    return wrapped
  }
}
""",
    KLOG.format("common") + "KLogger.kt": """package klog

public interface KLogger {
  public val name: String

  public fun debug(message: () -> Any?): Unit =
    at(Level.DEBUG) {
      this.message = message.toString()
    }

  public fun at(level: Level, block: Builder.() -> Unit)
}
""",
}


def test_a_kotlin_example_calls_with_trailing_lambdas_and_the_multiplatform_actual_runs(tmp_path: Path):
    from orchestrator.authoring.call_form import call_form

    p = load(_write(tmp_path / "repo", {"README.md": KLOG_README, "settings.gradle.kts": "rootProject.name = \"klog\"\n", **KLOG_FILES}))
    # `KLogging.logger {}` and `logger.debug { … }` are calls; `class Foo {` and `if (x) {` are not
    assert call_form("val l = KLogging.logger {}\nclass Foo {\n  if (x) { l.debug { m } }\n}", "kotlin") == \
        "val l = KLogging.logger() {}\nclass Foo {\n  if (x) { l.debug() { m } }\n}"
    # the run is `debug` on the `KLogger` that `logger` declares it gives back; the lambda after `at(…)`
    # is its last argument; the logger is made by the JVM's `actual` factory, through the overload the
    # `expect`ed resolver's String selects
    path = _path(p)
    assert path == ["KLogger.debug", "KLogger.at"], path
    setup = setup_path(p, entry_points(p), central_path(p, entry_points(p)))
    assert [s.dotted for s in setup][:3] == ["KLogging.logger", "KLogging.logger", "KLoggerFactory.logger"], setup
    assert setup[2].rel.startswith("src/jvmMain/"), setup[2].rel


def test_ruby_blocks_are_calls_in_the_call_form():
    from orchestrator.authoring.call_form import call_form

    rb = 'route do |r|\n  r.on "hello" do\n    r.get { x }\n  end\n  if ok do\nend\n'
    assert call_form(rb, "ruby") == 'route() do |r|\n  r.on("hello") do\n    r.get() { x }\n  end\n  if ok do\nend\n'


def test_the_claim_check_reads_the_calls_the_path_makes_in_kotlin_and_in_ruby_class_methods():
    from orchestrator.evidence.resolve import calls_bare, calls_in

    # our own R1 rejected these steps of our own writer: an expression body on the head's line,
    # a call with a trailing lambda, Ruby's `new(` in `def self.parse`
    assert calls_in("KLoggerFactory.logger", "  public fun logger(name: String): KLogger = KLoggerFactory.logger(name)")
    assert not calls_in("KLoggerFactory.logger", "  internal actual fun logger(name: String): KLogger {")
    debug = "  public fun debug(message: () -> Any?): Unit =\n    at(Level.DEBUG) {\n      this.message = message()\n    }"
    assert calls_in("KLogger.at", debug, trailing=True)
    assert not calls_in("Router.route", "  route(req) {\n    return 1\n  }")  # a JS method's head is no call
    parse = "    def self.parse(uri)\n      return new(\n        scheme: scheme,"
    assert calls_bare("Addressable::URI::initialize", parse)
    # a Go generic function called with its type argument (cast's `return toNumberE[int](i, parseInt[int])`)
    assert calls_in("toNumberE", "func ToIntE(i any) (int, error) {\n\treturn toNumberE[int](i, parseInt[int])\n}")
    assert not calls_bare("Addressable::URI::initialize", "    def self.parse(uri)\n      return renew(uri)")
