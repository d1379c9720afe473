"""What an example does that chapter 1's main path reads (issue 35, session 24, set 19): a Python loop over
an object runs its `__iter__`; a Rust `println!("{table}")` runs `Display`'s `fmt`; of calls side by side
on one value the first is the run; a Rust `use` of a child module; a C# pointer's `*` the grammar cannot
read; a Kotlin extension of another library's type; a Ruby module's method called on the module that
mixes it in, and a mixin's bare call to its includer's method; a Go value the example hands over chooses
the implementation; a set-up of one maker call; a Java call's argument typed by its class's own method;
an implicit-`this` call of an interface's overload. Each on a small source, failing without its rule."""

from __future__ import annotations

from conftest import symbol as _sym, traced as _path, write_files as _write

from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load


def _calls(p: Project, dotted: str, line: int = 0) -> list[str]:
    return [c.dotted for c in all_calls(p, _sym(p, dotted, line))]


def test_a_python_loop_over_an_object_runs_its_iter_set_up_by_its_init(tmp_path):
    # tqdm's README: `for i in tqdm(range(10000)):` — iterating the bar runs `__iter__`, which updates it
    p = load(_write(tmp_path / "bar", {
        "README.md": "# bar\n\n```python\nfrom bar import bar\nfor i in bar(range(100)):\n    ...\n```\n",
        "bar/__init__.py": "from .core import bar\n",
        "bar/core.py": """class bar:
    def __init__(self, iterable, total=None):
        self.iterable = iterable
        self.total = self.measure(iterable, total)
        self.reset()

    def measure(self, iterable, total):
        if total is None:
            total = len(iterable)
        return total

    def reset(self):
        self.n = 0
        self.shown = ""
        self.refresh()

    def __iter__(self):
        for obj in self.iterable:
            yield obj
            self.update(1)
        self.close()

    def update(self, n=1):
        self.n += n
        if self.n % 10 == 0:
            self.refresh()

    def refresh(self):
        line = self.format_meter(self.n, self.total)
        self.shown = line
        self.write(line)

    def write(self, line):
        print(line, end="\\r")

    def format_meter(self, n, total):
        width = 20
        done = int(width * n / max(total, 1))
        bar_text = "#" * done + "-" * (width - done)
        return f"{n}/{total} |{bar_text}|"

    def close(self):
        self.refresh()

    def set_description(self, desc):
        self.desc = desc
        self.refresh()
""",
    }))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["bar.__iter__", "bar.update", "bar.refresh"], path
    assert path[0] == "bar.__init__", path
    from orchestrator.authoring.story import _path_walk

    # chapter 1 says that the loop runs it, not that a user calls `__iter__`
    text = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en", after_setup=True))
    assert "The example loops over the `bar` it makes, and each turn of the loop runs its `bar.__iter__`" in text


COMFY = {
    "README.md": """# table

```rust
use table::Table;

fn main() {
    let mut table = Table::new();
    table
        .set_header(vec!["a", "b"])
        .add_row(vec!["1", "2"]);

    println!("{table}");
}
```
""",
    "Cargo.toml": '[package]\nname = "table"\n',
    "src/lib.rs": "pub mod table;\npub mod utils;\npub use table::Table;\n",
    "src/table.rs": """use std::fmt;

use crate::utils::build_table;

pub struct Table {
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lines().collect::<Vec<_>>().join("\\n"))
    }
}

impl Table {
    pub fn new() -> Self {
        Table { header: Vec::new(), rows: Vec::new() }
    }

    pub fn set_header(&mut self, header: Vec<&str>) -> &mut Self {
        self.header = header.iter().map(|s| s.to_string()).collect();
        self.autogenerate(self.header.len());
        self
    }

    fn autogenerate(&mut self, n: usize) {
        while self.rows.len() < n {
            self.rows.push(Vec::new());
        }
    }

    pub fn add_row(&mut self, row: Vec<&str>) -> &mut Self {
        self.rows.push(row.iter().map(|s| s.to_string()).collect());
        self.autogenerate(self.rows.len());
        self
    }

    pub fn lines(&self) -> impl Iterator<Item = String> {
        build_table(self)
    }
}
""",
    "src/utils/mod.rs": """pub mod arrangement;

use arrangement::arrange_content;

use crate::Table;

pub fn build_table(table: &Table) -> impl Iterator<Item = String> {
    let widths = arrange_content(table);
    let mut out = Vec::new();
    for row in &table.rows {
        out.push(row.join(" | "));
    }
    let _ = widths;
    out.into_iter()
}
""",
    "src/utils/arrangement.rs": """use crate::Table;

pub fn arrange_content(table: &Table) -> Vec<usize> {
    let mut widths = vec![0; table.header.len()];
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() && cell.len() > widths[i] {
                widths[i] = cell.len();
            }
        }
    }
    widths
}
""",
}


