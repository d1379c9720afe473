"""Where chapter 1's main path goes (issue 35, session 28, set 24 as the development set). Each rule on a small
source, failing without it."""

from __future__ import annotations

import re

from conftest import traced as _path, write_files as _write

from orchestrator.authoring.project import load


def _r1_cites(md: str, root) -> list[str]:
    """What R1's citation check blocks in chapter text `md` about the source at `root` (our own gate on our own writer)."""
    from orchestrator.checks.citations import check_citations

    return [f.message for f in check_citations(md, root)]

# sqlparser's shape: the entry builds a parser, gives it the text (a step that returns the parser itself) and runs
# the chain's last link; a `?` stands between the links
_SQL = """pub struct Parser {
    tokens: Vec<String>,
    index: usize,
}

impl Parser {
    pub fn new() -> Self {
        Parser { tokens: Vec::new(), index: 0 }
    }

    pub fn try_with_sql(mut self, sql: &str) -> Result<Self, String> {
        let mut tokenizer = Tokenizer::new(sql);
        self.tokens = tokenizer.tokenize()?;
        Ok(self)
    }

    pub fn parse_sql(sql: &str) -> Result<Vec<String>, String> {
        Parser::new().try_with_sql(sql)?.parse_statements()
    }

    pub fn parse_statements(&mut self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        while self.index < self.tokens.len() {
            out.push(self.parse_statement()?);
            self.index += 1;
        }
        Ok(out)
    }

    fn parse_statement(&mut self) -> Result<String, String> {
        let word = self.tokens[self.index].clone();
        if word.is_empty() {
            return Err("empty".to_string());
        }
        Ok(word.to_uppercase())
    }
}

pub struct Tokenizer {
    text: String,
}

impl Tokenizer {
    pub fn new(text: &str) -> Self {
        Tokenizer { text: text.to_string() }
    }

    pub fn tokenize(&mut self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for word in self.text.split(' ') {
            if word.is_empty() {
                continue;
            }
            out.push(word.to_string());
        }
        Ok(out)
    }
}
"""


def test_a_chains_last_link_after_a_question_mark_is_where_the_work_goes(tmp_path):
    files = {"Cargo.toml": '[package]\nname = "sql"\n', "src/lib.rs": "pub mod parser;\n", "src/parser.rs": _SQL,
             "README.md": '# sql\n\n```rust\nlet ast = Parser::parse_sql("SELECT a").unwrap();\n```\n'}
    p = load(_write(tmp_path / "sql", files))
    path = _path(p)
    assert path[path.index("|") + 1:] == ["Parser.parse_sql", "Parser.parse_statements", "Parser.parse_statement"]


_MUSTACHE = '''from .renderer import Renderer
from .parser import parse


def render(template, context=None):
    """Return the given template string rendered using the given context."""
    renderer = Renderer()
    return renderer.render(template, context)
'''

_RENDERER = '''from .parser import parse


class Renderer(object):
    def render(self, template, context):
        nodes = parse(template)
        out = []
        for node in nodes:
            out.append(node.render(context))
        return "".join(out)
'''

_PARSER = '''class Node(object):
    def __init__(self, key):
        self.key = key

    def render(self, context):
        return str(context.get(self.key, ""))


def parse(template):
    out = []
    for part in _tokens(template):
        out.append(Node(_key(part)))
    return out


def _tokens(template):
    return [_strip(t) for t in template.split("{{") if t]


def _strip(text):
    return text.replace("\\n", " ")


def _key(part):
    return _strip(part.split("}}")[0])
'''


def test_an_example_that_prints_its_calls_result_is_whole_not_joined_to_a_later_parse(tmp_path):
    # pystache's README: `print pystache.render(…)` with its output; "You can also pre-parse" is another use
    readme = ("# mustache\n\n## Use It\n\n    >>> import mustache\n    >>> print mustache.render('Hi {{person}}!', {'person': 'Mom'})\n"
              "    Hi Mom!\n\nYou can also pre-parse a template:\n\n    >>> parsed = mustache.parse(u'Hey {{who}}')\n"
              "    >>> print parsed\n    [Node]\n")
    files = {"setup.py": "from setuptools import setup\nsetup(name='mustache')\n", "mustache/__init__.py": _MUSTACHE,
             "mustache/renderer.py": _RENDERER, "mustache/parser.py": _PARSER, "README.md": readme}
    p = load(_write(tmp_path / "mustache", files))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["render", "Renderer.render"]


_ENGINE = {"core/src/main/java/org/rules/RulesEngine.java": """package org.rules;

public interface RulesEngine {
    void fire(Rules rules, Facts facts);
}
""", "core/src/main/java/org/rules/DefaultRulesEngine.java": """package org.rules;

public class DefaultRulesEngine implements RulesEngine {
    @Override
    public void fire(Rules rules, Facts facts) {
        checkFacts(facts);
        doFire(rules, facts);
    }

    void doFire(Rules rules, Facts facts) {
        for (Rule rule : rules) {
            if (rule.evaluate(facts)) {
                rule.execute(facts);
            }
        }
    }

    private void checkFacts(Facts facts) {
        if (facts == null) {
            throw new IllegalArgumentException("facts");
        }
    }
}
""", "core/src/main/java/org/rules/Rules.java": """package org.rules;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

public class Rules implements Iterable<Rule> {
    private final List<Rule> rules = new ArrayList<>();

    public void register(Rule rule) {
        rules.add(rule);
    }

    public Iterator<Rule> iterator() {
        return rules.iterator();
    }
}
""", "core/src/main/java/org/rules/Facts.java": """package org.rules;

import java.util.HashMap;
import java.util.Map;

public class Facts {
    private final Map<String, Object> facts = new HashMap<>();

    public void put(String name, Object value) {
        facts.put(name, value);
    }
}
""", "core/src/main/java/org/rules/Rule.java": """package org.rules;

public interface Rule {
    boolean evaluate(Facts facts);

    void execute(Facts facts);
}
""", "core/src/main/java/org/rules/Condition.java": """package org.rules;

public @interface Condition {
}
""", "pom.xml": "<project><artifactId>rules</artifactId></project>\n"}

_STEPS = """# rules

## Example

### 1. First, define your rule

```java
@Rule(name = "weather rule")
public class WeatherRule {

    @Condition
    public boolean itRains(@Fact("rain") boolean rain) {
        return rain;
    }
}
```

### 2. Then, fire it!

```java
public class Test {
    public static void main(String[] args) {
        Facts facts = new Facts();
        facts.put("rain", true);
        Rules rules = new Rules();
        rules.register(new WeatherRule());
        RulesEngine rulesEngine = new DefaultRulesEngine();
        rulesEngine.fire(rules, facts);
    }
}
```
"""


