"""Where chapter 1's main path goes (issue 35, session 30, set 29 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import symbol, traced as _path, write_files as _write

from orchestrator.authoring.project import load
from orchestrator.repo.parse import parse_source

# RestSharp's shape: a client whose README call is an extension method, written in C# 14's `extension(…)` block of a
# static class, on an interface the client implements; the extension hands to another with one argument more
_CLIENT = """namespace RestSharp;

public interface IRestClient {
    Task<RestResponse> ExecuteAsync(RestRequest request, CancellationToken cancellationToken = default);
}

public partial class RestClient : IRestClient {
    public RestClient(RestClientOptions options) {
        Options = options;
    }

    public RestClientOptions Options { get; }

    public async Task<RestResponse> ExecuteAsync(RestRequest request, CancellationToken cancellationToken = default) {
        var message = await SendAsync(request, cancellationToken);
        return RestResponse.FromHttpResponse(message, request);
    }

    async Task<HttpResponseMessage> SendAsync(RestRequest request, CancellationToken cancellationToken) {
#if NET
        if (!OperatingSystem.IsBrowser()) {
#endif
        request.Prepare();
        if (Options.Credentials != null) {
            request.Credentials = Options.Credentials;
        }
#if NET
        }
#endif
        request.AllowAutoRedirect = false;

#if NET
        if (!OperatingSystem.IsBrowser() && !OperatingSystem.IsIOS()) {
#endif
        if (request.SupportsProxy) request.Proxy = Options.Proxy;
#if NET
        }
#endif
        return await Options.Handler.SendAsync(request.ToMessage(), cancellationToken);
    }
}
"""

_EXTENSIONS = """namespace RestSharp;

public static partial class RestClientExtensions {
    /// <param name="client"></param>
    extension(IRestClient client) {
        public Task<RestResponse> ExecuteGetAsync(RestRequest request, CancellationToken cancellationToken = default)
            => client.ExecuteAsync(request, Method.Get, cancellationToken);

        public Task<RestResponse> ExecuteGetAsync(string resource, CancellationToken cancellationToken = default)
            => client.ExecuteAsync(new RestRequest(resource), Method.Get, cancellationToken);

        public Task<RestResponse<T>> ExecuteGetAsync<T>(RestRequest request, CancellationToken cancellationToken = default)
            => client.ExecuteAsync<T>(request, Method.Get, cancellationToken);

        public async Task<RestResponse> GetAsync(RestRequest request, CancellationToken cancellationToken = default) {
            var response = await client.ExecuteGetAsync(request, cancellationToken).ConfigureAwait(false);
            return response.ThrowIfError();
        }

        public Task<TResponse?> GetAsync<TResponse>(string resource, object parameters, CancellationToken cancellationToken = default) {
            var request = new RestRequest(resource);
            request.AddObject(parameters);
            return client.GetAsync<TResponse>(request, cancellationToken);
        }
    }

    public static Task<RestResponse> ExecuteAsync(
        this IRestClient client, RestRequest request, Method httpMethod, CancellationToken cancellationToken = default
    ) {
        request.Method = httpMethod;
        return client.ExecuteAsync(request, cancellationToken);
    }
}
"""

_RESPONSE = """namespace RestSharp;

public class RestResponse {
    public static RestResponse FromHttpResponse(HttpResponseMessage message, RestRequest request) {
        var response = new RestResponse();
        response.Content = message.Content.ReadAsString();
        response.Request = request;
        return response;
    }

    public RestResponse ThrowIfError() => this;
}

public class RestRequest {
    public RestRequest(string resource) {
        Resource = resource;
    }

    public string Resource { get; }
    public Method Method { get; set; }

    public void Prepare() {
        Resource = Resource.Trim();
    }

    public void AddObject(object parameters) {
        Resource = Resource + parameters.ToString().Trim();
    }

    public HttpRequestMessage ToMessage() => new HttpRequestMessage(Resource);
}

public class RestClientOptions {
    public RestClientOptions(string baseUrl) {
        BaseUrl = baseUrl;
    }

    public string BaseUrl { get; }
}
"""

_INTRO = """---
title: Quick start
---

## Basic Usage

```csharp
using RestSharp;

var options = new RestClientOptions("https://api.twitter.com/1.1");
var client = new RestClient(options);
var request = new RestRequest("statuses/home_timeline.json");
var response = await client.GetAsync(request, cancellationToken);
```
"""

_ADDON = """# RestSharp.Extensions.DependencyInjection

