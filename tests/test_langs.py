"""Every language its users write (issue 33, issue 35 item 4): C#, Ruby, Kotlin, PHP, Swift, Scala,
Elixir and Lua read by their grammars with the depth of the first eight (definitions, their doc
comments, the names they call, imports, what is public); a language no grammar reads (Zig) read
by its lines; CommonJS seen as the definitions it exports; and the offline writer's drafts meet
the checks the pipeline applies to them. The sources are small real excerpts under
tests/fixtures/langs/ (each with its SOURCE.md and LICENSE)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from orchestrator.repo.classify import language_of
from orchestrator.repo.parse import FileMap, parse_source

FIXTURES = Path(__file__).parent / "fixtures" / "langs"


def parsed(lang: str, rel: str) -> FileMap:
    path = FIXTURES / lang / "src" / rel
    fm = parse_source(path.read_bytes(), language_of(rel) or "")
    assert fm.error is None, fm.error
    return fm


def defs(fm: FileMap) -> dict[str, object]:
    """By qualified name, the first of a name (Scala's trait before its companion object)."""
    out: dict[str, object] = {}
    for d in fm.definitions:
        out.setdefault(d.qualified_name, d)
    return out


# lang, file, {qualified name: (kind, exported, a word of its doc or None)}, names it uses, an import
CASES = [
    ("csharp", "ISender.cs", {"ISender": ("interface", True, "mediator pipeline"),
                              "ISender.Send": ("method", True, "single handler")},
     {"IRequest", "CancellationToken"}, "System.Threading.Tasks"),
    ("csharp", "Mediator.cs", {"Mediator": ("class", True, "Default mediator implementation")},
     {"RequestHandlerWrapperImpl", "GetOrAdd"}, "System.Collections.Concurrent"),
    ("ruby", "sinatra/middleware/logger.rb", {"Sinatra::Middleware::Logger": ("class", True, None),
                                              "Sinatra::Middleware::Logger::call": ("method", True, None)},
     {"env"}, "logger"),
    ("ruby", "sinatra/indifferent_hash.rb",
     {"Sinatra::IndifferentHash": ("class", True, "HashWithIndifferentAccess")}, {"convert_key"}, None),
    ("kotlin", "KotlinLogging.kt", {"KotlinLogging": ("class", True, None),
                                    "KotlinLogging.logger": ("method", True, "defining the logger")},
     {"KLoggerFactory", "KLoggerNameResolver"}, "io.github.oshai.kotlinlogging.internal.KLoggerFactory"),
    ("kotlin", "Marker.kt", {"Marker": ("interface", True, "platform independent marker"),
                             "SimpleMarker": ("class", False, None)}, set(), None),
    ("php", "App.php", {"App": ("class", True, None), "App::VERSION": ("constant", True, "Current version"),
                        "App::addRoutingMiddleware": ("method", True, "routing middleware"),
                        "App::handle": ("method", True, "Handle a request")},
     {"RoutingMiddleware", "handle"}, "Psr\\Http\\Message\\ResponseInterface"),
    ("php", "Factory/AppFactory.php", {"AppFactory::create": ("method", True, None),
                                       "AppFactory::attemptResponseFactoryDecoration": ("method", False, None)},
     {"App"}, None),
    ("swift", "Alamofire.swift", {"AF": ("constant", True, "Session.default")}, {"Session"}, "Foundation"),
    ("swift", "Protected.swift", {"UnfairLock": ("class", False, "os_unfair_lock")}, {"os_unfair_lock_lock"}, None),
    ("swift", "HTTPMethod.swift", {"HTTPMethod": ("struct", True, "HTTP methods")}, set(), None),
    ("scala", "scopt/Read.scala", {"Read": ("trait", True, None), "Read.reads": ("method", True, None)},
     {"Duration"}, "scala.concurrent.duration"),
    ("scala", "scopt/OParserSetup.scala", {"OParserSetup.showUsageOnError": ("method", True, "usage text")},
     {"RenderingMode"}, None),
    ("elixir", "plug.ex", {"Plug": ("module", True, "plug specification"), "Plug.run": ("function", True, None)},
     {"Logger"}, "Logger"),
    ("elixir", "plug/conn/status.ex", {"Plug.Conn.Status.code": ("function", True, "status code")}, set(), None),
    ("haskell", "Control/Monad/State/Class.hs",
     {"MonadState": ("interface", True, None), "MonadState.get": ("method", True, "Return the state"),
      "modify": ("function", True, "Monadic state transformer")}, {"StateT", "lift"}, "Control.Monad.Trans.Class"),
    ("dart", "src/style.dart", {"Style": ("class", True, "flavor"), "Style._getPlatformStyle": ("method", False, None),
                                 "Style.context": ("method", True, "uses this style")}, {"Context"}, "context.dart"),
    ("dart", "src/utils.dart", {"driveLetterEnd": ("function", True, "first character")}, {"isAlphabetic", "codeUnitAt"},
     "characters.dart"),
    ("lua", "json.lua", {"json.encode": ("function", True, None), "json.decode": ("function", True, None),
                         "escape_char": ("function", False, None)}, {"parse"}, None),
]


@pytest.mark.parametrize(("lang", "rel", "want", "uses", "imported"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_grammar_reads_definitions_docs_calls_and_imports(lang, rel, want, uses, imported) -> None:
    fm = parsed(lang, rel)
    assert fm.language == lang and not fm.lexical
    found = defs(fm)
    for name, (kind, exported, doc) in want.items():
        assert name in found, (name, sorted(found))
        d = found[name]
        assert (d.kind, d.exported) == (kind, exported), (name, d)
        if doc:
            assert doc in d.doc, (name, d.doc)
        assert d.signature and "\n" not in d.signature.split("(")[0], d.signature
    assert uses <= set(fm.references), sorted(uses - set(fm.references))
    if imported:
        assert imported in fm.imports, fm.imports


def test_csharp_xml_doc_is_read_as_its_words() -> None:
    send = defs(parsed("csharp", "ISender.cs"))["ISender.Send"]
    assert "<summary>" not in send.doc and "<param" not in send.doc
    assert "@param request Request object" in send.doc  # <param name="request">Request object</param>
    from orchestrator.text import docstrings

    # read as the doc's parameter list, as Javadoc's tags are (the writer lists them, once per chapter)
    assert [(x.name, x.text) for x in docstrings.parse(send.doc, "csharp").params][:1] == [("request", "Request object")]


def test_csharp_is_read_with_the_first_branch_of_each_if() -> None:
    code = (b"public class Inline\n{\n    public int Find(int i)\n    {\n#if NET\n        for (; i < 3; i++)\n        {\n"
            b"            var x = i;\n#else\n        for (; i < 4; i++)\n        {\n            var x = i + 1;\n#endif\n"
            b"            if (x > 1) { return x; }\n        }\n        return 0;\n    }\n\n"
            b"    public void Leaf(int n)\n    {\n    }\n}\n")
    fm = parse_source(code, "csharp")
    # each branch opens a brace the shared lines close: read both, the class is lost
    assert [(d.qualified_name, d.start_line, d.end_line) for d in fm.definitions] == [
        ("Inline", 1, 22), ("Inline.Find", 3, 17), ("Inline.Leaf", 19, 21)]


def test_a_kotlin_nested_class_whose_constructor_starts_the_next_line_keeps_its_outer_class() -> None:
    code = (b"public class FileSpec\nprivate constructor(val name: String) {\n  public fun writeTo(out: Appendable) {\n"
            b"    out.append(name)\n  }\n\n  public class Builder\n  internal constructor(\n    public val name: String,\n"
            b"  ) {\n    public fun build(): FileSpec = FileSpec(name)\n  }\n}\n")
    fm = parse_source(code, "kotlin")
    # (the grammar read `class Builder` as complete, then lost the whole file's class on the orphan constructor)
    found = {(d.qualified_name, d.start_line, d.end_line) for d in fm.definitions}
    assert {("FileSpec", 1, 13), ("FileSpec.writeTo", 3, 5), ("FileSpec.Builder", 7, 12),
            ("FileSpec.Builder.build", 11, 11)} <= found, found


def test_signatures_stop_at_the_body_and_name_the_parameters() -> None:
    from orchestrator.authoring.project import Sym
    from orchestrator.authoring.signature import signature_parts

    handle = defs(parsed("php", "App.php"))["App::handle"]
    params, ret = signature_parts(Sym("App.php", handle, 1.0, "php"))
    assert [p.name for p in params] == ["request"] and params[0].type == "ServerRequestInterface"
    assert ret == "ResponseInterface"
    show = defs(parsed("scala", "scopt/OParserSetup.scala"))["OParserSetup.showUsageOnError"]
    assert not show.signature.endswith("=")


def test_entry_points_of_the_new_languages() -> None:
    main = b"class P {\n  static void Main(string[] args) { }\n}\n"
    assert parse_source(main, "csharp").has_main
    assert parse_source(b"fun main() {\n  println(1)\n}\n", "kotlin").has_main
    assert parse_source(b"@main\nstruct App {\n}\n", "swift").has_main
    assert parse_source(b"object Tool extends App {\n}\n", "scala").has_main
    assert parse_source(b"def run; end\nif __FILE__ == $0\n  run\nend\n", "ruby").has_main
    assert not parsed("ruby", "sinatra/indifferent_hash.rb").has_main


def test_a_dart_function_ends_with_its_body() -> None:
    end = defs(parsed("dart", "src/utils.dart"))["driveLetterEnd"]
    assert end.end_line - end.start_line > 5 and end.signature == "int? driveLetterEnd(String path, int index)"


def test_a_haskell_function_is_its_signature_and_its_equations() -> None:
    fm = parsed("haskell", "Control/Monad/State/Class.hs")
    modify = defs(fm)["modify"]
    assert modify.signature.startswith("modify :: MonadState s m =>") and modify.end_line > modify.start_line
    assert [d.qualified_name for d in fm.definitions].count("modify") == 1


def test_elixir_clauses_are_one_function_and_its_words_are_no_references() -> None:
    fm = parsed("elixir", "plug/conn/status.ex")
    names = [d.qualified_name for d in fm.definitions]
    assert len(names) == len(set(names)), names  # `def code(…)` clauses merged
    assert not {"def", "defmodule", "moduledoc"} & set(fm.references)


# --------------------------------------------------------------------------- CommonJS

def test_commonjs_exports_are_the_definitions_they_assign() -> None:
    koa = defs(parsed("javascript", "application.js"))
    assert koa["Application"].kind == "class" and koa["Application"].exported
    assert koa["Application"].signature.startswith("class Application")
    assert koa["Application.use"].exported and "middleware" in koa["Application.use"].doc
    assert "Emitter" not in koa and "compose" not in koa  # `const x = require(…)` imports, defines nothing
    express = parsed("javascript", "express.js")
    assert defs(express)["createApplication"].exported
    assert express.imported.get("bodyParser") == "body-parser"


def test_a_module_exports_object_defines_its_members() -> None:
    src = b"module.exports = {\n  /** Parse it. */\n  parse (s) { return s },\n  stringify: function (v) { return v },\n}\n"
    found = defs(parse_source(src, "javascript"))
    assert found["parse"].exported and found["parse"].doc == "Parse it."
    assert found["stringify"].signature == "stringify: function (v)"
    inner = defs(parse_source(b"const o = { f () {} }\n", "javascript"))
    assert "f" not in inner  # an ordinary object literal's methods stay out of the API


# --------------------------------------------------------------------------- no grammar

def test_a_language_no_grammar_reads_is_read_by_its_lines() -> None:
    fm = parse_source((FIXTURES / "zig" / "src" / "known-folders.zig").read_bytes(), "zig")
    assert fm.lexical and fm.error is None
    found = defs(fm)
    assert found["KnownFolder"].kind == "enum" and found["KnownFolder"].exported
    assert found["KnownFolderConfig"].kind == "struct"
    assert found["open"].kind == "function" and "directory handle" in found["open"].doc
    assert found["open"].signature.startswith("pub fn open(\n") and "folder: KnownFolder" in found["open"].signature
    assert "std" not in found  # `const std = @import("std")` imports
    assert "std" in fm.imports


def test_lines_read_without_a_grammar_stay_out_beside_a_grammar_read_language(tmp_path: Path) -> None:
    from orchestrator.repo.map import build_map
    from orchestrator.repo.walk import read_source, walk

    (tmp_path / "tool.py").write_text("def run():\n    return 1\n")
    (tmp_path / "build.sh").write_text("setup() {\n  echo hi\n}\n")
    tree = walk(tmp_path)
    m = build_map([(f.rel, f.lang, f.kind) for f in tree.files], read=lambda r: read_source(tmp_path, r))
    assert "no grammar reads shell" in (m.files["build.sh"].error or "")
    assert "no grammar reads 1 shell file(s): left out of the map" in tree.summary()
    (tmp_path / "tool.py").unlink()
    assert "read by their lines" in walk(tmp_path).summary()


# --------------------------------------------------------------------------- the writer meets its checks

def test_links_the_book_lacks_become_their_words() -> None:
    from orchestrator.authoring.selfcheck import tidy_links

    md = ("# T\n\n## Usage\n\nSee [the guide](site/content/guide.md), [usage](#usage), [support](#browser-support), "
          "[web](https://x.org), [ch2](ch02.md#a) and ![logo](media/logo.png).\n\n"
          "```md\n[kept](in/code.md)\n```\n\nAnd `[kept](x.md)` in a span.\n")
    out = tidy_links(md)
    assert "See the guide, [usage](#usage), support, [web](https://x.org), [ch2](ch02.md#a) and logo." in out
    assert "[kept](in/code.md)" in out and "`[kept](x.md)`" in out


def test_every_paragraph_about_the_code_gets_a_citation_that_resolves(tmp_path: Path) -> None:
    from orchestrator.authoring.project import load
    from orchestrator.authoring.selfcheck import cite_uncited
    from orchestrator.evidence.resolve import resolve

    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "php" / "src", src)
    p = load(src)
    md = ("# App\n\n`App::handle` hands the request to the middleware stack.\n\n"
          "- `request` of type `ServerRequestInterface`\n\n"
          "It gives back `ResponseInterface`.\n\nNothing here names `NoSuchThing`.\n")
    out = cite_uncited(md, p)
    probs, uncited, cov = resolve(out, src)
    assert probs == [] and cov.cited == 3 and [b.names for b in uncited] == [["NoSuchThing"]], out
    assert "stack ([App.php:" in out  # before the sentence's full stop


def test_a_paragraph_is_never_given_a_whole_impl_block_to_cite(tmp_path: Path) -> None:
    """The only range holding every name of "uses `Proxy`, `Proxy.uri`, ..." was ureq's 207-line
    `impl Proxy`: cited, it blocked the chapter at R1 (a span the support check refuses)."""
    from orchestrator.authoring.project import load
    from orchestrator.authoring.selfcheck import cite_uncited

    src = tmp_path / "src"
    src.mkdir()
    methods = "".join(f"    pub fn m{k}(&self) -> u32 {{\n        {k}\n    }}\n\n" for k in range(40))
    (src / "lib.rs").write_text("pub struct Proxy {\n    n: u32,\n}\n\nimpl Proxy {\n" + methods +
                                "    pub fn uri(&self) -> u32 {\n        self.n\n    }\n}\n")
    out = cite_uncited("# P\n\nIt uses `Proxy`, `Proxy.m0` and `Proxy.uri` from another chapter.\n", load(src))
    assert "source:" not in out, out


# --------------------------------------------------------------------------- whole books

BOOKS = ["csharp", "ruby", "kotlin", "php", "swift", "scala", "elixir", "lua", "haskell", "dart", "zig"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.parametrize("lang", BOOKS)
def test_a_whole_offline_book_in_each_language(lang: str, tmp_path: Path, isolated) -> None:
    from orchestrator import checks
    from orchestrator.testing.helpers import make_example, run_book

    project = tmp_path / "project"
    shutil.copytree(FIXTURES / lang, project)
    ws = make_example(tmp_path / "ws", source=f'"{project / "src"}"', provider='"offline"')
    code, _ = run_book(ws)
    assert code == 0
    out = ws / "output"
    planned = sorted(p.stem.split("-")[0] for p in (out / "chapters" / "final").glob("ch*-final.md"))
    published = sorted(p.stem for p in (out / "publish").glob("ch*.html"))
    assert planned and published == planned
    for final in (out / "chapters" / "final").glob("ch*-final.md"):
        found, _ = checks.check_code(final.read_text(encoding="utf-8"), project / "src")
        assert not [f for f in found if f.severity == "blocking"], (final.name, found)
    if lang == "zig":
        assert "without a grammar" in (out / "chapters" / "final" / "ch01-final.md").read_text(encoding="utf-8")


def test_a_bare_call_inside_a_type_names_its_own_method() -> None:
    from orchestrator.authoring.facts import all_calls
    from orchestrator.authoring.project import load

    p = load(FIXTURES / "ruby" / "src")
    merge = p.find("Sinatra::IndifferentHash::merge!")[0]
    assert {c.name for c in all_calls(p, merge)} == {"Sinatra::IndifferentHash::convert_key",
                                                      "Sinatra::IndifferentHash::convert_value"}
    p = load(FIXTURES / "elixir" / "src")
    calls = {c.name for s in p.symbols() for c in all_calls(p, s)}
    assert calls and all(c.startswith("Plug") for c in calls)


def test_a_readme_example_is_code_that_uses_the_project_never_a_compiler_message() -> None:
    from orchestrator.authoring.example_text import leading_part as _leading_part
    from orchestrator.authoring.overview import _NOT_CODE_TAG, _example_score

    error = ("error[E0277]: the trait bound `fn(bool) {handler}: Handler<_, _>` is not satisfied\n"
             "   --> src/main.rs:13:44\n13  |     let app = Router::new().route(\"/\", get(handler));\n")
    assert _NOT_CODE_TAG.match("not_rust") and _NOT_CODE_TAG.match("console") and not _NOT_CODE_TAG.match("rust")
    assert _example_score(error, None, {"rust"}, {"Router", "route"}) == 0.0
    long = "use axum::Router;\n\n" + "fn main() {\n" + "    let app = Router::new().route(\"/\", get(root));\n" * 30 \
        + "}\n\nasync fn root() {\n    1\n}\n\nasync fn other() {\n" + "    2\n" * 20 + "}"
    first, last, _tag, code = _leading_part((10, 10 + long.count("\n"), "rust", long))
    assert code.endswith("async fn root() {\n    1\n}") and last - first + 1 == len(code.split("\n"))
    assert _example_score(code, "rust", {"rust"}, {"Router", "route"}) > 0


def test_a_workspace_without_its_own_readme_speaks_through_the_crate_s(tmp_path: Path) -> None:
    from orchestrator.repo.project import discover

    top = tmp_path / "web"  # axum: the repository and its main crate share the name; the top's README is a link
    (top / ".git").mkdir(parents=True)
    (top / "Cargo.toml").write_text("[workspace]\nmembers = [\"web\"]\n")
    (top / "web" / "src").mkdir(parents=True)
    (top / "web" / "Cargo.toml").write_text("[package]\nname = \"web\"\n")
    (top / "web" / "README.md").write_text("# web\n\nA web framework.\n")
    (top / "web" / "src" / "lib.rs").write_text("pub fn serve() {}\n")
    info = discover(top / "web" / "src")
    assert info.root == top.resolve() and info.readme == "web/README.md"


def test_a_maven_aggregators_project_is_named_by_its_group_not_its_build_artifact(tmp_path: Path) -> None:
    from orchestrator.repo.project import discover

    (tmp_path / ".git").mkdir()
    (tmp_path / "pom.xml").write_text("<project>\n  <groupId>com.eclipsesource.minimal-json</groupId>\n"
                                      "  <artifactId>build</artifactId>\n  <packaging>pom</packaging>\n"
                                      "  <modules>\n    <module>json</module>\n  </modules>\n</project>\n")
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "Json.java").write_text("public class Json {}\n")
    assert discover(tmp_path).name == "minimal-json"  # (its book was "build at a glance")


def test_php_calls_through_this_and_self() -> None:
    from orchestrator.authoring.facts import all_calls
    from orchestrator.authoring.project import load

    p = load(FIXTURES / "php" / "src")
    run = p.find("App::run")[0]
    assert [c.name for c in all_calls(p, run)] == ["App::handle"]  # `$this->handle($request)`
    create = p.find("AppFactory::create")[0]
    assert "AppFactory::determineResponseFactory" in {c.name for c in all_calls(p, create)}  # `static::…(`


def test_phpdoc_kdoc_and_yard_tags_are_parameters_and_results() -> None:
    from orchestrator.text.docstrings import to_markdown

    php = defs(parsed("php", "Factory/AppFactory.php"))["AppFactory::determineResponseFactory"]
    out = to_markdown(php.doc, "php")
    assert "@throws" not in out and "`RuntimeException`" in out
    doc = to_markdown("Make it.\n@param string|string[] $paths the paths\n@return \\Dotenv\\Dotenv", "php")
    assert "- `paths` (`string|string[]`): the paths" in doc and "- `\\Dotenv\\Dotenv`" in doc
    assert "- `path` (`String`): the path" in to_markdown("Sends it.\n@param path [String] the path", "ruby")
    assert "- `name`: the logger name" in to_markdown("A logger.\n@param name the logger name", "kotlin")
    inherit = defs(parsed("php", "MiddlewareDispatcher.php"))["MiddlewareDispatcher::seedMiddlewareStack"]
    assert "inheritdoc" not in inherit.doc.lower()
