"""Where chapter 1's main path goes (issue 35, session 29, set 27 as the development set). Each rule on a small
source, failing without it."""

from __future__ import annotations

from conftest import symbol, traced as _path, write_files as _write

from orchestrator.authoring.project import load

# pebble's shape: the engine caches what a lambda parses, runs each extension's visitor over the tree it made and
# gives back the template; the template holds the tree in a field declared as an interface, renders it and flushes
_ENGINE = """package tpl;

import java.util.List;
import java.util.Map;

public class Engine {
  private final Map<String, Template> cache;
  private final List<VisitorFactory> visitors;

  public Engine(Map<String, Template> cache, List<VisitorFactory> visitors) {
    this.cache = cache;
    this.visitors = visitors;
  }

  public Template getTemplate(String name) {
    return this.cache
        .computeIfAbsent(name, k -> this.compile(name));
  }

  private Template compile(String name) {
    Parser parser = new Parser();
    RootNode root = parser.parse(name);
    TemplateImpl instance = new TemplateImpl(this, root);
    for (VisitorFactory factory : this.visitors) {
      factory.createVisitor(instance).visit(root);
    }
    return instance;
  }
}
"""

_TEMPLATE = """package tpl;

import java.io.Writer;

public interface Template {
  void evaluate(Writer writer);
}
"""

_IMPL = """package tpl;

import java.io.Writer;

public class TemplateImpl implements Template {
  private final Engine engine;
  private final RenderableNode rootNode;

  public TemplateImpl(Engine engine, RenderableNode root) {
    this.engine = engine;
    this.rootNode = root;
  }

  public void evaluate(Writer writer) {
    Writer out = Buffers.wrap(writer);
    this.rootNode.render(out);
    out.flush();
  }

  public TemplateImpl embed(String text) {
    BodyNode body = new BodyNode(text);
    TemplateImpl embedded = new TemplateImpl(engine, body);
    return embedded;
  }
}
"""

_NODES = {
    "src/tpl/RenderableNode.java": "package tpl;\n\nimport java.io.Writer;\n\npublic interface RenderableNode {\n"
                                   "  void render(Writer writer);\n}\n",
    "src/tpl/RootNode.java": """package tpl;

import java.io.Writer;

public class RootNode implements RenderableNode {
  private final BodyNode body;

  public RootNode(BodyNode body) {
    this.body = body;
  }

  public void render(Writer writer) {
    this.body.render(writer);
  }
}
""",
    "src/tpl/BodyNode.java": """package tpl;

import java.io.IOException;
import java.io.Writer;

public class BodyNode implements RenderableNode {
  private final String text;

  public BodyNode(String text) {
    this.text = text;
  }

  public void render(Writer writer) {
    try {
      writer.write(this.text.trim());
      writer.write(this.text.strip());
      writer.write(this.text.toUpperCase());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
""",
    "src/tpl/Parser.java": """package tpl;

public class Parser {
  public RootNode parse(String text) {
    String clean = Lexer.tokens(text);
    BodyNode body = new BodyNode(Lexer.join(clean));
    return new RootNode(body);
  }
}
""",
    "src/tpl/Lexer.java": """package tpl;

public class Lexer {
  public static String tokens(String text) {
    return Lexer.join(text.replace("{{", " ").replace("}}", " "));
  }

  public static String join(String text) {
    return String.join(" ", text.split("\\\\s+"));
  }
}
""",
    "src/tpl/Buffers.java": "package tpl;\n\nimport java.io.BufferedWriter;\nimport java.io.Writer;\n\npublic class Buffers {\n"
                            "  public static Writer wrap(Writer w) {\n    return new BufferedWriter(w);\n  }\n}\n",
    "src/tpl/VisitorFactory.java": "package tpl;\n\npublic interface VisitorFactory {\n  Visitor createVisitor(TemplateImpl t);\n}\n",
    "src/tpl/Visitor.java": "package tpl;\n\npublic interface Visitor {\n  void visit(RenderableNode node);\n}\n",
    "src/tpl/CountingVisitor.java": """package tpl;

public class CountingVisitor implements Visitor {
  private int seen;

  public void visit(RenderableNode node) {
    this.seen = this.seen + Lexer.join(node.toString()).length();
    this.seen = this.seen + Lexer.tokens(node.toString()).length();
  }
}
""",
}