```csharp
public class MyClass(IRestClientFactory restClientFactory)
{
    IRestClient client = restClientFactory.CreateClient("my-client");
}
```
"""

_FACTORY = """namespace RestSharp.Extensions.DependencyInjection;

public interface IRestClientFactory {
    IRestClient CreateClient(string name);
}
"""


def _restsharp(tmp_path):
    return load(_write(tmp_path / "restsharp", {
        "README.md": "# RestSharp - Simple .NET REST Client\n\nRestSharp is a lightweight HTTP API client library.\n",
        "RestSharp.slnx": "<Solution/>\n",
        "docs/docs/intro.md": _INTRO,
        "src/RestSharp/RestClient.cs": _CLIENT,
        "src/RestSharp/RestClient.Extensions.cs": _EXTENSIONS,
        "src/RestSharp/RestResponse.cs": _RESPONSE,
        "src/RestSharp.Extensions.DependencyInjection/README.md": _ADDON,
        "src/RestSharp.Extensions.DependencyInjection/IRestClientFactory.cs": _FACTORY,
    }))


def _get(p):
    """The non-generic `GetAsync(RestRequest, …)`."""
    return next(x for x in p.symbols() if x.dotted == "RestClientExtensions.GetAsync" and "GetAsync<" not in x.d.signature)


def test_an_add_on_package_readme_comes_after_the_projects_introduction(tmp_path):
    from orchestrator.authoring.overview import entry_points, example_of

    p = _restsharp(tmp_path)
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.rel == "docs/docs/intro.md"


def test_the_methods_of_a_csharp_extension_block_are_its_static_class_methods():
    defs = {(d.kind, d.qualified_name) for d in parse_source(_EXTENSIONS, "csharp").definitions}
    assert ("method", "RestClientExtensions.GetAsync") in defs
    assert ("method", "RestClientExtensions.ExecuteGetAsync") in defs
    assert not any(name.endswith("extension") for _kind, name in defs)  # the block is no constructor
    # a local function of a method stays local
    local = "class A { int F() { int G(int x) => x; return G(1); } }"
    assert [d.qualified_name for d in parse_source(local, "csharp").definitions] == ["A", "A.F"]


def test_a_csharp_if_without_an_else_loses_the_grammar_no_class():
    # `#if NET⏎ if (…) {⏎ #endif … #if NET⏎ }⏎ #endif`: the directives alone are blanked for the parser
    names = [d.qualified_name for d in parse_source(_CLIENT, "csharp").definitions]
    assert "RestClient" in names and "RestClient.SendAsync" in names


def test_an_extension_methods_receiver_is_its_block_or_its_this_parameter(tmp_path):
    from orchestrator.authoring.extension_methods import receiver
    from orchestrator.authoring.signature import signature_parts

    p = _restsharp(tmp_path)
    assert receiver(p, _get(p)) == ("IRestClient", "client")
    three = symbol(p, "RestClientExtensions.ExecuteAsync")
    assert receiver(p, three) == ("IRestClient", "client")
    assert [prm.name for prm in signature_parts(three)[0]] == ["request", "httpMethod", "cancellationToken"]
    assert receiver(p, symbol(p, "RestClient.ExecuteAsync")) is None


def test_a_call_on_a_value_runs_the_extension_method_of_a_type_it_implements(tmp_path):
    # `client.GetAsync(request, …)` on a `RestClient`: the extension for `IRestClient` whose parameters fit (not the
    # generic one a call without type arguments cannot run, not the one taking a `string`); then its chain through
    # the `this` extension of three arguments to the interface's method and the class that implements it
    p = _restsharp(tmp_path)
    path = _path(p)
    main = path[path.index("|") + 1:]
    assert main[:6] == ["RestClientExtensions.GetAsync", "RestClientExtensions.ExecuteGetAsync",
                        "RestClientExtensions.ExecuteAsync", "IRestClient.ExecuteAsync", "RestClient.ExecuteAsync",
                        "RestClient.SendAsync"]


def test_an_argument_made_by_var_is_of_the_type_it_news(tmp_path):
    from orchestrator.authoring.example_args import takes

    p = _restsharp(tmp_path)
    code = 'var request = new RestRequest("x");\nvar r = await client.GetAsync(request, ct);'
    by_request = _get(p)
    by_resource = next(x for x in p.symbols() if x.dotted == "RestClientExtensions.GetAsync" and x is not by_request)
    assert takes(p, by_request, "request, ct", code, typed=False)
    assert not takes(p, by_resource, "request, ct", code, typed=False)  # a `string resource`, and generic


# Bogus' shape: a README whose "Great C# Example" under "Usage" is too long to quote whole, making two fakers with
# commented fluent rules and running the second at its end; an interface declares the rules the class implements
_FAKER = """namespace Bogus;