def test_step_two_of_a_numbered_walk_through_runs_what_step_one_defines(tmp_path):
    # easy-rules' README: "1. First, define your rule" (a class), "2. Then, fire it!"; the engine is
    # declared as its interface and constructed as the class that runs
    p = load(_write(tmp_path / "rules", dict(_ENGINE, **{"README.md": _STEPS})))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["DefaultRulesEngine.fire", "DefaultRulesEngine.doFire"]
    # without the second step's heading the definition alone is no run of the engine
    q = load(_write(tmp_path / "rules2", dict(_ENGINE, **{"README.md": _STEPS.replace("### 2. Then, fire it!", "")})))
    path = _path(q)
    assert path[path.index("|") + 1:][:1] != ["DefaultRulesEngine.fire"]


_PATCH = '''class PatchOperation(object):
    def __init__(self, op):
        self.op = op

    def apply(self, obj):
        raise NotImplementedError("should implement the patch operation")


class AddOperation(PatchOperation):
    def apply(self, obj):
        obj[self.op["path"]] = self.op["value"]
        return obj


class RemoveOperation(PatchOperation):
    def apply(self, obj):
        del obj[self.op["path"]]
        return obj


class JsonPatch(object):
    operations = {"add": AddOperation, "remove": RemoveOperation}

    def __init__(self, patch):
        self.patch = patch

    def apply(self, obj):
        for operation in self._ops():
            obj = operation.apply(obj)
        return obj

    def _ops(self):
        return [self.operations[op["op"]](op) for op in self.patch]
'''


def test_a_receiver_named_for_a_family_of_classes_calls_the_familys_method(tmp_path):
    # jsonpatch's `operation.apply(obj)`: `operation` is one of the `…Operation` classes, all under `PatchOperation`
    from conftest import symbol

    from orchestrator.authoring.facts import all_calls

    p = load(_write(tmp_path / "patch", {"setup.py": "from setuptools import setup\nsetup(name='patch')\n",
                                         "patch.py": _PATCH}))
    assert "PatchOperation.apply" in [c.dotted for c in all_calls(p, symbol(p, "JsonPatch.apply"))]
    # a name no class is named for stays unknown
    q = load(_write(tmp_path / "other", {"setup.py": "from setuptools import setup\nsetup(name='patch')\n",
                                         "patch.py": _PATCH.replace("operation.apply(obj)", "item.apply(obj)")}))
    assert [c.dotted for c in all_calls(q, symbol(q, "JsonPatch.apply"))] == ["JsonPatch._ops"]
    # a camelCase receiver names its class as well (`patchOperation`)
    r = load(_write(tmp_path / "camel", {"setup.py": "from setuptools import setup\nsetup(name='patch')\n",
                                         "patch.py": _PATCH.replace("operation.apply(obj)", "patchOperation.apply(obj)")}))
    assert "PatchOperation.apply" in [c.dotted for c in all_calls(r, symbol(r, "JsonPatch.apply"))]


_ENGINE_PY = '''class RenderEngine(object):
    def render(self, template, context):
        nodes = self.parse(template)
        return "".join(n.format(**context) for n in nodes)

    def parse(self, template):
        return [part for part in template.split("|") if part]


class Renderer(object):
    def render(self, template, context):
        return self._render_string(template, context)

    def _render_string(self, template, context):
        text = self._to_unicode(template)
        render_func = lambda engine, stack: engine.render(text, stack)
        return self._render_final(render_func, context)

    def _render_final(self, render_func, context):
        stack = dict(context)
        engine = self._make_render_engine()
        return render_func(engine, stack)

    def _make_render_engine(self):
        return RenderEngine()

    def _to_unicode(self, text):
        return str(text)
'''


def test_a_function_bound_to_a_local_and_handed_to_a_wrapper_is_where_the_work_goes(tmp_path):
    # pystache's `_render_string`: `render_func = lambda engine, stack: engine.render(…)`, then
    # `self._render_final(render_func, …)`, which makes the engine and calls the function
    from conftest import symbol

    from orchestrator.authoring.handoff import handed_to

    p = load(_write(tmp_path / "engine", {"setup.py": "from setuptools import setup\nsetup(name='engine')\n",
                                          "engine.py": _ENGINE_PY}))
    assert handed_to(p, symbol(p, "Renderer._render_string")) == ("engine.py", symbol(p, "RenderEngine.render").d.start_line)


_CRON_DOC = """/*
Package cron implements a job runner.

Usage

Callers may register Funcs to be invoked on a given schedule.

	c := cron.New()
	c.AddFunc("30 * * * *", func() { fmt.Println("Every hour on the half hour") })
	c.Start()
	..
	// Funcs may also be added to a running Cron
	c.AddFunc("@daily", func() { fmt.Println("Every day") })
	..
	c.Stop()  // Stop the scheduler

Other notes follow.
*/
package cron
"""

_CRON = """package cron

type Cron struct {
	entries []*Entry
	add     chan *Entry
	stop    chan struct{}
	running bool
}

type Entry struct {
	Spec string
	Job  func()
}

func New() *Cron {
	return &Cron{add: make(chan *Entry), stop: make(chan struct{})}
}

func (c *Cron) AddFunc(spec string, cmd func()) error {
	return c.AddJob(spec, cmd)
}

func (c *Cron) AddJob(spec string, cmd func()) error {
	entry := &Entry{Spec: spec, Job: cmd}
	if !c.running {
		c.entries = append(c.entries, entry)
		return nil
	}
	c.add <- entry
	return nil
}

func (c *Cron) Start() {
	c.running = true
	go c.run()
}

func (c *Cron) run() {
	for {
		select {
		case e := <-c.add:
			c.entries = append(c.entries, e)
			c.startJob(e.Job)
		case <-c.stop:
			return
		}
	}
}

func (c *Cron) startJob(j func()) {
	go j()
}

func (c *Cron) Stop() {
	c.stop <- struct{}{}
	c.running = false
}
"""


def test_a_go_package_comment_in_a_block_is_the_example_and_stopping_is_no_run(tmp_path):
    # robfig/cron: the README shows no use; doc.go's `/* … */` comment does, ending in `c.Stop()`
    p = load(_write(tmp_path / "cron", {"go.mod": "module example.com/cron\n", "doc.go": _CRON_DOC, "cron.go": _CRON,
                                        "README.md": "# cron\n\nSee the documentation.\n"}))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Cron.Start", "Cron.run"]
    assert path[:path.index("|")][:1] == ["Cron.AddFunc"]


_FASTJSON = """package fastjson

var handyPool ParserPool

// GetInt returns the int value of the field identified by keys.
func GetInt(data []byte, keys ...string) int {
	p := handyPool.Get()
	v, err := p.ParseBytes(data)
	if err != nil {
		handyPool.Put(p)
		return 0
	}
	n := v.n
	handyPool.Put(p)
	return n
}

type ParserPool struct {
	pool sync.Pool
}

func (pp *ParserPool) Get() *Parser {
	v := pp.pool.Get()
	if v == nil {
		return &Parser{}
	}
	return v.(*Parser)
}

func (pp *ParserPool) Put(p *Parser) {
	pp.pool.Put(p)
}

type ScannerPool struct {
	pool sync.Pool
}

func (sp *ScannerPool) Put(s *Parser) {
	sp.pool.Put(s)
}

type Parser struct {
	b []byte
}

type Value struct {
	n int
}

func (p *Parser) ParseBytes(b []byte) (*Value, error) {
	return p.Parse(string(b))
}

func (p *Parser) Parse(s string) (*Value, error) {
	v, _, err := parseValue(s, 0)
	return v, err
}

func parseValue(s string, depth int) (*Value, string, error) {
	if len(s) == 0 {
		return nil, s, nil
	}
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return &Value{n: n}, "", nil
}

// Get returns the value at the keys.
func (v *Value) Get(keys ...string) *Value {
	if len(keys) == 0 {
		return v
	}
	return v.find(keys[0])
}

func (v *Value) find(key string) *Value {
	return lookup(v, unescape(key))
}

func lookup(v *Value, key string) *Value {
	if key == "" {
		return nil
	}
	return v
}

func unescape(key string) string {
	return key
}
"""