_README = """# tpl

```java
Engine engine = new Engine(new HashMap<>(), new ArrayList<>());
Template compiled = engine.getTemplate("home.html");

Writer writer = new StringWriter();
compiled.evaluate(writer);
```
"""


def _engine(tmp_path):
    files = {"pom.xml": "<project/>\n", "README.md": _README, "src/tpl/Engine.java": _ENGINE,
             "src/tpl/Template.java": _TEMPLATE, "src/tpl/TemplateImpl.java": _IMPL, **_NODES}
    return load(_write(tmp_path / "tpl", files))


def test_a_call_in_a_lambda_argument_is_no_declaration(tmp_path):
    # `k -> this.compile(name)`: the `>` of the arrow closes no type's parameters
    from orchestrator.authoring.facts import all_calls

    p = _engine(tmp_path)
    assert "Engine.compile" in [c.dotted for c in all_calls(p, symbol(p, "Engine.getTemplate"))]


def test_a_loop_of_hooks_over_what_the_body_made_is_no_way_on(tmp_path):
    # each extension's visitor runs over the parsed tree before the template is given back: the parse is the way on
    from orchestrator.authoring.handoff import handed_to

    p = _engine(tmp_path)
    parse = symbol(p, "Parser.parse")
    assert handed_to(p, symbol(p, "Engine.compile")) == (parse.rel, parse.d.start_line)


def test_a_loop_that_fills_the_value_given_back_is_the_work():
    from orchestrator.authoring.sideroads import hook_loops

    fills = "\n  Out out = new Out(x);\n  for (Item item : items) {\n    out.add(item.render());\n  }\n  return out;\n"
    hooks = "\n  Out out = new Out(x);\n  for (Item item : items) {\n    item.visit(x);\n  }\n  return out;\n"
    assert hook_loops(fills) == set()
    assert hook_loops(hooks) == {2, 3, 4}


def test_an_example_value_declared_as_the_projects_interface_is_run(tmp_path):
    from orchestrator.authoring.example_calls import final_call

    p = _engine(tmp_path)
    code = _README.split("```java\n")[1].split("```")[0]
    assert [x.dotted for x in final_call(p, code, "java")] == ["Template.evaluate"]


def test_a_field_declared_as_an_interface_holds_what_the_constructors_callers_give(tmp_path):
    # `this.rootNode = root`, and `new TemplateImpl(this, root)` with `RootNode root`; the type's own `embed` makes
    # another from one made elsewhere
    from orchestrator.authoring.example_calls import _typer

    p = _engine(tmp_path)
    assert _typer(p).field_type("TemplateImpl", "rootNode", "java") == "RootNode"


def test_the_template_renders_its_tree_and_a_flush_is_no_way_on(tmp_path):
    p = _engine(tmp_path)
    path = _path(p)
    assert path[path.index("|") + 1:][:4] == ["Template.evaluate", "TemplateImpl.evaluate", "RootNode.render",
                                              "BodyNode.render"]
    assert path[:path.index("|")][:2] == ["Engine.getTemplate", "Engine.compile"]


