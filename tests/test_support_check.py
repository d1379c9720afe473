"""A support check that means something (issue 34): a citation holds its sentence only when the
cited lines show it. Statements falsified by hand in a finished chapter (a wrong callee, a moved
range, a name defined nowhere, a wrong file, a whole class cited for one method) are each flagged
at their line, by R1 and by `book scan`'s figures alike."""

from __future__ import annotations

from pathlib import Path

from orchestrator.checks.citations import check_citations
from orchestrator.evidence import claims as cm
from orchestrator.evidence.quality import Quality, _citations
from orchestrator.evidence.resolve import SourceFiles
from orchestrator.evidence.revision import Revision

STORE = "class Store:\n    \"\"\"Keys to values.\"\"\"\n\n" + "".join(
    f"    def op{k}(self, key):\n        return self.data.get(key)\n\n" for k in range(60)) + \
    "    def get(self, key):\n        # see put() for writes\n        return self.load(key)\n\n" \
    "    def load(self, key):\n        return self.data[key]\n\n    def put(self, key, value):\n" \
    "        self.data[key] = value\n"
OTHER = "def helper():\n    return 1\n"


def _src(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "store.py").write_text(STORE)
    (src / "other.py").write_text(OTHER)
    lines = STORE.split("\n")
    at = {name: next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith(f"def {name}(")) for name in
          ("get", "load", "put")}
    return src, at


def _chapter(at: dict[str, int], *, callee: str = "Store.load", get_at: tuple[int, int] | None = None,
             name: str = "Store.put", path: str = "store.py", whole: bool = False) -> str:
    g = get_at or (at["get"], at["get"] + 2)
    whole_range = f"1-{at['put'] + 1}" if whole else f"{at['get']}-{at['get'] + 2}"
    a, b = whole_range.split("-")
    return ("# Store\n\n## `Store`\n\n"
            f"`Store.get` calls `{callee}` ([store.py:{g[0]}-{g[1]}](source:store.py#L{g[0]}-L{g[1]})).\n\n"
            f"`{name}` writes a value ([{path}:{at['put']}-{at['put'] + 1}](source:{path}#L{at['put']}-L{at['put'] + 1})).\n\n"
            f"`Store.get` reads a key ([store.py:{a}-{b}](source:store.py#L{a}-L{b})).\n")


def _flagged(md: str, src: Path) -> dict[int, str]:
    return {f.line: f.message for f in check_citations(md, src)}


def test_the_true_chapter_holds_and_each_falsified_statement_is_flagged_at_its_line(tmp_path: Path):
    src, at = _src(tmp_path)
    assert _flagged(_chapter(at), src) == {}
    # a wrong callee: `put` is named in the cited lines (a comment) but not called there
    assert list(_flagged(_chapter(at, callee="Store.put"), src)) == [5]
    assert "no call to `put`" in _flagged(_chapter(at, callee="Store.put"), src)[5]
    # a moved range: the lines no longer hold what the sentence names
    assert list(_flagged(_chapter(at, get_at=(at["load"], at["load"] + 1)), src)) == [5]
    # a name defined nowhere
    assert list(_flagged(_chapter(at, name="Store.frobnicate"), src)) == [7]
    # a wrong file
    assert list(_flagged(_chapter(at, path="other.py"), src)) == [7]
    # the whole class cited for one method
    msg = _flagged(_chapter(at, whole=True), src)
    assert list(msg) == [9] and "cite its own lines" in msg[9]


def test_book_scans_figures_and_the_claims_health_use_the_same_test(tmp_path: Path):
    src, at = _src(tmp_path)
    files = SourceFiles(src)
    for md, ok in ((_chapter(at), 3), (_chapter(at, callee="Store.put"), 2), (_chapter(at, whole=True), 2)):
        q = Quality(chapters=1)
        _citations("ch01", md, files, q)
        assert q.citations_resolving == ok
        doc = cm.build("ch01", md, src, Revision("tree", "tree:x"), files)
        assert cm.summary(cm.health(doc, src, files))["supported"] == ok


