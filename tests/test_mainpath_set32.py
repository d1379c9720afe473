"""Where chapter 1's main path goes (issue 35, session 31, set 32 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.project import load

# awesome_print's shape: the project reopens `Kernel` so that every object answers `ai`, and `ap` (two letters) is
# what the README calls, bare, on a value of no project type
_AWESOME = {
    "README.md": """# awesome_print

Pretty prints Ruby objects.

## Usage

```ruby
require "awesome_print"
data = [false, 42, { now: Time.now }]
ap data
```
""",
    "awesome_print.gemspec": "Gem::Specification.new { |s| s.name = 'awesome_print' }\n",
    "lib/awesome_print.rb": "require_relative 'awesome_print/kernel'\nrequire_relative 'awesome_print/inspector'\n",
    "lib/awesome_print/kernel.rb": """module Kernel
  def ai(options = {})
    inspector = AwesomePrint::Inspector.new(options)
    inspector.awesome(self)
  end

  def ap(object, options = {})
    puts object.ai(options)
    object
  end
end
""",
    "lib/awesome_print/inspector.rb": """module AwesomePrint
  class Inspector
    def initialize(options = {})
      @options = options
      @formatter = Formatter.new(self)
    end

    def awesome(object)
      @formatter.format(object)
    end
  end

  class Formatter
    def initialize(inspector)
      @inspector = inspector
    end

    def format(object)
      object.inspect.to_s
    end
  end
end
""",
}


def test_a_method_the_project_gives_every_ruby_object_is_called_bare_and_on_a_value_of_no_known_type(tmp_path):
    p = load(_write(tmp_path, _AWESOME))
    assert _path(p)[_path(p).index("|") + 1:][:4] == ["Kernel.ap", "Kernel.ai", "AwesomePrint.Inspector.awesome",
                                                      "AwesomePrint.Formatter.format"]


# ConsoleTables' shape: `Write(Format format = Format.Default)` switches on the format; the README calls `Write()`
_TABLES = {
    "Readme.md": """# ConsoleTables

```csharp
var table = new ConsoleTable("one", "two", "three");
table.AddRow(1, 2, 3);
table.Write();
```
""",
    "src/ConsoleTables/ConsoleTables.csproj": "<Project Sdk=\"Microsoft.NET.Sdk\"></Project>\n",
    "src/ConsoleTables/ConsoleTable.cs": """namespace ConsoleTables
{
    public class ConsoleTable
    {
        public ConsoleTable(params string[] columns) { Columns = columns; }

        public string[] Columns { get; }

        public ConsoleTable AddRow(params object[] values) { return this; }

        public override string ToString()
        {
            var lengths = ColumnLengths();
            var format = Format(lengths);
            return format + Divider(lengths);
        }

        public string ToMarkDownString()
        {
            var lengths = ColumnLengths();
            var format = Format(lengths, "|");
            var markdown = Divider(lengths).Replace("-", "|");
            return format + Pad(markdown) + Divider(lengths);
        }

        private int[] ColumnLengths() { return new int[0]; }
        private string Format(int[] lengths, string delimiter = "|") { return Pad(delimiter) + delimiter; }
        private string Divider(int[] lengths) { return Pad("-"); }
        private string Pad(string text) { return text.PadLeft(2).PadRight(2).Trim().PadLeft(4); }

        public void Write(Format format = Format.Default)
        {
            switch (format)
            {
                case Format.Default:
                    System.Console.WriteLine(ToString());
                    break;
                case Format.MarkDown:
                    System.Console.WriteLine(ToMarkDownString());
                    break;
                default:
                    throw new System.ArgumentOutOfRangeException(nameof(format));
            }
        }
    }

    public enum Format { Default = 0, MarkDown = 1 }
}
""",
}


def test_a_switch_on_a_parameter_with_a_default_goes_by_the_defaults_case_the_others_are_variants(tmp_path):
    p = load(_write(tmp_path, _TABLES))
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:2] == ["ConsoleTable.Write", "ConsoleTable.ToString"], path
    assert "ConsoleTable.ToMarkDownString" not in path


def test_tsd_type_tests_and_a_packages_one_test_js_are_tests_not_code():
    from orchestrator.repo.classify import classify

    assert classify("index.test-d.ts", "typescript") == "test"
    assert classify("test.js", "javascript") == "test"
    assert classify("index.js", "javascript") != "test"


def test_a_headings_html_is_no_part_of_a_title_and_a_members_dotted_name_is_code():
    from orchestrator.authoring.ideas import clean_heading

    assert clean_heading(".interval <sup>get</sup>") == ""  # (ora's API reference: the member `interval`)
    assert clean_heading("Custom reporters <sup>new</sup>") == "Custom reporters"


def test_a_file_named_example_beside_the_code_is_an_example():
    from orchestrator.repo.classify import classify

    assert classify("example-overflow.js", "javascript") == "example"
    assert classify("example.js", "javascript") == "example"
    assert classify("src/Example.java", "java") == "code"  # (a class named so is the project's own)
    assert classify("orchestrator/authoring/example_calls.py", "python") == "code"  # (a module's name)


# kotlin-argparser's shape: the README's first block defines a class of delegates; a later block of its section hands
# that class to the parser, whose `parseInto` forces a `by lazy` property that parses the arguments
_ARGPARSER = {
    "README.md": """# kotlin-argparser

