"""Where chapter 1's main path goes (issue 35, session 29, set 28 as the development set after its measurement).
Each rule on a small source, failing without it."""

from __future__ import annotations

from conftest import symbol, traced as _path, write_files as _write

from orchestrator.authoring.project import load

# LiteDB's shape: a generic method's type parameters after its name, overloads of one name that give one interface,
# a string literal that is C#'s `string`, and the example's value held as that interface
_DB = """namespace LiteDB
{
    public class LiteDatabase
    {
        private readonly Engine _engine = new Engine();

        public ILiteCollection<T> GetCollection<T>(string name, int autoId = 0)
        {
            return new LiteCollection<T>(name, _engine);
        }

        public ILiteCollection<Document> GetCollection(string name, int autoId = 0)
        {
            return new LiteCollection<Document>(name, _engine);
        }
    }

    public interface ILiteCollection<T>
    {
        int Insert(T entity);
    }

    public class LiteCollection<T> : ILiteCollection<T>
    {
        private readonly string _name;
        private readonly Engine _engine;

        public LiteCollection(string name, Engine engine)
        {
            _name = name;
            _engine = engine;
        }

        public int Insert(T entity)
        {
            var doc = Mapper.ToDocument(entity);
            return _engine.Insert(_name, doc);
        }
    }

    public class Engine
    {
        public int Insert(string collection, Document doc)
        {
            var page = Pages.Find(collection);
            return Pages.Write(page, doc);
        }
    }

    public static class Pages
    {
        public static int Find(string collection)
        {
            return collection.Trim().Length;
        }

        public static int Write(int page, Document doc)
        {
            return page + doc.ToString().Trim().Length;
        }
    }

    public static class Mapper
    {
        public static Document ToDocument(object entity)
        {
            return new Document(entity.ToString().Trim());
        }
    }

    public class Document
    {
        public Document(string text)
        {
            Text = text;
        }

        public string Text { get; }
    }
}
"""

_README = """# LiteDB

```csharp
using(var db = new LiteDatabase(@"MyData.db"))
{
    var col = db.GetCollection<Customer>("customers");
    col.Insert(customer);
}
```
"""


def test_a_generic_csharp_method_declares_its_result_before_its_name(tmp_path):
    from orchestrator.authoring.signature import java_result

    p = load(_write(tmp_path / "litedb", {"LiteDB.csproj": "<Project/>\n", "src/LiteDatabase.cs": _DB}))
    generic = next(x for x in p.symbols() if x.dotted == "LiteDatabase.GetCollection" and "<T>(" in x.d.signature)
    assert java_result(generic) == "ILiteCollection"


def test_the_example_runs_a_value_its_call_gives_as_an_interface(tmp_path):
    # `var col = db.GetCollection<Customer>("customers")`: both overloads a string fits give an `ILiteCollection`,
    # which one class implements; `col.Insert(customer)` is the run
    from orchestrator.authoring.example_calls import example_type

    p = load(_write(tmp_path / "litedb", {"LiteDB.csproj": "<Project/>\n", "README.md": _README,
                                          "src/LiteDatabase.cs": _DB}))
    code = _README.split("```csharp\n")[1].split("```")[0]
    assert example_type(p, code, "col", "csharp") == "ILiteCollection"
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["ILiteCollection.Insert", "LiteCollection.Insert", "Engine.Insert"]


def test_a_finally_whose_brace_opens_the_next_line_is_a_side_road():
    # esprima-dotnet's `ParseScript`: `try { … } finally⏎{⏎ ReleaseLargeBuffers();⏎}`
    from orchestrator.authoring.sideroads import branch_lines

    code = "\n".join(["{", "    try", "    {", "        return Parse();", "    }", "    finally", "    {",
                      "        ReleaseLargeBuffers();", "    }", "}"])
    assert 7 in branch_lines(code, "csharp")
    assert 3 not in branch_lines(code, "csharp")


