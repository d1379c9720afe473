"""How the map reads the calls chapter 1's main path is made of (issue 35, session 23, set 18): a C#
`int` argument fits a `long` parameter and the plain overload before its `params` form; a C# partial
class's members in another file; Rust's `pub use m::f as g`; a Python head longer than the map keeps;
a class body's `_parse = _parseNoCache`; a comment after code; a TypeScript field made by `new`; a
Java method's nested result type and the chain it starts; a Go struct's embedded type and `doc, err :=`;
a Ruby `puts` of a built value; caches, pools and debug switches as side roads; a loop whose call reaches
ten times more than the long call after it. Each on a small source, failing without its rule."""

from __future__ import annotations

from conftest import symbol as _sym, traced as _path, write_files as _write

from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.handoff import handed_to
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, load
from orchestrator.authoring.sideroads import side_road


def _calls(p: Project, dotted: str) -> list[tuple[str, int]]:
    return [(c.dotted, c.d.start_line) for c in all_calls(p, _sym(p, dotted))]


HASHIDS = {
    "README.md": "# Hashids\n\n```csharp\nvar hashids = new Hashids(\"this is my salt\");\nvar hash = hashids.Encode(12345);\n```\n",
    "src/Hashids.Obsolete.cs": """namespace HashidsNet
{
    public partial class Hashids
    {
        public string Encrypt(params int[] numbers) => Encode(numbers);
    }
}
""",
    "src/Hashids.cs": """namespace HashidsNet
{
    public partial class Hashids
    {
        private readonly string _salt;

        public Hashids(string salt)
        {
            _salt = salt;
            ConsistentShuffle(salt);
        }

        public string Encode(int number) => EncodeLong(number);

        public string EncodeLong(long number)
        {
            var result = new char[20];
            var length = GenerateHashFrom(number, result);
            return new string(result, 0, length);
        }

        public string EncodeLong(params long[] numbers)
        {
            return string.Join(",", numbers);
        }

        private int GenerateHashFrom(long number, char[] result)
        {
            var alphabet = _salt.ToCharArray();
            ConsistentShuffle(_salt);
            var length = BuildReversedHash(number, alphabet, result);
            var sb = StringBuilderPool.Get();
            sb.Append(result);
            StringBuilderPool.Return(sb);
            return length;
        }

        private int BuildReversedHash(long number, char[] alphabet, char[] result)
        {
            var length = 0;
            do
            {
                result[length++] = alphabet[number % alphabet.Length];
                number /= alphabet.Length;
            } while (number > 0);
            return length;
        }

        private void ConsistentShuffle(string salt)
        {
            for (var i = 0; i < salt.Length; i++)
            {
                var j = salt[i] % salt.Length;
                var k = i + j;
                var m = k * 2;
            }
        }
    }

    internal static class StringBuilderPool
    {
        public static System.Text.StringBuilder Get() => new System.Text.StringBuilder();

        public static void Return(System.Text.StringBuilder sb)
        {
            sb.Clear();
        }
    }
}
""",
}


def test_an_int_fits_a_long_and_the_plain_overload_comes_before_its_params_form(tmp_path):
    p = load(_write(tmp_path / "hashids", HASHIDS))
    assert _calls(p, "Hashids.Encode") == [("Hashids.EncodeLong", 15)]


def test_a_partial_class_is_followed_from_its_other_file_and_a_pools_get_and_return_are_no_steps(tmp_path):
    p = load(_write(tmp_path / "hashids", HASHIDS))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["Hashids.Encode", "Hashids.EncodeLong", "Hashids.GenerateHashFrom"], path
    assert not any("StringBuilderPool" in x for x in path), path
    # the constructor sets up, though the run shuffles again: `new Hashids("salt")` is the example's first call
    assert path[:path.index("|")] == ["Hashids.Hashids", "Hashids.ConsistentShuffle"], path
    assert side_road(_sym(p, "StringBuilderPool.Return")) and not side_road(_sym(p, "StringBuilderPool.Get"))


