"""Issue 23: the book's front door and story. The project around the source (its README above
`src/`, its guides, examples and tests), chapter 1 as the big picture for both providers, chapters
that walk the flow instead of one section per symbol, claims held against the map's resolved
references, and R3's checks of the shape."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from orchestrator import checks
from orchestrator.checks.grammar import fix, mistakes
from orchestrator.outline import parse as parse_outline
from orchestrator.repo.project import discover, find_root

EXAMPLE = '''from shapedemo import Store

store = Store("/tmp/data")
store.put("greeting", "hello")
print(store.get("greeting"))'''

README = f"""# shapedemo

[![build](https://example.com/badge.svg)](https://example.com)

Shapedemo is a tiny key-value store for people who want to read one end to end. It keeps
records in memory and writes them to a log.

## Usage

```sh
pip install shapedemo
```

```python
{EXAMPLE}
```
"""

STORE = '''"""The store: what a user opens, puts into and reads from."""

from .log import Log
from .index import Index


class Store:
    """A key-value store over a log and an index."""

    def __init__(self, path):
        self.log = Log(path)
        self.index = Index()

    def put(self, key, value):
        """Write `value` under `key`."""
        at = self.log.append(key, value)
        self.index.remember(key, at)
        return at

    def get(self, key):
        """The value under `key`, or None."""
        at = self.index.lookup(key)
        return None if at is None else self.log.read(at)
'''

LOG = '''"""The log: records appended to a file."""

from .codec import encode, decode


class Log:
    """An append-only list of records."""

    def __init__(self, path):
        self.path = path
        self.records = []

    def append(self, key, value):
        """Append one record; its position."""
        self.records.append(encode(key, value))
        return len(self.records) - 1

    def read(self, at):
        """The value of the record at `at`."""
        return decode(self.records[at])[1]
'''

INDEX = '''"""The index: where each key's latest record is."""


class Index:
    """Key -> position in the log."""

    def __init__(self):
        self.at = {}

    def remember(self, key, at):
        """Note that `key` is at `at`."""
        self.at[key] = at

    def lookup(self, key):
        """Where `key` is, or None."""
        return self.at.get(key)
'''

CODEC = '''"""Records as bytes."""


def encode(key, value):
    """One record as text."""
    return f"{key}={value}"


def decode(text):
    """A record's key and value."""
    key, _, value = text.partition("=")
    return key, value
'''


def _project(root: Path, extra_modules: int = 0) -> Path:
    """A project as people lay one out: README and manifest at the top, the code in src/, tests
    and a guide beside it. Returns the source folder (`src`)."""
    (root / "src" / "shapedemo").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "docs").mkdir()
    (root / "README.md").write_text(README)
    (root / "pyproject.toml").write_text('[project]\nname = "shapedemo"\nversion = "1.0"\n')
    (root / "docs" / "guide.md").write_text("# Guide\n\nOpen a store and put a value.\n")
    pkg = root / "src" / "shapedemo"
    (pkg / "__init__.py").write_text('"""shapedemo: a tiny store."""\n\nfrom .store import Store\n')
    notes = "".join(f"# note {k}: this module is kept small on purpose, so a reader sees all of it.\n" for k in range(60))
    for name, text in (("store", STORE), ("log", LOG), ("index", INDEX), ("codec", CODEC)):
        (pkg / f"{name}.py").write_text(text + "\n" + notes)  # each module the size of a chapter
    for k in range(extra_modules):  # more modules, each a chapter of its own for the fake planner
        (pkg / f"part{k:02d}.py").write_text(f'"""Part {k}."""\n\n\ndef helper{k}(x):\n    """Twice `x`."""\n'
                                             f'    return x * 2 + {k}\n')
    (root / "tests" / "test_store.py").write_text("from shapedemo import Store\n\n\ndef test_put(tmp_path):\n"
                                                  "    s = Store(str(tmp_path))\n    s.put('a', '1')\n"
                                                  "    assert s.get('a') == '1'\n")
    return root / "src"


# ---------------------------------------------------------------- the project around the source

def test_the_project_is_found_above_the_source_folder_and_read_as_evidence(tmp_path: Path):
    src = _project(tmp_path / "shapedemo-repo")
    (tmp_path / "README.md").write_text("# someone else's project\n")  # above the project: never read
    (tmp_path / "shapedemo-repo" / ".git").mkdir()
    info = discover(src)
    assert info.root == (tmp_path / "shapedemo-repo").resolve()
    assert info.name == "shapedemo" and info.readme == "README.md" and info.prefix == "src"
    assert "docs/guide.md" in info.docs and "tests/test_store.py" in info.tests
    assert info.in_source("src/shapedemo/store.py") == "shapedemo/store.py" and info.in_source("README.md") is None


def test_the_git_work_tree_bounds_the_search_and_links_out_are_not_read(tmp_path: Path):
    outer = tmp_path / "outer"
    (outer / "repo" / "lib").mkdir(parents=True)
    (outer / "README.md").write_text("# outer\n")
    (outer / "repo" / ".git").mkdir()
    (outer / "repo" / "lib" / "a.js").write_text("module.exports = 1\n")
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n")
    os.symlink(secret, outer / "repo" / "notes.md")
    info = discover(outer / "repo" / "lib")
    assert info.root == (outer / "repo").resolve()  # no README inside the work tree: its top, not `outer`
    assert info.name == "repo" and info.readme is None
    assert "notes.md" not in info.docs  # a link out of the project is never read


def test_a_module_named_after_the_repository_is_read_with_the_repositorys_readme(tmp_path: Path):
    repo = tmp_path / "clikt"
    (repo / ".git").mkdir(parents=True)
    (repo / "README.md").write_text("# clikt\n\n```kotlin\nHello().main(args)\n```\n")
    (repo / "settings.gradle.kts").write_text('rootProject.name = "clikt-root"\n')
    mod = repo / "clikt"
    (mod / "src").mkdir(parents=True)
    (mod / "README.md").write_text("# Module clikt-core\n\nThe core.\n")
    (mod / "build.gradle.kts").write_text("plugins {}\n")
    (mod / "src" / "Main.kt").write_text("fun main() {}\n")
    assert find_root(mod / "src") == repo.resolve()  # the module's README only says how to install it
    other = repo / "tools"
    (other / "src").mkdir(parents=True)
    (other / "README.md").write_text("# Release scripts\n")
    (other / "build.gradle.kts").write_text("plugins {}\n")
    assert find_root(other / "src") == other.resolve()  # another project in the same tree keeps its own


def test_a_readme_opening_with_a_section_heading_names_no_project(tmp_path: Path):
    # markdig's src/Markdig/readme.md opens "# Summary": the folder is Markdig, read with the repository's README
    repo = tmp_path / "markdig"
    (repo / ".git").mkdir(parents=True)
    (repo / "readme.md").write_text("# Markdig\n\n```csharp\nvar result = Markdown.ToHtml(text);\n```\n")
    mod = repo / "src" / "Markdig"
    mod.mkdir(parents=True)
    (mod / "readme.md").write_text("---\nuid: Markdig\n---\n\n# Summary\n\nThe top level classes.\n")
    (mod / "Markdown.cs").write_text("public static class Markdown { }\n")
    assert find_root(mod) == repo.resolve()


def test_a_generic_folder_is_never_the_books_name(tmp_path: Path):
    src = tmp_path / "mytool" / "src"
    src.mkdir(parents=True)
    (src / "main.py").write_text("def run():\n    return 1\n")
    assert find_root(src) == src.resolve()
    assert discover(src).name == "mytool"


def test_manifest_names_win_over_readme_headings(tmp_path: Path):
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.8)\nproject(FMT CXX)\n")
    (tmp_path / "README.md").write_text("<img src='x'>\n\n# Features\n")
    (tmp_path / "fmt.h").write_text("int f(void);\n")
    assert discover(tmp_path).name == "fmt"


# ---------------------------------------------------------------- the offline book's shape

def _offline_book(src: Path) -> tuple[str, dict[str, str]]:
    from orchestrator.authoring import authors as authoring
    from orchestrator.defaults import DEFAULT_TITLE
    from orchestrator.outline import parse as parse_outline

    ctx = {"source_root": str(src), "language": "en", "limits": {"max_chapters": 12, "batch_size": 3},
           "book": {"title": DEFAULT_TITLE, "audience": "new developers", "brief": "How it works."},
           "personas": ["Newcomer: new"], "memory": {"metaphors": [], "glossary": []}, "chapters": []}
    outline_md = authoring.write_outline(ctx)
    o = parse_outline(outline_md, "the plan", src)
    rows = [{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary} for c in o.chapters]
    drafts = {}
    for c in o.chapters:
        cctx = dict(ctx, chapter=c.entry(), outline_yaml=o.to_yaml(), chapters=rows)
        drafts[c.id] = authoring.write_draft(dict(cctx, research=authoring.write_research(cctx)))
    return outline_md, drafts


def _single_symbol_share(drafts: dict[str, str]) -> float:
    heads = [h for t in drafts.values() for h in re.findall(r"^## (.+)$", t, re.M)]
    return sum(1 for h in heads if re.fullmatch(r"`[^`]+`", h.strip())) / max(1, len(heads))


def test_chapter_one_is_the_big_picture_with_the_readme_example_verbatim(tmp_path: Path):
    src = _project(tmp_path / "repo")
    outline_md, drafts = _offline_book(src)
    assert "# Outline: Inside shapedemo" in outline_md  # the project's name, not `src`
    # the parts are the outline's own field: Part 1 the big picture (chapter 1), then the others
    o = parse_outline(outline_md, "the plan", src)
    assert o.parts[0].title == "The big picture" and o.parts[0].chapters == ("ch01",) and len(o.parts) >= 2
    assert "- title: The big picture\n  chapters:\n  - id: ch01" in outline_md
    assert "What a user imports" not in outline_md  # a Python `index.py` is the index, not the package's entry
    first = drafts["ch01"]
    assert first.startswith("# shapedemo at a glance")
    assert "**Part 1, The big picture**" in first and f"**Part 2, {o.parts[1].title}**" in first  # the outline's titles
    assert EXAMPLE in first  # the README's example, exactly, and not the `pip install` block
    assert "`README.md` (lines" in first and "pip install" not in first
    assert "Shapedemo is a tiny key-value store" in first  # what it is for, in its own words
    assert "`Store`" in first.split("## The architecture")[0]  # the entry point, in code
    # one call, traced through resolved calls: Store.put -> Log.append -> encode
    path = first.split("## Following one call", 1)[1].split("\n## ", 1)[0]
    assert "`Store.put` calls `Log.append`" in path and "`Log.append` calls `encode`" in path
    for ch, text in drafts.items():
        found, _ = checks.check_code(text, src)
        assert not [f for f in found if f.severity == "blocking"], (ch, found)
        r3 = checks.check_structure(text, first=ch == "ch01")
        assert not [f for f in r3 if f.check in ("r3.overview", "r3.shape", "r3.filler", "r3.grammar")], (ch, r3)
        assert "It has no doc comment" not in text
    assert _single_symbol_share(drafts) <= 0.3


def test_claims_of_the_offline_book_agree_with_the_map(tmp_path: Path):
    from orchestrator.authoring.facts import ClaimFacts
    from orchestrator.authoring.project import load

    src = _project(tmp_path / "repo")
    _, drafts = _offline_book(src)
    facts = ClaimFacts(load(src))
    for ch, text in drafts.items():
        assert checks.check_claims(text, facts) == [], ch
    assert any("| 1 file |" in t or "| 2 files |" in t for t in drafts.values())  # the table does claim counts


# ---------------------------------------------------------------- R1: claims against the map

class _Facts:
    """A map of three definitions: `Store.put` calls `Log.append`; `Log` is used by two files."""

    users_of = {"Log": ["store.py", "tests/test_log.py"], "Store.put": [], "Log.append": ["store.py"]}
    call_edges = {("Store.put", "Log.append")}

    def users(self, name):
        return self.users_of.get(name)

    def calls(self, caller, callee):
        if caller not in self.users_of or callee not in self.users_of:
            return None
        return (caller, callee) in self.call_edges

    def kind_of(self, rel):
        return "test" if rel.startswith("tests/") else "code"


def test_r1_flags_a_count_or_a_call_the_map_does_not_resolve():
    md = ("# T\n\n`Log` is one of the most used types: 16 other files write it.\n\n"
          "`Log` is used from 2 other source files.\n\n`Store.put` calls `Log.append` and `Log` calls `Store.put`.\n\n"
          "| `Log` | class | `log.py`:1 | 2 files | x |\n| `Log.append` | method | `log.py`:5 | 3 files | y |\n")
    found = checks.check_claims(md, _Facts())
    lines = sorted((f.line, f.message.split(";")[0]) for f in found)
    assert [n for n, _ in lines] == [3, 5, 7, 10], lines  # 16 > 2; 2 source files > 1; the false call; 3 != 1
    assert all(f.check == "r1.claim" and f.severity == "major" for f in found)


def test_r1_leaves_alone_what_the_map_cannot_resolve_and_a_count_must_be_the_resolved_one():
    md = "# T\n\n`Unknown` is used from 9 other files.\n\n`Log`: 2 other files use it.\n\n`x` calls `y`.\n"
    assert checks.check_claims(md, _Facts()) == []
    # a count is of resolved references (issue 34): fewer than the map's is not the map's figure either
    fewer = md.replace("`Log`: 2 other", "`Log`: 1 other")
    assert [f.line for f in checks.check_claims(fewer, _Facts())] == [5]


def test_r1_shows_at_work_only_where_the_code_writes_the_name_outside_strings():
    md = ("# T\n\nThe tests show `Request.get` at work, in `t.py` from line 1:\n\n```python file=t.py lines=1-1\n"
          "table = {'get': 'text/get'}\n```\n")
    assert [f.check for f in checks.check_claims(md, _Facts())] == ["r1.claim"]
    ok = md.replace("table = {'get': 'text/get'}", "r.get('x')")
    assert checks.check_claims(ok, _Facts()) == []


def test_r1_holds_a_call_flows_arrows_as_calls_and_leaves_other_pictures_alone():
    flow = ('# T\n\n```mermaid\nflowchart LR\n    a["Store.put"]\n    b["Log.append"]\n    c["Log"]\n'
            '    a --> b\n    b --> c\n```\n')
    found = checks.check_claims(flow, _Facts())
    assert [(f.line, f.check, f.severity) for f in found] == [(9, "r1.claim", "major")], found
    assert "`Log.append` → `Log`" in found[0].message
    labelled = flow.replace("b --> c", "b -- writes --> c")  # an arrow that says what it means is not a call
    files = flow.replace('"Log"]', '"log.py"]')  # a box that is not a definition: not a call flow
    dotted = flow.replace("b --> c", "b -.-> c")
    for md in (labelled, files, dotted):
        assert checks.check_claims(md, _Facts()) == [], md


# ---------------------------------------------------------------- R3: the shape

def test_r3_names_a_chapter_that_is_a_lookup_of_doc_comments():
    body = "Some words about the code here. " * 20
    md = "# T\n\n" + body + "\n\n" + "".join(f"## `f{k}`\n\n{body}\n\n" for k in range(5)) + "## Summary\n\nDone.\n"
    fs = checks.check_structure(md)
    assert [f.check for f in fs if f.check == "r3.shape"] == ["r3.shape"]
    told = md.replace("## `f1`", "## How a call flows").replace("## `f2`", "## Reference").replace("## `f3`", "## Why")
    assert not [f for f in checks.check_structure(told) if f.check == "r3.shape"]


def test_r3_wants_chapter_one_to_quote_an_example_and_finds_filler_and_grammar():
    body = "Some words about the code here. " * 60
    md = f"# T\n\n{body}\n\n## A\n\nIt has no doc comment, so its code is the explanation.\n\n## B\n\n`X` is a enum.\n"
    fs = checks.check_structure(md, first=True)
    assert {"r3.overview", "r3.filler", "r3.grammar"} <= {f.check for f in fs}
    assert not [f for f in checks.check_structure(md, first=False) if f.check == "r3.overview"]
    grammar = next(f for f in fs if f.check == "r3.grammar")
    assert grammar.line == 11 and "an enum" in grammar.message


def test_grammar_mends_articles_and_is_a_verb_in_prose_only():
    assert fix("It is a enum and an struct, a interface.") == "It is an enum and a struct, an interface."
    assert fix("`Store` is a represents the data.") == "`Store` represents the data."
    assert fix("Use `a enum` here:\n\n```\na enum\n```\n") == "Use `a enum` here:\n\n```\na enum\n```\n"
    assert fix("a user, a one-field struct, an hour, an HTTP call, a URL, Plan A is") == \
        "a user, a one-field struct, an hour, an HTTP call, a URL, Plan A is"
    assert mistakes("ok\n\nthis is a enum\n") == [(3, "this is a enum", "this is an enum")]


# ---------------------------------------------------------------- the Claude path, through the fake

@pytest.mark.slow
def test_a_twelve_chapter_book_through_the_fake_has_the_same_shape(tmp_path: Path, monkeypatch):
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.state.book import init_workspace
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.helpers import run_book
    from orchestrator.testing.role_answers import answer

    src = _project(tmp_path / "repo", extra_modules=10)
    ws = tmp_path / "ws"
    init_workspace(ws, source=str(src))
    cfg = (ws / "book.yaml").read_text()
    cfg = re.sub(r"(?m)^gates:.*$", 'gates: "off"', cfg)
    cfg = re.sub(r"(?m)^max_chapters:.*$", "max_chapters: 12", cfg)
    (ws / "book.yaml").write_text(cfg)
    api = FakeAPI(answerer=answer)
    url = api.start()
    try:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    outline = (ws / "output" / "memory" / "outline.md").read_text()
    assert len(re.findall(r"(?m)^ *- id: ch\d+", outline)) == 12
    assert "Part 1, The big picture: ch01" in outline
    o = parse_outline(outline, "outline.md", src)  # the planner's parts reach the outline's field
    assert [(p.title, p.chapters[0]) for p in o.parts] == [("The big picture", "ch01"), ("Using it", "ch02"),
                                                            ("Inside it", "ch05")]
    index = (ws / "output" / "publish" / "index.html").read_text()
    assert "Part 1 · The big picture" in index and "Part 3 · Inside it" in index
    final = (ws / "output" / "chapters" / "final" / "ch01-final.md").read_text()
    assert final.startswith("# shapedemo at a glance")
    assert EXAMPLE in final and "Shapedemo is a tiny key-value store" in final
    assert "`Store`" in final
    r3 = (ws / "output" / "reviews" / "ch01-r3.md").read_text()
    assert "r3.overview" not in r3


def test_a_dotnet_projects_name_is_its_package_id_and_a_tagline_is_no_name(tmp_path: Path):
    lib = tmp_path / "CsvLib"
    lib.mkdir()
    (lib / "CsvLib.csproj").write_text('<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n'
                                       "    <AssemblyName>CsvLib</AssemblyName>\n    <PackageId>CsvLibrary</PackageId>\n"
                                       "  </PropertyGroup>\n</Project>\n")
    (lib / "Reader.cs").write_text("public class Reader { }\n")
    assert discover(lib).name == "CsvLibrary"
    repo = tmp_path / "commandline"
    (repo / ".git").mkdir(parents=True)
    (repo / "README.md").write_text("# Command Line Parser Library for CLR and NetStandard\n\nParses arguments.\n")
    (repo / "src").mkdir()
    (repo / "src" / "Parser.cs").write_text("public class Parser { }\n")
    assert discover(repo / "src").name == "commandline"


def test_a_readmes_table_of_contents_is_no_part_of_what_the_project_says_it_is_for(tmp_path: Path):
    from orchestrator.authoring import project as project_mod
    from orchestrator.authoring.purpose import purpose

    (tmp_path / "README.md").write_text(
        "# Tomli\n\n> A lil' TOML parser\n\n**Table of Contents** *generated with [mdformat-toc](https://x.y/toc)*\n\n"
        "- [Intro](#intro)\n- [Usage](#usage)\n\n## Intro\n\nTomli is a Python library for parsing TOML files quickly.\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "tomli"\n')
    (tmp_path / "tomli").mkdir()
    (tmp_path / "tomli" / "__init__.py").write_text("def loads(s):\n    return {}\n")
    said = purpose(project_mod.load(tmp_path / "tomli"))
    assert said is not None and said[2] == "Tomli is a Python library for parsing TOML files quickly."


def test_what_the_project_is_for_keeps_no_link_to_another_file_of_the_repository(tmp_path: Path):
    # jwt: "See the [`MIGRATION_GUIDE.md`](./MIGRATION_GUIDE.md)" linked chapter 1 to a file the book does not
    # publish, and our own delivery check stopped it; a web link stays
    from orchestrator.authoring import project as project_mod
    from orchestrator.authoring.purpose import purpose

    (tmp_path / "README.md").write_text(
        "# jwt\n\nA [Go](https://go.dev) implementation of JSON Web Tokens, with signing and parsing of tokens. "
        "See the [`MIGRATION_GUIDE.md`](./MIGRATION_GUIDE.md) for more.\n")
    (tmp_path / "go.mod").write_text("module example.com/jwt\n\ngo 1.21\n")
    (tmp_path / "jwt.go").write_text("package jwt\n\nfunc Parse(s string) string {\n\treturn s\n}\n")
    said = purpose(project_mod.load(tmp_path))
    assert said is not None and "[Go](https://go.dev)" in said[2] and "See the `MIGRATION_GUIDE.md` for more." in said[2], said


def test_a_build_project_names_nothing_and_a_tagline_after_a_dash_follows_the_name(tmp_path: Path):
    repo = tmp_path / "dapper"
    (repo / ".git").mkdir(parents=True)
    (repo / "Build.csproj").write_text("<Project>\n  <Target Name=\"Pack\" />\n</Project>\n")
    (repo / "Readme.md").write_text("# Dapper - a simple object mapper for .Net\n\nMaps rows to objects.\n")
    (repo / "Dapper").mkdir()
    (repo / "Dapper" / "SqlMapper.cs").write_text("public static class SqlMapper { }\n")
    assert discover(repo / "Dapper").name == "Dapper"  # not "Build", the repository's build script


def test_a_call_the_map_reaches_through_an_interface_is_a_call_r1_accepts(tmp_path: Path):
    # `DB.insert` calls `storage.write` on a `Storage`, whose one implementation is `JSONStorage.write`:
    # an arrow (or a sentence) from `DB.insert` to `JSONStorage.write` says what runs
    from orchestrator.authoring.facts import ClaimFacts
    from orchestrator.authoring.handoff import next_steps
    from orchestrator.authoring.project import load

    src = tmp_path / "repo"
    (src / "db").mkdir(parents=True)
    (src / "db" / "__init__.py").write_text(
        "class Storage:\n    def write(self, data):\n        raise NotImplementedError\n\n\n"
        "class JSONStorage(Storage):\n    def write(self, data):\n        self.data = data\n        return len(data)\n\n\n"
        "class DB:\n    def insert(self, x, storage: Storage):\n        return storage.write(x)\n", encoding="utf-8")
    md = ('# T\n\n```mermaid\nflowchart LR\n    a["DB.insert"]\n    b["JSONStorage.write"]\n    a --> b\n```\n\n'
          "`DB.insert` calls `JSONStorage.write`.\n")
    p = load(src)
    assert checks.check_claims(md, ClaimFacts(p, steps=next_steps)) == []
    assert len(checks.check_claims(md, ClaimFacts(p))) == 2  # (without the hops: the arrow and the sentence)