def test_a_package_var_declared_with_its_type_and_a_pools_put_lead_to_the_parse(tmp_path):
    # fastjson's README: `fmt.Printf(…, fastjson.GetInt(s, "foo", "0"))` after `s := []byte(…)` (its first call
    # the project makes is its `GetInt`, whatever it prints before); `GetInt` takes a parser from `var handyPool ParserPool` and gives
    # it back with `Put` after parsing
    readme = ("# fastjson\n\n```go\n\tfmt.Println(\"three documents\")\n\ts := []byte(`{\"foo\": [123, \"bar\"]}`)\n\tt := []byte(`{\"bar\": [456, \"baz\"]}`)\n"
              "\tu := []byte(`{\"baz\": [789, \"qux\"]}`)\n\tw := append(append(t, u...), s...)\n"
              "\tfmt.Printf(\"foo.0=%d\\n\", fastjson.GetInt(s, \"foo\", \"0\"))\n```\n\n"
              "```go\n" + "".join(f"v.Get(\"{k}\")\n" for k in "abcdefghijklmnop") + "```\n")
    p = load(_write(tmp_path / "fastjson", {"go.mod": "module example.com/fastjson\n", "fastjson.go": _FASTJSON,
                                            "README.md": readme}))
    path = _path(p)
    assert path[path.index("|") + 1:][:4] == ["GetInt", "Parser.ParseBytes", "Parser.Parse", "parseValue"]


_TURNDOWN = {"package.json": '{"name": "turndown", "main": "src/turndown.js"}\n', "src/turndown.js": """import Rules from './rules'
import RootNode from './root-node'
import Node from './node'

const reduce = Array.prototype.reduce

export default function TurndownService (options) {
  this.options = options || {}
  this.rules = new Rules(this.options)
}

TurndownService.prototype = {
  turndown: function (input) {
    if (input === '') return ''

    const output = process.call(this, new RootNode(input, this.options))
    return postProcess.call(this, output)
  },

  escape: function (string) {
    return string.replace(/[*_]/g, '\\\\$&')
  }
}

function process (parentNode) {
  const self = this
  return reduce.call(parentNode.childNodes, function (output, node) {
    node = new Node(node, self.options)

    let replacement = ''
    if (node.nodeType === 3) {
      replacement = self.escape(node.nodeValue)
    } else if (node.nodeType === 1) {
      replacement = replacementForNode.call(self, node)
    }
    return join(output, replacement)
  }, '')
}

function postProcess (output) {
  const self = this
  this.rules.forEach(function (rule) {
    if (typeof rule.append === 'function') {
      output = join(output, rule.append(self.options))
    }
  })
  return trimNewlines(output)
}

function replacementForNode (node) {
  const rule = this.rules.forNode(node)
  const content = process.call(this, node)
  return rule.replacement(content, node, this.options)
}

function join (output, replacement) {
  const separator = '\\n\\n'
  return trimNewlines(output) + separator + trimNewlines(replacement)
}

function trimNewlines (text) {
  return text.replace(/^\\n+/, '').replace(/\\n+$/, '')
}
""", "src/rules.js": """export default function Rules (options) {
  this.options = options
  this.array = []
}

Rules.prototype = {
  forNode: function (node) {
    const rule = findRule(this.array, node, this.options)
    if (rule) return rule
    return this.defaultRule
  },

  forEach: function (fn) {
    for (let i = 0; i < this.array.length; i++) fn(this.array[i], i)
  }
}

function findRule (rules, node, options) {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]
    if (rule.filter(node, options)) return rule
  }
  return undefined
}
""", "src/node.js": """export default function Node (node, options) {
  node.isBlock = isBlock(node)
  node.isCode = isCode(node)
  node.flankingWhitespace = flankingWhitespace(node, options)
  return node
}

function isBlock (node) {
  return is(node, ['P', 'DIV'])
}

function isCode (node) {
  return is(node, ['CODE']) || (node.parentNode && isCode(node.parentNode))
}

function flankingWhitespace (node, options) {
  if (node.isBlock || options.preformattedCode) return { leading: '', trailing: '' }
  const edges = edgeWhitespace(node.textContent)
  return { leading: edges.leading, trailing: edges.trailing }
}

function edgeWhitespace (string) {
  const m = string.match(/^(\\s*)[\\s\\S]*?(\\s*)$/)
  return { leading: trimmed(m[1]), trailing: trimmed(m[2]) }
}

function trimmed (text) {
  return text.replace(/\\n/g, ' ')
}

function is (node, names) {
  return names.indexOf(node.nodeName) >= 0
}
""", "src/root-node.js": """export default function RootNode (input, options) {
  this.childNodes = [input]
  this.options = options
}
""", "README.md": """# turndown

```js
var TurndownService = require('turndown')

var turndownService = new TurndownService()
var markdown = turndownService.turndown('<h1>Hello world!</h1>')
```
"""}


def test_an_es5_constructors_method_runs_the_tree_walk_a_loop_callback_makes(tmp_path):
    # turndown: `new TurndownService()` is a constructor function with prototype methods; `turndown` hands to
    # `process.call(this, new RootNode(…))` (then only post-processes), whose `reduce.call(…, function …)`
    # callback runs now, for each node
    p = load(_write(tmp_path / "turndown", _TURNDOWN))
    path = _path(p)
    assert path[path.index("|") + 1:][:4] == ["TurndownService.turndown", "process", "replacementForNode", "Rules.forNode"]