COMRAK = {
    "README.md": "# comrak\n\n```rust\nuse comrak::markdown_to_html;\nlet html = markdown_to_html(\"**x**\");\n```\n",
    "Cargo.toml": '[package]\nname = "comrak"\n',
    "src/lib.rs": """mod cm;
mod html;
mod parser;

pub use cm::format_document as format_commonmark;
pub use html::format_document as format_html;
pub use parser::{parse_document, Options};

pub fn markdown_to_html(md: &str) -> String {
    let root = parse_document(md);
    let mut out = String::new();
    format_html(&root, &mut out);
    out
}
""",
    "src/cm.rs": "pub fn format_document(root: &str, out: &mut String) {\n    out.push_str(root);\n}\n",
    "src/html.rs": "pub fn format_document(root: &str, out: &mut String) {\n    out.push_str(root);\n    out.push('\\n');\n}\n",
    "src/parser/mod.rs": "pub struct Options {}\n\npub fn parse_document(md: &str) -> String {\n    md.to_string()\n}\n",
}


def test_a_rust_use_names_the_module_of_the_function_it_brings_in_under_another_name(tmp_path):
    p = load(_write(tmp_path / "comrak", COMRAK))
    found = [(c.dotted, c.rel) for c in all_calls(p, _sym(p, "markdown_to_html"))]
    assert found == [("parse_document", "src/parser/mod.rs"), ("format_document", "src/html.rs")], found


def test_a_loop_whose_call_reaches_ten_times_more_is_the_hand_off_before_a_long_call_that_reaches_little(tmp_path):
    deep = "\n".join(f"fn step{k}(x: u8) -> u8 {{\n    x + {k}\n}}\n" for k in range(25))
    wide = "\n".join(f"        let x{k} = step{k}(n);" for k in range(25))
    long_body = "\n".join(f"    let v{k} = {k};" for k in range(35))
    code = f"""pub struct Parser {{}}

impl Parser {{
    pub fn parse(&mut self, s: &str) -> u8 {{
        let mut n = 0;
        for line in s.lines() {{
            n += self.process_line(line);
        }}
        self.postprocess(n)
    }}

    fn process_line(&mut self, line: &str) -> u8 {{
        let n = line.len() as u8;
{wide}
        n
    }}

    fn postprocess(&mut self, n: u8) -> u8 {{
{long_body}
        tidy(n)
    }}
}}

fn tidy(n: u8) -> u8 {{
    n
}}

{deep}"""
    p = load(_write(tmp_path / "loop", {"Cargo.toml": '[package]\nname = "loop"\n', "src/lib.rs": code}))
    s = _sym(p, "Parser.parse")
    assert handed_to(p, s) == ("src/lib.rs", _sym(p, "Parser.process_line").d.start_line)


JINJA = {
    "src/jinja/environment.py": '''import typing as t


class Environment:
    def __init__(
        self,
        block_start: str = "{%",
        block_end: str = "%}",
        variable_start: str = "{{",
        variable_end: str = "}}",
        comment_start: str = "{#",
        comment_end: str = "#}",
        line_statement: str = "",
        loader: t.Optional["BaseLoader"] = None,
    ) -> None:
        self.loader = loader

    def get_template(self, name):
        return self.loader.load(self, name)
''',
    "src/jinja/loaders.py": '''class BaseLoader:
    def load(self, environment, name):
        return name.upper()
''',
}


def test_a_parameter_past_the_heads_first_eight_lines_still_types_the_field_it_fills(tmp_path):
    p = load(_write(tmp_path / "jinja", JINJA))
    assert _calls(p, "Environment.get_template") == [("BaseLoader.load", 2)]


PYPARSING = {
    "pyparsing/core.py": '''class ParserElement:
    def _parseNoCache(self, instring, loc):
        loc = self.preParse(instring, loc)
        return self.parseImpl(instring, loc)

    _parse = _parseNoCache

    def preParse(self, instring, loc):
        return loc

    def parseImpl(self, instring, loc):
        return loc, []

    def set_debug(self, flag=True):
        self.debug = flag
        return self

    def parse_string(self, instring, parse_all=False):
        loc, tokens = self._parse(instring, 0)  # a comment naming preParse(x) is no call
        if parse_all:
            StringEnd().set_debug(False)
        return tokens


class StringEnd(ParserElement):
    pass
''',
}