public class Faker<T> : IRuleSet<T> where T : class {
    private readonly Dictionary<string, PopulateAction<T>> actions = new();

    public virtual Faker<T> StrictMode(bool ensureRulesForAllProperties) {
        this.strict = ensureRulesForAllProperties;
        return this;
    }

    public virtual Faker<T> RuleFor<TProperty>(Expression<Func<T, TProperty>> property, Func<Faker, TProperty> setter) {
        var name = PropertyName.For(property);
        return AddRule(name, (f, t) => setter(f));
    }

    protected virtual Faker<T> AddRule(string propertyOrField, Func<Faker, T, object> invoker) {
        var rule = new PopulateAction<T> { Action = invoker, PropertyName = propertyOrField };
        this.actions.Add(propertyOrField, rule);
        return this;
    }

    public virtual Faker<T> FinishWith(Action<Faker, T> action) {
        this.finish = action;
        return this;
    }

    public virtual T Generate(string ruleSets = null) {
        var instance = Activator.CreateInstance<T>();
        PopulateInternal(instance, ruleSets);
        return instance;
    }

    protected virtual void PopulateInternal(T instance, string ruleSets) {
        foreach (var action in this.actions.Values) {
            PopulateProperty(instance, action);
        }
    }

    private void PopulateProperty(T instance, PopulateAction<T> action) {
        var value = action.Action(this.hub, instance);
        action.Setter(instance, value);
    }
}

public static class PropertyName {
    public static string For<T, TProperty>(Expression<Func<T, TProperty>> property) {
        var member = property.Body as MemberExpression;
        return member.Member.Name.Trim();
    }
}
"""

_RULESET = """namespace Bogus;

public interface IRuleSet<T> {
    Faker<T> RuleFor<TProperty>(Expression<Func<T, TProperty>> property, Func<Faker, TProperty> setter);
}
"""

# the facade `Faker` beside `Faker<T>`: the entry point the README's `Faker` names first
_FACADE = """namespace Bogus;

public class Faker {
    public Faker(string locale = "en") {
        Locale = locale;
    }

    public string Locale { get; }

    public T PickRandom<T>(IEnumerable<T> items) {
        return items.First();
    }
}

public class Randomizer {
    public int Number(int max) => max;
}

public class Lorem {
    public string Sentence() => "";
}