_VALIDATOR = {"package.json": '{"name": "checker", "main": "src/index.ts"}\n', "src/index.ts": """import { Validator } from './Validator';
import { getFromContainer } from './container';

export function validate(object: object): Promise<string[]> {
  return getFromContainer(Validator).validate(object);
}
""", "src/container.ts": """const instances: Map<Function, any> = new Map();

export function getFromContainer<T>(someClass: { new (...args: any[]): T } | Function): T {
  let instance = instances.get(someClass);
  if (!instance) {
    instance = new (someClass as any)();
    instances.set(someClass, instance);
  }
  return instance;
}
""", "src/Validator.ts": """import { Executor } from './Executor';

export class Validator {
  validate(object: object): Promise<string[]> {
    const executor = new Executor();
    const errors: string[] = [];
    executor.execute(object, errors);
    return Promise.resolve(errors);
  }
}
""", "src/Executor.ts": """export class Executor {
  execute(object: any, errors: string[]): void {
    const names = this.collectNames(object);
    names.forEach(name => {
      const value = object[name];
      if (
        value instanceof Promise &&
        name.startsWith('async')
      ) {
        value.then(resolved => this.performValidations(name, resolved, errors));
      } else {
        this.performValidations(name, value, errors);
      }
    });
  }

  collectNames(object: any): string[] {
    const out: string[] = [];
    for (const key of Object.keys(object)) {
      if (!key.startsWith('_')) {
        out.push(this.normalize(key));
      }
    }
    return out;
  }

  normalize(key: string): string {
    return key.trim();
  }

  performValidations(name: string, value: any, errors: string[]): void {
    if (value === undefined) {
      errors.push(this.message(name));
    }
  }

  message(name: string): string {
    return name + ' is missing';
  }
}
""", "README.md": "# checker\n\n```typescript\nvalidate(post).then(errors => console.log(errors));\n```\n"}


def test_a_generic_function_handed_a_class_gives_that_class_and_a_long_conditions_else_runs_too(tmp_path):
    # class-validator: `getFromContainer(Validator).validate(…)`, the container's `<T>(someClass: { new (…): T }): T`;
    # the executor's `if (⏎ … ⏎ ) { … } else { this.performValidations(…) }` runs it on either branch
    p = load(_write(tmp_path / "checker", _VALIDATOR))
    path = _path(p)
    assert path[path.index("|") + 1:][:4] == ["validate", "Validator.validate", "Executor.execute", "Executor.performValidations"]


_SUFFIX = {"suffix.gemspec": "Gem::Specification.new do |s|\n  s.name = 'suffix'\nend\n", "lib/suffix.rb": """require_relative 'suffix/domain'
require_relative 'suffix/list'

module Suffix
  def self.parse(name, list: List.default)
    what = normalize(name)
    rule = list.find(what)
    decompose(what, rule)
  end

  def self.domain(name, **options)
    parse(name, **options).domain
  rescue ArgumentError
    nil
  end

  def self.normalize(name)
    name.to_s.strip.downcase
  end

  def self.decompose(name, rule)
    left, right = rule.split(name)
    Domain.new(right, left)
  end
end
""", "lib/suffix/domain.rb": """module Suffix
  class Domain
    def initialize(tld, sld)
      @tld = tld
      @sld = sld
    end

    def domain
      [@sld, @tld].join('.') if domain?
    end

    def domain?
      !(@tld.nil? || @sld.nil?)
    end
  end
end
""", "lib/suffix/list.rb": """module Suffix
  class List
    def self.default
      @default ||= new
    end

    def find(name)
      rules = select(name)
      rules.max_by(&:length)
    end

    def select(name)
      parts = name.split('.')
      parts.each_index.map { |i| parts[i..].join('.') }
    end
  end
end
""", "README.md": "# suffix\n\n```ruby\nSuffix.domain(\"www.google.com\")\n# => \"google.com\"\n```\n"}


def test_a_chains_last_link_that_only_reads_what_the_call_built_is_no_hand_off(tmp_path):
    # public_suffix's `domain` is `parse(name, **options).domain`: `Domain#domain` reads the parts `parse` found
    p = load(_write(tmp_path / "suffix", _SUFFIX))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Suffix.domain", "Suffix.parse"]


_SEMVER = """pub struct Version {
    pub major: u64,
    pub minor: u64,
}

pub struct VersionReq {
    pub comparators: Vec<Version>,
}

impl Version {
    pub fn parse(text: &str) -> Result<Version, String> {
        let mut parts = text.split('.');
        let major = parse_number(parts.next())?;
        let minor = parse_number(parts.next())?;
        Ok(Version { major, minor })
    }
}

impl VersionReq {
    pub fn parse(text: &str) -> Result<VersionReq, String> {
        let mut comparators = Vec::new();
        for part in text.split(',') {
            comparators.push(parse_comparator(part)?);
        }
        Ok(VersionReq { comparators })
    }

    pub fn matches(&self, version: &Version) -> bool {
        matches_req(self, version)
    }
}

fn parse_comparator(part: &str) -> Result<Version, String> {
    let text = part.trim().trim_start_matches(">=");
    if text.is_empty() {
        return Err("empty comparator".to_string());
    }
    Ok(Version { major: text.len() as u64, minor: 0 })
}

fn parse_number(part: Option<&str>) -> Result<u64, String> {
    let text = part.ok_or("missing")?;
    text.parse::<u64>().map_err(|e| e.to_string())
}

fn matches_req(req: &VersionReq, ver: &Version) -> bool {
    let mut all = true;
    for cmp in &req.comparators {
        all = all && matches_exact(cmp, ver);
    }
    all
}

fn matches_exact(cmp: &Version, ver: &Version) -> bool {
    let same_major = cmp.major == ver.major;
    let same_minor = cmp.minor == ver.minor;
    same_major && same_minor
}
"""


def test_what_an_example_asserts_of_a_call_is_its_run_after_the_values_it_parses(tmp_path):
    # semver's README: `let req = VersionReq::parse(…)`, then twice `assert!(req.matches(&version))`, the second
    # time after `let version = Version::parse("1.3.0")`: matching is the run, the parses its set-up
    readme = ('# semver\n\n```rust\nuse semver::{Version, VersionReq};\n\nfn main() {\n'
              '    let req = VersionReq::parse(">=1.2").unwrap();\n'
              '    let version = Version { major: 1, minor: 2 };\n    assert!(!req.matches(&version));\n\n'
              '    let version = Version::parse("1.3").unwrap();\n    assert!(req.matches(&version));\n}\n```\n')
    p = load(_write(tmp_path / "semver", {"Cargo.toml": '[package]\nname = "semver"\n', "src/lib.rs": _SEMVER,
                                          "README.md": readme}))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["VersionReq.matches", "matches_req", "matches_exact"]
    assert path[:1] == ["VersionReq.parse"]  # (the set-up of the value the run is on, before what it is given)


def test_a_licence_banner_above_a_packages_javadoc_is_no_part_of_its_doc(tmp_path):
    # easy-rules' package-info.java: `/* The MIT License … */` then `/** This package contains … */`; the book had
    # quoted the licence as what each file "describes itself as"
    banner = ("/*\n * The MIT License\n *\n *  Copyright (c) 2021, A. Author\n *\n"
              " *  Permission is hereby granted, free of charge, to any person obtaining a copy\n */\n")
    files = {"pom.xml": "<project><artifactId>rules</artifactId></project>\n",
             "src/main/java/org/rules/api/package-info.java": banner + "/**\n * This package contains the public API.\n */\npackage org.rules.api;\n",
             "src/main/java/org/rules/api/Facts.java": banner + "package org.rules.api;\n\n/** Facts a rule reads. */\n"
                                                         "public class Facts {\n    public int size() {\n        return 0;\n    }\n}\n"}
    p = load(_write(tmp_path / "rules", files))
    assert p.module_doc("src/main/java/org/rules/api/Facts.java") == "This package contains the public API."