def test_a_static_import_of_the_class_makes_its_bare_calls_the_entry(tmp_path):
    # spark's `import static spark.Spark.*;` then `get("/hello", …)`: `get` is any object's name, but not here
    from orchestrator.authoring.overview import entry_points

    spark = """package spark;

public final class Spark {
    public static void get(String path, Route route) {
        Service.instance().addRoute("GET", path, route);
    }
}
"""
    service = """package spark;

import java.util.ArrayList;
import java.util.List;

public final class Service {
    private static final Service ONE = new Service();
    private final List<Route> routes = new ArrayList<>();

    public static Service instance() {
        return ONE;
    }

    public void addRoute(String verb, String path, Route route) {
        this.routes.add(route);
    }
}
"""
    readme = ('# spark\n\n```java\nimport static spark.Spark.*;\n\npublic class HelloWorld {\n'
              '    public static void main(String[] arg){\n        get("/hello", (request, response) -> "Hello World!");\n'
              '    }\n}\n```\n')
    p = load(_write(tmp_path / "spark", {"pom.xml": "<project/>\n", "README.md": readme,
                                         "src/main/java/spark/Spark.java": spark,
                                         "src/main/java/spark/Service.java": service,
                                         "src/main/java/spark/Route.java": "package spark;\n\npublic interface Route {\n"
                                                                            "    Object handle(Object req, Object res);\n}\n"}))
    from orchestrator.authoring.entry import readme_weight

    assert readme_weight(p, symbol(p, "Spark.get")) > 0
    assert "Spark.get" in [e.dotted for e in entry_points(p)]


def test_a_dotnet_reader_is_a_text_reader_to_the_overloads(tmp_path):
    # html-agility-pack's `using (StringReader sr = new StringReader(html)) { Load(sr); }`, beside `Load(Stream)`
    # and `Load(string path)`
    from orchestrator.authoring.facts import all_calls

    doc = """using System.IO;

namespace Html
{
    public class HtmlDocument
    {
        public void LoadHtml(string html)
        {
            using (StringReader sr = new StringReader(html))
            {
                Load(sr);
            }
        }

        public void Load(Stream stream)
        {
            Load(new StreamReader(stream));
        }

        public void Load(string path)
        {
            Load(new StreamReader(File.OpenRead(path)));
        }

        public void Load(TextReader reader)
        {
            Parse(reader.ReadToEnd());
        }

        private void Parse(string text)
        {
            System.Console.WriteLine(text.Trim());
        }
    }
}
"""
    p = load(_write(tmp_path / "html", {"Html.csproj": "<Project/>\n", "src/HtmlDocument.cs": doc}))
    calls = all_calls(p, symbol(p, "HtmlDocument.LoadHtml"))
    assert [(c.dotted, c.d.signature) for c in calls] == [("HtmlDocument.Load", "public void Load(TextReader reader)")]


def test_a_test_of_the_readers_code_after_the_use_is_not_the_example(tmp_path):
    # flurl's README: the fluent call, then `[Test] public void Can_Create_Person()` that fakes the project
    from orchestrator.authoring.overview import entry_points, example_of

    url = """namespace Flurl
{
    public class Url
    {
        public Url AppendPathSegment(object segment)
        {
            return this;
        }

        public Url SetQueryParams(object values)
        {
            return this;
        }
    }
}
"""
    readme = ('# Flurl\n\n```cs\nvar result = await "https://api.mysite.com"\n    .AppendPathSegment("person")\n'
              '    .SetQueryParams(new { api_key = "xyz" });\n\n[Test]\npublic void Can_Create_Person() {\n'
              '    using var httpTest = new HttpTest();\n    httpTest.ShouldHaveCalled("http://api.mysite.com/*")\n'
              '        .WithVerb(HttpMethod.Post);\n}\n```\n')
    p = load(_write(tmp_path / "flurl", {"Flurl.csproj": "<Project/>\n", "README.md": readme, "src/Url.cs": url}))
    ex = example_of(p, entry_points(p))
    assert ex is not None and "[Test]" not in ex.code and ex.code.rstrip().endswith('.SetQueryParams(new { api_key = "xyz" });')