public class Internet {
    public string Email() => "";
}
"""

_GREAT = "\n".join([
    "# Bogus", "", "Usage", "-----", "### The Great C# Example", "", "```csharp",
    "public enum Gender", "{", "    Male,", "    Female", "}", "",
    "Randomizer.Seed = new Random(8675309);", "",
    "var orderIds = 0;",
    "var testOrders = new Faker<Order>()",
    "    //Ensure all properties have rules. By default, StrictMode is false",
    "    .StrictMode(true)",
    *[line for k in range(6) for line in (f"    //Rule number {k}", f"    .RuleFor(o => o.Field{k}, f => orderIds++)")],
    "",
    "var userIds = 0;",
    "var testUsers = new Faker<User>()",
    "    //Optional: Call for objects that have complex initialization",
    *[line for k in range(8) for line in (f"    //Basic rule {k}", f"    .RuleFor(u => u.Name{k}, (f, u) => f.Random.Number({k}) + f.Lorem.Sentence() + f.Internet.Email())")],
    "    //And composability of a complex collection.",
    "    .RuleFor(u => u.Orders, f => testOrders.Generate())",
    "    .FinishWith((f, u) =>",
    "        {",
    '            Console.WriteLine("User Created! Id={0}", u.Id);',
    "        });",
    "",
    "var user = testUsers.Generate();",
    "Console.WriteLine(user.DumpAsJson());",
    "```", "",
    "### Without Fluent Syntax", "",
    "#### Using the `Faker` facade:",
    "```csharp",
    "public void Using_The_Faker_Facade()",
    "{",
    "   var faker = new Faker<Order>();",
    "   var o = faker.Generate();",
    "}",
    "```", ""])


def test_a_long_example_is_quoted_from_the_making_of_the_value_it_runs_to_the_run(tmp_path):
    # the Great C# Example's second faker, `var userIds = 0;` to `Console.WriteLine(user.DumpAsJson());`: a heading's
    # "Great" and "C#" name no feature; then `testUsers.Generate()` is the run, set up by the rule its chain repeats
    # (comments between the links, an interface's `RuleFor` the entry point), not `testOrders.Generate()` in a rule
    from orchestrator.authoring.overview import entry_points, example_of

    p = load(_write(tmp_path / "bogus", {"README.md": _GREAT, "Source/Bogus/Bogus.csproj": "<Project/>\n",
                                         "Source/Bogus/Faker[T].cs": _FAKER, "Source/Bogus/Faker.cs": _FACADE,
                                         "Source/Bogus/IRuleSet.cs": _RULESET}))
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.code.startswith("var userIds = 0;")
    assert ex.code.endswith("Console.WriteLine(user.DumpAsJson());")
    assert _path(p) == ["Faker.RuleFor", "Faker.AddRule", "|", "Faker.Generate", "Faker.PopulateInternal",
                        "Faker.PopulateProperty"]


# tty-prompt's shape: the README's first block only makes the prompt (`TTY::Prompt.new`, no parentheses), the next
# asks; `ask` hands its question class to a public `invoke_question`, which the other questions share with their own
# subclasses, and calls the question it made with Ruby's `question.(message)`
_PROMPT = {
    "README.md": "\n".join([
        "# TTY::Prompt", "", "## 1. Usage", "", "In order to start asking questions on the command line, create prompt:", "",
        "```ruby", 'require "tty-prompt"', "", "prompt = TTY::Prompt.new", "```", "",
        "And then call `ask` with the question for simple input:", "",
        "```ruby", 'prompt.ask("What is your name?", default: ENV["USER"])', "# => What is your name? (piotr)", "```", "",
        "To confirm input use `yes?`:", "", "```ruby", 'prompt.yes?("Do you like Ruby?")', "```", ""]),
    "tty-prompt.gemspec": "Gem::Specification.new do |s|\n  s.name = 'tty-prompt'\nend\n",
    "lib/tty/prompt.rb": """module TTY
  class Prompt
    def initialize(input: $stdin, output: $stdout)
      @input = input
      @output = output
    end

    # Invoke a question type of prompt.
    #
    # @example
    #   prompt.invoke_question(Question, "Your name? ")
    #
    # @api public
    def invoke_question(object, message, **options, &block)
      asked = object.new(self, **options)
      asked.(message, &block)
    end

    def ask(message = "", **options, &block)
      invoke_question(Question, message, **options, &block)
    end

    def keypress(message = "", **options, &block)
      invoke_question(Keypress, message, **options, &block)
    end

    def yes?(message, **options, &block)
      invoke_question(ConfirmQuestion, message, **options, &block)
    end
  end
end
""",
    "lib/tty/prompt/question.rb": """module TTY
  class Prompt
    class Question
      def initialize(prompt, **options)
        @prompt = prompt
        @default = options.fetch(:default, nil)
      end

      def call(message = "", &block)
        @message = message
        render
      end

      def render
        @prompt.print(@message)
        result = process_input
        @prompt.puts(result)
        result
      end

      def process_input
        line = @prompt.read_line
        line.empty? ? @default : line.strip
      end
    end

    class Keypress < Question
      def process_input
        @prompt.read_keypress
      end
    end

    class ConfirmQuestion < Question
      def process_input
        super == "y"
      end
    end

    class Converter
      def call(input)
        input.to_s.strip
      end
    end
  end