## Overview

Defining options is as simple as:

```kotlin
class MyArgs(parser: ArgParser) {
    val name by parser.storing("name of the user")
}
```

The arguments are passed to the `ArgParser` at construction:

```kotlin
fun main(args: Array<String>) = mainBody {
    ArgParser(args).parseInto(::MyArgs).run {
        println("Hello, ${name}!")
    }
}
```

## Option Types

### Storing a Single Argument

```kotlin
val name by parser.storing("-N", "--name", help = "name of the user")
```
""",
    "build.gradle": "plugins { id 'org.jetbrains.kotlin.jvm' }\n",
    "src/main/kotlin/com/xenomachina/argparser/ArgParser.kt": """package com.example.argparser

class ArgParser(val args: Array<out String>) {
    private var finished = false

    fun storing(vararg names: String, help: String): Delegate {
        val delegate = Delegate(names.toList(), help)
        delegates.add(delegate)
        return delegate
    }

    private val delegates = mutableListOf<Delegate>()

    fun force() {
        if (!finished) {
            parseOptions
            for (delegate in delegates) delegate.validate()
        }
    }

    fun <T> parseInto(constructor: (ArgParser) -> T): T {
        val provided = constructor(this)
        force()
        return provided
    }

    private val parseOptions by lazy {
        var i = 0
        while (i < args.size) {
            val arg = args[i]
            i += if (arg.startsWith("--")) parseLongOpt(i, args) else 1
        }
        finished = true
    }

    private fun parseLongOpt(index: Int, args: Array<out String>): Int {
        val name = args[index].substringBefore("=")
        val delegate = delegates.first { it.names.contains(name) }
        delegate.parseOption(name, args[index].substringAfter("="))
        return 1
    }
}

class Delegate(val names: List<String>, val help: String) {
    var value: String? = null

    fun parseOption(name: String, argument: String) {
        value = argument.trim().ifEmpty { name.trimStart('-') }
        check(value != null) { "no value for $name" }
    }

    fun validate() {}
}

fun mainBody(body: () -> Unit) = body()
""",
}


def test_a_class_the_readme_defines_runs_in_the_block_that_hands_it_over_and_a_lazy_property_read_is_a_call(tmp_path):
    from orchestrator.authoring.overview import entry_points, example_of

    p = load(_write(tmp_path, _ARGPARSER))
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.first == 8 and ex.then is not None and "parseInto(::MyArgs)" in ex.then.code
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:4] == ["ArgParser.parseInto", "ArgParser.force", "ArgParser.parseOptions", "ArgParser.parseLongOpt"], path


# ora's shape: the package's default export is a factory (declared again in index.d.ts) of a class it does not
# export; the README runs a method on what the factory gives, in the statement that calls it
_ORA = {
    "readme.md": """# ora

## Usage

