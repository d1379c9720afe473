"""The offline authors teach a large class through the methods its work flows through (the
`wsgi_app` → `full_dispatch_request` → `dispatch_request` path), not only through the methods
the tests call most; and a chapter's call reuses the process's map without walking the tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.authoring import project as project_mod
from orchestrator.authoring.plan import key_symbols
from orchestrator.authoring.spine import spines

APP = '''"""A tiny web framework."""


class App:
    """The application: routes, hooks and the WSGI entry."""

    def __init__(self):
        self.routes = {}
        self.hooks = []

    def __call__(self, environ, start_response):
        """The WSGI server calls the app."""
        return self.wsgi_app(environ, start_response)

    def wsgi_app(self, environ, start_response):
        """Handle one request from the server to the response."""
        try:
            response = self.full_dispatch(environ)
        except Exception as e:
            response = self.handle_error(e)
        return self.finish(response, start_response)

    def full_dispatch(self, environ):
        """Run the hooks, then the view, and make a response."""
        self.run_hooks(environ)
        rv = self.dispatch(environ)
        return self.make_response(rv)

    def dispatch(self, environ):
        """Find the view for the path and call it."""
        view = self.match(environ)
        self.log(view)
        return self.call_view(view)

    def match(self, environ):
        return self.routes.get(environ["PATH_INFO"])

    def call_view(self, view):
        return view()

    def log(self, what):
        print(what)

    def run_hooks(self, environ):
        for h in self.hooks:
            h(environ)

    def make_response(self, rv):
        """Turn a view's value into a response."""
        return rv

    def handle_error(self, e):
        return str(e)

    def finish(self, response, start_response):
        start_response("200 OK", [])
        return [response]

    def test_client(self):
        """A client for tests."""
        return object()

    def route(self, path):
        """Register a view."""
        def deco(f):
            self.routes[path] = f
            return f
        return deco
'''

TESTS = "from app import App\n\n" + "\n".join(
    f"def test_{i}():\n    app = App()\n    c = app.test_client()\n    app.route('/x')\n    app.make_response(1)\n"
    for i in range(8))


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text(APP)
    (root / "tests" / "test_app.py").write_text(TESTS)
    return root


def test_the_spine_is_the_path_a_request_takes(src: Path):
    p = project_mod.load(src)
    spine = [s.short for s in spines(p, "app.py")["App"]]
    assert spine[:3] == ["wsgi_app", "full_dispatch", "dispatch"]  # in the order a call takes them
    assert "__call__" not in spine  # a one-line delegation is not a step


def test_a_large_class_is_taught_through_its_spine(src: Path):
    p = project_mod.load(src)
    names = [s.short for s in key_symbols(p, ["app.py"], 6)]
    assert len(names) == 6 and "App" in names
    assert {"wsgi_app", "full_dispatch", "dispatch"} <= set(names), names
    # the most used methods are still there beside it
    assert "test_client" in names or "make_response" in names, names


def test_a_chapters_call_reuses_the_map_without_a_walk(src: Path, monkeypatch):
    from orchestrator.repo import walk as walk_mod

    first = project_mod.load(src)
    calls = []
    real = walk_mod.walk
    monkeypatch.setattr(walk_mod, "walk", lambda *a, **k: calls.append(1) or real(*a, **k))
    ctx = {"source_root": str(src), "chapter": {"id": "ch01", "sources": ["app.py"]}}
    assert project_mod.from_context(ctx) is first and calls == []
    # the chapter's file changed: the tree is walked and mapped again
    (src / "app.py").write_text(APP + "\n\ndef extra():\n    return 1\n")
    again = project_mod.from_context(ctx)
    assert calls and again is not first
    assert any(s.short == "extra" for s in again.symbols(within=["app.py"]))
    # a call without sources (the planner) always walks
    n = len(calls)
    project_mod.load(src)
    assert len(calls) == n + 1


SMALL = '''class Box:
    """A box holds one thing."""

    def __init__(self):
        self.thing = None

    def put(self, thing):
        """Put a thing in the box."""
        self.thing = thing

    def take(self):
        """Take the thing out."""
        thing, self.thing = self.thing, None
        return thing


def make_box():
    return Box()