def test_a_class_bodys_alias_is_the_method_it_names_and_a_debug_switch_is_no_hand_off(tmp_path):
    p = load(_write(tmp_path / "pyparsing", PYPARSING))
    assert _sym(p, "ParserElement._parseNoCache").d.aliases == ["_parse"]
    assert [c for c, _ in _calls(p, "ParserElement.parse_string")] == ["ParserElement._parseNoCache", "StringEnd",
                                                                       "ParserElement.set_debug"]
    assert handed_to(p, _sym(p, "ParserElement.parse_string")) == ("pyparsing/core.py", 2)
    assert side_road(_sym(p, "ParserElement.set_debug"))


def test_a_comment_after_code_is_no_call(tmp_path):
    rb = "class Table\n  def widths\n    @dp ||= 0 # initialize column length to 0.\n    @dp\n  end\n\n  def initialize\n    @dp = nil\n  end\nend\n"
    p = load(_write(tmp_path / "tt", {"lib/table.rb": rb}))
    assert _calls(p, "Table.widths") == []


def test_a_caches_methods_are_side_roads(tmp_path):
    py = "class BytecodeCache:\n    def set_bucket(self, bucket):\n        self.bucket = bucket\n"
    p = load(_write(tmp_path / "cache", {"bccache.py": py}))
    assert side_road(_sym(p, "BytecodeCache.set_bucket"))


MARKDOWN_IT = {
    "README.md": "# markdown-it\n\n```js\nimport MarkdownIt from 'markdown-it'\nconst md = new MarkdownIt()\n"
                 "const result = md.render('# markdown-it rulezz!')\n```\n",
    "package.json": '{"name": "markdown-it", "main": "src/index.ts"}\n',
    "src/index.ts": "export { default } from './markdownit.ts'\n",
    "src/markdownit.ts": """import ParserCore from './parser_core.ts'
import Renderer from './renderer.ts'

export default class MarkdownIt {
  core = new ParserCore()
  renderer = new Renderer()

  constructor (presetName?: string) {
    this.configure(presetName)
    this.set({})
  }

  configure (name?: string) {
    this.core.ruler.enableOnly(name)
    return this
  }

  set (options: object) {
    return this
  }

  parse (src: string) {
    const state = { src, tokens: [] }
    this.core.process(state)
    return state.tokens
  }

  render (src: string) {
    return this.renderer.render(this.parse(src))
  }
}
""",
    "src/parser_core.ts": """import Ruler from './ruler.ts'

export default class ParserCore {
  ruler = new Ruler()

  process (state: object) {
    for (const rule of this.ruler.rules) {
      rule(state)
    }
  }
}
""",
    "src/ruler.ts": """export default class Ruler {
  rules: Function[] = []

  enableOnly (name?: string) {
    this.rules = this.rules.filter(r => r.name === name)
    this.enable(name)
    return this
  }

  enable (name?: string) {
    return this.rules.length
  }
}
""",
    "src/renderer.ts": """export default class Renderer {
  render (tokens: object[]) {
    let out = ''
    for (const t of tokens) {
      out += this.renderToken(t)
    }
    return out
  }

  renderToken (t: object) {
    return String(t)
  }
}
""",
}


def test_a_typescript_field_made_by_new_types_its_calls_and_a_new_class_is_set_up_by_its_constructor(tmp_path):
    p = load(_write(tmp_path / "markdown-it", MARKDOWN_IT))
    assert _calls(p, "MarkdownIt.parse") == [("ParserCore.process", 6)]
    path = _path(p)
    assert path[0] == "MarkdownIt.constructor" and path[path.index("|") + 1:][:2] == ["MarkdownIt.render", "Renderer.render"], path


