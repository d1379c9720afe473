"""Where chapter 1's main path goes (issue 35, session 31, set 30 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.example_calls import final_call
from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.overview import entry_points, example_of
from orchestrator.authoring.project import load

# pastel's shape: a module whose own `new` (a module function) builds a delegator, and a delegator that answers
# every colour a user calls on it through `method_missing`
_PASTEL = {
    "README.md": """# pastel

Terminal output styling.

## Usage

```ruby
pastel = Pastel.new

puts pastel.red("Unicorns!")
```
""",
    "pastel.gemspec": "Gem::Specification.new { |s| s.name = 'pastel' }\n",
    "lib/pastel.rb": """require_relative "pastel/delegator"

module Pastel
  def new(enabled: nil)
    color = Color.new(enabled: enabled)
    resolver = ColorResolver.new(color)
    Delegator.wrap(resolver)
  end
  module_function :new
end
""",
    "lib/pastel/delegator.rb": """module Pastel
  class Delegator
    def self.wrap(resolver, chain = [])
      new(resolver, chain)
    end

    def initialize(resolver, chain)
      @resolver = resolver
      @chain = chain
    end

    def method_missing(method_name, *args, &block)
      new_chain = @chain + [method_name]
      if args.empty?
        self.class.wrap(@resolver, new_chain)
      else
        @resolver.resolve(new_chain, args.join)
      end
    end
  end
end
""",
    "lib/pastel/color_resolver.rb": """module Pastel
  class ColorResolver
    attr_reader :color

    def initialize(color)
      @color = color
    end

    def resolve(base, string)
      color.decorate(string, *base)
    end
  end
end
""",
    "lib/pastel/color.rb": """module Pastel
  class Color
    def initialize(enabled: nil)
      @enabled = enabled
    end

    def decorate(string, *colors)
      return string if string.empty?
      apply_codes(string, colors)
    end

    def apply_codes(string, colors)
      colors.join + string
    end
  end
end
""",
}


def test_a_module_functions_new_gives_what_it_builds_and_method_missing_answers_the_call_on_it(tmp_path):
    # `Pastel.new` is the module's own function, which returns a `Delegator`; `pastel.red(…)` is no method of
    # it: its `method_missing` runs, and hands to the resolver and the colour
    p = load(_write(tmp_path / "pastel", _PASTEL))
    path = _path(p)
    run = path[path.index("|") + 1:]
    assert run[:3] == ["Pastel.Delegator.method_missing", "Pastel.ColorResolver.resolve", "Pastel.Color.decorate"], path
    # chapter 1 says that Ruby sends the example's call there, not that a user calls `method_missing`
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.story import _path_walk

    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en", after_setup=True))
    assert "`Pastel::Delegator` defines no method for the example's `pastel.red(…)`, so Ruby sends the call to its " \
           "`Pastel::Delegator::method_missing`" in text, text



# showdown's shape: an ES5 constructor assigned to a member of the package object, its methods `this.x = function`
# in its body; the README makes it as `new showdown.Converter()` in one `var` with the call that runs it
_SHOWDOWN = {
    "README.md": """# showdown