def test_a_rust_println_of_a_built_value_runs_display_and_a_use_of_a_child_module_resolves(tmp_path):
    p = load(_write(tmp_path / "table", COMFY))
    # `use arrangement::arrange_content;` in utils/mod.rs: `arrangement` is a child module of this crate
    assert _calls(p, "build_table") == ["arrange_content"]
    path = _path(p)
    # the example ends by printing the table it set up: `impl Display for Table`'s `fmt` runs
    assert path[path.index("|") + 1:][:3] == ["Table.fmt", "Table.lines", "build_table"], path


def test_of_calls_side_by_side_on_one_value_the_first_is_the_run(tmp_path):
    # Cronos' README: `expression.GetNextOccurrence(…)`, then `expression.GetPreviousOccurrence(…)`
    p = load(_write(tmp_path / "cron", {
        "README.md": """# Cron

```csharp
CronExpression expression = CronExpression.Parse("* * * * *");

DateTime? nextUtc = expression.GetNextOccurrence(DateTime.UtcNow);
DateTime? previousUtc = expression.GetPreviousOccurrence(DateTime.UtcNow);
```
""",
        "src/CronExpression.cs": """namespace Cron
{
    public class CronExpression
    {
        public static CronExpression Parse(string expression)
        {
            return CronParser.Parse(expression);
        }

        public DateTime? GetNextOccurrence(DateTime from)
        {
            var found = FindOccurrence(from.Ticks, true);
            return found == 0 ? null : new DateTime(found);
        }

        public DateTime? GetPreviousOccurrence(DateTime from)
        {
            var found = FindPreviousOccurrence(from.Ticks, true);
            var checkedTicks = Verify(found, from.Ticks);
            return checkedTicks == 0 ? null : new DateTime(checkedTicks);
        }

        private long FindOccurrence(long ticks, bool inclusive)
        {
            var next = ticks + 1;
            while (!Matches(next)) next++;
            return next;
        }

        private long FindPreviousOccurrence(long ticks, bool inclusive)
        {
            var prev = ticks - 1;
            while (!Matches(prev)) prev--;
            return Adjust(prev);
        }

        private long Adjust(long ticks)
        {
            var t = ticks - ticks % 60;
            return Verify(t, ticks);
        }

        private long Verify(long ticks, long from)
        {
            if (ticks > from) return 0;
            return ticks;
        }

        private bool Matches(long ticks)
        {
            return ticks % 60 == 0;
        }
    }
}
""",
        "src/CronParser.cs": """namespace Cron
{
    internal static class CronParser
    {
        public static unsafe CronExpression Parse(string expression)
        {
            fixed (char* value = expression)
            {
                var pointer = value;
                if (ToUpper(*(pointer - 1)) == 'M')
                {
                    return ParseMacro(ref pointer);
                }
                return new CronExpression();
            }
        }

        private static unsafe CronExpression ParseMacro(ref char* pointer)
        {
            var c = *pointer;
            return c == '@' ? new CronExpression() : null;
        }

        private static char ToUpper(char c) => char.ToUpper(c);
    }
}
""",
    }))
    # `ToUpper(*(pointer - 1))` is read: the class's methods are its own, not a file the grammar lost
    assert _sym(p, "CronParser.Parse").kind == "method"
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["CronExpression.GetNextOccurrence", "CronExpression.FindOccurrence"], path


