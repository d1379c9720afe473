"""Issue 35 item 1, the rules an idea title is held to: a docs heading is a chapter's title only
when its section covers the chapter's main definitions (not one detail of them); a chapter's
flow is one of its central names'; a module's own doc says its idea; a role's topic that only
repeats the module's names comes after every way that says an idea."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.authoring import project as project_mod
from orchestrator.authoring.ideas import covers, module_doc_title


def test_a_docs_section_about_one_detail_is_not_the_chapters_idea():
    key = ["echo", "format_filename", "get_app_dir", "open_file"]  # click's utils chapter
    detail = "Printing Filenames", "Use `format_filename` to print a path; `echo` it, and `format_filename` again."
    assert not covers(detail[0], detail[1], key, "click")
    # the section names many of the key names, one of the first two among them: it is the chapter's
    types = ["ParamType", "Choice", "IntRange", "DateTime", "FloatRange"]
    assert covers("Built-in Types Listing", "`Choice`, `IntRange`, `FloatRange` and `DateTime` ...", types)
    # or the heading says the central name's word and the section names it twice
    assert covers("Global Context Access", "`get_current_context()` ... `get_current_context`",
                  ["get_current_context", "push_context"])
    # not when the shared word is only the project's name ("Flask Extension Development" for app.py)
    assert not covers("Flask Extension Development", "Flask ... Flask ...", ["Flask", "ensure_sync"], "flask")
    # English-word names (`stdout`, `output`) are no evidence of the testing chapter's idea
    assert not covers("Unicode Output and Input", "stdout stderr output stdout", ["Result", "stdout", "stderr", "output"])


def test_a_modules_doc_says_its_idea():
    assert module_doc_title("Handle WebSocket connections.\n\n# Example") == "Handling WebSocket connections"
    assert module_doc_title("Server-Sent Events (SSE) responses.") == "Server-Sent Events responses"
    assert module_doc_title("Utilities for writing middleware") == "Writing middleware"
    assert module_doc_title("Route to services and handlers based on HTTP methods.") == "Routing to services and handlers"
    for kind in ("Handler future types.", "Rejection response types.", "Package cli provides a minimal framework.",
                 "HTTP body utilities.", "Internal macros"):
        assert module_doc_title(kind) == "", kind


GO_MOD = "module example.com/kit\n\ngo 1.22\n"


def _kit(root: Path) -> Path:
    """A client whose central type's methods are single verbs, and a helper function beside it
    (`createTextDecoder`) that is one detail of the module, not its idea."""
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "kit"}\n')
    body = "\n".join(f"  {m}(x) {{\n    return this.{n}(x) + this.{n}(x);\n  }}\n" for m, n in
                     (("fetch", "retry"), ("retry", "parse"), ("parse", "send"), ("send", "fetch")))
    (root / "client.js").write_text(
        "export class Client {\n" + body + "}\n"
        "export function createTextDecoder() {\n  return 1;\n}\n")
    return root


def test_a_flow_title_comes_from_the_central_names(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_titles

    p = project_mod.load(_kit(tmp_path / "kit"))
    [title] = flow_titles(p, [["client.js"]])
    # not the helper's "Creating a text decoder": the central type's own verbs
    assert title == "How a client fetches and retries", title


def test_a_chinese_title_that_names_code_is_told_apart():
    from orchestrator.contracts.title_shape import name_title

    # the Chinese path's old shape: a module and two names, or a Latin module name and its kind
    for title, src in (("_models 模块：Response 与 Request", ["httpx/_models.py"]),
                       ("throttle 中间件", ["middleware/throttle.go"]), ("Mux 与 ServeHTTP", ["mux.go"]),
                       ("flag_bool_with_inverse 模块", ["flag_bool_with_inverse.go"])):
        assert name_title(title, src), title
    for title, src in (("请求路由", ["mux.go"]), ("处理 WebSocket 连接", ["extract/ws.rs"]), ("HTTP 请求", ["client.py"]),
                       ("从 panic 中恢复", ["middleware/recoverer.go"])):
        assert name_title(title, src) == "", title


def test_an_idea_is_said_in_chinese_word_for_word_or_not_at_all():
    from orchestrator.authoring.zh_titles import zh_title

    assert zh_title("Global Context Access") == "全局上下文访问"
    assert zh_title("How a group resolves its command") == "命令组如何解析命令"
    assert zh_title("Handling WebSocket connections") == "处理 WebSocket 连接"
    assert zh_title("Recovering from panics") == "从 panic 中恢复"
    assert zh_title("Set of encoding configurations") == "编码配置的集合"
    assert zh_title("Writing middleware") == "编写中间件"
    assert zh_title("How Ky reads and parses", "ky") == "Ky 如何读取与解析"
    # a word the table does not know, or a shape it cannot say: nothing half English
    assert zh_title("Limiting number of currently processed requests") == ""
    assert zh_title("Which Exceptions Exist") == ""


def test_chinese_titles_say_ideas_not_names(tmp_path: Path):
    from orchestrator.authoring.titles import make_titles
    from orchestrator.contracts.title_shape import name_title

    root = tmp_path / "kit"
    root.mkdir()
    (root / "go.mod").write_text(GO_MOD)
    (root / "router.go").write_text(
        "package kit\n\n// Router dispatches requests to handlers.\ntype Router struct {\n\troutes map[string]int\n}\n\n"
        "// FindRoute finds a route for the path.\nfunc (r *Router) FindRoute(path string) int {\n"
        "\treturn r.routes[path]\n}\n\n// ServeHTTP routes the request.\nfunc (r *Router) ServeHTTP(path string) int {\n"
        "\treturn r.FindRoute(path) + r.FindRoute(path)\n}\n")
    (root / "errors.go").write_text(
        "package kit\n\n// ErrNotFound is returned when no route matches.\ntype ErrNotFound struct {\n\tPath string\n}\n\n"
        "// Error formats the error.\nfunc (e ErrNotFound) Error() string {\n\treturn e.Path\n}\n")
    p = project_mod.load(root)
    titles = make_titles(p, [["router.go"], ["errors.go"]], "zh")
    assert not any("：" in t or "—" in t for t in titles), titles  # no "请求路由：Router 与 FindRoute"
    assert all(name_title(t, g) == "" for t, g in zip(titles, [["router.go"], ["errors.go"]])), titles


_BIG = "\n".join(f"  step{i}(x) {{\n    return x + {i};\n  }}" for i in range(40))  # a module big enough to be a chapter


def _web_book(tmp_path: Path, routed: str, fourth: dict[str, str]) -> Path:
    """A router (calling `routed`), errors, a cache with an idea of its own, and a fourth module."""
    root = tmp_path / "web"
    root.mkdir()
    (root / "package.json").write_text('{"name": "web"}\n')
    (root / "router.js").write_text("// Routes each request to its handler.\nexport class Router {\n"
                                    f"  route(req) {{\n    return {routed}(req);\n  }}\n" + _BIG + "\n}\n")
    (root / "errors.js").write_text("export class HttpError extends Error {\n" + _BIG + "\n}\n")
    (root / "cache.js").write_text("/** Caches responses by their URL. */\nexport class Cache {\n  get(k) {\n    return k;\n  }\n"
                                   + _BIG + "\n}\n")
    for rel, text in fourth.items():
        (root / rel).write_text(text)
    return root


def test_a_tiny_module_with_no_idea_is_a_section_even_in_a_short_book(tmp_path: Path):
    from orchestrator.authoring.outline_plan import fold_nameless

    p = project_mod.load(_web_book(tmp_path, "isStream", {"is-stream.js": "export function isStream(x) {\n  return x !== null;\n}\n"}))
    groups = [["router.js"], ["errors.js"], ["cache.js"], ["is-stream.js"]]
    folded = fold_nameless(p, groups, "en")
    assert len(folded) == 3 and not any(g == ["is-stream.js"] for g in folded), folded


@pytest.mark.slow  # a run through the fake Messages API up to the outline gate
def test_the_claude_planners_inventory_is_asked_again_through_the_fake(tmp_path, monkeypatch):
    """The model's plan with module-name titles is refused by the outline contract and asked
    again with the reason; the second plan (the fake's idea titles) is the outline."""
    import json

    from orchestrator.outline import load as load_outline
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer

    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=4)
    src = ws / "source"
    if not src.is_dir():
        import yaml

        src = (ws / yaml.safe_load((ws / "book.yaml").read_text())["source"]).resolve()
    files = sorted(str(f.relative_to(src)) for f in src.rglob("*.py") if f.name != "__init__.py")[:4]
    assert len(files) >= 3, files
    chapters = [{"id": f"ch{i + 1:02d}", "title": f"The {Path(f).stem} module" if i else "The big picture", "batch": 1,
                 "summary": "s", "goals": ["g"], "depends_on": [], "sources": [f]} for i, f in enumerate(files)]
    inventory = json.dumps({"title": "A book", "intro": "i", "parts": [{"title": "All", "chapters": chapters}]})
    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        api.malformed(inventory, match="You are the planner", times=1)
        code, _summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01, max_delay=0.05))
        asks = [r for r in api.message_requests() if "You are the planner" in json.dumps(r["body"].get("system"))]
    finally:
        api.stop()
    assert code == 3  # stopped at the outline gate, with a plan
    assert len(asks) == 2, len(asks)
    again = json.dumps(asks[1]["body"]["messages"], ensure_ascii=False)
    assert "only name code" in again  # asked again with the contract's reason
    titles = [c.title for c in load_outline(ws).chapters]
    assert not any(t.endswith(" module") for t in titles), titles


