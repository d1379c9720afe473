"""Evidence at the unit that shows the claim (issue 34): a citation points at the method, not its
class; a sentence about two names at the smallest definition holding both; a long class by its
header and fields."""

from __future__ import annotations

from pathlib import Path

from orchestrator.evidence.annotate import MAX_SPAN, Citer, Def, cite


def _big_class(tmp_path: Path) -> tuple[Path, list[Def]]:
    body = ["class App:", '    """The central object."""', "", "    debug = False", ""]
    defs = []
    for k in range(30):
        first = len(body) + 1
        callee = f"step{k + 1}" if k < 29 else "finish"
        body += [f"    def step{k}(self):", f"        x = {k}", f"        return self.{callee}()", ""]
        defs.append(Def(f"App.step{k}", "app.py", first, first + 2))
    body += ["    def finish(self):", "        return None", ""]
    defs.append(Def("App.finish", "app.py", len(body) - 2, len(body) - 1))
    (tmp_path / "app.py").write_text("\n".join(body) + "\n", encoding="utf-8")
    return tmp_path, [Def("App", "app.py", 1, len(body) - 1)] + defs


def test_a_method_is_cited_by_its_own_lines_and_a_class_by_its_header(tmp_path: Path):
    root, defs = _big_class(tmp_path)
    c = Citer(root, defs)
    app = defs[0]
    assert app.last - app.first + 1 > MAX_SPAN
    [one] = c.back(["App.step3"], app)
    assert (one.first, one.last) == (defs[4].first, defs[4].last)
    [both] = c.back(["App.step3", "step4"], app)  # "`App.step3` calls `step4`": the caller's lines
    assert (both.first, both.last) == (defs[4].first, defs[4].last)
    [head] = c.back(["App"], app)
    assert head.first == 1 and head.last <= 4  # the header, doc and fields, not 120 lines of methods


def test_the_offline_writers_paragraph_cites_the_method_in_a_section_about_the_class(tmp_path: Path):
    root, defs = _big_class(tmp_path)
    md = "# App\n\n## `App`\n\nThe `finish` method ends the chain.\n"
    out = cite(md, Citer(root, defs))
    fin = defs[-1]
    assert f"source:app.py#L{fin.first}-L{fin.last}" in out


def test_a_rust_module_declaration_and_an_examples_namesake_are_not_the_function(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("mod serve;\npub use serve::serve;\n")
    (tmp_path / "src" / "serve.rs").write_text("/// Serve the app.\npub fn serve(app: App) {\n    run(app)\n}\n")
    (tmp_path / "ex.rs").write_text("fn serve() {}\n")
    defs = [Def("serve", "src/lib.rs", 1, 1), Def("serve", "src/serve.rs", 2, 4), Def("serve", "ex.rs", 1, 1, code=False)]
    c = Citer(tmp_path, defs)
    [d] = c.back(["serve"], None)
    assert d.path == "src/serve.rs" and d.last == 4


def test_a_table_row_naming_a_file_and_line_cites_the_definition_there(tmp_path: Path):
    # koa: request.js and response.js both define `header`, request.js a getter and a setter of `method`;
    # the reference row "| `header` | method | `lib/request.js`:2 |" cited response.js's before
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "request.js").write_text("module.exports = {\n  get header () {\n    return this.req.headers\n"
                                                 "  },\n  set method (val) {\n    this.req.method = val\n  },\n"
                                                 "  get method () {\n    return this.req.method\n  }\n}\n")
    (tmp_path / "lib" / "response.js").write_text("module.exports = {\n  get header () {\n    return 1\n  }\n}\n")
    defs = [Def("header", "lib/response.js", 2, 4), Def("header", "lib/request.js", 2, 4),
            Def("method", "lib/request.js", 5, 7), Def("method", "lib/request.js", 8, 10)]
    md = ("# Request\n\n## Reference\n\n| Name | Kind | Where |\n|---|---|---|\n"
          "| `header` | method | `lib/request.js`:2 |\n| `method` | method | `lib/request.js`:8 |\n")
    out = cite(md, Citer(tmp_path, defs))
    assert "source:lib/request.js#L2-L4" in out and "response.js" not in out
    assert "source:lib/request.js#L8-L10" in out and "#L5-L7" not in out


