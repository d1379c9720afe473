"""Issue 35: a book that tells the story. Titles say an idea (never only a module's name or a
list of symbols), for both planners and in the outline checks; completion scripts and generated
code are a section, not chapters; the picture of the parts is the planner's parts labelled by
role, not the file graph; the prose is measured for sentences that share one shape."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orchestrator.authoring import project as project_mod
from orchestrator.contracts.errors import ContractError
from orchestrator.contracts.title_shape import name_title

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


@pytest.mark.parametrize("title,sources,why", [
    ("Termui — prompt and style", ["click/termui.py"], "lists names"),
    ("Provider — JSONProvider and DefaultJSONProvider", ["flask/json/provider.py"], "lists names"),
    ("Termui", ["click/termui.py"], "module's name"),
    ("Throttle middleware", ["middleware/throttle.go"], "module's name"),
    ("The router module", ["router.go"], "module's name"),
    ("`Router`", ["router.go"], "only code names"),
])
def test_an_inventory_title_is_told_apart(title: str, sources: list[str], why: str):
    # `prompt` and `style` read as English unless the code's names are known (the benchmark knows them)
    assert why in name_title(title, sources, {"prompt", "style"}), title


@pytest.mark.parametrize("title,sources", [
    ("Routing a request", ["mux.go"]),
    ("How a command finds its subcommand", ["command.go"]),
    ("The application context", ["flask/ctx.py"]),
    ("Limiting requests", ["middleware/throttle.go"]),
    ("click at a glance", ["click/decorators.py"]),
])
def test_an_idea_is_a_title(title: str, sources: list[str]):
    assert name_title(title, sources, project="click") == "", title


def _plan(titles: list[str]) -> dict:
    chapters = [{"id": f"ch{i + 1:02d}", "title": t, "batch": 1, "summary": "s", "goals": ["g"], "depends_on": [],
                 "sources": [f"{t.split()[1 if t.endswith(' module') else -1].lower()}.py"]} for i, t in enumerate(titles)]
    return {"title": "A book", "intro": "", "parts": [{"title": "All", "chapters": chapters}]}


def test_a_models_plan_with_inventory_titles_is_asked_again_a_persons_is_kept():
    import json

    from orchestrator.agents.structured import structured_answer
    from orchestrator.contracts.outline import OutlinePlan, inventory_titles

    inventory = _plan(["The big picture", "The store module", "The wal module", "Ready"])
    with pytest.raises(ContractError, match="only name code"):
        structured_answer("outline", json.dumps(inventory), {"language": "en"})
    assert len(OutlinePlan.from_json(inventory).chapters) == 4  # a person's (or the offline) outline still reads
    # a share: one module's name among five ideas is a choice, not an inventory
    ok = OutlinePlan.from_json(_plan(["The big picture", "Writing a record to the log", "Replaying the log",
                                      "Finding a key fast", "Compacting old tables", "Store"]))
    assert inventory_titles(ok) is None


def test_the_outline_card_names_an_inventory_title(tmp_path: Path):
    from orchestrator.pipeline.outline_checks import outline_risks

    text = ("# Outline\n\nIntro.\n\n```yaml\ntitle: A book\nchapters:\n"
            "- id: ch01\n  title: A at a glance\n  batch: 1\n  summary: s\n  depends_on: []\n  sources: [a.py]\n"
            "- id: ch02\n  title: Provider — JSONProvider and DefaultJSONProvider\n  batch: 1\n  summary: s\n"
            "  depends_on: []\n  sources: [provider.py]\n```\n")
    risks = outline_risks(text)
    assert any("ch02" in r and "only names code" in r for r in risks), risks


GO_MOD = "module example.com/kit\n\ngo 1.22\n"


def _cobra_like(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "go.mod").write_text(GO_MOD)
    (root / "command.go").write_text(
        "package kit\n\n// Command is a command.\ntype Command struct {\n\tName string\n\tsubs []*Command\n}\n\n"
        "// Execute runs the command.\nfunc (c *Command) Execute() error {\n\treturn c.find(\"x\").run()\n}\n\n"
        "func (c *Command) find(name string) *Command {\n\tfor _, s := range c.subs {\n\t\tif s.Name == name {\n"
        "\t\t\treturn s\n\t\t}\n\t}\n\treturn c\n}\n\nfunc (c *Command) run() error {\n\treturn nil\n}\n")
    for shell in ("bash", "zsh", "fish"):
        (root / f"{shell}_completions.go").write_text(
            f"package kit\n\n// Gen{shell.capitalize()}Completion writes a {shell} completion script.\n"
            f"func (c *Command) Gen{shell.capitalize()}Completion() string {{\n\treturn c.Name\n}}\n")
    return root


def test_completion_scripts_are_a_section_not_chapters(tmp_path: Path):
    from orchestrator.authoring.plan import fold_peripheral, peripheral

    root = _cobra_like(tmp_path / "kit")
    p = project_mod.load(root)
    groups = [["command.go"], ["bash_completions.go"], ["zsh_completions.go"], ["fish_completions.go"]]
    assert peripheral(p, "zsh_completions.go") and not peripheral(p, "command.go")
    folded = fold_peripheral(p, groups)
    assert len(folded) == 1 and set(folded[0]) == {f for g in groups for f in g}


def test_the_maintainers_scripts_and_benchmarks_are_sections_and_translations_and_history_no_guides(tmp_path: Path):
    # send: scripts/version-history.js took a chapter ("Version history"); jsonpickle: benchmarking/ and
    # jsonpickle_benchmarks.py two; negroni: a French README's heading titled one ("Démarrer avec Negroni")
    from orchestrator.authoring.entry import not_a_guide as _not_a_guide
    from orchestrator.authoring.plan import peripheral

    root = _cobra_like(tmp_path / "kit")
    p = project_mod.load(root)
    for rel in ("scripts/version-history.js", "benchmarking/analyze.py", "kit_benchmarks.py", "benches/parse.rs",
                "tools/gen.go", "fuzzing/fuzz_parse.py", "buildSrc/src/main/kotlin/Publish.kt",
                "kit-examples/src/main/java/Demo.java", "src/Kit/Resources/Languages/ArabicLanguage.cs",
                "lark/__pyinstaller/hook-lark.py", "lark/__pyinstaller/__init__.py", "generate/src/main.rs",
                "_codegen/main.go", "xtask/src/main.rs"):
        assert peripheral(p, rel), rel
    for rel in ("command.go", "src/benchmark.rs", "lib/tools/x.rb", "src/workbench.py"):
        assert not peripheral(p, rel), rel
    for rel in ("translations/README_fr_FR.md", "README.zh-CN.md", "docs/index.ja.md", "HISTORY.md", "CHANGELOG.md"):
        assert _not_a_guide(rel), rel
    for rel in ("README.md", "docs/guide.md", "docs/getting-started.md", "docs/readme.md"):
        assert not _not_a_guide(rel), rel


def test_big_locale_tables_take_no_chapters_from_the_core(tmp_path: Path):
    # validator: twenty translation files of a thousand lines each, each a chapter-sized group, took
    # eleven of twelve chapters and left the core's 27,000 lines one chapter
    from orchestrator.authoring.plan import fold_peripheral, group_files

    root = tmp_path / "val"
    (root / "translations").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/val\n")
    for k in range(6):  # the core: six files of 40 functions
        fns = "".join(f"// check{k}x{j} checks a field.\nfunc check{k}x{j}(v string) bool {{\n\treturn v != \"\"\n}}\n\n"
                      for j in range(40))
        (root / f"core{k}.go").write_text(f"package val\n\n{fns}")
    for lang in ("de", "fr", "es", "it", "ja", "ko", "ru", "zh"):
        (root / "translations" / lang).mkdir()
        rows = "".join(f"\t\"key{j}\": \"text {j}\",\n" for j in range(300))
        (root / "translations" / lang / f"{lang}.go").write_text(
            f"package {lang}\n\n// Register adds the {lang} texts.\nfunc Register() map[string]string {{\n"
            f"\treturn map[string]string{{\n{rows}\t}}\n}}\n")
    p = project_mod.load(root)
    groups = fold_peripheral(p, group_files(p, 8))
    core = [g for g in groups if any(f.startswith("core") for f in g)]
    assert len(core) >= 3, groups  # the core is told in chapters, the tables are a section of one
    assert not [g for g in groups if g and all(f.startswith("translations/") for f in g)], groups


def test_the_picture_of_the_parts_is_parts_by_role_not_files():
    from orchestrator.diagrams import parse, subsystems_block
    from orchestrator.diagrams.mermaid import is_path

    block = subsystems_block([("Entry points", "NewRouter"), ("Routing a request", "Mux"), ("Finding a route", "node")],
                             [(0, 1, "NewMux"), (1, 2, "FindRoute")])
    d = parse(block.split("\n", 1)[1].rsplit("```", 1)[0])
    labels = [n.label for n in d.nodes.values()]
    assert labels[1] == "Routing a request: Mux" and not any(is_path(x.rsplit(": ", 1)[-1]) for x in labels)
    names = {name for _k, _what, name in d.identifiers()}
    assert {"NewRouter", "Mux", "node", "NewMux", "FindRoute"} <= names  # what R1 checks: the names, not the roles
    assert subsystems_block([("Alone", "X")], []) == ""


def test_a_part_most_parts_use_is_labelled_not_drawn_from_every_part():
    from orchestrator.authoring.parts import foundations

    # parts 1..5 all use part 6 (the types); 1 uses 2 and 2 uses 3: those arrows are the picture
    gg = {a: {6: 5.0} for a in range(1, 6)}
    gg[1][2] = 2.0
    gg[2][3] = 1.0
    assert foundations(gg, 7) == {6}
    assert foundations({1: {2: 1.0}, 3: {2: 1.0}}, 4) == set()  # a small picture keeps its arrows
    assert foundations({0: {1: 1.0}, 2: {1: 1.0}, 3: {4: 1.0}, 4: {3: 1.0}, 5: {0: 1.0}}, 6) == set()


def test_ideas_from_a_doc_and_from_a_flow(tmp_path: Path):
    from orchestrator.authoring.ideas import doc_title, flow_title

    root = _cobra_like(tmp_path / "kit")
    p = project_mod.load(root)
    by = {s.dotted: s for s in p.symbols()}
    assert doc_title(by["Command.Execute"]) == "Running the command"  # "Execute runs the command."
    assert flow_title(by["Command.find"]) == ""  # a verb with no object says nothing
    gen = by["Command.GenBashCompletion"]
    assert doc_title(gen) == "" or doc_title(gen).startswith("Writing a bash completion script")


def test_the_template_share_counts_sentences_that_share_a_shape():
    from book_quality import prose_sentences, template_share

    same = "".join(f"`f{i}` is a function in `a.py` (lines {i}–{i + 3}).\n\n" for i in range(3))
    other = "The store keeps every record it was given, in the order it arrived.\n\n- Where this fits\n- Summary\n"
    assert len(prose_sentences(same + other)) == 4  # the contents' entries are fragments, not sentences
    assert template_share({"ch01": same + other}) == (3, 4)


def test_a_ruby_gems_parts_use_each_others_classes_inside_the_gems_module(tmp_path: Path):
    from orchestrator.authoring.parts import architecture_diagram

    files = {
        "faradayy.gemspec": "Gem::Specification.new do |s|\n  s.name = 'faradayy'\nend\n",
        "lib/faradayy.rb": "module Faradayy\n  class << self\n    def new(url)\n      Connection.new(url)\n    end\n  end\nend\n",
        "lib/faradayy/connection.rb": "module Faradayy\n  class Connection\n    def initialize(url)\n"
                                      "      @builder = RackBuilder.new\n    end\n  end\nend\n",
        "lib/faradayy/rack_builder.rb": "module Faradayy\n  class RackBuilder\n    def build\n      1\n    end\n  end\nend\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    p = project_mod.load(tmp_path / "lib")
    chapters = [{"title": "faradayy at a glance", "sources": ["faradayy.rb"]},
                {"title": "Making a connection", "sources": ["faradayy/connection.rb"]},
                {"title": "The middleware stack", "sources": ["faradayy/rack_builder.rb"]}]
    # every class lives in `module Faradayy`: the files still use each other's classes by name
    block = architecture_diagram(p, chapters)
    assert "-->|Connection|" in block and "-->|RackBuilder|" in block, block


def test_a_java_packages_doc_is_its_files_module_doc_and_a_title(tmp_path: Path):
    from orchestrator.authoring.ideas import module_doc_title

    pkg = tmp_path / "src" / "retro" / "http"
    pkg.mkdir(parents=True)
    (pkg / "package-info.java").write_text("// Copyright 2014 Square, Inc.\n\n"
                                           "/** Annotations for interface methods to control the HTTP request behavior. */\n"
                                           "package retro.http;\n")
    (pkg / "GET.java").write_text("/*\n * Licensed under the Apache License.\n */\npackage retro.http;\n\n"
                                  "/** Make a GET request. */\npublic @interface GET {\n  String value() default \"\";\n}\n")
    p = project_mod.load(tmp_path / "src")
    assert p.module_doc("retro/http/package-info.java").startswith("Annotations for interface methods")
    assert p.module_doc("retro/http/GET.java") == p.module_doc("retro/http/package-info.java")  # not the licence
    assert module_doc_title(p.module_doc("retro/http/GET.java")) == "Annotations for interface methods"


def test_a_flow_title_of_a_plural_type_agrees(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_title

    (tmp_path / "kit").mkdir()
    (tmp_path / "kit" / "stubs.py").write_text("class Stubs:\n    def verify_stubbed_calls(self):\n        return 1\n\n\n"
                                              "class Connection:\n    def build_request(self):\n        return 2\n")
    p = project_mod.load(tmp_path / "kit")
    by = {s.dotted: s for s in p.symbols()}
    assert flow_title(by["Stubs.verify_stubbed_calls"]) == "How the stubs verify the stubbed calls"
    assert flow_title(by["Connection.build_request"]) == "How a connection builds its request"
    from orchestrator.authoring.ideas import _verbs_title

    (tmp_path / "kit" / "options.py").write_text("class Options:\n    def fetch(self, key):\n        return key\n\n"
                                                "    def merge(self, other):\n        return other\n")
    p = project_mod.load(tmp_path / "kit")
    opts = next(s for s in p.symbols() if s.dotted == "Options")
    assert _verbs_title(p, ["options.py"], opts, "kit") == "How the options fetch and merge"


def test_a_noun_title_cut_before_its_clause_drops_a_dangling_participle():
    from orchestrator.authoring.ideas import doc_noun_title
    from orchestrator.authoring.project import Sym
    from orchestrator.repo.parse import Definition

    d = Definition(kind="struct", name="StringRecord", qualified_name="StringRecord", signature="pub struct StringRecord",
                   doc="A single CSV record stored as valid UTF-8 bytes.", start_line=1, end_line=2, exported=True)
    assert doc_noun_title(Sym("src/string_record.rs", d, 0.0, "rust")) == "Single CSV record"
    # (and before its examples: colored's "A combinatorial style such as bold, italics, dimmed, etc.")
    d = Definition(kind="struct", name="Style", qualified_name="Style", signature="pub struct Style",
                   doc="A combinatorial style such as bold, italics, dimmed, etc.", start_line=1, end_line=2, exported=True)
    assert doc_noun_title(Sym("src/style.rs", d, 0.0, "rust")) == "Combinatorial style"


def test_chapter_one_must_follow_the_main_path_whoever_writes_it():
    from orchestrator.checks import check_structure

    path = ("Schema.dump", "Schema._serialize", "Field.serialize", "Field._serialize")
    body = "\n\n".join(["# shapely at a glance", "Intro words here. " * 40, "## A first example",
                        "```python\nschema.dump(album)\n```", "## Following one call", "{walk}", "## Summary", "Done. " * 30])
    walk = "1. `Schema.dump` calls `Schema._serialize`.\n2. `Schema._serialize` calls `Field.serialize`."
    found = [f for f in check_structure(body.format(walk=walk), first=True, path=path) if f.check == "r3.overview"]
    assert found == []
    found = [f for f in check_structure(body.format(walk="It calls other code."), first=True, path=path)
             if f.check == "r3.overview"]
    assert found and found[0].severity == "major" and "`Schema.dump` → `Schema._serialize`" in found[0].message
    # not chapter 1, or no path the map could trace: nothing asked
    assert not [f for f in check_structure(body.format(walk="x"), first=False, path=path) if f.check == "r3.overview"]
    assert not [f for f in check_structure(body.format(walk="x"), first=True, path=("main",)) if f.check == "r3.overview"]


def test_a_usage_sentence_never_says_a_name_is_called():
    # the name quoted in use may be a type (`[]*ProxyTarget{…}`): R1 rejects "calls `ProxyTarget`"
    from orchestrator.authoring.variety import VARY_EN as VARIANTS

    for key in ("usage_same_test", "usage_intro_more", "usage_after", "usage_in_test"):
        for text in VARIANTS.get(key, []):
            assert "calls `{name}`" not in text, (key, text)


def test_a_parameter_description_is_given_once_in_a_chapter(tmp_path: Path):
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.write import _params_block
    from orchestrator.text import docstrings

    (tmp_path / "kit").mkdir()
    doc = '"""Run a query.\n\n    :param cnn: The connection to query on.\n    :param sql: The SQL to run.\n    """'
    (tmp_path / "kit" / "mapper.py").write_text(f"def query(cnn, sql):\n    {doc}\n    return 1\n\n\n"
                                              f"def query_first(cnn, sql, n):\n    {doc[:-8]}:param n: How many.\n    \"\"\"\n"
                                              "    return 2\n")
    p = project_mod.load(tmp_path / "kit")
    by = {s.dotted: s for s in p.symbols()}
    t, given = phrases("en"), {}
    first = "\n".join(_params_block(by["query"], docstrings.parse(by["query"].d.doc, "python"), t, given))
    second = "\n".join(_params_block(by["query_first"], docstrings.parse(by["query_first"].d.doc, "python"), t, given))
    assert "The connection to query on." in first and "The connection to query on." not in second
    assert "How many." in second and "`query`" in second.split("**Parameters**", 1)[1]  # (said one of its ways)


def test_a_package_doc_an_earlier_chapter_quotes_does_not_open_a_later_one(tmp_path: Path):
    """commons-cli's nine chapters each opened with its package's doc: a Java file's doc is its
    package's, so every chapter of the package quoted the same paragraph."""
    import yaml

    from orchestrator.authoring.opening import opening
    from orchestrator.authoring.phrases import phrases

    pkg = tmp_path / "src" / "org" / "cli"
    pkg.mkdir(parents=True)
    (pkg / "package-info.java").write_text("/** Commons CLI provides a simple API for command lines. */\npackage org.cli;\n")
    for name in ("Parser", "Option", "HelpFormatter"):
        (pkg / f"{name}.java").write_text(f"package org.cli;\n\npublic class {name} {{\n  public int size() {{ return 1; }}\n}}\n")
    p = project_mod.load(tmp_path / "src")
    chapters = [{"id": f"ch0{k}", "title": t, "sources": [f"org/cli/{n}.java"]}
                for k, (t, n) in enumerate([("Parsing", "Parser"), ("Options", "Option"), ("Help", "HelpFormatter")], 1)]
    t = phrases("en")

    def opens(k: int) -> str:
        ctx = {"chapter": {"id": f"ch0{k}"}, "outline_yaml": yaml.safe_dump({"chapters": chapters}),
               "book": {"audience": "developers", "language": "en"}}
        files = chapters[k - 1]["sources"]
        key = [s for s in p.symbols() if s.rel in files]
        return "\n".join(opening(ctx, p, files, key, t, lambda xs, _t: ", ".join(xs)))

    assert "simple API for command lines" in opens(1)
    assert "simple API for command lines" not in opens(2) and "simple API for command lines" not in opens(3)