def test_a_csharp_string_literal_fits_a_string_parameter(tmp_path):
    from orchestrator.authoring.facts import all_calls

    src = """namespace Store
{
    public class Db
    {
        public int Open()
        {
            return Load("store.db");
        }

        private int Load(string path)
        {
            return path.Trim().Length;
        }

        private int Load(int handle)
        {
            return handle + 1;
        }
    }
}
"""
    p = load(_write(tmp_path / "store", {"Store.csproj": "<Project/>\n", "src/Db.cs": src}))
    assert [c.d.signature for c in all_calls(p, symbol(p, "Db.Open"))] == ["private int Load(string path)"]


def test_a_file_with_a_byte_order_mark_is_quoted_as_r1_reads_it(tmp_path):
    # esprima-dotnet's `Program.cs` starts with U+FEFF: the book quoted `\ufeffusing System.Diagnostics;`, and R1,
    # which reads the file without the mark, blocked the chapter
    from orchestrator.checks.code import check_code

    src = "\ufeffusing System.Diagnostics;\n\nnamespace Gen\n{\n    public class Program\n    {\n" \
          "        public static void Main()\n        {\n            Debug.WriteLine(\"go\");\n        }\n    }\n}\n"
    root = _write(tmp_path / "gen", {"Gen.csproj": "<Project/>\n", "src/Program.cs": src})
    p = load(root)
    lines = p.lines_of("src/Program.cs")
    assert lines[0] == "using System.Diagnostics;"
    md = "Its opening:\n\n```csharp file=src/Program.cs\n" + "\n".join(lines[:3]) + "\n```\n"
    findings, verified = check_code(md, root)
    assert [f.message for f in findings] == [] and len(verified) == 1


_OKHTTP = """package okhttp3

import java.io.IOException

interface Call {
  @Throws(IOException::class)
  fun execute(): Response
}

class OkHttpClient {
  fun newCall(request: Request): Call = RealCall(this, request)
}

class RealCall(val client: OkHttpClient, val request: Request) : Call {
  override fun execute(): Response {
    val chain = RealInterceptorChain(request)
    return getResponseWithInterceptorChain(chain)
  }

  fun getResponseWithInterceptorChain(chain: RealInterceptorChain): Response {
    val interceptors = listOf(request.url.trim(), request.url.lowercase())
    return chain.proceed(request, interceptors)
  }
}

class RealInterceptorChain(val request: Request) {
  fun proceed(request: Request, interceptors: List<String>): Response {
    val next = interceptors.joinToString(",").trim()
    return Response(next.length + request.url.length)
  }
}

class Request(val url: String)

class Response(val code: Int)
"""


def test_an_annotation_above_a_bodiless_declaration_is_not_its_signature(tmp_path):
    from orchestrator.authoring.subtypes import implementations

    p = load(_write(tmp_path / "okhttp", {"build.gradle.kts": "plugins {}\n", "src/main/kotlin/okhttp3/Call.kt": _OKHTTP}))
    call = symbol(p, "Call.execute")
    assert call.d.signature.strip() == "fun execute(): Response"
    assert [x.dotted for x in implementations(p, call)] == ["RealCall.execute"]


def test_a_call_that_makes_what_its_chain_runs_in_a_try_with_resources_is_the_set_up(tmp_path):
    # okhttp's README: `try (Response response = client.newCall(request).execute()) {`
    readme = ('# OkHttp\n\n```java\nOkHttpClient client = new OkHttpClient();\n\nString run(String url) throws IOException {\n'
              '  Request request = new Request(url);\n\n  try (Response response = client.newCall(request).execute()) {\n'
              '    return response.toString();\n  }\n}\n```\n')
    sample = "package okhttp3.sample;\n\npublic final class Get {\n  public static void main(String[] args) {\n" \
             "    System.out.println(args.length);\n  }\n}\n"  # (a Java sample: the README's Java is one of the project's languages)
    p = load(_write(tmp_path / "okhttp", {"build.gradle.kts": "plugins {}\n", "README.md": readme,
                                          "src/main/kotlin/okhttp3/Call.kt": _OKHTTP, "samples/Get.java": sample}))
    assert _path(p) == ["OkHttpClient.newCall", "|", "Call.execute", "RealCall.execute",
                        "RealCall.getResponseWithInterceptorChain", "RealInterceptorChain.proceed"]
    # a set-up of one call has no steps to list: chapter 1 says what it makes, and promises no list
    from orchestrator.authoring.story import overview_sections

    text = "\n".join(overview_sections({}, p, [], "en"))
    assert "its call of `OkHttpClient.newCall`" in text and "makes what it then runs." in text
    assert "goes down through the code like this" not in text