JWT = {
    "README.md": """# java-jwt

```java
Algorithm algorithm = Algorithm.HMAC256("secret");
String token = JWT.create()
    .withIssuer("auth0")
    .sign(algorithm);
```
""",
    "lib/src/main/java/com/auth0/jwt/JWT.java": """package com.auth0.jwt;

public class JWT {
    public static JWTCreator.Builder create() {
        return JWTCreator.init();
    }
}
""",
    "lib/src/main/java/com/auth0/jwt/JWTCreator.java": """package com.auth0.jwt;

import com.auth0.jwt.algorithms.Algorithm;

public final class JWTCreator {
    private final Algorithm algorithm;

    private JWTCreator(Algorithm algorithm) {
        this.algorithm = algorithm;
    }

    static JWTCreator.Builder init() {
        return new Builder();
    }

    public static class Builder {
        private String issuer;

        public Builder withIssuer(String issuer) {
            this.issuer = issuer;
            return this;
        }

        public String sign(Algorithm algorithm) {
            return new JWTCreator(algorithm).sign();
        }
    }

    private String sign() {
        String content = "header.payload";
        byte[] signature = algorithm.sign(content.getBytes());
        return content + "." + new String(signature);
    }
}
""",
    "lib/src/main/java/com/auth0/jwt/algorithms/Algorithm.java": """package com.auth0.jwt.algorithms;

public abstract class Algorithm {
    public static Algorithm none() {
        return new NoneAlgorithm();
    }

    public static Algorithm HMAC256(String secret) {
        return new HMACAlgorithm(secret);
    }

    public static Algorithm HMAC384(String secret) {
        return new HMACAlgorithm(secret + "384");
    }

    public abstract byte[] sign(byte[] contentBytes);
}
""",
    "lib/src/main/java/com/auth0/jwt/algorithms/HMACAlgorithm.java": """package com.auth0.jwt.algorithms;

class HMACAlgorithm extends Algorithm {
    private final String secret;

    HMACAlgorithm(String secret) {
        this.secret = secret;
    }

    @Override
    public byte[] sign(byte[] contentBytes) {
        byte[] out = new byte[contentBytes.length];
        for (int i = 0; i < contentBytes.length; i++) {
            out[i] = (byte) (contentBytes[i] ^ secret.charAt(i % secret.length()));
        }
        return out;
    }
}
""",
}


JWT["lib/src/main/java/com/auth0/jwt/algorithms/NoneAlgorithm.java"] = """package com.auth0.jwt.algorithms;

class NoneAlgorithm extends Algorithm {
    @Override
    public byte[] sign(byte[] contentBytes) {
        return new byte[0];
    }
}
"""


def test_of_an_interfaces_implementations_the_one_the_example_makes_runs_not_the_one_held_by_default(tmp_path):
    from orchestrator.authoring.hops import implemented

    p = load(_write(tmp_path / "java-jwt", JWT))
    assert [h.callee.dotted for h in implemented(p, _sym(p, "Algorithm.sign"))] == ["HMACAlgorithm.sign"]


def test_a_builders_chain_ends_in_the_method_of_the_type_its_links_give_back(tmp_path):
    from orchestrator.authoring.mainpath import SERVING_BONUS, _starts

    p = load(_write(tmp_path / "java-jwt", JWT))
    # `.sign(algorithm)` is the chain's run, not every `sign` of the project (`Algorithm.sign`, `JWTCreator.sign`)
    assert {s.dotted for s, b in _starts(p, entry_points(p)) if b >= SERVING_BONUS} == {"JWTCreator.Builder.sign"}
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["JWTCreator.Builder.sign", "JWTCreator.sign"], path