```js
import ora from 'ora';

const spinner = ora('Loading unicorns').start();
```
""",
    "package.json": '{"name": "ora", "type": "module", "exports": "./index.js"}\n',
    "index.js": """class Ora {
	#text;
	#frameIndex = 0;

	constructor(options) {
		this.#text = typeof options === 'string' ? options : options.text;
	}

	frame() {
		const frames = ['-', '+'];
		this.#frameIndex = (this.#frameIndex + 1) % frames.length;
		return frames[this.#frameIndex] + ' ' + this.#text;
	}

	clear() {
		process.stderr.clearLine(1);
		process.stderr.cursorTo(0);
		return this;
	}

	render() {
		this.clear();
		const content = this.frame();
		process.stderr.write(content.trimEnd().padEnd(10));
		return this;
	}

	start(text) {
		if (text) {
			this.#text = text;
		}
		this.render();
		this.id = setInterval(this.render.bind(this), 80);
		return this;
	}
}

export default function ora(options) {
	return new Ora(options);
}
""",
    "index.d.ts": """export interface Ora {
	start(text?: string): Ora;
}

export default function ora(options?: string): Ora;
""",
}


def test_a_run_on_what_the_packages_factory_gives_is_the_run_and_its_declaration_file_is_no_second_definition(tmp_path):
    p = load(_write(tmp_path, _ORA))
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:2] == ["Ora.start", "Ora.render"], path


def test_a_comment_in_a_fenced_block_is_no_heading_and_a_one_line_triple_backtick_span_opens_no_block():
    from orchestrator.authoring.overview import _leveled_headings

    text = "# Pundit\n\n```ruby\n# In controllers\ndef show; end\n```\n\n## Rescuing a denied Authorization\n\n" \
           "```config.x = :forbidden```\n\n## Strong parameters\n\n```ruby\n# app/policies/post_policy.rb\n```\n"
    assert _leveled_headings(text) == [(1, 1, "Pundit"), (8, 2, "Rescuing a denied Authorization"),
                                       (12, 2, "Strong parameters")]


def test_a_ruby_value_made_by_new_without_parentheses_and_printed_at_a_console_prompt_in_a_comment(tmp_path):
    from orchestrator.authoring.example_calls import built_type, printed_value

    p = load(_write(tmp_path, {
        "README.md": "# Terminal Table\n\n## Usage\n\n```ruby\nrows = [['One', 1]]\ntable = Terminal::Table.new :rows => rows\n\n"
                     "# > puts table\n#\n# +-----+---+\n# | One | 1 |\n# +-----+---+\n```\n",
        "terminal-table.gemspec": "Gem::Specification.new { |s| s.name = 'terminal-table' }\n",
        "lib/terminal-table/table.rb": "module Terminal\n  class Table\n    def initialize(options = {})\n      @rows = options[:rows]\n"
                                       "    end\n\n    def render\n      @rows.map { |r| r.join(' | ') }.join(\"\\n\")\n    end\n"
                                       "    alias :to_s :render\n  end\nend\n",
    }))
    code = "rows = [['One', 1]]\ntable = Terminal::Table.new :rows => rows\n\n# > puts table\n#\n# | One | 1 |\n"
    assert built_type(p, code, "table", "ruby") == "Terminal.Table"
    shown = printed_value(p, code, "ruby")
    assert shown is not None and shown[0].dotted == "Terminal.Table.render" and shown[1] == "table"


# prompts' shape: the package's index re-exports lib/index.js, which exports its function `prompt` as itself; the
# README binds the package to `prompts` and calls that
_PROMPTS = {
    "readme.md": """# prompts

## Install

```
$ npm install --save prompts
```

## Usage

```js
const prompts = require('prompts');

(async () => {
  const response = await prompts({ type: 'text', name: 'age', message: 'How old are you?' });
  console.log(response);
})();
```

## Prompts

```js
{
  type: 'date',
  name: 'value',
  message: 'Pick a date'
}
```
""",
    "package.json": '{"name": "prompts", "main": "index.js"}\n',
    "index.js": "module.exports = require('./lib/index.js');\n",
    "lib/index.js": """'use strict';

const prompts = require('./prompts');

async function prompt(questions = [], { onSubmit = noop } = {}) {
  const answers = {};
  for (const question of [].concat(questions)) {
    answers[question.name] = await prompts[question.type](question);
    onSubmit(question, answers[question.name], answers);
  }
  return answers;
}

function noop() {}

module.exports = Object.assign(prompt, { prompt, prompts });
""",
    "lib/prompts.js": """'use strict';
const $ = exports;

$.text = args => toPrompt('TextPrompt', args);
$.date = args => toPrompt('DatePrompt', args);

function toPrompt(type, args) {
  return new Promise(resolve => resolve({ type, args }));
}
""",
}


def test_a_package_that_is_a_function_is_called_by_the_name_the_readme_binds_it_to(tmp_path):
    from orchestrator.authoring.js_values import package_function
    from orchestrator.authoring.overview import entry_points, example_of

    p = load(_write(tmp_path, _PROMPTS))
    assert package_function(p) is not None and package_function(p).dotted == "prompt"
    entries = entry_points(p)
    assert "prompt" in [e.dotted for e in entries]
    ex = example_of(p, entries)
    assert ex is not None and "await prompts({" in ex.code


# whenever's shape: a command-line tool; the README's example is the schedule its command reads, and the shell blocks
# run the project's executables (`wheneverize` writes a first schedule, `whenever` converts it)
_WHENEVER = {
    "README.md": """# whenever

### Getting started

```sh
$ cd /apps/my-great-project
$ bundle exec wheneverize .
```

### The `whenever` command

```sh
$ whenever --update-crontab
```

### Example schedule.rb file

```ruby
every 3.hours do
  runner "MyModel.some_process"
end

every :sunday, at: '12pm' do
  runner "Task.do_something_great"
end
```
""",
    "whenever.gemspec": "Gem::Specification.new { |s| s.name = 'whenever' }\n",
    "bin/whenever": """#!/usr/bin/env ruby
require 'optparse'
require 'whenever'

options = {}
OptionParser.new do |opts|
  opts.on('-i', '--update-crontab') { options[:update] = true }
end.parse!

Whenever::CommandLine.execute(options)
""",
    "bin/wheneverize": """#!/usr/bin/env ruby
require 'fileutils'
FileUtils.mkdir_p(File.join(ARGV[0], 'config'))
File.write(File.join(ARGV[0], 'config', 'schedule.rb'), "# every 3.hours do\\n# end\\n")
""",
    "lib/whenever.rb": """require 'whenever/job_list'
require 'whenever/command_line'

module Whenever
  def self.cron(options)
    Whenever::JobList.new(options).generate_cron_output
  end
end
""",
    "lib/whenever/command_line.rb": """module Whenever
  class CommandLine
    def self.execute(options = {})
      new(options).run
    end

    def initialize(options = {})
      @options = options
    end

    def run
      output = Whenever.cron(@options)
      puts output.strip.lines.map(&:rstrip).join("\\n")
    end
  end
end
""",
    "lib/whenever/job_list.rb": """module Whenever
  class JobList
    def initialize(options)
      @jobs = {}
      instance_eval(File.read(options.fetch(:file, 'config/schedule.rb')))
    end

    def every(frequency, options = {})
      @current_time_scope = frequency
      yield
    end

    def generate_cron_output
      [environment_variables, cron_jobs].compact.join.strip.lines.map(&:rstrip).join
    end

    def environment_variables
      @env.to_s
    end

    def cron_jobs
      @jobs.map { |time, jobs| jobs.map { |job| "#{time} #{job}" }.join("\\n").strip }.join("\\n").strip
    end
  end
end
""",
}


def test_a_command_line_tools_command_runs_its_readmes_example_through_the_projects_executable(tmp_path):
    from orchestrator.authoring.overview import entry_points, example_of

    root = _write(tmp_path, _WHENEVER)
    for script in ("bin/whenever", "bin/wheneverize"):  # (an executable without an extension: its `#!` line says Ruby)
        (root / script).chmod(0o755)
    p = load(root)
    ex = example_of(p, entry_points(p))
    assert ex is not None and ex.then is not None and ex.then.rel == "bin/whenever"  # (not `wheneverize`)
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:4] == ["Whenever.CommandLine.execute", "Whenever.CommandLine.run", "Whenever.cron",
                        "Whenever.JobList.generate_cron_output"], path


def test_r1_sees_a_read_of_a_kotlin_lazy_property_the_cited_lines_define_as_its_call():
    from orchestrator.evidence.resolve import reads_lazy

    force = "    fun force() {\n        if (!finished) {\n            parseOptions\n        }\n    }\n"
    lazy = "    private val parseOptions by lazy {\n        finished = true\n    }\n"
    assert reads_lazy("ArgParser.parseOptions", force + lazy)
    assert not reads_lazy("ArgParser.parseOptions", lazy)  # (its own head is no read)
    assert not reads_lazy("ArgParser.parseOptions", force + "    private val parseOptions = Options()\n")  # (no `by lazy`)


def test_chapter_1_names_no_entry_point_the_example_only_writes_in_a_string_or_a_comment(tmp_path):
    from orchestrator.authoring.overview import entry_points, example_of
    from orchestrator.authoring.story import _example_block
    from orchestrator.authoring.story_phrases import phrases

    root = _write(tmp_path, _WHENEVER | {"README.md": _WHENEVER["README.md"].replace(
        'runner "Task.do_something_great"', 'command "echo \'you can use raw cron syntax too\'" # cron')})
    for script in ("bin/whenever", "bin/wheneverize"):
        (root / script).chmod(0o755)
    p = load(root)
    entries = entry_points(p)
    assert "Whenever.cron" in [e.dotted for e in entries]
    text = "\n".join(_example_block(example_of(p, entries), entries, phrases("en"), "whenever"))
    written = next(ln for ln in text.splitlines() if ln.startswith("It writes"))
    assert "Whenever::JobList::every" in written and "cron" not in written.replace("crontab", "")


def test_chapter_1_tells_the_path_of_a_command_from_the_line_of_its_script_that_calls_the_project(tmp_path):
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _path_walk

    root = _write(tmp_path, _WHENEVER)
    for script in ("bin/whenever", "bin/wheneverize"):
        (root / script).chmod(0o755)
    p = load(root)
    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))
    assert "The command's script `bin/whenever` ends its work at line 10, where it calls `Whenever::CommandLine::execute`" \
        in text, text


# consola's shape: the package exports an instance made by a factory; its class's constructor makes one logging
# function per type with `_wrapLogFn`, whose function calls `_logFn`; the README shows several of them
_CONSOLA = {
    "README.md": """# consola

## Usage

```js
import { consola, createConsola } from "consola";

consola.info("Using consola 3.0.0");
consola.warn("A new version of consola is available: 3.0.1");
consola.success("Project built!");
await consola.prompt("Deploy to the production?", { type: "confirm" });
```
""",
    "package.json": '{"name": "consola", "type": "module"}\n',
    "src/consola.ts": """const types = { info: { level: 3 }, warn: { level: 1 }, success: { level: 3 } };

export class Consola {
  options: { reporters: { log: (o: object) => void }[] };

  constructor(options = {}) {
    this.options = { reporters: [], ...options };
    for (const type in types) {
      // @ts-expect-error
      (this as unknown as ConsolaInstance)[type] = this._wrapLogFn({ type, ...types[type] });
    }
  }

  prompt(message: string, opts: object) {
    return Promise.resolve(message.length > 0 && opts !== null);
  }

  _wrapLogFn(defaults: object) {
    return (...args: any[]) => {
      return this._logFn(defaults, args);
    };
  }

  _logFn(defaults: object, args: any[]) {
    const logObj = { ...defaults, args, date: new Date() };
    this._log(logObj);
    return true;
  }

  _log(logObj: object) {
    for (const reporter of this.options.reporters) {
      reporter.log(logObj);
    }
  }
}

export type ConsolaInstance = Consola & Record<string, (...args: any[]) => void>;

export function createConsola(options = {}): ConsolaInstance {
  return new Consola(options) as ConsolaInstance;
}
""",
    "src/index.ts": """import { createConsola as _createConsola, ConsolaInstance } from "./consola";

export function createConsola(options = {}): ConsolaInstance {
  const consola = _createConsola({ ...options });
  return consola;
}

export const consola = createConsola();

export default consola;
""",
}


def test_a_call_of_a_member_the_constructor_made_runs_the_method_its_maker_s_function_calls(tmp_path):
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _path_walk

    p = load(_write(tmp_path, _CONSOLA))
    path = _path(p)[_path(p).index("|") + 1:]
    assert path[:2] == ["Consola._logFn", "Consola._log"], path
    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))
    assert "`Consola` defines no method for the example's `consola.info(…)`: its constructor gives each object such " \
           "functions, made by `Consola._wrapLogFn` (`src/consola.ts`, line 10)" in text, text


def test_a_book_of_one_part_says_one_part_not_1_parts(tmp_path):
    from orchestrator.authoring.story import overview_sections

    root = _write(tmp_path, _WHENEVER)
    p = load(root)
    chapters = [{"id": "ch01", "title": "whenever at a glance", "sources": ["lib/whenever.rb"]}]
    text = "\n".join(overview_sections({"book": {"audience": "developers"}}, p, chapters, "en"))
    assert "The book follows the code in one part:" in text and "1 parts" not in text