def test_a_long_definition_in_any_language_backs_the_sentence_about_it(tmp_path: Path):
    """A span over the limit passes when it is the definition the sentence names, however the
    language writes it: a TS method with a result type, Scala's `private[pkg] def x[C](`, a Java
    method, CommonJS's `const proto = module.exports = {`; and a whole function for "`f` uses `A`"
    (its body is what the claim is about). A class cited for one of its methods still fails."""
    from orchestrator.evidence.cite import Citation
    from orchestrator.evidence.resolve import claim_problem

    body = "".join(f"    step{k}();\n" for k in range(130))
    src = tmp_path / "src"
    src.mkdir()
    files = {
        "Ky.ts": "export class Ky {\n\tstatic create(input: Input, options: Options): ResponsePromise {\n" + body + "\t}\n}\n",
        "ORunner.scala": "private[scopt] object ORunner {\n  private[scopt] def renderUsage[C](\n      mode: Mode): String = {\n"
                         + body + "  }\n}\n",
        "Utils.java": "class Utils {\n  public static Date parse(String date, ParsePosition pos) throws ParseException {\n"
                      + body + "  }\n}\n",
        "context.js": "const proto = module.exports = {\n" + body + "};\n",
        "expand.rs": "fn impl_enum(input: Enum) -> TokenStream {\n    let d = Display::fmt();\n" + body + "}\n",
        "store.py": "class Store:\n    def get(self):\n" + body.replace("    ", "        ") + "    def put(self):\n        pass\n",
        "cli.py": "@click.command()\n" + "".join(f"@click.option(\n    '--o{k}',\n)\n" for k in range(40))
                  + "def main(url):\n    sys.exit(0)\n",
    }
    for name, text in files.items():
        (src / name).write_text(text)
    sf = SourceFiles(src)

    def problem(path: str, first: int, names: list[str]) -> str | None:
        last = len(files[path].split("\n")) - 1
        c = Citation(label=path, path=path, first=first, last=last, line=1)
        return claim_problem(names, [], [c], sf)

    assert problem("Ky.ts", 2, ["Ky.create"]) is None
    assert problem("ORunner.scala", 2, ["renderUsage"]) is None
    assert problem("Utils.java", 2, ["Utils.parse"]) is None
    assert problem("context.js", 1, ["proto"]) is None
    assert problem("expand.rs", 1, ["Display"]) is None  # "`impl_enum` uses `Display`": the whole body
    assert problem("cli.py", 1, ["sys.exit"]) is None  # a definition opened by its 120 lines of decorators
    assert "defined at line" in (problem("store.py", 1, ["Store.put"]) or "")  # the class for one method


def test_a_callee_s_own_head_is_no_call_of_it(tmp_path: Path):
    """`get` calls `request` cited at the caller's docstring and the callee's head: the `def
    request(` line once passed for the call (httpx's "line 190" was a docstring line)."""
    from orchestrator.evidence.cite import Citation
    from orchestrator.evidence.resolve import claim_problem

    src = tmp_path / "src"
    src.mkdir()
    (src / "api.py").write_text('def get(url):\n    """Send a GET request."""\n    return request("GET", url)\n\n\n'
                                "def request(method, url):\n    return method, url\n")
    sf = SourceFiles(src)
    head = Citation(9, "api.py", 6, 6, "api.py:6")
    calls = [("get", "request")]
    assert "make no call to `request`" in claim_problem(["get"], calls, [Citation(9, "api.py", 1, 2, "api.py:1-2"), head], sf)
    assert claim_problem(["get"], calls, [Citation(9, "api.py", 1, 3, "api.py:1-3"), head], sf) is None


def test_ruby_calls_a_method_without_parentheses(tmp_path: Path):
    """faraday's `URI(url)` calls `default_uri_parser.call(url)`: a Ruby call R1 must see, as the traced
    path does; the same name assigned to, in a string or in a Python file is no call."""
    from orchestrator.evidence.cite import Citation
    from orchestrator.evidence.resolve import claim_problem

    src = tmp_path / "src"
    src.mkdir()
    (src / "utils.rb").write_text("def URI(url)\n  default_uri_parser.call(url)\nend\n\ndef default_uri_parser\n"
                                  "  @parser ||= Kernel.method(:URI)\nend\n\ndef other\n  default_uri_parser = 1\n"
                                  "  'default_uri_parser'\nend\n")
    (src / "utils.py").write_text("def uri(url):\n    return default_uri_parser\n")
    sf = SourceFiles(src)
    calls = [("URI", "default_uri_parser")]
    assert claim_problem(["URI"], calls, [Citation(9, "utils.rb", 1, 2, "utils.rb:1-2")], sf) is None
    assert "make no call" in claim_problem(["other"], [("other", "default_uri_parser")],
                                           [Citation(9, "utils.rb", 9, 12, "utils.rb:9-12")], sf)
    assert "make no call" in claim_problem(["uri"], [("uri", "default_uri_parser")],
                                           [Citation(9, "utils.py", 1, 2, "utils.py:1-2")], sf)