def test_the_planners_example_and_a_chinese_inventory_meet_the_same_title_rule():
    from orchestrator.contracts.errors import ContractError
    from orchestrator.contracts.examples import OUTLINE
    from orchestrator.contracts.outline import OutlinePlan, inventory_titles
    from orchestrator.contracts.title_shape import name_title

    # the outline the planner's prompt shows as correct holds the rule it is refused by
    assert [c.title for c in OUTLINE.chapters if name_title(c.title, c.sources, project=OUTLINE.title)] == []
    chapters = [{"id": f"ch{i + 1:02d}", "title": t, "batch": 1, "summary": "s", "goals": ["g"], "depends_on": [],
                 "sources": [s]} for i, (t, s) in enumerate((
                     ("httpx 全景", "httpx/__init__.py"), ("models 模块：Response 与 Request", "httpx/_models.py"),
                     ("client 模块：Client 与 Transport", "httpx/_client.py"), ("auth 模块：Auth 与 Digest", "httpx/_auth.py")))]
    problem = inventory_titles(OutlinePlan.from_json({"title": "httpx 源码解读", "intro": "",
                                                      "parts": [{"title": "全部", "chapters": chapters}]}))
    assert isinstance(problem, ContractError) and "only name code" in str(problem)


def test_a_name_the_chapter_defines_itself_is_not_borrowed_from_another(tmp_path: Path):
    """koa's context.js and response.js both define `inspect`: the context chapter does not "use
    `inspect` from" the response chapter (a wrong relation the writer then cited with the wrong lines)."""
    from orchestrator.authoring import authors as authoring
    from orchestrator.outline import parse as parse_outline

    src = tmp_path / "shop"
    (src / "shop").mkdir(parents=True)
    (src / "pyproject.toml").write_text('[project]\nname = "shop"\n')
    body = "\n".join(f"    total = total + {i}" for i in range(30))
    (src / "shop" / "cart.py").write_text(  # `price` imported: a use the map resolves (a bare unknown name is none)
        "from shop.prices import price\n\n\ndef inspect(cart):\n    \"\"\"Describe the cart.\"\"\"\n    total = 0\n" + body + "\n    return total\n\n\n"
        "def checkout(cart):\n    \"\"\"Pay for the cart.\"\"\"\n    return inspect(cart) + price(cart)\n")
    (src / "shop" / "prices.py").write_text(
        "def inspect(p):\n    \"\"\"Describe a price.\"\"\"\n    total = 0\n" + body + "\n    return total\n\n\n"
        "def price(cart):\n    \"\"\"The price of a cart.\"\"\"\n    total = 0\n" + body + "\n    return total\n")
    ctx = {"source_root": str(src), "language": "en", "limits": {"max_chapters": 12, "batch_size": 3},
           "book": {"title": "A book", "audience": "readers", "brief": "How it works."},
           "personas": ["Newcomer: new"], "memory": {"metaphors": [], "glossary": []}, "chapters": []}
    o = parse_outline(authoring.write_outline(ctx), "the plan", src)
    cart = next(c for c in o.chapters if "shop/cart.py" in c.sources)
    assert not any("shop/prices.py" in c.sources for c in o.chapters if c.id == cart.id), "one chapter each"
    chapters = [{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary} for c in o.chapters]
    report = authoring.write_research(dict(ctx, chapter=cart.entry(), chapters=chapters, outline_yaml=o.to_yaml()))
    uses = [ln for ln in report.splitlines() if ln.startswith("- uses ")]
    assert any("`price`" in ln for ln in uses), uses  # what it really takes from the prices chapter
    assert not any("`inspect`" in ln for ln in uses), uses