'''


def test_a_type_is_taught_before_its_methods(tmp_path: Path):
    root = tmp_path / "src"
    (root / "tests").mkdir(parents=True)
    (root / "box.py").write_text(SMALL)
    (root / "tests" / "test_box.py").write_text(
        "from box import make_box\n\n" + "".join(f"def test_{i}():\n    b = make_box()\n    b.put(1)\n    b.take()\n"
                                                 "    b.put(2)\n    b.take()\n" for i in range(6)))
    p = project_mod.load(root)
    from orchestrator.authoring.spine import with_owners

    by = {s.name: s for s in p.symbols(within=["box.py"])}
    # ranked methods without their type: the type comes in first, the lowest ranked leaves
    assert [s.name for s in with_owners(p, [by["Box.take"], by["Box.put"]], 2)] == ["Box", "Box.take"]
    # the type ranked after its method moves before it
    assert [s.name for s in with_owners(p, [by["Box.put"], by["make_box"], by["Box"]], 3)] == [
        "Box", "Box.put", "make_box"]
    names = [s.name for s in key_symbols(p, ["box.py"], 3)]
    assert names.index("Box") < min(names.index(n) for n in names if n.startswith("Box."))


def test_a_type_with_many_methods_gets_more_sections(tmp_path: Path):
    from orchestrator.authoring.research import n_key

    root = tmp_path / "src"
    root.mkdir()
    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(24))
    (root / "wide.py").write_text("class Wide:\n    \"\"\"Many small methods.\"\"\"\n\n" + methods)
    (root / "plain.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(24)))
    p = project_mod.load(root)
    assert p.size("wide.py") < 150 and p.size("plain.py") < 150
    assert n_key(p, ["plain.py"]) == 3  # by its lines alone
    assert n_key(p, ["wide.py"]) == 7  # 3 + 24 methods / 6
    assert n_key(p, ["plain.py", "wide.py"]) == 7
    for i in range(6):
        (root / f"m{i}.py").write_text(f"def g{i}():\n    return {i}\n")
    p = project_mod.load(root)
    assert n_key(p, [f"m{i}.py" for i in range(6)]) == 8  # a section for each of six small files


TREE = '''package web

// node is one node of the routing tree.
type node struct {
	children []*node
	prefix   string
}

''' + "".join(f'''// m{i} is a small helper.
func (n *node) m{i}() int {{
	return {i}
}}

''' for i in range(6)) + '''// getEdge finds the child for a label.
func (n *node) getEdge(label byte) *node {
	return nil
}

// setEndpoint stores a handler.
func (n *node) setEndpoint(h string) {
	n.prefix = h
}

// InsertRoute adds a route to the tree.
func (n *node) InsertRoute(pattern string, h string) *node {
	parent := n
	child := n.getEdge(pattern[0])
	if child == nil {
		child = &node{prefix: pattern}
		parent.children = append(parent.children, child)
	}
	child.setEndpoint(h)
	n.setEndpoint(h)
	return child
}
'''


def test_a_type_chosen_for_its_methods_is_taught_through_its_spine_too(tmp_path: Path):
    root = tmp_path / "src"
    root.mkdir()
    (root / "tree.go").write_text(TREE)
    (root / "go.mod").write_text("module example.com/web\n")
    p = project_mod.load(root)
    assert [s.short for s in spines(p, "tree.go")["node"]] == ["InsertRoute"]  # calls two siblings
    from orchestrator.authoring.spine import arrange

    by = {s.name: s for s in p.symbols(within=["tree.go"])}
    chosen = [by["node.m0"], by["node.m1"], by["node.m2"]]  # ranked methods, their type not among them
    out = arrange(p, chosen, 4)
    assert out[0].name == "node" and "node.InsertRoute" in [s.name for s in out], [s.name for s in out]


def test_the_spine_never_displaces_the_top_half_of_the_ranking(src: Path):
    from orchestrator.authoring.spine import with_spines

    p = project_mod.load(src)
    by = {s.name: s for s in p.symbols(within=["app.py"])}
    chosen = [by["App"], by["App.test_client"], by["App.make_response"], by["App.route"]]
    out = [s.name for s in with_spines(p, chosen, 4)]
    assert len(out) == 4 and out[:3] == ["App", "App.test_client", "App.make_response"], out
    assert "App.wsgi_app" in out
    # no room at all below the top half: the ranking stands
    assert [s.name for s in with_spines(p, chosen[:1], 1)] == ["App"]


def test_a_type_is_never_displaced_to_make_room(src: Path):
    from orchestrator.authoring.spine import spines, with_owners, with_spines

    p = project_mod.load(src)
    (src / "store.py").write_text('class Store:\n    """A store."""\n\n    def get(self, k):\n        return k\n')
    p = project_mod.load(src)
    by = {s.name: s for s in p.symbols(within=["app.py", "store.py"])}
    chosen = [by["App"], by["App.test_client"], by["App.make_response"], by["Store"]]
    out = [s.name for s in with_spines(p, chosen, 4)]
    assert "Store" in out and "App.wsgi_app" in out, out  # the method made room, not the type
    methods_only = [by["App.test_client"], by["App.make_response"], by["Store"]]
    assert "Store" in [s.name for s in with_owners(p, methods_only, 3)]
    assert all(not m.short.startswith("_") for ms in spines(p, "app.py").values() for m in ms)