```js
var showdown  = require('showdown'),
    converter = new showdown.Converter(),
    text      = '# hello, markdown!',
    html      = converter.makeHtml(text);
```
""",
    "package.json": '{"name": "showdown", "main": "src/showdown.js"}\n',
    "src/showdown.js": "var showdown = {};\nmodule.exports = showdown;\n",
    "src/converter.js": """showdown.Converter = function (converterOptions) {
  var options = converterOptions || {};

  this.makeHtml = function (text) {
    if (!text) {
      return text;
    }
    text = this.normalize(text);
    return this.blocks(text);
  };

  this.normalize = function (text) {
    return text.replace(/\\r\\n/g, '\\n');
  };

  this.blocks = function (text) {
    return '<p>' + text + '</p>';
  };
};
""",
}


def test_the_this_members_of_a_constructor_assigned_to_a_packages_name_are_its_methods(tmp_path):
    p = load(_write(tmp_path / "showdown", _SHOWDOWN))
    assert {s.dotted for s in p.symbols() if s.kind == "method"} >= {"showdown.Converter.makeHtml", "showdown.Converter.blocks"}
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["showdown.Converter.makeHtml", "showdown.Converter.blocks"], path
    # the value is made by `new showdown.Converter()`: the class the package's member names
    ex = example_of(p, entry_points(p))
    assert [s.dotted for s in final_call(p, ex.code, "javascript")] == ["showdown.Converter.makeHtml"]


def test_a_js_this_call_is_the_method_its_own_file_defines_of_a_class_name_two_files_define(tmp_path):
    # superagent: src/node/index.js and src/client.js (the browser's) each define `Request` and its `_end`
    body = "function Request(url) {\n  this.url = url;\n}\n\nRequest.prototype.end = function (fn) {\n  this._callback = fn;\n" \
           "  this._end();\n};\n\nRequest.prototype._end = function () {\n  return this.url;\n};\n\nmodule.exports = Request;\n"
    p = load(_write(tmp_path / "agent", {"package.json": '{"name": "agent", "main": "src/node/index.js"}\n',
                                         "src/node/index.js": body, "src/client.js": body}))
    end = next(s for s in p.symbols() if s.dotted == "Request.end" and s.rel == "src/node/index.js")
    assert [(c.dotted, c.rel) for c in all_calls(p, end)] == [("Request._end", "src/node/index.js")]


def test_a_comment_after_the_statement_that_makes_an_examples_value_is_not_read_as_its_value(tmp_path):
    # neverthrow's `const myResult = ok({ myData: 'test' }) // instance of `Ok``
    p = load(_write(tmp_path / "nt", {
        "package.json": '{"name": "nt", "main": "src/index.ts"}\n',
        "src/index.ts": "export class Ok<T> {\n  constructor(readonly value: T) {}\n\n  isOk(): boolean {\n    return true\n  }\n}\n\n"
                        "export function ok<T>(value: T): Ok<T> {\n  return new Ok(value)\n}\n"}))
    code = "import { ok } from 'nt'\n\nconst myResult = ok({ myData: 'test' }) // instance of `Ok`\n\nmyResult.isOk() // true\n"
    assert [s.dotted for s in final_call(p, code, "typescript")] == ["Ok.isOk"]


def test_a_first_block_that_only_makes_a_value_gives_way_to_the_sections_block_that_makes_and_runs_its_own(tmp_path):
    # Sprache's Usage: `var parseA = Parse.Char('A').AtLeastOnce();` alone, then a block that builds `identifier`
    # and runs `identifier.Parse(" abc123  ")`
    p = load(_write(tmp_path / "sp", {
        "README.md": "# sp\n\n### Usage\n\nA simple parser:\n\n```csharp\nvar parseA = Parse.Char('A').AtLeastOnce();\n```\n\n"
                     "Bigger ones:\n\n```csharp\nParser<string> identifier =\n    from first in Parse.Letter.Once()\n    select first;\n\n"
                     "var id = identifier.Parse(\" abc123  \");\n\nAssert.AreEqual(\"abc123\", id);\n```\n\n### Background\n\nText.\n",
        "src/Sp/Sp.csproj": "<Project/>\n",
        "src/Sp/Parse.cs": "namespace Sp\n{\n    public static class Parse\n    {\n        public static Parser<char> Char(char c)\n"
                           "        {\n            return i => i;\n        }\n    }\n}\n",
    }))
    ex = example_of(p, entry_points(p))
    assert ex is not None and "identifier.Parse" in ex.code and "parseA" not in ex.code


def test_a_step_into_a_ruby_initialize_names_the_new_its_line_writes(tmp_path):
    # highline's `Terminal.get_terminal` writes `HighLine::Terminal::UnixStty.new(input, output)`, which runs the
    # `initialize` UnixStty has from Terminal: "calls `Terminal::initialize`" is what R1 cannot see on that line
    from orchestrator.authoring.tracing import imported_as

    p = load(_write(tmp_path / "hl", {
        "lib/hl/terminal.rb": "class HighLine\n  class Terminal\n    def self.get_terminal(input, output)\n"
                              "      terminal = HighLine::Terminal::UnixStty.new(input, output)\n      terminal\n    end\n\n"
                              "    def initialize(input, output)\n      @input = input\n    end\n  end\nend\n",
        "lib/hl/terminal/unix_stty.rb": "class HighLine\n  class Terminal\n    class UnixStty < Terminal\n"
                                        "      def raw\n        1\n      end\n    end\n  end\nend\n"}))
    init = next(s for s in p.symbols() if s.dotted == "HighLine.Terminal.initialize")
    assert imported_as(p, init, "lib/hl/terminal.rb", 4) == "HighLine::Terminal::UnixStty.new"


# zustand's shape: a README with no title (a logo, badges, an install line), whose first section "First create a store"
# shows the use before a later "TypeScript Usage"; `create` is an arrow function in parentheses cast to its type, whose
# body calls on in a conditional expression
_ZUSTAND = {
    "README.md": """<p align="center"><img src="./bear.jpg" /></p>