def test_a_constructor_of_the_object_whose_method_is_returned_is_its_set_up(tmp_path):
    # node-semver's `satisfies`: `range = new Range(range, options)`, then `return range.test(version)`: the
    # constructor parses the range (much code), the test is the way the call goes on
    from orchestrator.authoring.handoff import handed_to

    satisfies = ("const Range = require('./range')\nconst satisfies = (version, range, options) => {\n  try {\n"
                 "    range = new Range(range, options)\n  } catch (er) {\n    return false\n  }\n"
                 "  return range.test(version)\n}\nmodule.exports = satisfies\n")
    helpers = "".join(f"function step{k} (s) {{\n  return step{k + 1}(s.trim())\n}}\n\n" for k in range(12)) + \
        "function step12 (s) {\n  return s.split(' ')\n}\n\n"
    rng = ("class Range {\n  constructor (range, options) {\n    this.options = options\n    this.set = step0(range)\n  }\n\n"
           "  test (version) {\n    if (!version) {\n      return false\n    }\n    if (typeof version === 'string') {\n"
           "      version = new SemVer(version)\n    }\n    for (let i = 0; i < this.set.length; i++) {\n"
           "      if (testSet(this.set[i], version)) {\n        return true\n      }\n    }\n    return false\n  }\n}\n\n"
           "class SemVer {\n  constructor (version) {\n    this.raw = version.trim()\n  }\n}\n\n"
           "function testSet (set, version) {\n  return set.every(c => c.test(version))\n}\n\n" + helpers + "module.exports = Range\n")
    from orchestrator.authoring.handoff import _makes_owner

    p = load(_write(tmp_path / "semver", {"package.json": '{"name": "semver"}\n', "satisfies.js": satisfies, "range.js": rng}))
    test = symbol(p, "Range.test")
    assert handed_to(p, symbol(p, "satisfies")) == (test.rel, test.d.start_line)
    # however much the class reaches, it is never the big call the way goes to instead of its own method
    assert _makes_owner(symbol(p, "Range"), test) and _makes_owner(symbol(p, "Range.constructor"), test)
    assert not _makes_owner(symbol(p, "SemVer"), test)


def test_an_es5_module_that_requires_itself_and_its_constructor_by_a_member(tmp_path):
    # request's README: `const request = require('request')`, then `request(url, cb)` under "Super simple to use";
    # index.js: `request.Request = require('./request')` and `return new request.Request(params)`; request.js: an
    # ES5 constructor that keeps `this` as `self` and runs `self.init(options)`
    from orchestrator.authoring.overview import entry_points, example_of

    index = ("'use strict'\n\nfunction request (uri, options, callback) {\n  var params = initParams(uri, options, callback)\n"
             "  return new request.Request(params)\n}\n\nfunction initParams (uri, options, callback) {\n"
             "  return { uri: String(uri).trim(), options: options, callback: callback }\n}\n\n"
             "request.Request = require('./request')\n\nmodule.exports = request\n")
    req = ("'use strict'\n\nfunction Request (options) {\n  var self = this\n  self.readable = true\n  self.init(options)\n}\n\n"
           "Request.prototype.init = function (options) {\n  var self = this\n  self.uri = options.uri\n  self.start()\n}\n\n"
           "Request.prototype.start = function () {\n  var self = this\n  self.req = String(self.uri).trim()\n"
           "  self.started = true\n  return self.req\n}\n\nmodule.exports = Request\n")
    readme = ("# Request\n\n## Table of contents\n\nSee below.\n\n## Super simple to use\n\n```js\nconst request = require('request');\n"
              "request('http://www.google.com', function (error, response, body) {\n  console.log('body:', body);\n});\n```\n\n"
              "## Examples\n\n```js\nvar r = request.defaults({ json: true })\n```\n")
    p = load(_write(tmp_path / "request", {"package.json": '{"name": "request", "main": "index.js"}\n', "README.md": readme,
                                           "index.js": index, "request.js": req}))
    ex = example_of(p, entry_points(p))
    assert ex is not None and "request('http://www.google.com'" in ex.code
    from orchestrator.authoring.mainpath import _starts

    assert dict((s.dotted, b) for s, b in _starts(p, entry_points(p)))["request"] > 0.9  # (the package itself, called)
    path = _path(p)
    assert path[path.index("|") + 1:] == ["request", "Request", "Request.init", "Request.start"]