_JWT = {"jwt.gemspec": "Gem::Specification.new do |s|\n  s.name = 'jwt'\nend\n", "lib/jwt.rb": """require_relative 'jwt/encode'

module JWT
  module_function

  def encode(payload, key, algorithm = 'HS256', header_fields = {})
    Encode.new(payload: payload,
               key: key,
               algorithm: algorithm,
               headers: header_fields).segments
  end
end
""", "lib/jwt/encode.rb": """module JWT
  class Encode
    def initialize(options)
      @payload = options[:payload]
      @key = options[:key]
    end

    def segments
      header = encode_header
      body = encode_payload
      [header, body, sign(header, body)].join('.')
    end

    def encode_header
      Base64.urlsafe_encode64('{}')
    end

    def encode_payload
      Base64.urlsafe_encode64(@payload.to_s)
    end

    def sign(header, body)
      OpenSSL::HMAC.hexdigest('SHA256', @key, [header, body].join('.'))
    end
  end
end
""", "README.md": "# jwt\n\n```ruby\ntoken = JWT.encode(payload, nil, 'none')\n```\n"}


def test_a_ruby_call_without_parentheses_on_what_a_call_over_several_lines_made(tmp_path):
    # ruby-jwt's `encode`: `Encode.new(payload: payload,⏎ … headers: header_fields).segments`
    p = load(_write(tmp_path / "jwt", _JWT))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["JWT.encode", "JWT.Encode.segments"]


_JSON5 = {"package.json": '{"name": "json5", "main": "lib/index.js"}\n', "lib/index.js": """const parse = require('./parse')
const stringify = require('./stringify')

const JSON5 = {
    parse,
    stringify,
}

module.exports = JSON5
""", "lib/parse.js": """let source
let pos
let lexState
let token

module.exports = function parse (text) {
    source = String(text)
    pos = 0
    const out = []
    do {
        token = lex()
        out.push(token)
    } while (token.type !== 'eof')
    return out
}

function lex () {
    lexState = 'default'
    for (;;) {
        const token = lexStates[lexState]()
        if (token) {
            return token
        }
    }
}

const lexStates = {
    default () {
        const c = source[pos++]
        if (c === undefined) {
            return newToken('eof')
        }
        return newToken('punctuator', c)
    },

    value () {
        return newToken('value', source[pos])
    },
}

function newToken (type, value) {
    return {type, value, pos}
}
""", "lib/stringify.js": """module.exports = function stringify (value) {
    return JSON.stringify(value)
}
""", "README.md": "# json5\n\n## Usage\n\n```js\nconst JSON5 = require('json5')\n```\n\n## API\n\n```js\nconst obj = JSON5.parse('{a: 1}')\n```\n"}


def test_a_modules_object_of_functions_and_a_table_of_states_called_by_key(tmp_path):
    # json5: `const JSON5 = { parse, stringify }` is what the README calls `JSON5.parse` on (its first block only
    # requires it); `lex` runs `lexStates[lexState]()` after `lexState = 'default'`
    from orchestrator.authoring.overview import entry_points, example_of

    p = load(_write(tmp_path / "json5", _JSON5))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["parse", "lex", "lexStates.default"]
    assert "JSON5.parse(" in example_of(p, entry_points(p)).code  # (not the block that only requires it)
    # chapter 1 says the step through the table, in either language
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.story import _steps

    steps = central_path(p, entry_points(p))
    for lang in ("en", "zh"):
        said = "\n".join(_steps(p, steps, {}, lang))
        assert "lexStates[lexState]" in said and "`default`" in said and not _r1_cites(said, tmp_path / "json5")


_JSONPATH = {"pom.xml": "<project><artifactId>json-path</artifactId></project>\n",
             "src/main/java/com/jp/JsonPath.java": """package com.jp;

import java.io.File;
import java.io.InputStream;
import java.net.URL;

public class JsonPath {
    private final Path path;

    JsonPath(String expression) {
        this.path = new Path(expression);
    }

    public Object read(Object jsonObject) {
        return read(jsonObject, new Configuration());
    }

    public Object read(Object jsonObject, Configuration configuration) {
        return path.evaluate(jsonObject, configuration);
    }

    public Object read(String json, Configuration configuration) {
        return read(configuration.parse(json), configuration);
    }

    public Object read(File jsonFile) {
        return read(jsonFile.toString(), new Configuration());
    }

    public Object read(URL jsonURL) {
        return read(jsonURL.toString(), new Configuration());
    }

    public Object read(InputStream stream) {
        return read(stream.toString(), new Configuration());
    }

    public Object read(File jsonFile, Configuration configuration) {
        return read(jsonFile.toString(), configuration);
    }

    public Object read(URL jsonURL, Configuration configuration) {
        return read(jsonURL.toString(), configuration);
    }

    public Object read(InputStream stream, Configuration configuration) {
        return read(stream.toString(), configuration);
    }

    public static Object read(String json, String jsonPath) {
        return new ParseContextImpl().parse(json).read(jsonPath);
    }
}
""", "src/main/java/com/jp/Path.java": """package com.jp;

public class Path {
    private final String expression;

    Path(String expression) {
        this.expression = expression;
    }

    public Object evaluate(Object document, Configuration configuration) {
        Object current = document;
        for (String part : expression.split("\\\\.")) {
            current = configuration.lookup(current, part);
        }
        return current;
    }
}
""", "src/main/java/com/jp/Configuration.java": """package com.jp;

public class Configuration {
    public Object parse(String json) {
        return json.trim();
    }

    public Object lookup(Object current, String key) {
        return current == null ? null : current.toString() + key;
    }
}
""", "src/main/java/com/jp/ReadContext.java": """package com.jp;

public interface ReadContext {
    Object read(String path);
}
""", "src/main/java/com/jp/DocumentContext.java": """package com.jp;

public interface DocumentContext extends ReadContext {
    Object json();
}
""", "src/main/java/com/jp/JsonContext.java": """package com.jp;

public class JsonContext implements DocumentContext {
    private final Object json;
    private final Configuration configuration;

    JsonContext(Object json, Configuration configuration) {
        this.json = json;
        this.configuration = configuration;
    }

    public Object json() {
        return json;
    }

    public Object read(String path) {
        return read(new JsonPath(path));
    }

    public Object read(JsonPath path) {
        return path.read(json, configuration);
    }
}
""", "src/main/java/com/jp/ParseContextImpl.java": """package com.jp;

public class ParseContextImpl {
    public DocumentContext parse(String json) {
        Configuration configuration = new Configuration();
        return new JsonContext(configuration.parse(json), configuration);
    }
}
""", "README.md": "# JsonPath\n\n```java\nString json = \"...\";\n\nList<String> authors = JsonPath.read(json, \"$.store.book[*].author\");\n```\n"}