A small state-management solution.

```bash
npm install zustand
```

## First create a store

```jsx
import { create } from 'zustand'

const useBearStore = create((set) => ({
  bears: 0,
}))
```

# Recipes

## TypeScript Usage

```ts
import { create } from 'zustand'
import { persist } from 'zustand/middleware'

const useBearStore = create<BearState>()(persist((set) => ({ bears: 0 }), { name: 'bears' }))
```
""",
    "package.json": '{"name": "zustand", "main": "src/index.ts"}\n',
    "src/index.ts": "export { create } from './react'\nexport { persist } from './middleware'\n",
    "src/middleware.ts": "export const persist = (fn: any, options: any) => {\n  return fn\n}\n",
    "src/react.ts": """import { createStore } from './vanilla'

const createImpl = <T>(createState: StateCreator<T>) => {
  const api = createStore(createState)
  return api
}

export const create = (<T>(createState: StateCreator<T> | undefined) =>
  createState ? createImpl(createState) : createImpl) as Create
""",
    "src/vanilla.ts": """const createStoreImpl = (createState: any) => {
  let state: any
  const setState = (partial: any) => {
    state = partial
  }
  state = createState(setState)
  return { setState }
}

export const createStore = ((createState: any) =>
  createState ? createStoreImpl(createState) : createStoreImpl) as CreateStore
""",
}


def test_an_untitled_readme_opens_with_its_first_section_and_a_cast_arrow_is_a_function_with_its_calls(tmp_path):
    p = load(_write(tmp_path / "zustand", _ZUSTAND))
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.first == 12, ex  # "First create a store", not "TypeScript Usage"
    assert next(s for s in p.symbols() if s.dotted == "create").kind == "function"
    # `createState ? createImpl(createState) : createImpl` calls `createImpl`: no method head `createImpl(…): T`
    assert [c.dotted for c in all_calls(p, next(s for s in p.symbols() if s.dotted == "create"))] == ["createImpl"]
    path = _path(p)
    assert path[path.index("|") + 1:] == ["create", "createImpl", "createStore", "createStoreImpl"], path


# konform's shape: "### Use" shows the validation built with a lambda, the next block runs it by calling the value;
# its `operator fun invoke` validates; the builder's file calls a function named `dynamic`
_KONFORM = {
    "README.md": """# Portable validations

### Use

```kotlin
val validateUser = Validation<UserProfile> {
    UserProfile::fullName {
        minLength(2)
    }
}
```