def test_a_modules_own_name_in_its_doc_is_said_in_chinese(tmp_path: Path):
    from orchestrator.authoring.titles import module_subjects

    root = tmp_path / "kv"
    (root / "kv").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "kv"\n')
    (root / "kv" / "wal.py").write_text('"""The write-ahead log: every change is written here first."""\n\n\n'
                                        "def append(record):\n    \"\"\"Append a record.\"\"\"\n    return record\n")
    p = project_mod.load(root)
    assert module_subjects(p, ["kv/wal.py"], None, "zh")[0] == "预写日志"  # not "wal 模块"
    assert module_subjects(p, ["kv/wal.py"], None, "en")[0] == "Write-ahead log"


def test_a_flow_says_a_plural_object_without_an_article_and_a_helper_types_method_says_none(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_title

    (tmp_path / "cli.js").write_text("function readPartials (dir) {\n  return dir\n}\n\nfunction run () {\n  return 1\n}\n")
    (tmp_path / "Maybe.cs").write_text("public static class MaybeExtensions {\n"
                                       "    public static void MatchJust(this object m) { }\n}\n")
    p = project_mod.load(tmp_path)
    syms = {s.dotted: s for s in p.symbols()}
    assert flow_title(syms["readPartials"]) == "Reading partials"
    assert flow_title(syms["MaybeExtensions.MatchJust"]) == ""  # not "How the maybe extensions match its just"
    (tmp_path / "Grid.cs").write_text("public class GridReader {\n    public object ReadFirst() { return null; }\n}\n")
    p = project_mod.load(tmp_path)
    assert flow_title(next(s for s in p.symbols() if s.dotted == "GridReader.ReadFirst")) == ""  # not "reads its first"


def test_a_chapter_whose_key_names_say_no_idea_takes_the_flow_of_another_public_function(tmp_path: Path):
    from orchestrator.authoring.titles import make_titles

    kinds = ["sse42", "avx2", "neon", "swar", "scalar"]
    (tmp_path / "simd.rs").write_text("".join(f"pub fn {k}(buf: &[u8]) -> usize {{\n    buf.len()\n}}\n\n" for k in kinds)
                                      + "pub fn validate_header_names() -> u8 {\n    1\n}\n")
    (tmp_path / "lib.rs").write_text("mod simd;\n\npub fn parse(buf: &[u8]) -> usize {\n"
                                     + "".join(f"    simd::{k}(buf);\n" for k in kinds) + "    0\n}\n")
    p = project_mod.load(tmp_path)
    # its key names (`sse42`, `avx2`, …) say nothing: the flow of a public function it also has does
    assert make_titles(p, [["lib.rs"], ["simd.rs"]], "en")[1] == "Validating header names"


def _doc_sym(name: str, doc: str):
    from orchestrator.authoring.project import Sym
    from orchestrator.repo.parse import Definition

    d = Definition(kind="function", name=name, qualified_name=name, signature=f"function {name}()", doc=doc,
                   start_line=1, end_line=2, exported=True)
    return Sym("lib/types/raw.js", d, 0.0, "javascript")


def test_a_doc_said_as_an_order_titles_what_it_orders_and_a_comparison_is_cut():
    from orchestrator.authoring.ideas import doc_title

    # body-parser's "Create a middleware to parse raw bodies.": what the middleware is for
    assert doc_title(_doc_sym("raw", "Create a middleware to parse raw bodies.")) == "Parsing raw bodies"
    assert doc_title(_doc_sym("parseRaw", "Parse raw bodies.")) == "Parsing raw bodies"
    assert doc_title(_doc_sym("Parser", "Create a new parser.")) == ""  # a weak order says nothing of the job
    # shlex's "Splits strings like a POSIX shell": the object stops before the comparison
    assert doc_title(_doc_sym("split", "Parses strings like a POSIX shell does.")) == "Parsing strings"


def test_a_flow_name_whose_object_is_a_participle_or_an_absence_says_no_idea(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_title

    (tmp_path / "fmt.py").write_text("def format_unescaped(s):\n    return s\n\n\n"
                                     "def render_without_layout(s):\n    return s\n\n\n"
                                     "def render_partials(s):\n    return s\n")
    p = project_mod.load(tmp_path)
    by = {s.dotted: s for s in p.symbols()}
    assert flow_title(by["format_unescaped"]) == ""  # not "Formatting an unescaped"
    assert flow_title(by["render_without_layout"]) == ""
    assert flow_title(by["render_partials"]) == "Rendering partials"


def test_a_four_chapter_book_folds_a_big_module_that_has_only_its_name(tmp_path: Path):
    from orchestrator.authoring.outline_plan import fold_nameless
    from orchestrator.authoring.titles import make_titles

    native = "export function native(x) {\n  return x;\n}\nexport class Native {\n" + _BIG + "\n}\n"
    p = project_mod.load(_web_book(tmp_path, "native", {"native.js": native}))
    groups = [["router.js"], ["errors.js"], ["cache.js"], ["native.js"]]
    assert make_titles(p, groups, "en")[3] == "Native"  # addressable's "Native": the module's name alone
    folded = fold_nameless(p, groups, "en")
    assert len(folded) == 3 and ["native.js"] not in folded, folded


def test_a_flow_title_says_no_preposition_as_its_object_nor_a_helper_modules_subject(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_title

    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "kit.rb").write_text(
        "class AbbreviationMap\n  def remove_at_end_of(key)\n    key\n  end\nend\n\n"
        "class Sessions\n  def cache_stores(x)\n    x\n  end\nend\n\n"
        "module Chunked\n  def load_dependencies(app)\n    app\n  end\nend\n\n"
        "module InstanceMethods\n  def send_file(path)\n    path\n  end\nend\n", encoding="utf-8")
    p = project_mod.load(tmp_path / "kit")
    by = {s.dotted: s for s in p.symbols()}
    assert flow_title(by["AbbreviationMap.remove_at_end_of"]) == ""  # not "removes the at end of"
    assert flow_title(by["Sessions.cache_stores"]) == "How the sessions cache their stores"  # not "cach its"
    assert flow_title(by["Chunked.load_dependencies"]) == ""  # an adjective is no subject
    assert flow_title(by["InstanceMethods.send_file"]) == ""  # a Ruby plugin's method module is no thing


def test_a_readme_names_its_project_in_an_html_heading_and_a_notice_names_nothing(tmp_path: Path):
    from orchestrator.repo.project import project_name_at

    (tmp_path / "kotlin-csv").mkdir()
    (tmp_path / "kotlin-csv" / "README.md").write_text(
        '<h1 align="center">kotlin-csv</h1>\n\n<p><img src="x.svg"/></p>\n\n# Design goals\n\nFast.\n', encoding="utf-8")
    assert project_name_at(tmp_path / "kotlin-csv") == "kotlin-csv"
    (tmp_path / "voluptuous").mkdir()
    (tmp_path / "voluptuous" / "README.md").write_text("# CONTRIBUTIONS ONLY\n\nNo time.\n\n# Voluptuous\n", encoding="utf-8")
    assert project_name_at(tmp_path / "voluptuous") == "voluptuous"


def test_a_doc_that_says_what_the_code_is_for_says_its_idea():
    from orchestrator.authoring.doc_phrases import doc_title
    from orchestrator.authoring.project import Sym
    from orchestrator.repo.definitions import Definition

    def sym(doc: str) -> Sym:
        return Sym("core.py", Definition(kind="class", name="pyparsing_x", qualified_name="pyparsing_x", signature="class pyparsing_x:",
                                         doc=doc, start_line=1, end_line=2, exported=True, aliases=[]), 0.0, "python")

    # pyparsing's namespace classes: what they are for, not the module's name ("Unicode", "Testing", "The common part")
    assert doc_title(sym("A namespace class for defining common language unicode_sets.")) == "Defining common language unicode sets"
    assert doc_title(sym("namespace class for classes useful in writing unit tests")) == "Writing unit tests"
    assert doc_title(sym("Here are some common low-level expressions that may be useful in\njump-starting parser development:\n\n"
                         "- numeric forms")) == "Jump-starting parser development"
    assert doc_title(sym("A class for the Parser.")) == ""  # (no gerund: nothing it does)


def test_the_share_of_module_titles_counts_big_modules_though_only_small_ones_fold_below_the_floor(tmp_path: Path):
    # Cronos: folded to six chapters (the floor of eleven), two still had only their module's name, the 155-line
    # `CalendarHelper.cs` and the 96-line `CronField.cs`; the small one was kept, for the big one alone was within the
    # share (one of five). Two of five are not: the small one is a section of another chapter.
    from orchestrator.authoring.outline_plan import fold_nameless

    named = {f"{w}.js": f"export class {w.title()} {{\n" + _BIG + "\n}\n" for w in ("alpha", "bravo", "delta", "gamma", "kilo", "lima", "oscar")}
    named["tiny.js"] = "export class Tiny {\n  size(x) {\n    return x;\n  }\n}\n"
    p = project_mod.load(_web_book(tmp_path, "native", named))
    groups = [["router.js"], ["errors.js"], ["cache.js"]] + [[f] for f in named]
    folded = fold_nameless(p, groups, "en")
    assert ["tiny.js"] not in folded, folded


def test_a_dotted_name_in_a_module_doc_is_no_sentences_end():
    from orchestrator.authoring.ideas import module_doc_title

    # tqdm's contrib/concurrent.py: the title was "Thin wrappers around concurrent"
    assert module_doc_title("Thin wrappers around `concurrent.futures`.") == "Thin wrappers around concurrent.futures"
    assert module_doc_title("Handle WebSocket connections. Then more.") == "Handling WebSocket connections"


def test_a_python_package_is_named_by_its_setup_and_a_readmes_install_heading_names_nothing(tmp_path: Path):
    # markdown2: no pyproject.toml; setup.py says `name="markdown2"`, and the README's first heading is "# Install"
    from orchestrator.repo.project import project_name_at

    (tmp_path / "md2").mkdir()
    (tmp_path / "md2" / "README.md").write_text("Markdown is a markup format.\n\n# Install\n\npip install it\n", encoding="utf-8")
    assert project_name_at(tmp_path / "md2") == "md2"
    (tmp_path / "md2" / "setup.py").write_text('from setuptools import setup\n\nsetup(\n    name="markdown2",\n'
                                               '    version=get_version(),\n)\n', encoding="utf-8")
    assert project_name_at(tmp_path / "md2") == "markdown2"
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "setup.cfg").write_text("[metadata]\nname = parsy\nversion = 1\n\n[options]\nname = other\n",
                                                encoding="utf-8")
    assert project_name_at(tmp_path / "cfg") == "parsy"


def test_a_docs_section_named_for_the_chapters_directory_says_its_idea_in_its_first_sentence(tmp_path: Path):
    from orchestrator.authoring.doc_phrases import section_title
    from orchestrator.authoring.ideas import heading_titles

    assert section_title("Transformers allow you to filter and modify HTML nodes using your own custom logic, on "
                         "top of Sanitize's core filtering.") == "Filtering and modifying HTML nodes"
    assert section_title("Plugins are used to extend the parser.") == "Extending the parser"
    assert section_title("Options allow you to set the timeout.") == ""  # (a weak verb says no job)
    assert section_title("A transformer is any object that responds to `call`.") == ""
    # said as an order under a heading that is code (gray-matter's `options.excerpt`), after its type lines
    assert section_title("**Type**: `Boolean`\n\nExtract an excerpt that directly follows front-matter.") == "Extracting an excerpt"
    assert section_title("Install with npm.") == ""
    # sanitize: "## Transformers" names none of the chapter's code, but `lib/sanitize/transformers/` is its directory
    root = tmp_path / "san"
    (root / "lib/san/transformers").mkdir(parents=True)
    (root / "lib/san/config").mkdir(parents=True)
    for name in ("clean_comment", "clean_element"):
        klass = "".join(w.title() for w in name.split("_"))
        (root / f"lib/san/transformers/{name}.rb").write_text(
            f"class San\n  module Transformers\n    class {klass}\n      def call(env)\n        env[:node]\n      end\n    end\n  end\nend\n")
    (root / "lib/san/config/relaxed.rb").write_text("class San\n  module Config\n    RELAXED = {}\n  end\nend\n")
    (root / "lib/san.rb").write_text("class San\n  def fragment(html)\n    html\n  end\nend\n")
    (root / "README.md").write_text("# san\n\n## Usage\n\nCall `San.fragment`.\n\n## Transformers\n\nTransformers "
                                    "allow you to filter and modify HTML nodes using your own custom logic.\n")
    p = project_mod.load(root)
    groups = [["lib/san.rb"], ["lib/san/config/relaxed.rb", "lib/san/transformers/clean_comment.rb",
                               "lib/san/transformers/clean_element.rb"]]
    assert heading_titles(p, groups)[1] == "Filtering and modifying HTML nodes"
    # not when another chapter holds most of that directory's files
    split = [["lib/san.rb", "lib/san/transformers/clean_comment.rb"], ["lib/san/config/relaxed.rb", "lib/san/transformers/clean_element.rb"]]
    assert heading_titles(p, split)[1] is None


def test_a_doc_that_names_its_type_with_an_article_says_what_it_is():
    from orchestrator.authoring.doc_phrases import doc_noun_title
    from orchestrator.authoring.project import Sym
    from orchestrator.repo.parse import Definition

    doc = "A `Short` is a small string, up to `MAX_LEN` bytes, that can be managed without the heap allocation."
    d = Definition(kind="struct", name="Short", qualified_name="Short", signature="pub struct Short", doc=doc,
                   start_line=1, end_line=9, exported=True, aliases=[])
    assert doc_noun_title(Sym("src/short.rs", d, 1.0, "rust")) == "Small string"  # (json-rust's chapter was "Short")


def test_a_rust_types_doc_on_its_impl_block_and_an_options_section_under_a_code_heading_title_chapters(tmp_path: Path):
    from orchestrator.authoring.ideas import doc_titles, heading_titles

    root = tmp_path / "js"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "js"\nversion = "0.1.0"\n')
    (root / "src/short.rs").write_text(
        "pub struct Short {\n    len: u8,\n}\n\n/// A `Short` is a small string, up to `MAX_LEN` bytes, kept inline.\nimpl Short {\n"
        "    pub fn as_str(&self) -> &str {\n        \"\"\n    }\n}\n")
    (root / "src/lib.rs").write_text("pub mod short;\n")
    p = project_mod.load(root)
    assert doc_titles(p, [["src/lib.rs"], ["src/short.rs"]])[1] == "Small string"  # (json-rust's chapter was "Short")

    gm = tmp_path / "gm"
    (gm / "lib").mkdir(parents=True)
    (gm / "package.json").write_text('{"name": "gm", "main": "index.js"}\n')
    (gm / "index.js").write_text("const excerpt = require('./lib/excerpt');\nmodule.exports = function matter(s) {\n  return excerpt(s);\n};\n")
    (gm / "lib/excerpt.js").write_text("function excerpt(file, opts) {\n  file.excerpt = file.content;\n  return file;\n}\n\nmodule.exports = excerpt;\n")
    (gm / "README.md").write_text("# gm\n\n## Options\n\n### options.excerpt\n\n**Type**: `Boolean`\n\nExtract an excerpt that "
                                  "directly follows front-matter. The `excerpt` is set on the file; `excerpt` may be a function.\n")
    q = project_mod.load(gm)
    assert heading_titles(q, [["index.js"], ["lib/excerpt.js"]])[1] == "Extracting an excerpt"


def test_a_program_that_reads_its_command_line_is_the_command_line_chapter(tmp_path: Path):
    # markdownify's main.py (argparse) was "The main part"; a module's own `if __name__ == "__main__":` reading
    # sys.argv (parso's tokenize.py) is no command-line tool
    from orchestrator.authoring.titles import make_titles

    root = tmp_path / "mdf"
    (root / "mdf").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "mdf"\n')
    (root / "mdf/__init__.py").write_text("class Converter:\n    def convert(self, html):\n        return html.strip()\n\n\n"
                                          "def markdownify(html):\n    return Converter().convert(html)\n")
    (root / "mdf/main.py").write_text("import argparse\nimport sys\n\nfrom mdf import markdownify\n\n\ndef main(argv=sys.argv[1:]):\n"
                                      "    parser = argparse.ArgumentParser(prog='mdf')\n    parser.add_argument('html')\n"
                                      "    args = parser.parse_args(argv)\n    print(markdownify(args.html))\n")
    (root / "mdf/tokenize.py").write_text("import sys\n\n\ndef tokenize_lines(lines):\n    return [ln.split() for ln in lines]\n\n\n"
                                          "if __name__ == '__main__':\n    print(tokenize_lines(open(sys.argv[1]).readlines()))\n")
    p = project_mod.load(root)
    titles = make_titles(p, [["mdf/__init__.py"], ["mdf/main.py"], ["mdf/tokenize.py"]], "en")
    assert titles[1] == "Commands and flags" and titles[2] != "Commands and flags", titles