end
""",
}


def test_a_class_the_callers_hand_in_to_be_made_is_the_base_they_share(tmp_path):
    # `prompt = TTY::Prompt.new` is run by the next block's `prompt.ask(…)`; `invoke_question(object, …)` makes
    # `object.new(…)`, given `Question` or a subclass of it: `asked.(message)` runs `Question#call`, told by its line
    from orchestrator.authoring.overview import entry_points, example_of
    from orchestrator.authoring.tracing import call_line
    from orchestrator.evidence.resolve import calls_in

    p = load(_write(tmp_path / "tty-prompt", _PROMPT))
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.then is not None and "prompt.ask(" in ex.then.code
    path = _path(p)
    main = path[path.index("|") + 1:]
    assert main[:4] == ["TTY.Prompt.ask", "TTY.Prompt.invoke_question", "TTY.Prompt.Question.call",
                        "TTY.Prompt.Question.render"]
    caller, callee = symbol(p, "TTY.Prompt.invoke_question"), symbol(p, "TTY.Prompt.Question.call")
    at = call_line(p, caller, callee)
    assert p.lines_of(caller.rel)[at - 1].strip() == "asked.(message, &block)"
    assert calls_in("TTY.Prompt.Question.call", "      question.(message, &block)")


# typebox's shape: the package's default export is a namespace of its modules, imported by the README as `Type`; the
# script parser defines a function `Type` too; the README's `Type.Object(…)` is `_Object_`, exported as `Object`
_TYPEBOX = {
    "readme.md": "\n".join(["# TypeBox", "", "## Usage", "", "```typescript", "import Type from 'typebox'", "",
                            "const T = Type.Object({", "  x: Type.Number(),", "  y: Type.Number()", "})", "```", ""]),
    "package.json": '{"name": "typebox", "main": "src/index.ts"}\n',
    "src/index.ts": "export * from './type/types/index.ts'\n"
                    "export * as Type from './typebox.ts'\nimport * as Type from './typebox.ts'\nexport default Type\n",
    "src/typebox.ts": "export { Object } from './type/types/object.ts'\nexport { Number } from './type/types/number.ts'\n"
                      "export { Script } from './type/script/parser.ts'\n",
    "src/type/types/index.ts": "export * from './object.ts'\nexport * from './number.ts'\n",
    "src/type/types/object.ts": """import { IsOptional } from './optional.ts'

/** Creates an Object type. */
export function _Object_(properties: object, options: object = {}): object {
  const required = RequiredArray(properties)
  return Create({ '~kind': 'Object' }, { type: 'object', required, properties }, options)
}
export { _Object_ as Object } // Prevent Collision With Global Scope

function RequiredArray(properties: object): string[] {
  const keys = globalThis.Object.getOwnPropertyNames(properties)
  return keys.filter((key) => !IsOptional(properties[key]))
}

function Create(kind: object, schema: object, options: object): object {
  return { ...kind, ...schema, ...options }
}
""",
    "src/type/types/optional.ts": "export function IsOptional(value: any): boolean {\n"
                                  "  return typeof value === 'object' && value !== null && '~optional' in value\n}\n",
    "src/type/types/number.ts": "export function Number(options: object = {}): object {\n  return { type: 'number', ...options }\n}\n",
    "src/type/script/parser.ts": """export function Script(input: string): object {
  return Type(Tokens(input))
}

export function Type(tokens: string[]): object {
  const head = Expr(tokens)
  const tail = ExprTail(tokens)
  return { head, tail }
}

function Expr(tokens: string[]): object {
  return ExprTail(tokens.slice(1))
}

function ExprTail(tokens: string[]): object {
  return { rest: tokens.join(' ').trim() }
}

function Tokens(input: string): string[] {
  return input.split(' ').map((token) => token.trim())
}
""",
}


def test_a_readme_name_bound_to_the_packages_namespace_is_no_function_of_that_name(tmp_path):
    from orchestrator.authoring.overview import entry_points

    defs = parse_source(_TYPEBOX["src/type/types/object.ts"], "typescript").definitions
    assert next(d for d in defs if d.name == "_Object_").aliases == ["Object"]
    p = load(_write(tmp_path / "typebox", _TYPEBOX))
    entries = [s.dotted for s in entry_points(p)]
    assert "Type" not in entries and "_Object_" in entries
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["_Object_", "RequiredArray"]


# multer's shape: a factory returns `new Multer(…)`, an ES5 constructor with prototype methods; the README runs
# `upload.single('avatar')` inside express's `app.post(…)`; `_makeMiddleware` hands a bound `setup` to `makeMiddleware`
_MULTER = {
    "README.md": "\n".join(["# Multer", "", "## Usage", "", "```javascript", "const express = require('express')",
                            "const multer  = require('multer')", "const upload = multer({ dest: 'uploads/' })", "",
                            "const app = express()", "",
                            "app.post('/profile', upload.single('avatar'), function (req, res, next) {",
                            "  // req.file is the `avatar` file", "})", "",
                            "const uploadMiddleware = upload.fields([{ name: 'avatar', maxCount: 1 }])",
                            "app.post('/cool-profile', uploadMiddleware, function (req, res, next) {", "})", "```", ""]),
    "package.json": '{"name": "multer", "main": "index.js"}\n',
    "index.js": """var makeMiddleware = require('./lib/make-middleware')