and apply it to your data

```kotlin
val invalidUser = UserProfile("A", -1)
val validationResult = validateUser(invalidUser)
```

### Detailed usage

#### Hints

```kotlin
val validateUser = Validation<UserProfile> {
    UserProfile::age ifPresent {
        minimum(0) hint "Registering before birth is not supported"
    }
}
```
""",
    "build.gradle.kts": "plugins { kotlin(\"multiplatform\") }\n",
    "src/commonMain/kotlin/io/konform/validation/Validation.kt": """package io.konform.validation

public interface Validation<in T> {
    public companion object {
        public operator fun <T> invoke(init: ValidationBuilder<T>.() -> Unit): Validation<T> = ValidationBuilder.buildWithNew(init)
    }

    public fun validate(value: T): ValidationResult<T>

    public operator fun invoke(value: T): ValidationResult<T> = validate(value)
}
""",
    "src/commonMain/kotlin/io/konform/validation/ValidationBuilder.kt": """package io.konform.validation

public open class ValidationBuilder<T> {
    private val constraints = mutableListOf<Constraint<T>>()

    public fun build(): Validation<T> {
        val nested = constraints.map { it.check() }
        return ConstraintsValidation(nested)
    }

    public infix fun <R> KProperty1<T, R>.dynamic(init: ValidationBuilder<R>.(T) -> Unit): Unit = dynamic(this, this, init)

    public fun minLength(length: Int) {
        constraints.add(Constraint(length))
    }