TURBINE = {
    "README.md": """# turbine

```kotlin
flowOf("one", "two").test {
  assertEquals("one", awaitItem())
  awaitComplete()
}
```
""",
    "src/commonMain/kotlin/app/turbine/flow.kt": """package app.turbine

public suspend fun <T> Flow<T>.test(
  name: String? = null,
  validate: suspend ReceiveTurbine<T>.() -> Unit,
) {
  val turbine = collectTurbineIn(name)
  turbine.validate()
  turbine.ensureAllEventsConsumed()
}

internal fun <T> Flow<T>.collectTurbineIn(name: String?): ReceiveTurbine<T> {
  val output = Channel<T>()
  launchIn(output)
  return ChannelTurbine(output, name)
}
""",
    "src/commonMain/kotlin/app/turbine/channel.kt": """package app.turbine

public suspend fun <T> ReceiveChannel<T>.awaitItem(): T {
  val event = awaitEvent()
  return event.value
}

public suspend fun <T> ReceiveChannel<T>.awaitComplete() {
  val event = awaitEvent()
  check(event.done)
}

public suspend fun <T> ReceiveChannel<T>.awaitEvent(): Event<T> {
  return withTimeout { receiveCatching() }
}
""",
    "src/commonMain/kotlin/app/turbine/Turbine.kt": """package app.turbine

public interface ReceiveTurbine<T> {
  public fun ensureAllEventsConsumed()
}

internal class ChannelTurbine<T>(private val channel: Channel<T>, private val name: String?) : ReceiveTurbine<T> {
  override fun ensureAllEventsConsumed() {
    check(channel.isEmpty)
  }
}
""",
}


def test_a_kotlin_extension_of_another_librarys_type_is_an_entry_and_the_block_it_is_given_runs(tmp_path):
    p = load(_write(tmp_path / "turbine", TURBINE))
    # `flowOf(…).test {`: `Flow` is kotlinx's, so `Flow<T>.test` is the project's `test`, however common the word
    assert "Flow.test" in [e.dotted for e in entry_points(p)]
    # the example ends in `test { … }`: `test` prepares the turbine, the block's `awaitItem()` is the run
    path = _path(p)
    assert path[0] == "Flow.test" and path[path.index("|") + 1].endswith(".awaitItem"), path
    # a statement after the block: the block's calls still run inside `test`, which weighs more than they
    from orchestrator.authoring.example_calls import inside_blocks

    called = {"test": 0.6, "awaitItem": 1.0, "println": 0.2}
    inside_blocks('flowOf(1).test() {\n  awaitItem()\n}\nprintln("done")', called)
    assert called == {"test": 0.6, "awaitItem": 0.54, "println": 0.2}


HTTPRB = {
    "README.md": '# http\n\n```ruby\n>> HTTP.get("https://github.com").to_s\n```\n',
    "lib/http.rb": 'require "http/chainable"\nrequire "http/client"\n\nmodule HTTP\n  extend Chainable\nend\n',
    "lib/http/chainable.rb": """require "http/chainable/verbs"

module HTTP
  module Chainable
    include Verbs

    def request(verb, uri, **opts)
      client = make_client(opts)
      client.request(verb, uri)
    end

    def make_client(options)
      HTTP::Client.new(options)
    end
  end
end
""",
    "lib/http/chainable/verbs.rb": """module HTTP
  module Chainable
    module Verbs
      def get(uri, **opts)
        request(:get, uri, **opts)
      end

      def post(uri, **opts)
        request(:post, uri, **opts)
      end
    end
  end
end
""",
    "lib/http/client.rb": """module HTTP
  class Client
    def initialize(options)
      @options = options
    end

    def request(verb, uri)
      req = build_request(verb, uri)
      perform(req)
    end

    def build_request(verb, uri)
      [verb, uri, @options]
    end

    def perform(req)
      connection = open_connection(req)
      response = connection.send_request(req)
      finish(response)
    end

    def open_connection(req)
      Object.new
    end

    def finish(response)
      response
    end
  end
end
""",
}