function Multer (options) {
  this.storage = options.storage
  this.limits = options.limits
}

Multer.prototype._makeMiddleware = function (fields, fileStrategy) {
  function setup () {
    var filesLeft = Object.create(null)
    fields.forEach(function (field) {
      filesLeft[field.name] = field.maxCount
    })
    return { limits: this.limits, storage: this.storage, fileStrategy: fileStrategy, filesLeft: filesLeft }
  }

  return makeMiddleware(setup.bind(this))
}

Multer.prototype.single = function (name) {
  return this._makeMiddleware([{ name: name, maxCount: 1 }], 'VALUE')
}

Multer.prototype.fields = function (fields) {
  return this._makeMiddleware(fields, 'OBJECT')
}

function multer (options) {
  if (options === undefined) {
    return new Multer({})
  }
  return new Multer(options)
}

module.exports = multer
""",
    "lib/make-middleware.js": """var Busboy = require('busboy')

function makeMiddleware (setup) {
  return function multerMiddleware (req, res, next) {
    var options = setup()
    var busboy = Busboy({ headers: req.headers, limits: options.limits })
    busboy.on('file', function (fieldname, fileStream) {
      options.storage._handleFile(req, fileStream, next)
    })
    req.pipe(busboy)
  }
}

module.exports = makeMiddleware
""",
}


def test_a_value_run_inside_another_packages_call_and_a_bound_function_handed_on(tmp_path):
    # `upload` holds what `multer(…)` makes, a `Multer` (a constructor function with methods); its first run is
    # `upload.single(…)` inside `app.post(…)`, not the later `upload.fields(…)` statement; `_makeMiddleware` hands to
    # `makeMiddleware`, which runs the `setup` bound for it later
    from orchestrator.authoring.example_calls import example_type
    from orchestrator.authoring.handoff import handed_to

    p = load(_write(tmp_path / "multer", _MULTER))
    code = _MULTER["README.md"].split("```javascript\n")[1].split("```")[0]
    assert example_type(p, code, "upload", "javascript") == "Multer"
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["Multer.single", "Multer._makeMiddleware", "makeMiddleware"]
    made = symbol(p, "makeMiddleware")
    assert handed_to(p, symbol(p, "Multer._makeMiddleware")) == (made.rel, made.d.start_line)


# formidable's shape: the README's server is made around a function literal that makes the form and parses the
# request into destructured locals; the package's `formidable` is an arrow function making the default import's class
_FORMIDABLE = {
    "README.md": "\n".join([
        "# formidable", "", "## Examples", "", "```js", 'import http from "node:http";', 'import formidable from "formidable";', "",
        "const server = http.createServer(async (req, res) => {",
        '  if (req.url === "/api/upload") {',
        "    const form = formidable({});", "    let fields;", "    let files;",
        "    [fields, files] = await form.parse(req);",
        '    res.end(JSON.stringify({ fields, files }, null, 2));', "    return;", "  }",
        '  res.end("<form></form>");', "});", "",
        "server.listen(8080, () => {", '  console.log("Server listening ...");', "});", "```", ""]),
    "package.json": '{"name": "formidable", "main": "src/index.js"}\n',
    "src/index.js": 'import Formidable from "./Formidable.js";\n\n'
                    "const formidable = (...args) => new Formidable(...args);\n\nexport default formidable;\n"
                    "export { Formidable, Formidable as IncomingForm, formidable };\n",
    "src/Formidable.js": """import { EventEmitter } from "node:events";

class IncomingForm extends EventEmitter {
  constructor(options = {}) {
    super();
    this.options = { maxFields: 1000, ...options };
    this.fields = {};
    this._setUpMaxFiles();
  }

  _setUpMaxFiles() {
    if (this.options.maxFiles !== Infinity) {
      let fileCount = 0;
      this.on("fileBegin", () => {
        fileCount += 1;
      });
    }
  }

  async parse(req) {
    this.writeHeaders(req.headers);
    for await (const chunk of req) {
      this.write(chunk);
    }
    return [this.fields, []];
  }

  writeHeaders(headers) {
    this.headers = headers;
    this._parseContentType();
  }