    public companion object {
        public inline fun <T> buildWithNew(block: ValidationBuilder<T>.() -> Unit): Validation<T> {
            val builder = ValidationBuilder<T>()
            block(builder)
            return builder.build()
        }
    }
}
""",
}


def test_a_kotlin_value_called_runs_its_invoke_operator_after_the_use_section_that_builds_it(tmp_path):
    p = load(_write(tmp_path / "konform", _KONFORM))
    # the class survives a call of a function named `dynamic`
    assert {"ValidationBuilder.build", "ValidationBuilder.buildWithNew"} <= {s.dotted for s in p.symbols()}
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.first == 6 and ex.then is not None and "validateUser(invalidUser)" in ex.then.code, ex
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Validation.invoke", "Validation.validate"], path
    assert path[:path.index("|")] == ["Validation.invoke", "ValidationBuilder.buildWithNew", "ValidationBuilder.build"], path
    # chapter 1 says the example calls its value, cited by the `invoke` the path starts from (not the companion's)
    from orchestrator.authoring.story import overview_sections

    text = "\n".join(overview_sections({}, p, [], "en"))
    assert "The example calls the value it built as a function, which runs the `operator fun invoke` of its type, " \
           "`Validation.invoke`" in text, text
    assert "(source:src/commonMain/kotlin/io/konform/validation/Validation.kt#L10-L10)):" in text, text


def test_removing_a_listener_is_no_run_of_the_emitter(tmp_path):
    # eventemitter3's example: `EE.once(…)`, `EE.on(…)`, then `EE.removeListener(…)`, which undoes what they set up
    p = load(_write(tmp_path / "ee", {
        "package.json": '{"name": "ee", "main": "index.js"}\n',
        "index.js": "function EE(fn, context) {\n  this.fn = fn;\n  this.context = context;\n}\n\n"
                    "function addListener(emitter, event, fn, context) {\n  var listener = new EE(fn, context);\n"
                    "  emitter._events[event] = listener;\n  return emitter;\n}\n\n"
                    "function EventEmitter() {\n  this._events = {};\n}\n\n"
                    "EventEmitter.prototype.on = function on(event, fn, context) {\n  return addListener(this, event, fn, context);\n};\n\n"
                    "EventEmitter.prototype.once = function once(event, fn, context) {\n  return addListener(this, event, fn, context);\n};\n\n"
                    "EventEmitter.prototype.removeListener = function removeListener(event, fn) {\n  delete this._events[event];\n"
                    "  return this;\n};\n\nmodule.exports = EventEmitter;\n"}))
    code = "var EE = new EventEmitter();\n\nEE.once('event-name', emitted);\nEE.on('another-event', emitted);\n" \
           "EE.removeListener('another-event', emitted);\n"
    assert [s.dotted for s in final_call(p, code, "javascript")] == ["EventEmitter.on"]


# mime's shape: the package's index exports an instance as its default; the example imports it and calls two methods
# that call nothing more of the project
_MIME = {
    "README.md": "# mime\n\n## Quick Start\n\n```javascript\nimport mime from 'mime';\n\nmime.getType('txt');"
                 "                    // ⇨ 'text/plain'\nmime.getExtension('text/plain');        // ⇨ 'txt'\n```\n",
    "package.json": '{"name": "mime", "type": "module", "main": "./dist/src/index.js"}\n',
    "src/index.ts": "import Mime from './Mime.js';\n\nexport { default as Mime } from './Mime.js';\n\n"
                    "export default new Mime({ 'text/plain': ['txt'] })._freeze();\n",
    "src/Mime.ts": """export default class Mime {
  #extensionToType = new Map<string, string>();

  constructor(...args: TypeMap[]) {
    for (const arg of args) {
      this.define(arg);
    }
  }

  define(typeMap: TypeMap, force = false) {
    for (let [type, extensions] of Object.entries(typeMap)) {
      type = type.toLowerCase();
      for (const extension of extensions) {
        this.#extensionToType.set(extension, type);
      }
    }
    return this;
  }

  getType(path: string) {
    const ext = path.replace(/^.*\\./s, '').toLowerCase();
    return this.#extensionToType.get(ext) ?? null;
  }

  getExtension(type: string) {
    type = type?.split?.(';')[0];
    return type ?? null;
  }

  _freeze() {
    return this;
  }
}
""",
}


def test_the_instance_a_package_exports_as_its_default_is_the_examples_value_made_by_the_package(tmp_path):
    from orchestrator.authoring.story import overview_sections

    p = load(_write(tmp_path / "mime", _MIME))
    # `mime` is the package's `new Mime(…)`: its run is the example's last call (one step of its own), its set-up
    # the constructor the package ran
    path = _path(p)
    assert path == ["Mime.constructor", "Mime.define", "|", "Mime.getExtension"], path
    # and chapter 1 says the package made it, citing the line, not that the example called the constructor
    text = "\n".join(overview_sections({}, p, [], "en"))
    assert "What the example imports is made before its first line runs: the package's `src/index.ts` (line 5) exports " \
           "`new Mime(…)` as its default ([src/index.ts:5](source:src/index.ts#L5-L5)). That runs `Mime.constructor`" in text, text


def test_a_ruby_module_function_called_with_colons_and_a_block_is_the_examples_first_call(tmp_path):
    # optimist's `opts = Optimist::options do … opt :monkey, "…" … end`: `options` is the call, its block's `opt` the set-up
    p = load(_write(tmp_path / "optimist", {
        "README.md": "# optimist\n\n## Usage\n\n```ruby\nrequire 'optimist'\nopts = Optimist::options do\n"
                     "  opt :monkey, \"Use monkey mode\"\n  opt :name, \"Monkey name\", :type => :string\nend\n\np opts\n```\n",
        "optimist.gemspec": "Gem::Specification.new { |s| s.name = 'optimist' }\n",
        "lib/optimist.rb": """module Optimist
  class Parser
    def initialize(*a, &b)
      @specs = {}
      instance_eval(&b) if b
    end

    def opt(name, desc = "", opts = {})
      o = Option.create(name, desc, opts)
      @specs[o.name] = o
    end

    def parse(cmdline = ARGV)
      vals = {}
      args = collect_argument_parameters(cmdline)
      args.each { |a| vals[a] = true }
      vals
    end

    def self.registry_getopttype(type)
      return nil unless type
      @registry ||= {}
      lookup_type(type)
    end

    def self.lookup_type(type)
      @registry[type.to_sym] || Option
    end

    def collect_argument_parameters(args)
      args.take_while { |a| !a.start_with?("-") }
    end
  end

  class Option
    attr_reader :name

    def self.create(name, desc = "", opts = {})
      klass = get_klass_from_default(opts)
      klass.new(name)
    end

    def self.get_klass_from_default(opts)
      type = opts[:type] || :flag
      Parser.registry_getopttype(type)
    end

    def initialize(name)
      @name = name
    end
  end

  def options(args = ARGV, *a, &b)
    @last_parser = Parser.new(*a, &b)
    with_standard_exception_handling(@last_parser) { @last_parser.parse args }
  end

  def with_standard_exception_handling(parser)
    yield
  end

  module_function :options, :with_standard_exception_handling