GOQUERY = {
    "README.md": """# goquery

```go
func ExampleScrape() {
  res, err := http.Get("http://metalsucks.net")
  doc, err := goquery.NewDocumentFromReader(res.Body)
  if err != nil {
    log.Fatal(err)
  }
  doc.Find(".post-title").Each(func(i int, s *goquery.Selection) {
    title := s.Find("a").Text()
    fmt.Printf("Review %d: %s\\n", i, title)
  })
}
```
""",
    "go.mod": "module github.com/PuerkitoBio/goquery\n",
    "type.go": """package goquery

import "io"

type Document struct {
\t*Selection
\tRoot string
}

type Selection struct {
\tNodes []string
}

func NewDocumentFromReader(r io.Reader) (*Document, error) {
\treturn newDocument(readAll(r)), nil
}

func newDocument(root string) *Document {
\td := &Document{nil, root}
\td.Selection = newSingleSelection(root, d)
\treturn d
}

func newSingleSelection(node string, doc *Document) *Selection {
\treturn &Selection{[]string{node}}
}

func readAll(r io.Reader) string {
\treturn ""
}
""",
    "traversal.go": """package goquery

func (s *Selection) Find(selector string) *Selection {
\treturn pushStack(s, findWithMatcher(s.Nodes, selector))
}

func findWithMatcher(nodes []string, m string) []string {
\tout := []string{}
\tfor _, n := range nodes {
\t\tout = appendMatch(out, n, m)
\t}
\treturn out
}

func appendMatch(out []string, n string, m string) []string {
\tif n == m {
\t\treturn append(out, n)
\t}
\treturn out
}

func pushStack(s *Selection, nodes []string) *Selection {
\treturn &Selection{nodes}
}

func (s *Selection) Each(f func(int, *Selection)) *Selection {
\tfor i, n := range s.Nodes {
\t\tf(i, newSingleSelection(n, nil))
\t}
\treturn s
}
""",
}


def test_a_go_example_sets_up_with_a_two_value_assignment_and_runs_a_method_its_struct_embeds(tmp_path):
    p = load(_write(tmp_path / "goquery", GOQUERY))
    path = _path(p)
    assert path[0] == "NewDocumentFromReader" and path[path.index("|") + 1] == "Selection.Find", path


TERMINAL_TABLE = {
    "README.md": """# terminal-table

```ruby
require "terminal-table"
table = Terminal::Table.new do |t|
  t.title = "Some Title"
end
puts table
```
""",
    "lib/terminal-table/table.rb": """module Terminal
  class Table
    def initialize(options = {}, &block)
      @rows = []
      @title = options[:title]
      yield_or_eval(&block) if block
    end

    def column_width(n)
      column_widths[n]
    end

    def column_widths
      @column_widths ||= recalc_column_widths
    end

    def recalc_column_widths
      measure_rows(@rows)
    end

    def measure_rows(rows)
      rows.map { |r| measure_cell(r) }
    end

    def measure_cell(cell)
      cell_text_width(cell.to_s)
    end

    def cell_text_width(text)
      text.length
    end

    def render
      separator = draw_border
      lines = @rows.map { |r| r.to_s }
      [separator, *lines, separator].join("\\n")
    end
    alias :to_s :render

    def draw_border
      "+" + "-" * 10 + "+"
    end

    def yield_or_eval(&block)
      block.arity > 0 ? yield(self) : instance_eval(&block)
    end
  end
end
""",
}


def test_a_ruby_example_that_puts_its_value_runs_what_to_s_names(tmp_path):
    p = load(_write(tmp_path / "terminal-table", TERMINAL_TABLE))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["Terminal.Table.render", "Terminal.Table.draw_border"], path


def test_a_part_of_methods_only_is_named_by_its_best_public_method_not_its_file(tmp_path):
    from orchestrator.authoring.parts import _part_name

    p = load(_write(tmp_path / "goquery", GOQUERY))
    assert _part_name(p, ["traversal.go"]) in ("Selection.Find", "Selection.Each")  # not `findWithMatcher`, a helper
    assert _part_name(p, ["type.go"]) in ("Document", "Selection", "NewDocumentFromReader")


FUEL = {
    "fuel/src/commonMain/kotlin/fuel/Fuel.kt": """package fuel

public object Fuel {
    private var httpLoader: HttpLoader? = null

    public fun loader(): HttpLoader = httpLoader ?: newHttpLoader()

    private fun newHttpLoader(): HttpLoader {
        val loader = FuelBuilder().build()
        httpLoader = loader
        return loader
    }
}
""",
    "fuel/src/commonMain/kotlin/fuel/Fuels.kt": """package fuel

public suspend fun Fuel.get(url: String): HttpResponse =
    loader().get {
        this.url = url
    }
""",
    "fuel/src/commonMain/kotlin/fuel/HttpLoader.kt": """package fuel

public interface HttpLoader {
    public suspend fun get(request: Request.Builder.() -> Unit): HttpResponse
}
""",
    "fuel/src/commonMain/kotlin/fuel/FuelBuilder.kt": """package fuel

public class FuelBuilder {
    public fun build(): HttpLoader = JVMHttpLoader()
}
""",
}
for _set, _name in (("jvm", "JVM"), ("apple", "Apple"), ("wasmJs", "Wasm")):
    FUEL[f"fuel/src/{_set}Main/kotlin/fuel/{_name}HttpLoader.kt"] = f"""package fuel

public class {_name}HttpLoader : HttpLoader {{
    public override suspend fun get(request: Request.Builder.() -> Unit): HttpResponse {{
        val builder = createRequestBuilder(request)
        return send(builder)
    }}

    private fun createRequestBuilder(request: Request.Builder.() -> Unit): Request.Builder {{
        return Request.Builder().apply(request)
    }}

    private fun send(builder: Request.Builder): HttpResponse {{
        return HttpResponse()
    }}
}}
"""


