"""Diagrams: the Mermaid subset read strictly, drawn as SVG at build time, made from the map
(every name checked here independently against the map's definitions and files), held to
the source by R1, and rendered by the site's Markdown renderer."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from orchestrator import checks, diagrams
from orchestrator.authoring.codeinfo import resolved_calls
from orchestrator.authoring.project import load
from orchestrator.diagrams import MermaidError, generate, parse, render_svg
from orchestrator.diagrams.mermaid import bare, is_path
from orchestrator.diagrams.svg import layers
from orchestrator.publish.highlight import formatter
from orchestrator.publish.markdown import RenderCtx, parse_chapter, render_tokens
from orchestrator.resources import builtin

EXAMPLE = builtin("example")
SVG = "{http://www.w3.org/2000/svg}"

FLOW = """flowchart LR
    n0["Store.put"] --> n1["Store._check_open"]
    n0 --> n2(["WriteAheadLog.append"])
    n2 -.-> n3{"encode"}
    n1 ==>|calls| n3
"""
SEQ = """sequenceDiagram
    participant p0 as Store
    participant p1 as minikv/wal.py
    autonumber
    p0->>p0: _check_open()
    p0->>p1: encode()
    p1-->>p0: decode()
"""
CLS = """classDiagram
    class Store {
        +put()
        +get(key) bytes
    }
    class MemTable
    Store --> MemTable
    Store *-- LRUCache : cache
    Base <|-- Store