def test_a_ruby_modules_singleton_mixins_answer_its_bare_calls(tmp_path):
    # multi_xml: `module MultiXML⏎ class << self⏎ include ParseSupport⏎ def parse(xml, options = {})` calls
    # `parse_with_error_handling(…)` and `apply_postprocessing(…)`, ParseSupport's
    from orchestrator.authoring.facts import all_calls

    main = ("module MultiXML\n  class << self\n    include ParseSupport\n\n    def parse(xml, options = {})\n"
            "      io = normalize_input(xml)\n      result = parse_with_error_handling(io, xml)\n"
            "      apply_postprocessing(result, options)\n    end\n  end\nend\n")
    support = ("module MultiXML\n  module ParseSupport\n    def normalize_input(xml)\n      xml.to_s.strip\n    end\n\n"
               "    def parse_with_error_handling(io, xml)\n      { 'root' => io.to_s + xml.to_s }\n    end\n\n"
               "    def apply_postprocessing(result, options)\n      result.merge(options)\n    end\n  end\nend\n")
    p = load(_write(tmp_path / "multi_xml", {"multi_xml.gemspec": "Gem::Specification.new do |s|\n  s.name = 'multi_xml'\nend\n",
                                             "lib/multi_xml.rb": main, "lib/multi_xml/parse_support.rb": support}))
    assert [c.dotted for c in all_calls(p, symbol(p, "MultiXML.parse"))] == [
        "MultiXML.ParseSupport.normalize_input", "MultiXML.ParseSupport.parse_with_error_handling",
        "MultiXML.ParseSupport.apply_postprocessing"]


def test_a_tests_fixtures_and_mocks_are_no_code_of_the_project():
    from orchestrator.repo.classify import classify

    assert classify("src/__fixtures__/fixtures.ts", "typescript") == "test"
    assert classify("src/__mocks__/fs.js", "javascript") == "test"


def test_a_namespaced_ruby_class_inherits_its_base_in_its_namespace_and_a_bare_class_call_runs(tmp_path):
    # faker's README: `Faker::Name.name   #=> "Christophe Bartell"`; `class Name < Base` in `module Faker`, whose
    # `class << self⏎ def name⏎ parse('name.name')` is `Faker::Base.parse`
    base = ("module Faker\n  class Base\n    class << self\n      def parse(key)\n        fetched = fetch(key)\n"
            "        fetched.to_s.strip\n      end\n\n      def fetch(key)\n        translate(\"faker.#{key}\").to_s.strip\n"
            "      end\n\n      def translate(key)\n        key.to_s.split('.').last.strip\n      end\n    end\n  end\nend\n")
    name = ("module Faker\n  class Name < Base\n    class << self\n      def name\n        parse('name.name')\n      end\n"
            "    end\n  end\nend\n")
    readme = "# Faker\n\n```ruby\nrequire 'faker'\n\nFaker::Name.name                      #=> \"Christophe Bartell\"\n```\n"
    p = load(_write(tmp_path / "faker", {"faker.gemspec": "Gem::Specification.new do |s|\n  s.name = 'faker'\nend\n",
                                         "README.md": readme, "lib/faker.rb": base, "lib/faker/default/name.rb": name}))
    path = _path(p)
    assert path[path.index("|") + 1:][:3] == ["Faker.Name.name", "Faker.Base.parse", "Faker.Base.fetch"]
    from orchestrator.authoring.call_form import call_form

    assert "Faker::Name.name()" in call_form(readme.split("```ruby\n")[1].split("```")[0], "ruby")