end
""",
    }))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Optimist.options", "Optimist.Parser.parse"], path


def test_a_flag_of_a_settings_object_read_without_this_guards_a_side_road(tmp_path):
    # NCalc's `Evaluate`: `if (EvaluationOptions.IterateParameters) return IterateParameters(…);` is an option turned on
    from orchestrator.authoring.facts import side_calls

    p = load(_write(tmp_path / "nc", {"src/Nc/Nc.csproj": "<Project/>\n", "src/Nc/Expression.cs": """namespace Nc;

public class Expression
{
    public ExpressionOptions EvaluationOptions { get; set; }

    public object Evaluate()
    {
        var parsed = GetLogicalExpression();
        if (EvaluationOptions.IterateParameters)
            return IterateParameters();
        return parsed.Run();
    }

    private object IterateParameters()
    {
        return new object();
    }

    private Parsed GetLogicalExpression()
    {
        return new Parsed();
    }
}
"""}))
    evaluate = next(s for s in p.symbols() if s.dotted == "Expression.Evaluate")
    iterate = next(s for s in p.symbols() if s.dotted == "Expression.IterateParameters")
    assert (iterate.rel, iterate.d.start_line) in side_calls(p, evaluate)


def test_a_ruby_method_ending_in_an_if_else_of_paren_less_calls_hands_on_and_send_of_a_symbol_is_a_call(tmp_path):
    # highline's `ask` ends `if question.gather … gather_answers else … ask_once end`; `ask_once` ends in
    # `@highline.send(:confirm, question)` under a condition, which is HighLine's own `confirm`, not an object the map
    # cannot follow
    from orchestrator.authoring.handoff import handed_out, handed_to

    p = load(_write(tmp_path / "hl", {"lib/hl.rb": """class HighLine
  def ask(template, answer_type = nil)
    question = Question.build(template, answer_type)

    if question.gather
      QuestionAsker.new(question, self).gather_answers
    else
      QuestionAsker.new(question, self).ask_once
    end
  end

  def confirm(question)
    question.answer == "y"
  end

  class Question
    attr_reader :gather

    def self.build(template, answer_type)
      new(template, answer_type)
    end

    def initialize(template, answer_type)
      @template = template
    end

    def get_response(highline)
      highline.gets
    end
  end

  class QuestionAsker
    attr_reader :question

    def initialize(question, highline)
      @question = question
      @highline = highline
    end

    def gather_answers
      [ask_once, ask_once]
    end

    def ask_once
      @question.get_response(@highline)
      if @question.confirm
        confirmation = @highline.send(:confirm, @question)
        raise ArgumentError unless confirmation
      end
    end
  end