"""


# ------------------------------------------------------------------ the parser


def test_each_kind_parses_into_nodes_edges_and_names():
    f = parse(FLOW)
    assert (f.kind, f.direction, list(f.nodes)) == ("flowchart", "LR", ["n0", "n1", "n2", "n3"])
    assert [(e.src, e.dst, e.style, e.label) for e in f.edges] == [
        ("n0", "n1", "solid", ""), ("n0", "n2", "solid", ""), ("n2", "n3", "dotted", ""), ("n1", "n3", "thick", "calls")]
    assert f.nodes["n2"].shape == "stadium" and f.nodes["n3"].shape == "rhombus"
    s = parse(SEQ)
    assert [x[2] for x in s.identifiers()] == ["Store", "minikv/wal.py", "Store._check_open", "encode", "Store.decode"]
    c = parse(CLS)
    assert c.members["Store"] == ["+put()", "+get(key) bytes"]
    inherit = next(e for e in c.edges if e.arrow == "inherit")
    assert (inherit.src, inherit.dst) == ("Store", "Base")  # pointing at the parent
    assert ("member", "Store.get") in [(w, n) for _, w, n in c.identifiers()]


def test_graph_keyword_and_td_and_chains():
    d = parse("graph TD\n  a[x] --> b[y] --> c[z]; c --- a")
    assert d.direction == "TB" and [(e.src, e.dst) for e in d.edges] == [("a", "b"), ("b", "c"), ("c", "a")]


@pytest.mark.parametrize("text, line, words", [
    ("", 1, "empty"),
    ("pie\n  \"a\": 1", 1, "unsupported diagram type"),
    ("flowchart XY\n  a", 1, "direction"),
    ("flowchart LR\n  a[foo()] --> b", 2, "quote it"),
    ("flowchart LR\n  a --> ", 2, "node id is expected"),
    ("flowchart LR\n  a -> b", 2, "a link"),
    ("flowchart LR\n  a[\"never closed] --> b", 2, "never closed"),
    ("flowchart LR\n  subgraph s\n  a\n  end", 2, "not in the subset"),
    ("flowchart LR\n  style a fill:#f9f", 2, "not in the subset"),
    ("flowchart LR\n  a[\"x#y\"]", 2, "markup"),
    ("sequenceDiagram\n  Note over a: hi", 2, "not in the subset"),
    ("sequenceDiagram\n  a->>b", 2, "not a participant or a message"),
    ("sequenceDiagram\n  a->>b: x;y", 2, "has `;`"),
    ("sequenceDiagram\n  activate a", 2, "no participant yet"),
    ("classDiagram\n  class A {\n  +x()", 2, "never closed"),
    ("classDiagram\n  class A~T~", 2, "no generics"),
    ("classDiagram\n  A <|-- B\n  note for A \"x\"", 3, "not in the subset"),
    ("classDiagram\n  class A {\n  +x(){}\n  }", 3, "not a member"),
    ("---\ntitle: x\n---\nflowchart LR\n a", 1, "front matter"),
])
def test_what_would_not_render_is_refused_with_its_line(text, line, words):
    with pytest.raises(MermaidError) as e:
        parse(text)
    assert e.value.line == line and words in e.value.message, e.value


def test_too_many_nodes_is_refused():
    text = "flowchart LR\n" + "\n".join(f"  a{i} --> a{i + 1}" for i in range(70))
    with pytest.raises(MermaidError, match="split the diagram"):
        parse(text)


def test_names_are_bare_and_paths_are_told_apart():
    assert bare("Flask.wsgi_app()") == "Flask.wsgi_app" and bare("fmt::format(args)") == "fmt.format"
    assert is_path("minikv/store.py") and is_path("store.go") and not is_path("Store.put")


# ------------------------------------------------------------------ the SVG


@pytest.mark.parametrize("source", [FLOW, SEQ, CLS, FLOW.replace("LR", "BT"), "graph RL\n a --> a"])
def test_svg_is_wellformed_deterministic_and_shows_every_label(source):
    svg = render_svg(source)
    assert svg == render_svg(source)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and float(root.get("width")) > 0 and float(root.get("height")) > 0
    texts = [t.text for t in root.iter(f"{SVG}text")]
    d = parse(source)
    for n in d.nodes.values():
        assert n.label in texts
    for e in d.edges:
        assert not e.label or e.label in texts
    # every marker an edge points at is defined in the same SVG
    ids = {m.get("id") for m in root.iter(f"{SVG}marker")}
    used = set(re.findall(r'marker-end="url\(#([^)]+)\)"', svg))
    assert used <= ids
    assert root.find(f"{SVG}desc").text == source.strip()  # the source is the image's text alternative


def test_layers_follow_the_edges_and_survive_cycles():
    rows = layers(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("a", "d"), ("c", "a")])
    assert rows[0] == ["a"] and "b" in rows[1] and "c" in rows[2]
    svg = ET.fromstring(render_svg("flowchart TB\n a --> b\n b --> c"))
    ys = [float(t.get("y")) for t in svg.iter(f"{SVG}text")]
    assert ys == sorted(ys) and len(set(ys)) == 3  # top to bottom, one layer each


def test_ids_inside_the_svg_take_the_prefix_given():
    svg = render_svg(FLOW, uid="ch02--diagram-3")
    assert 'id="ch02--diagram-3-arrow"' in svg and "url(#ch02--diagram-3-arrow)" in svg


# ------------------------------------------------------------------ made from the map


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    src = tmp_path_factory.mktemp("src") / "example"
    shutil.copytree(EXAMPLE, src)
    return load(src)


def _blocks(lines: list[str]) -> list[str]:
    text = "\n".join(lines)
    return re.findall(r"```mermaid\n(.*?)```", text, re.S)


def independent_problems(p, source: str) -> list[str]:
    """Every name of a diagram against the map itself (not R1's index): a node is a file of
    the map or a definition's qualified (or bare) name; a class member is a method of that
    class; a message is a definition named so; and a call edge is a call that the caller's
    body really writes."""
    files = set(p.map.files)
    # qualified names and their dotted suffixes: a nested `Outer.Node.get` is drawn as class `Node`, member `get`
    dotted = {".".join(q[k:]): (rel, d) for rel, fm in p.map.files.items() for d in fm.definitions
              for q in [d.qualified_name.replace("::", ".").split(".")] for k in range(len(q))}
    short = {d.name for fm in p.map.files.values() for d in fm.definitions}
    d = parse(source)
    out = []
    for _, what, name in d.identifiers():
        if is_path(name) and (name in files or any(f.startswith(name.rstrip("/") + "/") for f in files)):
            ok = True
        elif is_path(name) and "/" in name:
            ok = False
        elif what in ("member", "message") and "." in name:
            ok = name in dotted
        else:
            ok = name in dotted or name in short
        if not ok:
            out.append(f"{what} {name}")
    if d.kind == "flowchart" and not all(is_path(n.label) for n in d.nodes.values()):
        for e in d.edges:  # a call flow: the caller's body calls the callee by its name
            rel, caller = dotted[d.nodes[e.src].label]
            body = "\n".join(p.lines_of(rel)[caller.start_line - 1:caller.end_line])
            callee = d.nodes[e.dst].label.rsplit(".", 1)[-1]
            if not re.search(rf"\b{re.escape(callee)}\s*\(", body):
                out.append(f"edge {d.nodes[e.src].label} -> {d.nodes[e.dst].label}")
    return out


def test_chapters_of_the_example_get_diagrams_whose_names_are_all_in_the_map(project):
    with_one, total = 0, 0
    for rel in project.code_files():
        lines = diagrams.for_chapter(project, [rel], [], resolved_calls)
        blocks = _blocks(lines)
        with_one += bool(blocks)
        for b in blocks:
            total += 1
            assert independent_problems(project, b) == [], (rel, b)
    assert with_one * 2 >= len(project.code_files()) and total >= with_one


def test_the_overview_draws_the_parts_and_the_path_from_the_entry_point(project):
    lines = diagrams.for_overview(project, resolved_calls)
    blocks = _blocks(lines)
    kinds = [parse(b).kind for b in blocks]
    assert kinds == ["flowchart", "sequence"]
    assert "minikv/cli.py" in blocks[1]  # the path starts where a user stands: the command line
    for b in blocks:
        assert independent_problems(project, b) == []


def test_a_class_diagram_draws_bases_uses_in_code_and_properties(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "shapes.py").write_text(
        'class Base:\n    """Not a Helper: a name in a docstring is no use."""\n\n    def run(self):\n        return 1\n\n'
        '    def stop(self):\n        return 2  # Helper is not used here either\n\n\n'
        'class Helper:\n    def help(self):\n        return "Base"\n\n    def more(self):\n        return 3\n\n\n'
        'class Child(Base):\n    @property\n    def size(self):\n        return Helper().help()\n\n'
        '    def grow(self):\n        return self.size\n', encoding="utf-8")
    p = load(tmp_path)
    text = generate.class_diagram(p, ["pkg/shapes.py"], [])
    assert text is not None
    d = parse(text)
    rels = {(e.src, e.arrow, e.dst) for e in d.edges}
    assert ("Child", "inherit", "Base") in rels and ("Child", "assoc", "Helper") in rels
    assert not {("Base", "assoc", "Helper"), ("Helper", "assoc", "Base")} & rels
    assert "+size" in d.members["Child"] and "+grow()" in d.members["Child"]
    assert independent_problems(p, text) == []


def test_a_chinese_book_gets_chinese_captions_and_the_same_diagrams(project):
    en = diagrams.for_chapter(project, ["minikv/store.py"], [], resolved_calls)
    zh = diagrams.for_chapter(project, ["minikv/store.py"], [], resolved_calls, "zh")
    assert _blocks(en) == _blocks(zh)
    captions = [ln for ln in zh if ln.endswith("：")]
    assert captions and all(re.search(r"[\u4e00-\u9fff]", c) for c in captions)


def test_parts_are_directories_drawn_as_paths(tmp_path):
    for d, body in (("app", "from core.engine import Engine\n\n\ndef main():\n    return Engine().run()\n"),
                    ("core", "class Engine:\n    def run(self):\n        return 1\n")):
        (tmp_path / d).mkdir()
        (tmp_path / d / ("cli.py" if d == "app" else "engine.py")).write_text(body, encoding="utf-8")
    p = load(tmp_path)
    block = diagrams.parts_block(p)
    d = parse(block.split("\n", 1)[1].rsplit("```", 1)[0])
    assert sorted(n.label for n in d.nodes.values()) == ["app/", "core/"]
    assert [(d.nodes[e.src].label, d.nodes[e.dst].label) for e in d.edges] == [("app/", "core/")]
    assert _r1(f"# T\n\n{block}\n", tmp_path) == [] and independent_problems(p, d.source) == []


def test_the_overview_draws_the_operation_the_planner_names(project):
    lines = diagrams.for_overview(project, resolved_calls, operation=project.find("Store.get"))
    assert "The path of `Store.get` through the code, call by call:" in lines
    for b in _blocks(lines):
        assert independent_problems(project, b) == []


def test_a_sequence_follows_the_calls_in_order(project):
    main = next(s for s in project.symbols(within=["minikv/cli.py"]) if s.name == "main")
    flow = generate.call_flow(project, ["minikv/cli.py"], [main], resolved_calls)
    assert flow is not None and flow[0] == "main"
    seq = parse(flow[1])
    called = [bare(e.label) for e in seq.edges]
    body = "\n".join(project.lines_of("minikv/cli.py")[main.d.start_line - 1:main.d.end_line])
    direct = [c for c in called if re.search(rf"\b{c}\(", body)]
    assert direct == sorted(direct, key=lambda c: re.search(rf"\b{c}\(", body).start())  # in the body's order


# ------------------------------------------------------------------ R1


def _r1(md: str, src: Path) -> list[str]:
    found, _ = checks.check_code(md, src)
    return [f"{f.check} {f.severity} {f.line}: {f.message}" for f in found if f.check == "r1.diagram"]


def test_r1_passes_what_the_map_drew_and_blocks_what_is_not_in_the_source(project):
    drawn = "\n".join(diagrams.for_chapter(project, ["minikv/store.py"], [], resolved_calls))
    assert "```mermaid" in drawn and _r1("# T\n\n" + drawn, project.root) == []
    bad = ("# T\n\n```mermaid\nsequenceDiagram\n    participant a as Store\n    participant b as minikv/nowhere.py\n"
           "    a->>a: teleport()\n    a->>b: encode()\n```\n\n```mermaid\nflowchart LR\n    x[\"handles the request\"]\n"
           "```\n\n```mermaid\nclassDiagram\n    class Store {\n        +vanish()\n    }\n```\n\n"
           "```mermaid\nflowchart LR\n    a[oops()] --> b\n```\n")
    found = _r1(bad, project.root)
    assert all(" blocking " in f for f in found)
    text = "\n".join(found)
    assert "`minikv/nowhere.py`, which does not exist" in text
    assert "`Store.teleport`" in text and "`Store.vanish`" in text
    assert "`handles the request`, which is not a name of the source" in text
    assert "would not render" in text and re.search(r"r1.diagram blocking 25: the diagram at line 23", text)
    assert "Store.encode" not in text  # a message to a file names the function itself: it exists
    assert len(found) == 5
    # a member named like a file (`res.json`) is a name when no such file exists
    ok = "# T\n\n```mermaid\nflowchart LR\n    a[\"Record.encoded_size\"] --> b[\"record.py\"]\n```\n"
    assert _r1(ok, project.root) == []  # record.py: the file minikv/record.py
    assert _r1(ok.replace("record.py", "Store.json"), project.root) != []


def test_a_final_with_a_broken_diagram_is_asked_again(project):
    from orchestrator.agents.validation import _final_code

    errs = _final_code("# T\n\n```mermaid\nflowchart LR\n  a --> \n```\n", {"_source_dir": project.root})
    assert errs and "would not render" in errs[0]


# ------------------------------------------------------------------ the site's renderer


def _html(md: str, mode: str = "page") -> str:
    parsed = parse_chapter(md, "T", [])
    return render_tokens(parsed, RenderCtx("ch01", mode, {"permalink": "Link"}, formatter()), "T")


def test_a_mermaid_fence_becomes_an_inline_svg_with_its_source_as_text():
    html = _html(f"# T\n\n```mermaid\n{SEQ}```\n\n```mermaid\n{FLOW}```\n")
    assert html.count('<figure class="diagram"><svg') == 2
    assert html.count('class="diagram-source"') == 2 and "participant p0 as Store" in html
    assert 'id="diagram-1-arrow"' in html and 'id="diagram-2-arrow"' in html  # two diagrams, no id twice
    assert 'id="ch01--diagram-1-arrow"' in _html(f"# T\n\n```mermaid\n{SEQ}```\n", "print")
    assert "<script" not in html


def test_a_fence_that_would_not_render_stays_its_source():
    html = _html("# T\n\n```mermaid\nflowchart LR\n  a[x()] --> b\n```\n")
    assert "<svg" not in html and 'class="diagram-invalid"' in html and "a[x()] --&gt; b" in html


# ------------------------------------------------------------------ the Claude path, through the fake


@pytest.mark.slow
def test_a_book_through_the_fake_api_carries_diagrams_the_validators_hold(monkeypatch, tmp_path):
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws")
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    finals = sorted((ws / "output" / "chapters" / "final").glob("ch*-final.md"))
    assert finals
    src = ws / "src"
    p = load(src)
    for f in finals:
        text = f.read_text(encoding="utf-8")
        blocks = re.findall(r"```mermaid\n(.*?)```", text, re.S)
        assert blocks, f.name
        assert _r1(text, src) == []
        for b in blocks:
            assert independent_problems(p, b) == []
    pages = (ws / "output" / "publish" / finals[0].name.replace("-final.md", ".html")).read_text(encoding="utf-8")
    assert '<figure class="diagram"><svg' in pages


@pytest.mark.slow
def test_a_models_broken_diagram_is_asked_again_and_never_published(monkeypatch, tmp_path):
    """The writer's first draft of each chapter draws prose (`handles the request`): R1 blocks
    it, the draft is rewritten with the review, and only the second, valid diagram reaches the
    final and the page."""
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.helpers import make_example, run_book
    from orchestrator.testing.role_answers import answer, role_of

    first: set[str] = set()

    def answering(request: dict) -> str:
        text = answer(request)
        if role_of(request) == "writer":
            title = text.split("\n", 1)[0]
            if title not in first:
                first.add(title)
                return re.sub(r"```mermaid\n.*?```", '```mermaid\nflowchart LR\n    a["handles the request"]\n```',
                              text, flags=re.S)
        return text

    answering.structured = True  # type: ignore[attr-defined]
    api = FakeAPI(answerer=answering)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws")
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    assert first  # the broken drafts were written, and reviewed
    out = ws / "output"
    baks = list((out / "chapters" / "draft").glob("*.bak*"))
    assert baks and all("handles the request" in b.read_text(encoding="utf-8") for b in baks)
    for f in (out / "chapters" / "final").glob("ch*-final.md"):
        assert "handles the request" not in f.read_text(encoding="utf-8")
    for page in (out / "publish").glob("*.html"):
        assert "handles the request" not in page.read_text(encoding="utf-8")


def test_a_path_through_one_files_functions_has_a_participant_each(tmp_path: Path):
    from orchestrator.authoring.mainpath import call_path

    (tmp_path / "parser.py").write_text(
        "def loads(src):\n    return key_value_rule(src)\n\n\ndef key_value_rule(src):\n    return parse_value(src)\n\n\n"
        "def parse_value(src):\n    return src.strip()\n")
    p = load(tmp_path)
    path = call_path(p, next(s for s in p.symbols() if s.name == "loads"))
    block = diagrams.path_block(path)
    seq = parse(block.split("```mermaid\n", 1)[1].split("```", 1)[0])
    # not `parser.py` calling itself twice: the functions, one after the other
    assert [n.label for n in seq.nodes.values()] == ["loads", "key_value_rule", "parse_value"], block
    assert _r1("# T\n\n" + block, tmp_path) == []