def test_a_file_named_for_its_one_function_is_that_function_in_a_sequence(tmp_path):
    # node-semver: `functions/valid.js` → `functions/parse.js` → `classes/semver.js`: three of four participants were
    # file names (the first diagram is a picture of parts, not of files); R1 holds the names to the source
    from orchestrator.checks.code import name_checks, source_index
    from orchestrator.checks.diagrams import check_diagrams
    from orchestrator.diagrams.generate import chain

    files = {"package.json": '{"name": "semver"}\n',
             "functions/valid.js": "const parse = require('./parse')\nconst valid = (v) => {\n  const p = parse(v)\n"
                                   "  return p && p.version\n}\nmodule.exports = valid\n",
             "functions/parse.js": "const SemVer = require('../classes/semver')\nconst parse = (v) => {\n"
                                   "  return new SemVer(v)\n}\nmodule.exports = parse\n",
             "classes/semver.js": "class SemVer {\n  constructor (v) {\n    this.version = String(v).trim()\n  }\n}\n"
                                  "module.exports = SemVer\n"}
    root = _write(tmp_path / "semver", files)
    p = load(root)
    mermaid = chain([symbol(p, "valid"), symbol(p, "parse"), symbol(p, "SemVer")])
    assert "participant p0 as valid" in mermaid and "participant p1 as parse" in mermaid
    problem, exists = name_checks(root, source_index(root))
    assert check_diagrams("```mermaid\n" + mermaid + "```\n", problem, exists) == []


def test_a_step_names_the_callee_as_the_line_imports_it(tmp_path):
    # held-out multer (set 29) was stopped by our own R1: "`Multer` calls `memory`" where line 17 writes
    # `memoryStorage()`, the name `var memoryStorage = require('./storage/memory')` gives the module's unnamed export
    from orchestrator.authoring.story import _steps
    from orchestrator.checks.citations import check_citations

    index = ("var memoryStorage = require('./storage/memory')\nvar diskStorage = require('./storage/disk')\n\n"
             "function Multer (options) {\n  if (options.dest) {\n    this.storage = diskStorage(options.dest)\n  } else {\n"
             "    this.storage = memoryStorage()\n  }\n}\n\nfunction multer (options) {\n  return new Multer(options || {})\n}\n\n"
             "module.exports = multer\n")
    memory = ("function MemoryStorage (opts) {\n  this.opts = opts\n  this.files = []\n}\n\n"
              "module.exports = function (opts) {\n  return new MemoryStorage(opts)\n}\n")
    disk = "module.exports = function (dest) {\n  return { dest: String(dest).trim() }\n}\n"
    root = _write(tmp_path / "multer", {"package.json": '{"name": "multer", "main": "index.js"}\n', "index.js": index,
                                        "storage/memory.js": memory, "storage/disk.js": disk})
    p = load(root)
    made = next(s for s in p.symbols() if s.rel == "storage/memory.js" and s.kind == "function" and s.short != "MemoryStorage")
    md = "\n".join(_steps(p, [symbol(p, "multer"), symbol(p, "Multer"), made], {}, "en"))
    assert "`Multer` calls `memoryStorage`" in md and "`memory`" not in md
    assert [f.message for f in check_citations(md, root)] == []


def test_many_implementations_of_an_interface_are_read_once_each(tmp_path):
    # held-out easy-random (set 29): 200 randomizers implement `Randomizer<T>`; each pair's subtyping read every
    # declaration anew, and chapter 1's front matter took minutes. Counted in reads, not timed
    from orchestrator.authoring.hops import implemented

    files = {"pom.xml": "<project/>\n", "src/main/java/r/Randomizer.java":
             "package r;\n\npublic interface Randomizer<T> {\n  T getRandomValue();\n}\n"}
    for k in range(60):
        files[f"src/main/java/r/R{k}.java"] = (f"package r;\n\npublic class R{k} implements Randomizer<String> {{\n"
                                               f"  public String getRandomValue() {{\n    return \"{k}\".trim();\n  }}\n}}\n")
    p = load(_write(tmp_path / "r", files))
    finds = []
    real = p.find

    def counted(name):
        finds.append(name)
        return real(name)

    p.find = counted
    implemented(p, symbol(p, "Randomizer.getRandomValue"))
    assert len(finds) < 400, len(finds)