def test_a_ruby_modules_method_called_on_the_module_that_mixes_it_in(tmp_path):
    p = load(_write(tmp_path / "http", HTTPRB))
    # `HTTP.get(…)`: `module HTTP; extend Chainable`, Chainable `include Verbs`, where `get` is
    assert "HTTP.Chainable.Verbs.get" in [e.dotted for e in entry_points(p)]
    # Verbs' bare `request(…)` is the method of the module that includes it
    assert _calls(p, "HTTP.Chainable.Verbs.get") == ["HTTP.Chainable.request"]
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["HTTP.Chainable.Verbs.get", "HTTP.Chainable.request", "HTTP.Client.request"]


JWT = {
    "README.md": """# jwt

```go
token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
ss, err := token.SignedString(key)
fmt.Println(ss, err)
```
""",
    "go.mod": "module example.com/jwt\n",
    "token.go": """package jwt

type Token struct {
	Header map[string]any
	Method SigningMethod
	Signature []byte
}

func NewWithClaims(method SigningMethod, claims Claims) *Token {
	return &Token{
		Header: map[string]any{"alg": method.Alg()},
		Method: method,
	}
}

func (t *Token) SignedString(key any) (string, error) {
	sstr, err := t.SigningString()
	if err != nil {
		return "", err
	}
	sig, err := t.Method.Sign(sstr, key)
	if err != nil {
		return "", err
	}
	t.Signature = sig
	return sstr + "." + string(sig), nil
}

func (t *Token) SigningString() (string, error) {
	return "header.claims", nil
}
""",
    "signing_method.go": """package jwt

type SigningMethod interface {
	Sign(signingString string, key any) ([]byte, error)
	Alg() string
}
""",
    "hmac.go": """package jwt

type SigningMethodHMAC struct {
	Name string
}

var (
	SigningMethodHS256 *SigningMethodHMAC
)

func init() {
	SigningMethodHS256 = &SigningMethodHMAC{"HS256"}
}

func (m *SigningMethodHMAC) Alg() string {
	return m.Name
}

func (m *SigningMethodHMAC) Sign(signingString string, key any) ([]byte, error) {
	keyBytes, ok := key.([]byte)
	if !ok {
		return nil, errInvalidKey()
	}
	mac := newMac(keyBytes)
	mac.Write([]byte(signingString))
	return mac.Sum(nil), nil
}

func newMac(key []byte) *hasher {
	return &hasher{key: key}
}
""",
    "rsa.go": """package jwt

type SigningMethodRSA struct {
	Name string
}

func (m *SigningMethodRSA) Alg() string {
	return m.Name
}

func (m *SigningMethodRSA) Sign(signingString string, key any) ([]byte, error) {
	rsaKey, ok := key.(*rsaPrivateKey)
	if !ok {
		return nil, errInvalidKey()
	}
	return signPKCS1(rsaKey, signingString)
}
""",
}


def test_a_go_value_the_example_hands_over_chooses_the_implementation_and_its_maker_sets_up(tmp_path):
    p = load(_write(tmp_path / "jwt", JWT))
    path = _path(p)
    # `jwt.SigningMethodHS256` is declared `*SigningMethodHMAC`: `t.Method.Sign` runs HMAC's, not RSA's
    assert path[path.index("|") + 1:][:3] == ["Token.SignedString", "SigningMethod.Sign", "SigningMethodHMAC.Sign"], path
    # `jwt.NewWithClaims(…)` made the token: a set-up of one call, though it hands only to a getter
    assert path[0] == "NewWithClaims", path
    from orchestrator.authoring.hops import implemented

    # chapter 1 says how the implementation was chosen, and cites the interface's own head (Go names no interface
    # where a type implements it)
    hop = implemented(p, _sym(p, "SigningMethod.Sign"))[0]
    assert (hop.how, hop.tie) == ("handed", ("signing_method.go", 3))


