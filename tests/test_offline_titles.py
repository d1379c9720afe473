"""Offline chapter titles say what each chapter teaches and are distinct: a topic (a role such
as "Middleware and hooks") names only the chapter it fits best; the others take their module's
name ("Throttle middleware"), a short module name is said in full, a package's entry file is
its public API, and a title is never built on a generic name alone ("How main works")."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.authoring import project as project_mod
from orchestrator.authoring.titles import humanize, make_titles

MW = '''package middleware

import "net/http"

// {name} is a middleware that {what}.
func {name}(next http.Handler) http.Handler {{
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {{
		next.ServeHTTP(w, r)
	}})
}}

// {name}Opts configures {name}.
type {name}Opts struct {{
	Limit int
}}
'''

MAIN = '''package main

import "fmt"

func main() {
	run()
}

func run() {
	fmt.Println("hi")
}
'''

LIB = '''//! The crate's entry.

/// A widget with a label.
pub struct Widget {
    label: String,
}

/// A widget built from a label.
pub fn build(label: &str) -> Widget {
    Widget { label: label.to_owned() }
}
'''

SER = '''/// Writes values as text.
pub struct Serializer {
    out: Vec<u8>,
}

/// A value as a string.
pub fn to_string(v: &str) -> String {
    v.to_string()
}
'''


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "middleware").mkdir(parents=True)
    (root / "cmd" / "tool").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/kit\n\ngo 1.22\n")
    for stem, name, what in (("throttle", "Throttle", "limits requests"), ("logger", "Logger", "logs requests"),
                             ("timeout", "Timeout", "stops slow requests"), ("compress", "Compress", "gzips")):
        (root / "middleware" / f"{stem}.go").write_text(MW.format(name=name, what=what))
    (root / "cmd" / "tool" / "main.go").write_text(MAIN)
    return root


def _titles(root: Path, groups: list[list[str]], language: str = "en") -> list[str]:
    p = project_mod.load(root)
    return make_titles(p, groups, language)


def test_chapters_of_one_kind_do_not_share_a_topic(src: Path):
    groups = [["middleware/throttle.go"], ["middleware/logger.go"], ["middleware/timeout.go"],
              ["middleware/compress.go"]]
    titles = _titles(src, groups)
    subjects = [t.split(" — ")[0] for t in titles]
    assert len(set(subjects)) == len(subjects), titles  # no shared prefix
    assert sum(s == "Middleware and hooks" for s in subjects) <= 1, titles  # the topic, at most once
    # the maintainers' doc ("Throttle is a middleware that limits requests") says the idea
    assert "Limiting requests" in titles and "Stopping slow requests" in titles, titles
    # a chapter whose kind is taken says which middleware it teaches
    # issue 35: a title is an idea (the role, the maintainers' doc: "Limiting requests"), never a
    # list of the chapter's symbols; a module's name only as the last resort, once here
    from orchestrator.contracts.title_shape import name_title

    assert not any(" — " in t for t in titles), titles
    assert sum(1 for t, g in zip(titles, groups) if name_title(t, g)) <= 1, titles


def test_a_generic_name_alone_makes_no_title(src: Path):
    titles = _titles(src, [["cmd/tool/main.go"], ["middleware/logger.go"]])
    assert not any(t.startswith("How ") for t in titles), titles
    assert titles[0].startswith("Tool"), titles  # main.go is named for its directory
    zh = _titles(src, [["cmd/tool/main.go"], ["middleware/logger.go"]], "zh")
    assert zh[0].startswith("tool 模块"), zh


def test_an_entry_file_is_titled_by_its_doc_and_short_module_names_are_said_in_full(tmp_path: Path):
    root = tmp_path / "crate"
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "kit"\n')
    (root / "src" / "lib.rs").write_text(LIB)
    (root / "src" / "ser.rs").write_text(SER)
    titles = _titles(root, [["src/lib.rs"], ["src/ser.rs"]])
    # issue 35: what the maintainers say the crate's type is ("A widget with a label.") before "The
    # public API", which only says where the code is
    assert titles[0] == "Widget with a label", titles
    # the role it holds alone, or its doc ("Writes values as text."): an idea either way
    assert titles[1] in ("Encoding and decoding data", "Writing values"), titles


def test_humanize():
    assert humanize("bash_completionsV2") == "Bash completions V2"
    assert humanize("route_headers") == "Route headers"
    assert humanize("wrapWriter") == "Wrap writer"


def test_a_title_names_no_private_member(tmp_path: Path):
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "package.json").write_text('{"name": "kit"}')
    body = "".join(f"\t#step{i}(x: number): number {{\n\t\treturn this.#step{i + 1}(x) + {i};\n\t}}\n" for i in range(6))
    (root / "Client.ts").write_text(f"export class Client {{\n{body}\tstatic create(): Client {{\n\t\treturn new Client();\n\t}}\n}}\n")
    titles = _titles(root, [["Client.ts"]])
    assert "#" not in titles[0] and "Client" in titles[0], titles


def test_one_word_is_no_role_and_loses_to_a_better_explanation():
    # anyhow's `Chain` (an iterator) was "Middleware and hooks" from the word "chain"; its
    # context.rs (adding context to errors) got the request-context role; serde_json's
    # lexical/cached.rs tables were "Caching"
    from orchestrator.authoring.roles import detect

    chain = detect(["Chain", "next_back", "size_hint", "len", "next", "ChainState"], ["chain.rs"],
                   "Iterator of a chain of source errors.",
                   ["impl<'a> Iterator for Chain<'a>", "impl DoubleEndedIterator for Chain<'_>"])
    assert chain[0][1].key == "iterators"
    assert "middleware" not in [r.key for _, r in chain]  # a chain is no middleware without the word
    context = detect(["StdError", "context", "context", "ext_context", "ext_context", "write_str"], ["context.rs"], "",
                     ["impl<T, E> Context<T, E> for Result<T, E>"])
    assert "context" not in [r.key for _, r in context]  # a name alone is no evidence of a role
    cached = detect(["compare", "imul_pow5", "bit_length"], ["lexical/cached.rs", "lexical/cached_float80.rs"],
                    "Cached powers trait for extended-precision floats.")
    assert "cache" not in [r.key for _, r in cached]


def test_a_role_needs_the_word_of_its_topic():
    # set 18, read by hand: goquery's utilities.go (`Render` of a node's HTML) was "Templates and
    # rendering", its array.go (`Slice` of a selection) "State stores"; terminal-table's table_helper.rb
    # "Storing data"; jinja's parser.py "Encoding and decoding data"; goquery's expand.go "Context and
    # state" from one "in the context of the document" in a doc
    from orchestrator.authoring.roles import detect

    def keys(*a):
        return [r.key for _, r in detect(*a)]

    assert "templates" not in keys(["OuterHtml", "NodeName", "Render", "nodeName", "render"], ["utilities.go"],
                                   "Render renders the HTML of the first item in the selection and writes it")
    assert "store" not in keys(["Get", "Slice", "IndexSelector", "Index", "sliceSelection"], ["array.go"], "")
    assert "storage" not in keys(["table", "Table"], ["table_helper.rb"], "")
    assert "serialization" not in keys(["Parser", "parse_expression", "parse_set", "parse_for", "parse"],
                                       ["parser.py"], "Parse tokens into nodes.")
    assert "context" not in keys(["AddSelection", "AddNodes", "Add"], ["expand.go"],
                                 "The selector string is run in the context of the document of the current selection.")
    # the topic's own noun keeps the role
    assert keys(["Template", "render", "stream"], ["templates.py"], "Compiled templates.")[0] == "templates"
    assert "serialization" in keys(["JSONDecoder", "decode", "parse"], ["decoder.py"], "")
    assert "context" in keys(["RequestContext", "push", "pop"], ["ctx.py"], "The request context.")
    # the chapter's folder named for the role is evidence enough (ky's utils/)
    utils = detect(["timeout", "isHTTPError"], ["body.ts", "delay.ts", "is.ts"], "", [], ["utils"] * 3)
    assert utils[0][1].key == "utils"
    real = detect(["Router", "Route", "ServeHTTP"], ["mux.go"], "Package chi is a router.")
    assert real[0][1].key == "routing"


def test_a_word_the_key_names_repeat_is_evidence_and_a_small_file_names_no_role():
    # zustand's core chapter (StoreApi, createStore, useStore; a five-line types.d.ts beside
    # vanilla.ts) is about stores, not "Types and interfaces" nor "Storing data"
    from orchestrator.authoring.roles import detect

    core = detect(["StoreApi", "create", "createStore", "shallow", "StateCreator", "useStore"],
                  ["vanilla.ts", "react.ts"], "")
    assert core[0][1].key == "store"


def test_a_title_does_not_say_its_subject_twice(tmp_path: Path):
    # chi's "Context — Context and Router"
    root = tmp_path / "src"
    root.mkdir()
    (root / "context.go").write_text(
        "package chi\n\n// Context is the routing context.\ntype Context struct {\n\tn int\n}\n\n"
        "// Router routes.\ntype Router interface {\n\tRoute() *Context\n}\n\n"
        "// Params are the URL parameters.\ntype Params struct {\n\tkeys []string\n}\n")
    title = _titles(root, [["context.go"]])[0]
    subject, _, names = title.partition(" — ")
    assert subject.split()[0] not in names.split(), title


def test_a_module_named_by_its_own_doc_is_titled_in_its_words(tmp_path: Path):
    """`wal.py` whose doc opens "The write-ahead log: …" is the "Write-ahead log", not "Wal";
    a prose lead-in ("Note: …") names nothing."""
    from orchestrator.authoring.titles import doc_name

    root = tmp_path / "kv"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "kv"\n')
    (root / "wal.py").write_text('"""The write-ahead log: an append-only file of every write."""\n\n\n'
                                 "class WriteAheadLog:\n    def replay(self) -> list[bytes]:\n        return []\n")
    titles = _titles(root, [["wal.py"]])
    assert titles[0] == "Write-ahead log", titles
    assert doc_name("Sorted string tables: immutable files.") == "Sorted string tables"
    assert doc_name("Note: this module is old.") == ""
    assert doc_name("Small helpers for writing files so that a crash loses nothing.") == ""


def test_a_module_named_for_a_kind_of_code_takes_the_topic_that_says_it_fully(tmp_path: Path):
    root = tmp_path / "mux"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/mux\n")
    (root / "mux.go").write_text(
        "package mux\n\nimport \"net/http\"\n\n// Router routes requests to their handlers.\ntype Router struct {\n\troutes []string\n}\n\n"
        "// ServeHTTP dispatches the request to the handler whose route matches.\n"
        "func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {\n\tr.match(req.URL.Path)\n}\n\n"
        "func (r *Router) match(path string) bool {\n\tfor _, route := range r.routes {\n\t\tif route == path {\n"
        "\t\t\treturn true\n\t\t}\n\t}\n\treturn false\n}\n")
    # routing is the mux chapter's: the middleware file falls to its own module's name, "Middleware"
    (root / "middleware.go").write_text(
        "package mux\n\nimport \"net/http\"\n\ntype handlerFunc func(http.Handler) http.Handler\n\n"
        "// Use appends a function the router's routes run.\nfunc (r *Router) Use(fn handlerFunc) {\n"
        "\tr.routes = append(r.routes, \"\")\n}\n\nfunc (r *Router) routeAll(route string) bool {\n\treturn r.match(route)\n}\n")
    titles = _titles(root, [["mux.go"], ["middleware.go"]])
    assert titles[1] == "Middleware and hooks", titles  # not "Middleware", the file's own name


def test_a_tiny_helper_names_no_chapter_that_holds_a_module_ten_times_its_size(tmp_path: Path):
    # koa: the chapter of context.js (248 lines), is-stream.js (20) and only.js was "Is stream"
    root = tmp_path / "koa"
    root.mkdir()
    (root / "package.json").write_text('{"name": "koa"}')
    (root / "is-stream.js").write_text("module.exports = function isStream (s) {\n  return s && typeof s.pipe === 'function'\n}\n")
    body = "".join(f"  get field{k} () {{\n    return this.request.field{k}\n  }},\n\n" for k in range(40))
    (root / "context.js").write_text("const isStream = require('./is-stream')\n\nconst proto = module.exports = {\n"
                                     + body + "  isBody (b) {\n    return isStream(b)\n  }\n}\n")
    (root / "application.js").write_text("const context = require('./context')\n\nmodule.exports = class Application {\n"
                                         "  createContext () {\n    return Object.create(context)\n  }\n}\n")
    titles = _titles(root, [["application.js"], ["context.js", "is-stream.js"]])
    assert "stream" not in titles[1].lower(), titles


def test_a_module_named_by_a_verb_is_titled_by_its_function_and_the_thing_it_takes(tmp_path: Path):
    # qs's stringify.js (`module.exports = function (object, opts)`) was "Stringify": a module's name;
    # an unexported helper (`add(piece)`) and a vague parameter (`merge(target, source)`) say no title
    root = tmp_path / "qs"
    root.mkdir()
    (root / "package.json").write_text('{"name": "qs"}')
    (root / "stringify.js").write_text("var utils = require('./utils');\n\nmodule.exports = function (object, opts) {\n"
                                       "  var keys = Object.keys(object);\n  return utils.merge(keys, opts);\n};\n")
    (root / "utils.js").write_text("var merge = function merge(target, source) {\n  return Object.assign(target, source);\n};\n\n"
                                   "module.exports = { merge: merge };\n")
    titles = _titles(root, [["stringify.js"], ["utils.js"]])
    assert titles[0] == "Stringifying an object", titles
    assert "target" not in titles[1].lower(), titles
    from orchestrator.authoring.titles import verb_param_title

    key = project_mod.load(root)
    helper = next(s for s in key.symbols() if s.short == "merge")
    assert verb_param_title(helper) == ""