def test_a_static_overload_an_interfaces_base_and_a_fields_declared_type_choose_the_way(tmp_path):
    # jayway's `JsonPath.read(json, "$…")`: of its many `read`s, the static one of two strings (beyond the type's
    # first eight methods); `parse(json)` gives a `DocumentContext`, whose `read` its base `ReadContext` declares
    # and `JsonContext` implements; there `path.read(json, configuration)` takes the field `Object json`
    p = load(_write(tmp_path / "jp", _JSONPATH))
    path = _path(p)
    assert path[path.index("|") + 1:][:6] == ["JsonPath.read", "ReadContext.read", "JsonContext.read", "JsonContext.read",
                                             "JsonPath.read", "Path.evaluate"]
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points

    steps = central_path(p, entry_points(p))
    assert "String json, String jsonPath" in steps[0].d.signature
    assert "Object jsonObject, Configuration configuration" in steps[4].d.signature  # (not the `String json` one)


def test_the_guide_the_readme_sends_its_reader_to_is_read_for_the_example_first(tmp_path):
    # Stubble's README shows no code: "For how to use Stubble I'd recommend reading the how to use guide
    # [here.](/docs/how-to.md)"; docs/compilation.md, first by name, shows the compiler instead
    from orchestrator.authoring.overview import entry_points, example_of

    files = {"Stubble.sln": "", "src/Stubble/Renderer.cs": """namespace Stubble
{
    public class Renderer
    {
        public string Render(string template, object view)
        {
            return template.Replace("{{x}}", view.ToString());
        }
    }

    public class Compiler
    {
        public string Compile(string template, object view)
        {
            return template.Trim();
        }
    }
}
""", "README.md": "# Stubble\n\nFor how to use Stubble I'd recommend reading the how to use guide [here.](/docs/how-to.md)\n",
             "docs/compilation.md": "# Compilation\n\n```csharp\nvar compiler = new Compiler();\nvar f = compiler.Compile(\"{{x}}\", data);\n```\n",
             "docs/how-to.md": "# How to\n\n```csharp\nvar stubble = new Renderer();\nvar output = stubble.Render(\"{{x}}\", data);\n```\n"}
    p = load(_write(tmp_path / "stubble", files))
    assert example_of(p, entry_points(p)).rel == "docs/how-to.md"


def test_a_python_file_named_for_its_tests_is_a_test():
    # jsonpatch's `ext_tests.py` had a chapter ("Running external tests") beside `tests.py`
    from orchestrator.repo.classify import TEST_FILE

    assert TEST_FILE.match("ext_tests.py") and TEST_FILE.match("tests.py") and TEST_FILE.match("unit_test.py")
    assert not TEST_FILE.match("latest.py") and not TEST_FILE.match("contest.py")


def test_a_default_implementations_step_cites_the_head_of_the_type_that_only_declares_it(tmp_path):
    # jayway's step "`JsonProvider.createArray` runs `JsonSmartJsonProvider.createArray` through `JsonProvider`:
    # `JsonProvider` only declares it …" cited no line naming `JsonProvider` (the implementation extends
    # `AbstractJsonProvider`), and R1 stopped chapter 1
    from orchestrator.authoring.story import _steps

    storages = ("from abc import ABC, abstractmethod\n\n\nclass Storage(ABC):\n    @abstractmethod\n"
                "    def write(self, data):\n        raise NotImplementedError('To be overridden!')\n\n\n"
                "class BaseStorage(Storage):\n    pass\n\n\n"
                "class JSONStorage(BaseStorage):\n    def write(self, data):\n        self._handle.seek(0)\n"
                "        self._handle.write(str(data))\n        self._handle.flush()\n\n\n"
                "class MemoryStorage(BaseStorage):\n    def write(self, data):\n        self.memory = data\n")
    database = ("from .storages import JSONStorage\n\n\nclass Database:\n    default_storage_class = JSONStorage\n\n"
                "    def __init__(self, storage=None):\n        self._storage = (storage or self.default_storage_class)()\n")
    p = load(_write(tmp_path / "repo", {"README.md": "# db\n\nA database.\n", "db/__init__.py": "",
                                        "db/storages.py": storages, "db/database.py": database}))
    by = {s.dotted: s for s in p.symbols()}
    step = _steps(p, [by["Storage.write"], by["JSONStorage.write"]], {}, "en")[0]
    assert "only declares it" in step and "db/storages.py#L4-L4" in step  # (`class Storage(ABC):`)


def test_a_chapters_classes_are_said_in_turn_not_by_their_names_alone(tmp_path):
    # easy-rules' twelve small chapters said "`X` is a class in `f` (lines a–b)" in three of its six ways, six times
    # each (35 % of its sentences shared a shape): two classes whose names chose the same way are now said in two
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.variety import seed
    from orchestrator.authoring.write import _symbol_section

    names = [f"Widget{k}" for k in range(60)]
    a, b = next((x, y) for i, x in enumerate(names) for y in names[i + 1:]
                if seed(x, "w.py") % 6 == seed(y, "w.py") % 6)
    code = "".join(f"class {n}:\n    def run(self):\n        return 1\n\n\n" for n in (a, b))
    p = load(_write(tmp_path / "w", {"setup.py": "from setuptools import setup\nsetup(name='w')\n", "w.py": code}))
    syms = {s.dotted: s for s in p.symbols()}
    ctx = {"chapter": {"id": "ch02"}, "book": {"audience": "developers"}}
    said: dict[str, str] = {}
    firsts = []
    for n in (a, b):
        s = syms[n]
        out = _symbol_section(p, s, "", s.d.start_line, s.d.end_line, "python", ctx, {}, {n}, phrases("en"), said=said)
        firsts.append(re.sub(r"\d+", "#", out[0].replace(n, "_")))
    assert firsts[0] != firsts[1], firsts


def test_chapters_open_on_their_central_type_in_turn(tmp_path):
    # easy-rules' twelve chapters opened six times with "At its centre is the class …"
    from orchestrator.authoring.opening import _shape
    from orchestrator.authoring.phrases import phrases

    p = load(_write(tmp_path / "w", {"setup.py": "from setuptools import setup\nsetup(name='w')\n",
                                     "w.py": "class Rule:\n    def fire(self):\n        return 1\n\n\nclass Helper:\n    pass\n"}))
    syms = {s.dotted: s for s in p.symbols()}
    key = [syms["Rule"], syms["Rule.fire"], syms["Helper"]]

    def join(items, _t):
        return ", ".join(items)

    said = {_shape(p, key, phrases("en"), join, n) for n in range(2, 8)}
    assert len(said) == 6 and all("`Rule`" in x and "`Helper`" in x for x in said)