def test_a_kotlin_link_given_only_a_lambda_is_a_call_and_its_interface_runs_the_jvms_implementation(tmp_path):
    from orchestrator.authoring.mainpath import call_path

    p = load(_write(tmp_path / "fuel", FUEL))
    get = _sym(p, "Fuel.get")
    assert [c for c, _ in _calls(p, "Fuel.get")] == ["Fuel.loader", "HttpLoader.get"]
    assert handed_to(p, get) == ("fuel/src/commonMain/kotlin/fuel/HttpLoader.kt", 4)
    assert [s.dotted for s in call_path(p, get)][:3] == ["Fuel.get", "HttpLoader.get", "JVMHttpLoader.get"]


TS_PATTERN = {
    "README.md": """# ts-pattern

```ts
import { match, P } from 'ts-pattern';

const html = match(result)
  .with({ type: 'error' }, () => 'Oups!')
  .with({ type: 'ok' }, (res) => res.data)
  .exhaustive();
```
""",
    "package.json": '{"name": "ts-pattern", "main": "src/index.ts"}\n',
    "src/index.ts": "export { match } from './match';\nexport * as P from './patterns';\n",
    "src/types/Match.ts": "export type Match<input, output> = {\n  with(...args: any[]): Match<input, output>;\n};\n",
    "src/match.ts": """import { Match } from './types/Match';
import { matchPattern } from './internals/helpers';

export function match<input, output>(value: input): Match<input, output> {
  return new MatchExpression(value, false) as any;
}

class MatchExpression<input, output> {
  constructor(private input: input, private matched: boolean) {}

  with(...args: any[]): MatchExpression<input, output> {
    if (this.matched) return this;
    const matched = matchPattern(args[0], this.input);
    return new MatchExpression(this.input, matched);
  }

  exhaustive(): output {
    return this.input as any;
  }
}
""",
    "src/internals/helpers.ts": """export const matchPattern = (pattern: any, value: any): boolean => {
  if (typeof pattern !== 'object') return Object.is(pattern, value);
  return Object.keys(pattern).every((k) => matchKey(pattern[k], value[k]));
};

const matchKey = (pattern: any, value: any): boolean => {
  return isMatcher(pattern) ? pattern.match(value) : matchPattern(pattern, value);
};

const isMatcher = (x: any): boolean => {
  return Boolean(x && x.match);
};
""",
    "src/patterns.ts": """export function select(key?: string) {
  return chainable({ key });
}

function chainable(pattern: object) {
  return Object.assign(pattern, { optional: () => chainable(pattern) });
}
""",
}


def test_a_fluent_chain_on_what_a_function_gives_back_runs_its_links_and_match_is_no_keyword_in_typescript(tmp_path):
    p = load(_write(tmp_path / "ts-pattern", TS_PATTERN))
    path = _path(p)
    assert path[path.index("|") + 1:][:2] == ["MatchExpression.with", "matchPattern"], path


def test_r1_reads_a_call_by_another_name_the_cited_lines_give_and_a_lambda_only_link():
    from orchestrator.evidence.resolve import calls_in

    caller = "def parse_string(self, s):\n    loc, tokens = self._parse(s, 0)\n"
    assert not calls_in("ParserElement._parseNoCache", caller)
    assert calls_in("ParserElement._parseNoCache", caller + "\n    _parse = _parseNoCache\n")  # the alias line cited too
    assert calls_in("Table.render", "  alias :to_s :render\n  puts table.to_s()\n")
    kt = "public suspend fun Fuel.get(url: String): HttpResponse =\n    loader().get {\n        this.url = url\n    }\n"
    assert calls_in("HttpLoader.get", kt, trailing=True) and not calls_in("HttpLoader.get", kt)