JSONASSERT = {
    "README.md": '# jsonassert\n\n```java\nJSONAssert.assertEquals(expected, actual, false);\n```\n',
    "src/main/java/org/jsonassert/JSONAssert.java": """package org.jsonassert;

public class JSONAssert {
    public static void assertEquals(String expected, String actual, boolean strict) {
        JSONCompareResult result = JSONCompare.compareJSON(expected, actual, strict);
        if (result.failed()) {
            throw new AssertionError(result.getMessage());
        }
    }
}
""",
    "src/main/java/org/jsonassert/JSONCompare.java": """package org.jsonassert;

public final class JSONCompare {
    private static JSONComparator getComparatorForMode(boolean strict) {
        return new DefaultComparator(strict);
    }

    public static JSONCompareResult compareJSON(String expectedStr, String actualStr, JSONComparator comparator) {
        JSONObject expected = JSONParser.parseJSON(expectedStr);
        JSONObject actual = JSONParser.parseJSON(actualStr);
        return comparator.compareJSON(expected, actual);
    }

    public static JSONCompareResult compareJSON(String expectedStr, String actualStr, boolean strict) {
        return compareJSON(expectedStr, actualStr, getComparatorForMode(strict));
    }
}
""",
    "src/main/java/org/jsonassert/JSONComparator.java": """package org.jsonassert;

public interface JSONComparator {
    JSONCompareResult compareJSON(JSONObject expected, JSONObject actual);

    void compareJSON(String prefix, JSONObject expected, JSONObject actual, JSONCompareResult result);
}
""",
    "src/main/java/org/jsonassert/AbstractComparator.java": """package org.jsonassert;

public abstract class AbstractComparator implements JSONComparator {
    @Override
    public final JSONCompareResult compareJSON(JSONObject expected, JSONObject actual) {
        JSONCompareResult result = new JSONCompareResult();
        compareJSON("", expected, actual, result);
        return result;
    }
}
""",
    "src/main/java/org/jsonassert/DefaultComparator.java": """package org.jsonassert;

public class DefaultComparator extends AbstractComparator {
    private final boolean strict;

    public DefaultComparator(boolean strict) {
        this.strict = strict;
    }

    @Override
    public void compareJSON(String prefix, JSONObject expected, JSONObject actual, JSONCompareResult result) {
        for (String key : expected.keySet()) {
            compareValues(prefix + key, expected.get(key), actual.get(key), result);
        }
    }

    public void compareValues(String prefix, Object expected, Object actual, JSONCompareResult result) {
        if (!expected.equals(actual)) {
            result.fail(prefix, expected, actual);
        }
    }
}
""",
}


def test_a_java_argument_typed_by_its_class_own_call_and_an_implicit_this_call_of_an_interface_overload(tmp_path):
    p = load(_write(tmp_path / "jsonassert", JSONASSERT))
    # `compareJSON(…, getComparatorForMode(strict))`: the argument is a `JSONComparator`, so the overload is the
    # comparator's, not the boolean one again
    assert _calls(p, "JSONCompare.compareJSON", 14) == ["JSONCompare.compareJSON", "JSONCompare.getComparatorForMode"]
    # `compareJSON("", expected, actual, result)` in AbstractComparator: past its own two-argument overload, the
    # interface's four-argument one
    assert _calls(p, "AbstractComparator.compareJSON") == ["JSONComparator.compareJSON"]


SUPERJSON = {
    "README.md": "# superjson\n\n```js\nimport superjson from 'superjson';\n\nconst s = superjson.stringify({ date: new Date(0) });\n```\n",
    "package.json": '{"name": "superjson", "main": "src/index.ts"}\n',
    "src/index.ts": """import {
  generateAnnotations,
  walker,
} from './plainer.js';

export default class SuperJSON {
  serialize(object: any): any {
    const identities = new Map<any, any[][]>();
    const output = walker(object, identities, this);
    const res: any = { json: output.value };
    const annotations = generateAnnotations(identities);
    if (annotations) {
      res.meta = annotations;
    }
    return res;
  }

  stringify(object: any): string {
    return JSON.stringify(this.serialize(object));
  }
}
""",
    "src/plainer.ts": """export const walker = (object: any, identities: Map<any, any[][]>, superJson: any): any => {
  const seen = identities.get(object);
  if (seen) {
    seen.push([]);
  }
""" + "".join(f"""  if (kind{i}(object)) {{
    const size{i} = Object.keys(object).length;
    const tag{i} = 'kind{i}';
    seen?.push([tag{i}, String(size{i})]);
    return {{ value: transform{i}(object), tag: tag{i} }};
  }}
""" for i in range(10)) + """  return { value: object };
};

export const generateAnnotations = (identities: Map<any, any[][]>): any => {
  const result: any = {};
""" + "".join(f"""  const count{i} = identities.size + {i};
""" for i in range(20)) + """
  identities.forEach((paths, key) => {
    if (paths.length > 1) {
      result[keyOf(key)] = paths.map((p) => joinPath(p));
    }
  });
  if (isEmpty(result)) {
    return undefined;
  }
  return result;
};

export const isEmpty = (o: any): boolean => Object.keys(o).length === 0;

export const keyOf = (k: any): string => String(k);

export const joinPath = (p: any[]): string => p.join('.');
""" + "".join(f"""
export const kind{i} = (o: any): boolean => typeof o === 'object' && o !== null && '{i}' in o;

export const transform{i} = (o: any): any => {{
  const out: any = {{}};
  for (const k of Object.keys(o)) {{
    out[k] = String(o[k]) + '{i}';
  }}
  return deep{i}(out);
}};

export const deep{i} = (o: any): any => {{
  const copy: any = {{ ...o }};
  delete copy['{i}'];
  return copy;
}};
""" for i in range(10)),
}