def test_a_step_run_by_call_weighs_what_the_function_it_calls_reaches(tmp_path):
    # ajv's `compile`: `return sch.validate || this._compileSchemaEnv(sch)`, which runs `compileSchema.call(this, sch)`
    from orchestrator.authoring.handoff import handed_to

    core = """import {compileSchema} from "./compile"

export default class Ajv {
  compile(schema: object): Function {
    const sch = this._addSchema(schema)
    return sch.validate || this._compileSchemaEnv(sch)
  }

  _addSchema(schema: object): any {
    const id = normalizeId(schema)
    const refs = collectRefs(schema)
    checkRefs(refs)
    return {id, refs, schema, validate: undefined}
  }

  _compileSchemaEnv(sch: any): Function {
    if (sch.meta) this._compileMeta(sch)
    else compileSchema.call(this, sch)
    return sch.validate
  }

  _compileMeta(sch: any): void {
    sch.meta = false
  }
}

function normalizeId(schema: object): string {
  return String(schema).trim()
}

function collectRefs(schema: object): string[] {
  return Object.keys(schema)
}

function checkRefs(refs: string[]): void {
  if (refs.length > 100) throw new Error("too many")
}
"""
    compile_ = """export function compileSchema(this: any, sch: any): void {
  const code = generate(sch)
  const names = scope(sch)
  const body = optimize(code, names)
  sch.validate = finish(body)
}

function generate(sch: any): string {
  return optimize(JSON.stringify(sch.schema), scope(sch))
}

function scope(sch: any): string[] {
  return Object.keys(sch)
}

function optimize(code: string, names: string[]): string {
  return code + names.join(",")
}

function finish(body: string): Function {
  return new Function("data", body)
}
"""
    p = load(_write(tmp_path / "ajv", {"package.json": '{"name": "ajv"}\n', "lib/core.ts": core,
                                       "lib/compile.ts": compile_}))
    env = symbol(p, "Ajv._compileSchemaEnv")
    assert handed_to(p, symbol(p, "Ajv.compile")) == (env.rel, env.d.start_line)


def test_a_value_the_package_index_re_exports_under_another_name_runs_its_constructed_class(tmp_path):
    # tsyringe: `export {instance as container} from "./dependency-container"`, `export const instance:
    # DependencyContainer = new InternalDependencyContainer()`, and the README's `container.resolve(Foo)`
    container = """export interface DependencyContainer {
  resolve<T>(token: any): T;
}

class InternalDependencyContainer implements DependencyContainer {
  public resolve<T>(token: any): T {
    const found = this.lookup(token);
    return this.construct(found);
  }

  private lookup(token: any): any {
    return String(token).trim();
  }

  private construct<T>(ctor: any): T {
    const params = this.params(ctor);
    return new ctor(...params);
  }

  private params(ctor: any): any[] {
    return [String(ctor).trim(), String(ctor).length];
  }
}

export const instance: DependencyContainer = new InternalDependencyContainer();
"""
    readme = ('# di\n\n```typescript\nimport {container, injectable} from "di";\n\n@injectable()\nclass Foo {}\n\n'
              'const made = container.resolve(Foo);\n```\n')
    index = ('export {instance as container} from "./dependency-container";\n'
             'export function injectable(): (target: any) => void {\n  return (target: any) => String(target);\n}\n')
    p = load(_write(tmp_path / "di", {"package.json": '{"name": "di"}\n', "README.md": readme, "src/index.ts": index,
                                      "src/dependency-container.ts": container}))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["InternalDependencyContainer.resolve", "InternalDependencyContainer.construct"]