def test_a_pool_of_parsers_is_no_connection_and_its_doc_says_what_it_pools(tmp_path):
    # fastjson's pool.go was titled "Connections and execution"
    from orchestrator.authoring.titles import make_titles

    pool = ("package fastjson\n\n// ParserPool may be used for pooling Parsers for similarly typed JSONs.\n"
            "type ParserPool struct {\n\tpool []*Parser\n}\n\n// Get returns a Parser from pp.\n"
            "func (pp *ParserPool) Get() *Parser {\n\tif len(pp.pool) == 0 {\n\t\treturn &Parser{}\n\t}\n"
            "\tp := pp.pool[0]\n\tpp.pool = pp.pool[1:]\n\treturn p\n}\n\n// Put returns p to pp.\n"
            "func (pp *ParserPool) Put(p *Parser) {\n\tpp.pool = append(pp.pool, p)\n}\n")
    parser = ("package fastjson\n\n// Parser parses JSON.\ntype Parser struct {\n\tb []byte\n}\n\n"
              "// Parse parses s containing JSON.\nfunc (p *Parser) Parse(s string) error {\n\tp.b = []byte(s)\n\treturn nil\n}\n")
    p = load(_write(tmp_path / "fj", {"go.mod": "module example.com/fastjson\n", "pool.go": pool, "parser.go": parser}))
    titles = make_titles(p, [["parser.go"], ["pool.go"]], "en")
    assert titles[1] == "Pooling parsers for similarly typed JSONs", titles
    from orchestrator.authoring.plan import settled_roles

    roles, _alone = settled_roles(p, [["parser.go"], ["pool.go"]])
    assert roles[1] is None or roles[1].key != "engine"


_RON = {"Cargo.toml": '[package]\nname = "ron"\n', "src/lib.rs": "pub mod de;\npub mod options;\n\npub use de::from_str;\n",
        "src/options.rs": """use serde::de;

use crate::de::Deserializer;

pub struct Options {
    pub recursion_limit: usize,
}

impl Options {
    pub fn from_str<'a, T>(&self, s: &'a str) -> Result<T, String>
    where
        T: de::Deserialize<'a>,
    {
        self.from_str_seed(s, std::marker::PhantomData)
    }

    pub fn from_str_seed<'a, S, T>(&self, s: &'a str, seed: S) -> Result<T, String>
    where
        S: de::DeserializeSeed<'a, Value = T>,
    {
        let mut deserializer = Deserializer::from_str_with_options(s, self)?;

        let value = seed
            .deserialize(&mut deserializer)
            .map_err(|e| e.to_string())?;

        deserializer.end()?;
        Ok(value)
    }
}
""", "src/de/mod.rs": """use crate::options::Options;

pub struct Deserializer<'de> {
    text: &'de str,
    pos: usize,
}

pub fn from_str<'a, T>(s: &'a str) -> Result<T, String>
where
    T: serde::de::Deserialize<'a>,
{
    let options = Options { recursion_limit: 128 };
    options.from_str(s)
}

impl<'de> Deserializer<'de> {
    pub fn from_str_with_options(text: &'de str, _options: &Options) -> Result<Self, String> {
        Ok(Deserializer { text, pos: 0 })
    }

    pub fn end(&mut self) -> Result<(), String> {
        if self.pos < self.text.len() {
            return Err("trailing characters".to_string());
        }
        Ok(())
    }

    fn any_value(&mut self) -> Result<usize, String> {
        let start = self.pos;
        while self.pos < self.text.len() && !self.text[self.pos..].starts_with(',') {
            self.pos += 1;
        }
        Ok(self.pos - start)
    }
}

impl<'de, 'a> serde::de::Deserializer<'de> for &'a mut Deserializer<'de> {
    type Error = String;

    fn deserialize_any<V>(self, visitor: V) -> Result<V::Value, String>
    where
        V: serde::de::Visitor<'de>,
    {
        let n = self.any_value()?;
        visitor.visit_u64(n as u64)
    }
}
""", "README.md": "# ron\n\n```rust\nlet x: MyStruct = ron::from_str(\"(boolean: true, float: 1.23)\").unwrap();\n```\n"}


def test_serde_drives_a_format_crates_deserializer_through_its_deserialize_any(tmp_path):
    # ron's `from_str_seed` ends in `seed.deserialize(&mut deserializer)`: serde's code, not the project's, then
    # calls the deserializer's deserialize methods
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _steps

    p = load(_write(tmp_path / "ron", _RON))
    steps = central_path(p, entry_points(p))
    names = [s.dotted for s in steps]
    assert names[names.index("Options.from_str_seed") + 1] == "Deserializer.deserialize_any", names
    for lang in ("en", "zh"):
        said = "\n".join(_steps(p, steps, {}, lang))
        assert "deserialize_any" in said and not _r1_cites(said, tmp_path / "ron"), _r1_cites(said, tmp_path / "ron")


def test_a_performance_harness_and_a_sandbox_are_the_maintainers_tooling(tmp_path):
    # markdown2's perf/gen_perf_cases.py had a chapter ("Gen perf cases")
    from orchestrator.authoring.plan import peripheral

    p = load(_write(tmp_path / "md", {"setup.py": "from setuptools import setup\nsetup(name='md')\n",
                                      "lib/md.py": "def convert(text):\n    return text\n",
                                      "perf/gen_perf_cases.py": "def gen():\n    return 1\n",
                                      "sandbox/try_it.py": "def run():\n    return 2\n"}))
    assert peripheral(p, "perf/gen_perf_cases.py") and peripheral(p, "sandbox/try_it.py")
    assert not peripheral(p, "lib/md.py")


def test_a_versioned_copy_of_another_crate_is_vendored_and_r1_sees_what_the_map_reads(tmp_path):
    # prettyplease's cargo-expand/syn-1.0.97.rs (1.6 MB, a test corpus) had chapter 1; its diagram drew `ThreadBound`
    # from past the file's first megabyte, which R1's index had cut, and R1 stopped the book
    from orchestrator.checks.code import _symbol_problem, source_index
    from orchestrator.repo.classify import name_reason

    assert name_reason("syn-1.0.97.rs") == "vendored (a copy of syn 1.0.97)"
    assert name_reason("cargo-tally-1.0.8.rs") and name_reason("jquery-3.6.0.js")
    assert name_reason("main.rs") is None and name_reason("lib-1.2.rs") is None
    big = "// filler\n" * 120_000 + "pub struct ThreadBound<T> {\n    value: T,\n}\n"
    root = _write(tmp_path / "big", {"Cargo.toml": '[package]\nname = "big"\n', "src/lib.rs": "pub mod big;\n",
                                     "src/big.rs": big})
    assert len(big) > 1_200_000
    assert _symbol_problem("ThreadBound", source_index(root)) is None


_GOVERSION = """package version

import "strings"

// Version represents a single version.
type Version struct {
	segments []int64
	original string
}

// NewVersion parses the given version and returns a new Version.
func NewVersion(v string) (*Version, error) {
	return newVersion(v, strings.TrimSpace(v))
}

func newVersion(v string, trimmed string) (*Version, error) {
	parts := strings.Split(trimmed, ".")
	segments := make([]int64, len(parts))
	for i := range parts {
		segments[i] = int64(len(parts[i]))
	}
	return &Version{segments: segments, original: v}, nil
}

// LessThan tests if this version is less than another version.
func (v *Version) LessThan(o *Version) bool {
	return v.Compare(o) < 0
}

// Compare compares this version to another version.
func (v *Version) Compare(other *Version) int {
	for i := range v.segments {
		if c := comparePart(v.segments[i], other.segments[i]); c != 0 {
			return c
		}
	}
	return 0
}

func comparePart(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}
"""