end
"""}))
    ask = next(s for s in p.symbols() if s.dotted == "HighLine.ask")
    once = next(s for s in p.symbols() if s.dotted == "HighLine.QuestionAsker.ask_once")
    assert handed_to(p, ask) == (once.rel, once.d.start_line)
    assert handed_out(p, once) is None


def test_a_method_rebound_to_its_object_is_no_call_and_what_the_example_calls_before_the_run_sets_it_up(tmp_path):
    # hookable: the constructor's `this.callHook = this.callHook.bind(this)` runs nothing; `hooks.hook("hello", …)`
    # before `hooks.callHook("hello")` is the set-up, since making the value (`new Hookable()`) goes nowhere
    p = load(_write(tmp_path / "hookable", {
        "README.md": "# hookable\n\n## Usage\n\n```js\nimport { Hookable } from \"hookable\";\n\nconst hooks = new Hookable();\n\n"
                     "hooks.hook(\"hello\", () => {\n  console.log(\"Hello World\");\n});\n\nhooks.callHook(\"hello\");\n```\n",
        "package.json": '{"name": "hookable", "main": "src/index.ts"}\n',
        "src/index.ts": "export { Hookable } from './hookable'\n",
        "src/hookable.ts": """export class Hookable {
  private _hooks: Record<string, Function[]>;

  constructor() {
    this._hooks = {};
    this.hook = this.hook.bind(this);
    this.callHook = this.callHook.bind(this);
  }

  hook(name: string, fn: Function) {
    this._hooks[name] = this._hooks[name] || [];
    this.register(name, fn);
    return fn;
  }

  register(name: string, fn: Function) {
    const list = this._hooks[name];
    list.push(fn);
    return list.length;
  }

  callHook(name: string, ...args: any[]) {
    const hooks = this._hooks[name] || [];
    return this.callEach(hooks, args);
  }

  callEach(hooks: Function[], args: any[]) {
    for (const fn of hooks) {
      fn(...args);
    }
    return hooks.length;
  }
}
""",
    }))
    assert _path(p) == ["Hookable.hook", "Hookable.register", "|", "Hookable.callHook", "Hookable.callEach"]


def test_kernel_puts_is_no_entry_point_and_the_other_branch_is_no_work_done_before_the_hand_off(tmp_path):
    # highline: the README's `puts "You have answered: …"` is Ruby's own, though HighLine defines `puts`; `ask` ends in
    # an if/else of `gather_answers` and `ask_once`: the step into `ask_once` says nothing ran "before that"
    from orchestrator.authoring.path_steps import prepared

    p = load(_write(tmp_path / "hl", {
        "README.md": "# highline\n\n## Usage\n\n```ruby\nrequire 'highline'\n\ncli = HighLine.new\nanswer = cli.ask \"What?\"\n"
                     "puts \"You have answered: #{answer}\"\n```\n",
        "highline.gemspec": "Gem::Specification.new { |s| s.name = 'highline' }\n",
        "lib/highline.rb": """class HighLine
  def ask(template)
    question = Question.new(template)
    if question.gather
      QuestionAsker.new(question, self).gather_answers
    else
      QuestionAsker.new(question, self).ask_once
    end
  end

  def puts(*args)
    @output.puts(*args)
  end

  class Question
    attr_reader :gather

    def initialize(template)
      @template = template
    end
  end

  class QuestionAsker
    def initialize(question, highline)
      @question = question
      @highline = highline
    end

    def gather_answers
      answers = []
      answers << ask_once
      answers << ask_once
      answers.compact!
      answers.uniq!
      answers.sort!
      answers
    end

    def ask_once
      @highline.read(@question)
    end
  end

  def read(question)
    $stdin.gets
  end
end
""",
    }))
    from orchestrator.authoring.entry import readme_weight

    assert readme_weight(p, next(s for s in p.symbols() if s.dotted == "HighLine.puts")) == 0.0
    ask = next(s for s in p.symbols() if s.dotted == "HighLine.ask")
    once = next(s for s in p.symbols() if s.dotted == "HighLine.QuestionAsker.ask_once")
    assert prepared(p, ask, once, 7, [ask, once]) is None