  _parseContentType() {
    const type = this.headers["content-type"] || "";
    this.parser = type.includes("multipart") ? "multipart" : "json";
    this.boundary = type.split("boundary=")[1];
  }

  write(buffer) {
    this.bytesReceived += buffer.length;
    this.fields[this.parser] = buffer.toString();
  }
}

export default IncomingForm;
""",
}


def test_a_value_made_and_run_inside_a_servers_function_literal(tmp_path):
    # `formidable({})` gives what `new Formidable(…)` makes, the default export `IncomingForm`; `server.listen(8080)` runs
    # the function the server was made around, whose `[fields, files] = await form.parse(req)` is the run
    from orchestrator.authoring.example_calls import built_type

    p = load(_write(tmp_path / "formidable", _FORMIDABLE))
    code = _FORMIDABLE["README.md"].split("```js\n")[1].split("```")[0]
    assert built_type(p, code, "form", "javascript") == "IncomingForm"
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["IncomingForm.parse", "IncomingForm.writeHeaders", "IncomingForm._parseContentType"]
    assert path[0] == "formidable"


# ws' shape (set 30): the README makes a client and sends from its `open` listener; `send` takes more parameters than
# the call gives, as JavaScript allows; acorn's: a static `parse` runs `new this(…).parse()`, the instance's
_WS = {
    "README.md": "\n".join(["# ws", "", "## Usage examples", "", "### Sending and receiving text data", "", "```js",
                            "import WebSocket from 'ws';", "", "const ws = new WebSocket('ws://www.host.com/path');", "",
                            "ws.on('error', console.error);", "", "ws.on('open', function open() {", "  ws.send('something');",
                            "});", "", "ws.on('message', function message(data) {", "  console.log('received: %s', data);",
                            "});", "```", ""]),
    "package.json": '{"name": "ws", "main": "index.js"}\n',
    "index.js": "const WebSocket = require('./lib/websocket');\n\nmodule.exports = WebSocket;\n",
    "lib/websocket.js": """const Sender = require('./sender');

class WebSocket {
  constructor(address, protocols, options) {
    this._sender = new Sender();
    initAsClient(this, address, protocols, options);
  }

  send(data, options, cb) {
    const opts = { binary: typeof data !== 'string', ...options };
    this._sender.send(data, opts, cb);
  }

  close(code, data) {
    this._sender.close(code, data);
  }
}

function initAsClient(websocket, address, protocols, options) {
  const opts = { protocolVersion: 13, ...options };
  websocket._url = new URL(address);
  websocket._protocols = protocols || [];
  websocket._opts = opts;
}

module.exports = WebSocket;
""",
    "lib/sender.js": """class Sender {
  send(data, options, cb) {
    const frame = Sender.frame(data, options);
    this.dispatch(frame, cb);
  }

  dispatch(frame, cb) {
    this._socket.write(frame);
    if (cb) cb();
  }

  close(code, data) {
    this.dispatch(Sender.frame(data, { code }));
  }

  static frame(data, options) {
    const buf = Buffer.from(data);
    return options.mask ? buf.map((b) => b ^ 0x20) : buf;
  }
}

module.exports = Sender;
""",
}


def test_a_run_in_a_listener_and_a_call_with_fewer_arguments_than_parameters(tmp_path):
    p = load(_write(tmp_path / "ws", _WS))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["WebSocket.send", "Sender.send", "Sender.dispatch"]
    assert path[:2] == ["WebSocket.constructor", "initAsClient"]


def test_a_static_method_runs_the_instance_method_of_what_it_constructs_with_new_this(tmp_path):
    from orchestrator.authoring.facts import all_calls

    src = """export class Parser {
  constructor(options, input) {
    this.input = input
    this.options = options
  }

  parse() {
    const node = this.startNode()
    return this.parseTopLevel(node)
  }

  startNode() {
    return { type: 'Program', start: 0 }
  }

  parseTopLevel(node) {
    node.body = this.input.split(';')
    return node
  }

  static parse(input, options) {
    return new this(options, input).parse()
  }
}
"""
    p = load(_write(tmp_path / "acorn", {"package.json": '{"name": "acorn"}\n', "src/state.js": src}))
    static = next(x for x in p.symbols() if x.dotted == "Parser.parse" and "static" in x.d.signature)
    assert [(c.dotted, c.d.start_line) for c in all_calls(p, static)] == [("Parser.parse", 7)]
