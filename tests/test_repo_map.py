"""The repository map: per-language extraction, the graph and its ranking, the cache."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from orchestrator.repo import map as repo_map
from orchestrator.repo.cache import MapCache, content_hash
from orchestrator.repo.map import build_map
from orchestrator.repo.parse import FileMap, parse_source
from orchestrator.repo.rank import pagerank


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def defs_by_qname(fm: FileMap) -> dict:
    return {d.qualified_name: d for d in fm.definitions}


# --------------------------------------------------------------------------- Python

PY = src('''
    """Storage of documents.

    More text.
    """
    import os
    import json as j
    from a.b import c
    from .sibling import helper

    MAX_SIZE = 10
    _cache = {}


    class Store(Base):
        """A key-value store."""

        def get(self, key: str) -> str | None:
            """Return the value of key."""
            return helper(self._items, key)

        @property
        def _items(self):
            return {}


    def open_store(path: str,
                   mode: str = "r") -> Store:
        def local():  # local helpers are not part of the map
            pass
        return Store()
''')


def test_python_definitions_signatures_docs_and_exports() -> None:
    fm = parse_source(PY, "python")
    assert fm.error is None
    d = defs_by_qname(fm)
    assert set(d) == {"MAX_SIZE", "_cache", "Store", "Store.get", "Store._items", "open_store"}
    assert d["Store"].kind == "class" and d["Store"].signature == "class Store(Base)"
    assert d["Store"].doc == "A key-value store."
    assert d["Store.get"].kind == "method"
    assert d["Store.get"].signature == "def get(self, key: str) -> str | None"
    assert d["Store.get"].doc_line == "Return the value of key."
    assert (d["Store.get"].start_line, d["Store.get"].end_line) == (17, 19)
    assert d["Store._items"].start_line == 21  # the decorator belongs to the definition
    assert d["open_store"].signature == 'def open_store(path: str,\n               mode: str = "r") -> Store'
    assert d["MAX_SIZE"].kind == "constant" and d["_cache"].kind == "variable"
    assert d["Store.get"].exported and not d["Store._items"].exported and not d["_cache"].exported
    assert fm.doc.startswith("Storage of documents.")
    assert fm.imports == ["os", "json", "a.b", ".sibling"]
    assert fm.references["helper"] == 2 and fm.references["Store"] == 2
    assert "get" not in fm.references and "self" not in fm.references  # definition names are not uses
    assert fm.lines == PY.count("\n")


def test_filemap_round_trips_through_json() -> None:
    fm = parse_source(PY, "python")
    again = FileMap.from_dict(json.loads(json.dumps(fm.to_dict())))
    assert again == fm


# --------------------------------------------------------------------------- Go

GO = src('''
    // Package router routes requests.
    package router

    import (
        "net/http"
        str "strings"
    )

    // Router dispatches requests.
    // It is safe for concurrent use.
    type Router struct {
        routes map[string]Handler
    }

    type Handler interface{ Serve() }

    const Version = "1"

    // Get registers a GET route.
    func (r *Router) Get(pattern string, h http.HandlerFunc) {
        r.handle(str.ToUpper(pattern), h)
    }

    func (r *Router) handle(p string, h http.HandlerFunc) {}

    func main() { NewThing() }
''')


def test_go_methods_docs_exports_and_foreign_names() -> None:
    fm = parse_source(GO, "go")
    d = defs_by_qname(fm)
    assert d["Router"].kind == "struct" and d["Handler"].kind == "interface"
    assert d["Router"].doc == "Router dispatches requests.\nIt is safe for concurrent use."
    assert d["Router"].signature == "type Router struct"
    assert d["Router.Get"].kind == "method" and d["Router.Get"].doc == "Get registers a GET route."
    assert d["Router.Get"].signature == "func (r *Router) Get(pattern string, h http.HandlerFunc)"
    assert d["Router.Get"].exported and not d["Router.handle"].exported
    assert d["Version"].kind == "constant" and d["Version"].exported
    assert fm.imports == ["net/http", "strings"]
    assert fm.doc == "Package router routes requests."
    assert fm.references["handle"] == 1 and fm.references["Handler"] == 1
    # http.HandlerFunc and str.ToUpper name other packages' definitions, not this file's.
    assert "HandlerFunc" not in fm.references and "ToUpper" not in fm.references
    assert fm.has_main is False  # func main, but not package main


# --------------------------------------------------------------------------- Rust

RUST = src('''
    //! An error library.
    use std::fmt::{self, Display};
    use crate::chain::Chain;

    /// The error type.
    /// Wraps anything.
    #[derive(Debug)]
    pub struct Error {
        inner: Box<dyn Display>,
    }

    impl Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "x") }
    }

    impl Error {
        /// Make one.
        pub fn new(msg: &str) -> Self { Error { inner: Box::new(msg.to_string()) } }
        pub(crate) fn internal(&self) {}
    }

    pub trait Context<T> { fn context(self) -> T; }
    pub type Result<T> = core::result::Result<T, Error>;
    pub enum Kind { A, B }

    /// Return early.
    #[macro_export]
    macro_rules! bail { ($e:expr) => { return Err($e) }; }
''')


def test_rust_impls_traits_macros_and_visibility() -> None:
    fm = parse_source(RUST, "rust")
    d = defs_by_qname(fm)
    assert d["Error"].kind == "struct" and d["Error"].doc == "The error type.\nWraps anything."
    assert d["Error"].exported
    assert d["impl Display for Error"].kind == "impl"
    assert d["Error::fmt"].kind == "method" and d["Error::fmt"].exported  # a trait impl is public
    assert d["Error::new"].doc == "Make one." and d["Error::new"].signature == "pub fn new(msg: &str) -> Self"
    assert not d["Error::internal"].exported  # pub(crate)
    assert d["Context"].kind == "trait" and d["Context::context"].kind == "method"
    assert d["Result"].kind == "type alias" and d["Kind"].kind == "enum"
    assert d["bail"].kind == "macro" and d["bail"].exported and d["bail"].doc == "Return early."
    assert fm.doc == "An error library."
    assert fm.imports == ["std::fmt::{self, Display}", "crate::chain::Chain"]


# --------------------------------------------------------------------------- TypeScript / JavaScript

TS = src('''
    import {merge} from './utils/merge.js';
    import type {Options} from "./types";
    export {HTTPError} from './errors/HTTPError.js';

    /**
     * Options of a request.
     */
    export interface RequestOptions { retry: number }
    export type Input = string | URL;
    export enum Method { Get, Post }

    // eslint-disable-next-line complexity
    export class Ky {
        /** Create an instance. */
        static create(input: Input, options: Options): Ky { return new Ky(merge(options)); }
        #secret(): void {}
        private hidden(): void {}
    }

    const helper = (x: number): number => x + 1;

    /** The default instance. */
    export const ky = Ky.create('', {});
    export default ky;
''')


def test_typescript_classes_interfaces_jsdoc_and_exports() -> None:
    fm = parse_source(TS, "typescript")
    d = defs_by_qname(fm)
    assert d["RequestOptions"].kind == "interface" and d["RequestOptions"].doc == "Options of a request."
    assert d["Input"].kind == "type alias" and d["Method"].kind == "enum"
    assert d["Ky"].kind == "class" and d["Ky"].exported and d["Ky"].doc == ""  # a linter directive is no doc
    assert d["Ky.create"].kind == "method" and d["Ky.create"].doc == "Create an instance."
    assert d["Ky.create"].signature == "static create(input: Input, options: Options): Ky"
    assert d["Ky.create"].exported and not d["Ky.#secret"].exported and not d["Ky.hidden"].exported
    assert d["helper"].kind == "function" and not d["helper"].exported
    assert d["helper"].signature == "const helper = (x: number): number =>"
    assert d["ky"].kind == "constant" and d["ky"].exported and d["ky"].doc == "The default instance."
    assert fm.imports == ["./utils/merge.js", "./types", "./errors/HTTPError.js"]
    assert fm.references["Options"] == 2 and fm.references["merge"] == 2


def test_a_typescript_class_exported_under_an_alias_exports_its_public_methods() -> None:
    # @koa/router: `class Router` is not exported itself, but `export default RouterExport` is, and
    # `const RouterExport = Router as RouterConstructor`
    fm = parse_source(src('''
        class Router {
          get(path: string): Router { return this.register(path); }
          register(path: string): Router { return this; }
          private hidden(): void {}
          _internal(): void {}
        }

        interface RouterConstructor { new (): Router; }

        const RouterExport: RouterConstructor = Router as RouterConstructor;

        export default RouterExport;
        export { RouterExport as Router };
        '''), "typescript")
    d = defs_by_qname(fm)
    assert d["Router"].exported and d["Router.get"].exported and d["Router.register"].exported
    assert not d["Router.hidden"].exported and not d["Router._internal"].exported


def test_tsx_parses_jsx() -> None:
    fm = parse_source("export function App(): JSX.Element { return <div>{title}</div>; }\n", "tsx")
    assert fm.error is None and defs_by_qname(fm)["App"].exported


JS = src('''
    'use strict';
    var Router = require('router');
    var app = exports = module.exports = {};

    /**
     * Initialize the server.
     *
     * @private
     */

    app.init = function init() { this.cache = Object.create(null); };

    app.use = function use(fn) { return Router(fn); };

    Layer.prototype.match = function match(path) { return path; };

    function createApplication() { return app; }
    module.exports = createApplication;
''')


def test_javascript_commonjs_definitions_and_require() -> None:
    fm = parse_source(JS, "javascript")
    d = defs_by_qname(fm)
    assert d["app.init"].kind == "function" and d["app.init"].doc.startswith("Initialize the server.")
    assert d["app.use"].signature == "app.use = function use(fn)" and d["app.use"].exported
    assert d["Layer.match"].kind == "method"
    assert d["createApplication"].exported  # module.exports = createApplication
    assert fm.imports == ["router"]
    assert fm.references["Router"] == 2


# --------------------------------------------------------------------------- Java, C, C++

def test_java_classes_methods_and_public() -> None:
    fm = parse_source(src('''
        package x;
        import java.util.List;
        /** A shape. */
        public class Shape {
            /** The area. */
            public double area() { return 0; }
            private void hidden() {}
            public static void main(String[] args) {}
        }
        interface Named { String name(); }
    '''), "java")
    d = defs_by_qname(fm)
    assert d["Shape"].kind == "class" and d["Shape"].doc == "A shape." and d["Shape"].exported
    assert d["Shape.area"].doc == "The area." and d["Shape.area"].signature == "public double area()"
    assert not d["Shape.hidden"].exported and d["Named.name"].exported
    assert fm.imports == ["java.util.List"] and fm.has_main


def test_c_and_cpp_functions_structs_macros_includes() -> None:
    c = parse_source(src('''
        #include <stdio.h>
        #include "list.h"
        #define MAX 10
        /* A list node. */
        struct node { int v; struct node *next; };
        typedef struct node node_t;
        static int helper(void) { return 0; }
        // Push a value.
        node_t *push(node_t *head, int v) { return helper() ? head : 0; }
        int main(void) { return 0; }
    '''), "c")
    d = defs_by_qname(c)
    assert d["node"].kind == "struct" and d["node"].doc == "A list node."
    assert d["node_t"].kind == "type alias" and d["MAX"].kind == "macro"
    assert d["push"].signature == "node_t *push(node_t *head, int v)" and d["push"].doc == "Push a value."
    assert not d["helper"].exported and d["push"].exported
    assert c.imports == ["stdio.h", "list.h"] and c.has_main

    cpp = parse_source(src('''
        namespace geo {
        class Shape {
          public:
            virtual double area() const;
        };
        double Shape::area() const { return 0; }
        }
    '''), "cpp")
    d = defs_by_qname(cpp)
    assert d["geo"].kind == "module" and d["Shape"].kind == "class"
    assert d["Shape::area"].kind in ("method", "function")
    assert [x.name for x in cpp.definitions].count("area") == 2


# --------------------------------------------------------------------------- robustness

def test_bad_input_gives_an_error_note_never_an_exception() -> None:
    latin1 = parse_source("caf\xe9 = 1\n".encode("latin-1"), "python")
    assert latin1.definitions == [] and "not UTF-8" in (latin1.error or "")
    cobol = parse_source("x", "cobol")  # no grammar: read by its lines, never an error (issue 33)
    assert cobol.lexical and cobol.error is None
    broken = parse_source("def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    pass\n", "python")
    assert broken.error is None
    assert {"ok", "Fine"} <= {d.name for d in broken.definitions}  # what parses is kept
    assert parse_source(b"", "go").lines == 0


def test_a_big_file_is_mapped_whole() -> None:
    body = "".join(f"def function_{i}(x):\n    return helper_{i % 7}(x)\n\n" for i in range(7000))
    assert len(body) > 300_000
    fm = parse_source(body, "python")
    assert len(fm.definitions) == 7000 and fm.definitions[-1].name == "function_6999"
    assert fm.references["helper_3"] == 1000


@pytest.mark.slow
def test_tree_sitter_is_not_imported_by_the_map_modules() -> None:
    code = ("import sys, orchestrator.repo.map, orchestrator.repo.cache, orchestrator.repo.rank; "
            "print('tree_sitter' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- PageRank

def test_pagerank_matches_the_closed_form() -> None:
    # A → B, B dangling (it jumps anywhere), uniform restart, d = 0.85:
    # r_A = 0.075 + 0.425 r_B and r_A + r_B = 1  ⇒  r_A = 0.5 / 1.425.
    r = pagerank(["A", "B"], {"A": {"B": 1.0}})
    assert r["A"] == pytest.approx(0.5 / 1.425, abs=1e-9)
    assert r["B"] == pytest.approx(1 - 0.5 / 1.425, abs=1e-9)


def test_pagerank_invariants() -> None:
    cycle = pagerank("ABC", {"A": {"B": 1}, "B": {"C": 1}, "C": {"A": 1}})
    assert all(v == pytest.approx(1 / 3) for v in cycle.values())
    star = pagerank("HXYZ", {"X": {"H": 1}, "Y": {"H": 1}, "Z": {"H": 2, "X": 1}})
    assert sum(star.values()) == pytest.approx(1.0)
    assert max(star, key=star.get) == "H" and star["X"] > star["Y"]
    # Nobody links to Y and the walk never starts there: it gets nothing.
    personal = pagerank("XYH", {"X": {"H": 1}, "Y": {"H": 1}}, personalization={"X": 1, "H": 1})
    assert personal["Y"] == 0 and sum(personal.values()) == pytest.approx(1.0)
    assert pagerank([], {}) == {}


# --------------------------------------------------------------------------- the map

CORE = {
    "pkg/core.py": "def normalise_record(r):\n    '''Make a record canonical.'''\n    return r\n",
    "pkg/__init__.py": "from .core import normalise_record\nfrom .api import Client\n",
    "pkg/api.py": "from .core import normalise_record\n\nclass Client:\n    def fetch(self):\n"
                  "        return normalise_record(self)\n",
    "pkg/io.py": "from .core import normalise_record\n\ndef load(p):\n    return normalise_record(p)\n",
    "pkg/report.py": "from .core import normalise_record\nfrom .io import load\n\n"
                     "def summary(x):\n    return normalise_record(load(x))\n",
    "pkg/export.py": "from .core import normalise_record\n\ndef dump(x):\n    return normalise_record(x)\n",
    "pkg/unused.py": "def lonely_helper_function(x):\n    return x\n\ndef get(x):\n    return x\n",
    "tests/test_core.py": "from pkg.core import normalise_record\n\ndef test_it():\n"
                          "    assert normalise_record(1) == 1\n",
    "tests/test_io.py": "from pkg.io import load\n\ndef test_load():\n    load('x')\n    load('y')\n",
    "examples/demo.py": "from pkg import Client\n\nClient().fetch()\n",
    "README.md": "# pkg\n",
}


def _kind(rel: str) -> str:
    return "test" if rel.startswith("tests/") else "example" if rel.startswith("examples/") else \
        "doc" if rel.endswith(".md") else "code"


def _build(files: dict[str, str], **kw) -> repo_map.RepoMap:
    spec = [(rel, None if rel.endswith(".md") else "python", _kind(rel)) for rel in files]
    return build_map(spec, read=lambda rel: files[rel], **kw)


def test_a_core_function_used_everywhere_ranks_first() -> None:
    repo = _build(CORE)
    ranked = repo.ranked_definitions()
    assert ranked[0].definition.qualified_name == "normalise_record"
    assert ranked[0].rel == "pkg/core.py"
    assert all(not r.rel.startswith(("tests/", "examples/")) for r in ranked)  # sources of edges only
    names = [r.definition.name for r in ranked]
    assert names.index("lonely_helper_function") > names.index("load")
    assert [r.definition.name for r in repo.ranked_definitions(within=["pkg/io.py"])] == ["load"]
    assert {r.definition.kind for r in repo.ranked_definitions(kinds=["class"])} == {"class"}
    ranks = repo.file_rank()
    assert next(iter(ranks)) == "pkg/core.py" and sum(ranks.values()) == pytest.approx(1.0)
    assert set(ranks) == {r for r in CORE if _kind(r) == "code"}


def test_graph_users_tests_and_entry_points() -> None:
    repo = _build(CORE)
    graph = repo.file_graph()
    assert set(graph["pkg/report.py"]) == {"pkg/core.py", "pkg/io.py"}
    assert "tests/test_core.py" not in graph
    users = repo.users_of("pkg/core.py")
    assert "tests/test_core.py" in users and "pkg/io.py" in users and "pkg/core.py" not in users
    assert set(repo.users_of("Client")) == {"examples/demo.py", "pkg/__init__.py"}
    assert repo.users_of("normalise_record")[-1] != "pkg/core.py" and len(repo.users_of("normalise_record")) == 6
    assert repo.tests_for(["pkg/io.py"]) == ["tests/test_io.py"]
    assert repo.tests_for(["pkg/core.py"])[0] == "tests/test_core.py"
    assert repo.entry_points() == ["pkg/__init__.py"]
    assert repo.kinds["README.md"] == "doc" and "README.md" not in repo.files


def test_render_is_ranked_and_within_budget() -> None:
    repo = _build(CORE)
    full = repo.render(10_000)
    assert full.splitlines()[0] == "pkg/core.py:"
    assert "def normalise_record(r)  # Make a record canonical." in full
    small = repo.render(80)
    assert len(small) <= 80 and "normalise_record" in small and "lonely_helper_function" not in small
    assert repo.render(10_000, within=["pkg/io.py"]).splitlines()[0] == "pkg/io.py:"


def test_read_failures_and_should_stop() -> None:
    def read(rel: str) -> str:
        if rel == "pkg/io.py":
            raise PermissionError("denied")
        return CORE[rel]

    spec = [(rel, "python", _kind(rel)) for rel in CORE if rel.endswith(".py")]
    repo = build_map(spec, read=read)
    assert "denied" in (repo.files["pkg/io.py"].error or "") and repo.stats["errors"] == 1
    calls = []
    stopped = build_map(spec, read=read, should_stop=lambda: len(calls.append(1) or calls) > 3)
    assert len(stopped.files) == 3 and stopped.stats["stopped"] == 1


# --------------------------------------------------------------------------- cache

def test_warm_build_parses_nothing_and_an_edit_reparses_one_file(monkeypatch, tmp_path) -> None:
    parsed: list[int] = []
    real = repo_map.parse_source

    def counting(data, lang):
        parsed.append(1)
        return real(data, lang)

    monkeypatch.setattr(repo_map, "parse_source", counting)
    conn = sqlite3.connect(tmp_path / "state.db")
    cold = _build(CORE, cache=MapCache(conn))
    n_py = sum(1 for r in CORE if r.endswith(".py"))
    assert len(parsed) == n_py and cold.stats["parsed"] == n_py
    conn.close()

    parsed.clear()
    conn = sqlite3.connect(tmp_path / "state.db")  # a later run: a new connection, same file
    warm = _build(CORE, cache=MapCache(conn))
    assert parsed == [] and warm.stats["cached"] == n_py and "parsed" not in warm.stats
    assert warm.files == cold.files
    assert [r.definition.qualified_name for r in warm.ranked_definitions()] == \
        [r.definition.qualified_name for r in cold.ranked_definitions()]

    edited = {**CORE, "pkg/io.py": CORE["pkg/io.py"] + "\ndef save(p):\n    return p\n"}
    again = _build(edited, cache=MapCache(conn))
    assert len(parsed) == 1 and again.stats["cached"] == n_py - 1
    assert "save" in {d.name for d in again.files["pkg/io.py"].definitions}


def test_cache_keys_language_and_parser_version() -> None:
    conn = sqlite3.connect(":memory:")
    cache = MapCache(conn)
    fm = parse_source(PY, "python")
    sha = content_hash(PY.encode())
    cache.put(sha, "python", fm)
    assert cache.get(sha, "python") is None  # not flushed yet
    cache.flush()
    assert cache.get(sha, "python") == fm
    assert cache.get(sha, "go") is None
    newer = MapCache(conn, parser_version=cache.parser_version + 1)
    assert newer.get(sha, "python") is None
    assert newer.prune() == 1 and cache.get(sha, "python") is None
    conn.execute("INSERT INTO repo_map_files VALUES ('x', 'python', ?, 'not json')", (cache.parser_version,))
    assert cache.get("x", "python") is None  # a damaged row is a miss, not a crash


def test_rust_impls_use_their_type_and_do_not_define_it() -> None:
    # Many files write `impl Trait for Value`; the struct is defined once and must rank first.
    files = {
        "src/value.rs": "/// A JSON value.\npub enum Value { Null }\n",
        **{f"src/impl_{i}.rs": f"use crate::value::Value;\npub struct Helper{i};\n"
                                f"impl core::fmt::Debug for Value {{ fn fmt(&self) {{}} }}\n" for i in range(6)},
        "tests/test.rs": "use serde_json::Value;\nfn t() { let v: Value = Value::Null; }\n",
        "Cargo.toml": '[package]\nname = "serde_json"\n',
    }
    spec = [(rel, None if rel.endswith(".toml") else "rust",
             "test" if rel.startswith("tests/") else "build" if rel.endswith(".toml") else "code")
            for rel in files]
    repo = build_map(spec, read=lambda rel: files[rel])
    assert repo.project_names >= {"serde_json"}
    top = repo.ranked_definitions(1)[0]
    assert (top.rel, top.definition.qualified_name, top.definition.kind) == ("src/value.rs", "Value", "enum")
    assert "tests/test.rs" in repo.users_of("Value")  # `serde_json::Value` is the project's own
    impl = next(d for d in repo.files["src/impl_0.rs"].definitions if d.kind == "impl")
    assert impl.qualified_name == "impl core::fmt::Debug for Value"
    assert repo.files["src/impl_0.rs"].references["Value"] == 2


def test_render_counts_every_character_it_prints() -> None:
    repo = _build(CORE)
    for budget in (40, 90, 150, 260, 400):
        out = repo.render(budget)
        assert len(out) <= budget
        assert all(line == "" or line.endswith(":") or line[:5].strip().isdigit() for line in out.splitlines())


def test_a_trailing_comment_is_not_part_of_a_signature() -> None:
    fm = parse_source("request: Proxy = LocalProxy(  # type: ignore[assignment]\n    get_request)\n", "python")
    assert fm.definitions[0].signature == "request: Proxy = LocalProxy("