def test_a_js_import_over_several_lines_and_a_big_call_before_a_small_last_one(tmp_path):
    p = load(_write(tmp_path / "superjson", SUPERJSON))
    # `import {⏎  generateAnnotations,⏎  walker,⏎} from './plainer.js'`: both names are the project's
    assert _calls(p, "SuperJSON.serialize") == ["walker", "generateAnnotations"]
    from orchestrator.authoring.handoff import handed_to

    # `walker` reaches 30 definitions, `generateAnnotations` 3 (under ten times as many, over five), from a body more
    # than twice as long: it is where
    # `serialize` does its work, not the annotations made after it
    assert handed_to(p, _sym(p, "SuperJSON.serialize")) == ("src/plainer.ts", 1)


def test_a_branch_on_a_parameter_that_defaults_to_nothing_is_a_side_road(tmp_path):
    # tqdm's `__init__(…, postfix=None, …)` sets its postfix only `if postfix:`; `tqdm(range(10))` gives none, and
    # the set-up chapter 1 told went that way
    from orchestrator.authoring.facts import side_calls

    p = load(_write(tmp_path / "bar", {"bar.py": """class Bar:
    def __init__(self, iterable, desc=None,
                 postfix=None, total=0):
        self.iterable = iterable
        if postfix:
            self.set_postfix(postfix)
        if desc is not None:
            self.set_description(desc)
        if total > 0:
            self.resize(total)
        self.refresh()

    def set_postfix(self, postfix):
        self.postfix = postfix

    def set_description(self, desc):
        self.desc = desc

    def resize(self, total):
        self.total = total

    def refresh(self):
        print(self.iterable)
"""}))
    init = _sym(p, "Bar.__init__")
    side = {c.short for c in all_calls(p, init) if (c.rel, c.d.start_line) in side_calls(p, init)}
    # a comparison (`total > 0`) is data, not a parameter left out
    assert side == {"set_postfix", "set_description"}, side



def test_the_line_of_a_call_made_in_an_argument_is_where_it_is_called(tmp_path):
    # gojsonschema: `validateString` reads `reflect.String` on one line and calls `context.String()` in a log call's
    # argument later; chapter 1 said the call was at the first, and our R1 stopped the book
    from orchestrator.authoring.tracing import call_line

    p = load(_write(tmp_path / "gjs", {"go.mod": "module example.com/gjs\n", "v.go": """package gjs

import "reflect"

type JsonContext struct {
	head string
}

func (c *JsonContext) String() string {
	return c.head
}

func validateString(value interface{}, context *JsonContext) {
	if !isKind(value, reflect.String) {
		return
	}
	internalLog("validateString %s", context.String())
}

func isKind(v interface{}, k reflect.Kind) bool {
	return reflect.TypeOf(v).Kind() == k
}

func internalLog(f string, a ...interface{}) {
}
"""}))
    assert call_line(p, _sym(p, "validateString"), _sym(p, "JsonContext.String")) == 17