def test_a_long_struct_with_no_nested_definition_is_cited_by_its_header_and_first_fields(tmp_path: Path):
    # cobra's `Command` struct: 207 lines of fields, cited whole 18 times
    fields = [f"\t// F{k} is field {k}.\n\tF{k} string\n" + ("\n" if k % 3 == 2 else "") for k in range(60)]
    (tmp_path / "command.go").write_text("package cobra\n\n// Command is a command.\ntype Command struct {\n"
                                         + "".join(fields) + "}\n")
    n = len((tmp_path / "command.go").read_text().split("\n")) - 1
    c = Citer(tmp_path, [Def("Command", "command.go", 4, n)])
    [one] = c.back(["Command"], None)
    assert one.first in (3, 4) and one.last - one.first + 1 <= 12


def test_a_test_named_after_its_example_is_cited_in_the_examples_file(tmp_path: Path):
    # httpx: "… `Client.send`, in `tests/client/test_client.py` from line 4:" then "The test here is
    # `test_build_request`." cited tests/client/test_async_client.py's namesake
    (tmp_path / "tests").mkdir()
    for name in ("test_async_client.py", "test_client.py"):
        (tmp_path / "tests" / name).write_text("import httpx\n\n\ndef test_build_request():\n"
                                               "    client.send(request)\n")
    defs = [Def("test_build_request", "tests/test_async_client.py", 4, 5),
            Def("test_build_request", "tests/test_client.py", 4, 5)]
    md = ("# Client\n\n## In use\n\nAnd `Client.send`, in `tests/test_client.py` from line 5:\n\n"
          "```python file=tests/test_client.py lines=5-5\nclient.send(request)\n```\n\n"
          "The test here is `test_build_request`.\n")
    out = cite(md, Citer(tmp_path, defs))
    assert "source:tests/test_client.py#L4-L5" in out and "test_async_client" not in out


def test_a_call_far_into_a_long_function_is_cited_at_its_head_and_the_call_line(tmp_path: Path):
    """"`TestGroups` calls `mark` as well": the 150-line test is cited by its head, which no longer
    shows the call, so the sentence also cites the line of the call (cobra's ch03 was blocked)."""
    from orchestrator.evidence.cite import Citation
    from orchestrator.evidence.resolve import SourceFiles, claim_problem, sentence_calls

    body = ["def test_groups():", "    c = make()", ""] + [f"    c.flag{k}()" for k in range(150)] + ["    mark(c)", ""]
    body += ["def mark(c):", "    return c"]
    (tmp_path / "t.py").write_text("\n".join(body) + "\n")
    defs = [Def("test_groups", "t.py", 1, 154), Def("mark", "t.py", 156, 157)]
    got = Citer(tmp_path, defs).back(["test_groups", "mark"], None)
    assert got is not None and [(d.first, d.last) for d in got] == [(1, 2), (154, 154)]
    cites = [Citation(1, "t.py", d.first, d.last, "t.py") for d in got]
    text = "`test_groups` calls `mark` as well."
    assert claim_problem(["test_groups", "mark"], sentence_calls(text), cites, SourceFiles(tmp_path)) is None


def test_a_rows_name_is_cited_at_the_definition_of_that_very_name_in_its_file(tmp_path: Path):
    # httparty: "| `HTTParty::get` | method | `httparty.rb` |" cited `HTTParty::ClassMethods#get` of the same file
    (tmp_path / "httparty.rb").write_text("module HTTParty\n  module ClassMethods\n    def get(path)\n      run(path)\n"
                                          "    end\n  end\n\n  def self.get(*args)\n    Basement.get(*args)\n  end\nend\n")
    defs = [Def("HTTParty.ClassMethods.get", "httparty.rb", 3, 5), Def("HTTParty.get", "httparty.rb", 8, 10)]
    md = "# At a glance\n\n## Entry points\n\n| Entry point | Kind | Defined in |\n|---|---|---|\n" \
         "| `HTTParty::get` | method | `httparty.rb` |\n"
    out = cite(md, Citer(tmp_path, defs))
    assert "source:httparty.rb#L8-L10" in out and "#L3-L5" not in out