def test_a_yard_tool_tag_is_no_prose_and_a_prefixed_summary_is_the_summary():
    from orchestrator.text import docstrings

    d = docstrings.parse("@liquid_public_docs\n@liquid_type object\n@liquid_summary\n  Provides access to variables.\n"
                         "@liquid_description\n  The `self` object resolves variables.", "ruby")
    assert d.summary == "Provides access to variables."
    assert [b.kind for b in d.blocks] == ["p", "p"] and "liquid" not in " ".join(b.text for b in d.blocks)


def test_a_single_call_in_this_chapter_and_a_lone_definition_are_said_several_ways():
    from orchestrator.authoring.variety import VARY_EN

    assert len(set(VARY_EN["calls_local1"])) >= 6 and len(set(VARY_EN["beside_line"])) >= 6
    assert all("{summary}" in f for f in VARY_EN["beside_line"])


def test_a_verb_and_a_preposition_make_no_flow_title(tmp_path: Path):
    from orchestrator.authoring.ideas import flow_title

    (tmp_path / "flags").mkdir()
    (tmp_path / "flags" / "csv.go").write_text("package flags\n\nfunc readAsCSV(val string) ([]string, error) {\n"
                                               "\treturn nil, nil\n}\n\nfunc ReadConfigFile(path string) error {\n\treturn nil\n}\n")
    p = project_mod.load(tmp_path / "flags")
    by = {s.dotted: s for s in p.symbols()}
    assert flow_title(by["readAsCSV"]) == ""  # (pflag's chapter was "Reading an as CSV")
    assert flow_title(by["ReadConfigFile"]) == "Reading a config file"