def test_a_step_through_an_alias_cites_the_line_that_gives_the_name(tmp_path):
    from orchestrator.authoring.tracing import alias_line

    p = load(_write(tmp_path / "pyparsing", PYPARSING))
    b = _sym(p, "ParserElement._parseNoCache")
    call = next(k for k, ln in enumerate(p.lines_of("pyparsing/core.py"), 1) if "self._parse(instring, 0)" in ln)
    assert alias_line(p, b, "pyparsing/core.py", call) == ("pyparsing/core.py", 6)
    assert alias_line(p, b, "pyparsing/core.py", 2) is None  # (a line that calls no alias)


def test_an_interface_implemented_once_per_platform_is_told_as_the_jvms(tmp_path):
    from orchestrator.authoring.hops import implemented

    p = load(_write(tmp_path / "fuel", FUEL))
    [hop] = implemented(p, _sym(p, "HttpLoader.get"))
    assert (hop.callee.dotted, hop.how) == ("JVMHttpLoader.get", "platform")
    assert hop.tie == ("fuel/src/jvmMain/kotlin/fuel/JVMHttpLoader.kt", 3)  # the head's line that names `HttpLoader`


ROWS = {
    "lib/table.rb": """module Terminal
  class Table
    def initialize
      @rows = []
    end

    def add_row(array)
      row = array == :separator ? Separator.new(self) : Row.new(self, array)
      @rows << row
    end

    def render
      @rows.map { |r| r.render.rstrip }.join("\\n")
    end
  end
end
""",
    "lib/row.rb": """module Terminal
  class Table
    class Row
      attr_reader :cells

      def initialize(table, array = [])
        @cells = []
        array.each { |item| add_cell(item) }
      end

      def add_cell(item)
        cell = Cell.new(item)
        @cells << cell
      end

      def render
        cells.map do |cell|
          cell.render(0)
        end.join("|")
      end
    end

    class Separator < Row
      def render
        "-" * 10
      end
    end
  end
end
""",
    "lib/cell.rb": """module Terminal
  class Table
    class Cell
      def initialize(value)
        @value = value
      end

      def render(line)
        @value.to_s.center(10)
      end
    end
  end
end
""",
}


def test_a_ruby_block_over_an_instance_variables_items_calls_the_class_it_holds(tmp_path):
    p = load(_write(tmp_path / "rows", ROWS))
    # `@rows << row` of a `Row` or its `Separator`: a `Row`; `cells` reads `@cells`, filled with `Cell`s
    assert _calls(p, "Terminal.Table.render") == [("Terminal.Table.Row.render", 16)]
    assert _calls(p, "Terminal.Table.Row.render") == [("Terminal.Table.Cell.render", 8)]


def _go_renderer(pkg: str, work: str) -> str:
    return f"""package {pkg}

import "io"

type Renderer struct {{
\tdepth int
}}

func NewRenderer() *Renderer {{
\treturn &Renderer{{}}
}}

func (r *Renderer) RenderNode(w io.Writer, node int) int {{
\t{work}
\treturn node
}}

func (r *Renderer) RenderFooter(w io.Writer) {{
\tr.depth = 0
}}
"""


GOMARKDOWN = {
    "README.md": """# markdown

```go
renderer := html.NewRenderer()
out := markdown.Render(doc, renderer)
```
""",
    "go.mod": "module github.com/gomarkdown/markdown\n",
    "markdown.go": """package markdown

import "io"

// Renderer renders a document.
type Renderer interface {
\tRenderNode(w io.Writer, node int) int
\tRenderFooter(w io.Writer)
}

func Render(doc int, renderer Renderer) []byte {
\tvar buf []byte
\trenderer.RenderNode(nil, doc)
\trenderer.RenderFooter(nil)
\treturn buf
}
""",
    "html/renderer.go": _go_renderer("html", "r.heading(node)\n\tr.paragraph(node)\n\tr.link(node)\n\tr.image(node)"),
    "html/blocks.go": "package html\n\n" + "".join(
        f"func (r *Renderer) {n}(node int) {{\n\tr.out(node)\n}}\n\n" for n in ("heading", "paragraph", "link", "image"))
        + "func (r *Renderer) out(node int) {\n\tr.depth++\n}\n",
    "md/renderer.go": _go_renderer("md", "r.depth++"),
}