def test_a_go_root_packages_function_by_its_package_name_and_a_tested_call_is_the_run(tmp_path):
    # go-version's README: `v1, err := version.NewVersion("1.2")` (the package is `version`, the directory
    # `go-version`), then `if v1.LessThan(v2) {`: the comparison is the run, `NewVersion` its set-up
    readme = ('# go-version\n\n```go\nv1, err := version.NewVersion("1.2")\nv2, err := version.NewVersion("1.5+metadata")\n\n'
              'if v1.LessThan(v2) {\n    fmt.Printf("%s is less than %s", v1, v2)\n}\n```\n')
    p = load(_write(tmp_path / "go-version", {"go.mod": "module github.com/hashicorp/go-version\n", "version.go": _GOVERSION,
                                              "README.md": readme}))
    assert _path(p) == ["NewVersion", "newVersion", "|", "Version.LessThan", "Version.Compare", "comparePart"]


_H2T = '''import html.parser


class HTML2Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.outtextlist = []

    def feed(self, data):
        data = data.replace("</' + 'script>", "</ignore>")
        super().feed(data)

    def handle(self, data):
        self.feed(data)
        self.feed("")
        markdown = self.optwrap(self.finish())
        return markdown

    def finish(self):
        return "".join(self.outtextlist)

    def optwrap(self, text):
        result = ""
        for para in text.split("\\\\n\\\\n"):
            if para.startswith("    "):
                result += para
            else:
                result += para.strip()
            result += "\\\\n\\\\n"
        return result

    def handle_starttag(self, tag, attrs):
        self.handle_tag(tag, dict(attrs), start=True)

    def handle_endtag(self, tag):
        self.handle_tag(tag, {}, start=False)

    def handle_tag(self, tag, attrs, start):
        if tag in ("h1", "h2"):
            self.o("#" * int(tag[1]) + " " if start else "")
        elif tag == "p":
            self.p()

    def o(self, data):
        self.outtextlist.append(data)

    def p(self):
        self.o("\\\\n\\\\n")


def html2text(html):
    h = HTML2Text()
    return h.handle(html)
'''


def test_a_stdlib_parser_calls_its_subclass_back_where_the_work_is(tmp_path):
    # html2text: `handle` feeds the text to `html.parser`, which calls `handle_starttag` for each tag; `optwrap`
    # after it only wraps the finished text
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _steps

    p = load(_write(tmp_path / "h2t", {"setup.py": "from setuptools import setup\nsetup(name='html2text')\n",
                                       "html2text/__init__.py": _H2T,
                                       "README.md": "# html2text\n\n```python\n>>> import html2text\n>>> print(html2text.html2text(\"<p>Hello</p>\"))\nHello\n```\n"}))
    steps = central_path(p, entry_points(p))
    assert [s.dotted for s in steps][:5] == ["html2text", "HTML2Text.handle", "HTML2Text.feed", "HTML2Text.handle_starttag",
                                             "HTML2Text.handle_tag"]
    for lang in ("en", "zh"):
        said = "\n".join(_steps(p, steps, {}, lang))
        assert "HTML" in said and not _r1_cites(said, tmp_path / "h2t"), _r1_cites(said, tmp_path / "h2t")


_TTY = {"tty-table.gemspec": "Gem::Specification.new do |s|\n  s.name = 'tty-table'\nend\n", "lib/tty/table.rb": """require_relative 'table/renderer'

module TTY
  class Table
    def initialize(header = nil, rows = [])
      @header = header
      @rows = coerce(rows)
    end

    def coerce(rows)
      rows.map do |row|
        raise ArgumentError, 'a row is an array' unless row.is_a?(Array)
        row.map(&:to_s)
      end
    end

    def render(border = :basic)
      renderer = Renderer.new(self, border)
      renderer.render
    end

    def rows
      @rows
    end
  end
end
""", "lib/tty/table/renderer.rb": """module TTY
  class Table
    class Renderer
      def initialize(table, border)
        @table = table
        @border = border
      end

      def render
        lines = @table.rows.map { |row| format_row(row) }
        lines.join("\\n")
      end

      def format_row(row)
        row.join(border_char)
      end

      def border_char
        @border == :ascii ? '|' : ' '
      end
    end
  end
end
""", "README.md": """# TTY::Table

## 1. Usage

First, provide **TTY::Table** with data:

```ruby
table = TTY::Table.new(["header1","header2"], [["a1", "a2"], ["b1", "b2"]])
```

Then to print to the console, call the `render` method:

```ruby
puts table.render(:ascii)
# =>
#  +-------+-------+
#  |header1|header2|
#  +-------+-------+
#  |a1     |a2     |
#  +-------+-------+
```
"""}


def test_a_ruby_value_made_in_a_namespace_and_printed_in_the_next_block_is_run_there(tmp_path):
    # tty-table's README: `table = TTY::Table.new(…)`, then `puts table.render(:ascii)` with the table drawn in
    # `# =>` comments
    from orchestrator.authoring.overview import entry_points, example_of

    p = load(_write(tmp_path / "tty", _TTY))
    assert example_of(p, entry_points(p)).then is not None
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["TTY.Table.render", "TTY.Table.Renderer.render"], path
    assert path[:1] == ["TTY.Table.initialize"], path  # (the set-up: `TTY::Table.new(…)`)


def test_of_several_implementations_the_projects_table_gives_the_one_the_examples_data_names(tmp_path):
    # jsonpatch: `PatchOperation.apply` (a docstring, then `raise NotImplementedError`) has six implementations;
    # `operations = {"add": AddOperation, …}` gives `AddOperation` for the tutorial's first `{'op': 'add', …}`
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points
    from orchestrator.authoring.story import _steps

    code = _PATCH.replace('''    def apply(self, obj):
        raise NotImplementedError("should implement the patch operation")''', '''    def apply(self, obj):
        """Abstract method that applies a patch operation to the specified object."""
        raise NotImplementedError("should implement the patch operation")''')
    readme = ("# patch\n\n```python\n>>> import patch\n>>> p = patch.JsonPatch([\n    {'op': 'add', 'path': 'foo', 'value': 'bar'},\n"
              "    {'op': 'remove', 'path': 'baz'},\n])\n>>> result = p.apply({})\n```\n")
    p = load(_write(tmp_path / "patch", {"setup.py": "from setuptools import setup\nsetup(name='patch')\n",
                                         "patch.py": code, "README.md": readme}))
    steps = central_path(p, entry_points(p))
    assert [s.dotted for s in steps][:3] == ["JsonPatch.apply", "PatchOperation.apply", "AddOperation.apply"]
    for lang in ("en", "zh"):
        said = "\n".join(_steps(p, steps, {}, lang))
        assert "AddOperation" in said and not _r1_cites(said, tmp_path / "patch"), _r1_cites(said, tmp_path / "patch")