_PUNDIT = {
    "pundit.gemspec": "Gem::Specification.new do |s|\n  s.name = 'pundit'\nend\n",
    "README.md": "# Pundit\n\n```ruby\nPundit.authorize(user, post, :update?)\n```\n",
    "lib/pundit.rb": """module Pundit
  def self.authorize(user, record, query)
    Context.new(user: user).authorize(record, query: query)
  end
end
""",
    "lib/pundit/context.rb": """module Pundit
  class Context
    def initialize(user:)
      @user = user
    end

    def authorize(record, query:)
      policy = policy!(record)
      policy.public_send(query)
    end

    def policy!(record)
      cached_find(record, &:policy!)
    end

    private

    def cached_find(record)
      klass = yield policy_finder(record)
      klass.new(@user, record)
    end

    def policy_finder(record)
      PolicyFinder.new(record)
    end
  end
end
""",
    "lib/pundit/policy_finder.rb": """module Pundit
  class PolicyFinder
    def initialize(object)
      @object = object
    end

    def policy!
      policy or raise ArgumentError, "unable to find policy"
    end

    def policy
      klass = find(@object)
      klass.is_a?(String) ? Object.const_get(klass) : klass
    end

    def find(subject)
      name = find_class_name(subject)
      "#{name}Policy"
    end

    def find_class_name(subject)
      subject.class.to_s.strip
    end
  end
end
""",
}


def test_a_ruby_symbol_block_runs_its_method_on_what_the_callee_yields(tmp_path):
    # pundit's `policy!(record)` is `cached_find(record, &:policy!)`, and `cached_find` yields `policy_finder(record)`,
    # a `PolicyFinder`: the work goes on in `PolicyFinder#policy!`, and chapter 1 says how, citing what R1 accepts
    from orchestrator.authoring.handoff import handed_to
    from orchestrator.authoring.hops import hops
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _steps
    from orchestrator.checks.citations import check_citations

    root = _write(tmp_path / "pundit", _PUNDIT)
    p = load(root)
    finder = symbol(p, "Pundit.PolicyFinder.policy!")
    assert handed_to(p, symbol(p, "Pundit.Context.policy!")) == (finder.rel, finder.d.start_line)
    assert [(h.how, h.tie) for h in hops(p, symbol(p, "Pundit.Context.policy!"))] == [("yielded", ("lib/pundit/context.rb", 24))]
    path = central_path(p, entry_points(p))
    assert [x.dotted for x in path][-3:] == ["Pundit.PolicyFinder.policy", "Pundit.PolicyFinder.find",
                                             "Pundit.PolicyFinder.find_class_name"]
    steps = "\n".join(_steps(p, path, {}, "en"))
    assert "the block `&:policy!` is run on what that method yields: the `PolicyFinder` made in" in steps
    assert [f.message for f in check_citations(steps, root)] == []


def test_a_light_call_handed_what_a_heavy_one_makes_on_its_line_hands_to_the_heavy_one(tmp_path):
    # remarkable's `render`: `return this.renderer.render(this.parse(str, env), this.options, env)`; the parse runs
    # the rules, the renderer only joins the tokens
    from orchestrator.authoring.handoff import handed_to

    index = """function Remarkable() {
  this.renderer = new Renderer();
  this.core = new Core();
}

Remarkable.prototype.parse = function (str) {
  var state = new StateCore(str);
  this.core.process(state);
  return state.tokens;
};

Remarkable.prototype.render = function (str) {
  return this.renderer.render(this.parse(str), {});
};

function StateCore(str) {
  this.src = str;
  this.tokens = [];
}

function Core() {}

Core.prototype.process = function (state) {
  block(state);
  inline(state);
};

function block(state) {
  state.tokens.push(paragraph(state.src));
}

function inline(state) {
  state.tokens.push(emphasis(state.src));
}

function paragraph(src) {
  return trimmed(src.split("\\n\\n")[0]);
}

function emphasis(src) {
  return trimmed(src.replace(/\\*/g, ""));
}

function trimmed(text) {
  return String(text).trim();
}

function Renderer() {}

Renderer.prototype.render = function (tokens) {
  return tokens.join("");
};

module.exports = Remarkable;
"""
    p = load(_write(tmp_path / "remarkable", {"package.json": '{"name": "remarkable", "main": "index.js"}\n',
                                              "index.js": index}))
    parse = symbol(p, "Remarkable.parse")
    assert handed_to(p, symbol(p, "Remarkable.render")) == (parse.rel, parse.d.start_line)