def test_a_go_interfaces_methods_are_in_the_map_and_run_the_implementation_whose_package_the_example_makes(tmp_path):
    from orchestrator.authoring.hops import implemented

    p = load(_write(tmp_path / "gomarkdown", GOMARKDOWN))
    node = _sym(p, "Renderer.RenderNode", 7)
    assert node.rel == "markdown.go" and node.kind == "method"
    [hop] = implemented(p, node)
    assert hop.callee.rel == "html/renderer.go"  # `html.NewRenderer()`, not md's Renderer
    # `Render` ends in `RenderFooter`, a detail after `RenderNode`'s work: the hand-off is the node's rendering
    assert handed_to(p, _sym(p, "Render")) == ("markdown.go", 7)


def test_a_ruby_setters_assignment_is_no_call_of_its_getter(tmp_path):
    rb = """class URI
  def initialize(options = {})
    self.authority = options[:authority] if options[:authority]
    @host ||= options[:host]
    reset
  end

  def authority
    @authority
  end

  def authority=(value)
    @authority = value
  end

  def reset
    @host = nil
  end
end
"""
    p = load(_write(tmp_path / "uri", {"lib/uri.rb": rb}))
    assert [c for c, _ in _calls(p, "URI.initialize")] == ["URI.reset"]


ARROW = {
    "arrow/arrow.py": '''class Arrow:
    def __init__(self, year, month=1, day=1):
        self.year = year

    @classmethod
    def fromdatetime(cls, dt, tzinfo=None):
        return cls(dt.year, dt.month, dt.day)
''',
    "arrow/parser.py": '''class DateTimeParser:
    def __init__(self, locale="en-us"):
        self.locale = locale

    def parse_iso(self, string):
        parts = string.split("T")
        date = self._parse_date(parts[0])
        return date

    def _parse_date(self, text):
        year, month, day = (int(x) for x in text.split("-"))
        return year, month, day
''',
    "arrow/factory.py": '''from typing import Type

from arrow import parser
from arrow.arrow import Arrow


class ArrowFactory:
    def __init__(self, type: Type[Arrow] = Arrow) -> None:
        self.type = type

    def get(self, *args, locale="en-us"):
        if len(args) == 1 and isinstance(args[0], str):
            dt = parser.DateTimeParser(locale).parse_iso(args[0])
            return self.type.fromdatetime(dt)
        return self.type(*args)
''',
}


def test_a_field_that_holds_a_class_of_the_project_is_no_hand_off_out_of_the_map(tmp_path):
    from orchestrator.authoring.mainpath import call_path, handed_out

    p = load(_write(tmp_path / "arrow", ARROW))
    get = _sym(p, "ArrowFactory.get")
    assert handed_out(p, get) is None  # `self.type(*args)` makes an `Arrow` (`type: Type[Arrow]`), it hands nothing out
    assert [s.dotted for s in call_path(p, get)][:2] == ["ArrowFactory.get", "DateTimeParser.parse_iso"]


def test_a_go_interface_the_example_makes_no_implementation_of_runs_none_of_the_projects(tmp_path):
    from orchestrator.authoring.hops import implemented

    files = dict(GOQUERY)
    files["matcher.go"] = """package goquery

// Matcher is met by a compiled selector of another module (cascadia's), or by the invalid one below.
type Matcher interface {
\tMatchAll(node string) []string
}

type invalidMatcher struct{}

func (invalidMatcher) MatchAll(node string) []string {
\treturn nil
}
"""
    p = load(_write(tmp_path / "goquery", files))
    assert implemented(p, _sym(p, "Matcher.MatchAll")) == []