def test_a_parameter_and_a_members_place_are_cited_at_their_own_lines(tmp_path: Path):
    # sinatra: `merge!(*other_hashes)`'s parameter was cited at `merge`'s, and "IndifferentHash also has
    # merge! (lines 125–139)" at the class's first lines, which name `merge!` only in passing
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write_cites import member_cited as _member_cited, sig_cite as _sig_cite
    from orchestrator.evidence.cite import blocks
    from orchestrator.evidence.resolve import SourceFiles, claim_problem

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "hash.rb").write_text(
        "class IndifferentHash < Hash\n  def self.[](*args)\n    new.merge!(Hash[*args])\n  end\n\n"
        "  def merge!(*other_hashes)\n    other_hashes.each { |h| update(h) }\n    self\n  end\n\n"
        "  def merge(*other_hashes, &block)\n    dup.merge!(*other_hashes, &block)\n  end\nend\n")
    p = load(tmp_path)
    syms = {s.dotted: s for s in p.symbols()}
    bang, owner = syms["IndifferentHash.merge!"], syms["IndifferentHash"]
    assert _sig_cite(p, bang) == " ([lib/hash.rb:6](source:lib/hash.rb#L6-L6))"
    lead = _member_cited(p, "`IndifferentHash` also has `IndifferentHash::merge!` (`lib/hash.rb`, lines 6–9).", owner,
                         bang, 6, 9)
    [block] = [b for b in blocks("# T\n\n" + lead + "\n")]
    [sentence] = block.sentences
    assert [(c.path, c.first, c.last) for c in sentence.cites] == [("lib/hash.rb", 1, 1), ("lib/hash.rb", 6, 9)]
    assert claim_problem(sentence.names, [], sentence.cites, SourceFiles(tmp_path)) is None


def test_rubys_bang_and_question_mark_are_part_of_a_name():
    from orchestrator.evidence.cite import code_name

    assert code_name("Sinatra::IndifferentHash::merge!") == "Sinatra::IndifferentHash::merge!"
    assert code_name("key?") == "key?" and code_name("parse()") == "parse" and code_name("read()?") == "read"


def test_a_documented_parameter_is_cited_at_its_own_signature(tmp_path: Path):
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import _params_block
    from orchestrator.authoring.write_cites import sig_cite
    from orchestrator.text import docstrings

    (tmp_path / "reg.py").write_text(
        'class Registry:\n    def get(self, name):\n        """Get an item.\n\n        :param name: Its name.\n        """\n'
        "        return name\n\n    def register(self, item, name):\n"
        '        """Add an item.\n\n        :param item: The item.\n        :param name: Its name.\n        """\n'
        "        return item\n")
    p = load(tmp_path)
    s = next(x for x in p.symbols() if x.dotted == "Registry.register")
    block = "\n".join(_params_block(s, docstrings.parse(s.d.doc, "python"), phrases("en"), None, sig_cite(p, s)))
    assert "- `item`: The item (" in block and block.count("source:reg.py#L9-L9") == 2, block


def test_a_long_members_place_is_cited_by_its_head(tmp_path: Path):
    # kramdown's latex converter: "… also has `convert_table` (lines 274–520)" cited 247 lines, more than R1 checks
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write_cites import member_cited

    body = "".join(f"    x{k} = {k}\n" for k in range(60))
    (tmp_path / "conv.rb").write_text(f"class Latex\n  def convert_table(el)\n{body}  end\nend\n")
    p = load(tmp_path)
    owner = next(s for s in p.symbols() if s.dotted == "Latex")
    member = next(s for s in p.symbols() if s.dotted == "Latex.convert_table")
    lead = member_cited(p, "`Latex` also has `Latex::convert_table` (`conv.rb`, lines 2–63).", owner, member, 2, 63)
    assert lead.endswith("([conv.rb:1](source:conv.rb#L1-L1)) ([conv.rb:2-4](source:conv.rb#L2-L4)).")


def test_a_long_members_head_is_cited_past_its_attributes(tmp_path: Path):
    # Dapper's `LookupDbType` opens with three `[…]` lines: its head cited at them did not name it
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write_cites import member_cited

    body = "".join(f"            int v{k} = {k};\n" for k in range(40))
    (tmp_path / "Mapper.cs").write_text("public static class Mapper\n{\n        [Obsolete(\"x\", false)]\n        [Browsable(false)]\n"
                                        "        [EditorBrowsable(EditorBrowsableState.Never)]\n"
                                        f"        public static int Lookup(int type)\n        {{\n{body}            return type;\n        }}\n}}\n")
    p = load(tmp_path)
    owner = next(s for s in p.symbols() if s.dotted == "Mapper")
    member = next(s for s in p.symbols() if s.dotted == "Mapper.Lookup")
    lead = member_cited(p, "`Mapper` also has `Mapper.Lookup`.", owner, member, member.d.start_line, member.d.end_line)
    assert "#L6-L8)" in lead, lead  # `public static int Lookup(int type)` is line 6
