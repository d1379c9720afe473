"""Calls resolved through macros, typed parameters and C/C++ linkage (authoring/callres.py), and
the central path chapter 1 follows (mainpath.central_path), on small sources written here."""

from __future__ import annotations

from pathlib import Path

from conftest import write_files as _write

from orchestrator.authoring.codeinfo import resolved_calls
from orchestrator.authoring.facts import all_calls
from orchestrator.authoring.mainpath import central_path
from orchestrator.authoring.overview import entry_points
from orchestrator.authoring.project import Project, Sym, load


def _sym(p: Project, rel: str, name: str, line: int | None = None) -> Sym:
    found = [s for s in p.symbols([rel]) if s.name == name and (line is None or s.d.start_line == line)]
    assert found, (rel, name, [s.name for s in p.symbols([rel])])
    return found[0]


def _calls(p: Project, s: Sym) -> list[str]:
    return [f"{c.name}@{c.rel}:{c.d.start_line}" for c in all_calls(p, s)]


RUST_MACROS = """// The macros a user writes.

/// Logs at any level.
#[macro_export]
macro_rules! log {
    // log!(target: "t", Level::Info, "a {} event", "log");
    ($lvl:expr, $($arg:tt)+) => ({
        $crate::__private_api::log($lvl, format_args!($($arg)+));
    });
}

/// Logs at the info level.
#[macro_export]
macro_rules! info {
    ($($arg:tt)+) => ($crate::log!($crate::Level::Info, $($arg)+))
}
"""
RUST_PRIVATE = """use crate::Log;

fn log_impl<L: Log>(logger: L, level: u8) {
    logger.log(level);
}

pub fn log<L>(logger: L, level: u8) where L: Log {
    log_impl(logger, level)
}
"""
RUST_LIB = """mod macros;
pub mod __private_api;

/// What a logger implements.
pub trait Log {
    /// Logs one record.
    fn log(&self, level: u8);
}

pub enum Level { Info }
"""


def test_rust_macro_calls_go_through_the_macros_to_the_function_and_the_trait(tmp_path: Path):
    src = _write(tmp_path / "src", {"macros.rs": RUST_MACROS, "__private_api.rs": RUST_PRIVATE, "lib.rs": RUST_LIB})
    p = load(src)
    info = _sym(p, "macros.rs", "info")
    assert _calls(p, info) == ["log@macros.rs:5"]  # `$crate::log!(`: the macro, never the function `log`
    log_macro = _sym(p, "macros.rs", "log")
    # `$crate::__private_api::log(`: the function of `__private_api.rs`; the `// log!(…)` comment is no call
    assert _calls(p, log_macro) == ["log@__private_api.rs:7"]
    assert _calls(p, _sym(p, "__private_api.rs", "log")) == ["log_impl@__private_api.rs:3"]
    # `logger: L` with `L: Log`: `logger.log(` is the trait's method
    assert _calls(p, _sym(p, "__private_api.rs", "log_impl")) == ["Log::log@lib.rs:7"]
    # the map records the macro invocations' names as references of the files that write them
    assert p.map.files["macros.rs"].references.get("__private_api")
    assert p.map.users_of("__private_api.rs") == ["macros.rs"]


C_FILES = {
    "read.h": "#ifndef READ_H\n#define READ_H\n/* Feeds bytes to the reader. */\n"
              "int readerFeed(struct reader *r, const char *buf, int len);\n#endif\n",
    "read.c": '#include "read.h"\n\nstatic int process(struct reader *r) {\n    return 0;\n}\n\n'
              "int readerFeed(struct reader *r, const char *buf, int len) {\n    return process(r);\n}\n",
    "net.c": "static int process(int fd) {\n    return fd;\n}\n",
    "client.h": '#include "read.h"\n#define CLIENT_API\n#define FEED(c, b) readerFeed((c)->r, (b), 1)\n'
                "int clientRead(struct client *c);\n",
    "client.c": '#include "client.h"\n\nint clientRead(struct client *c) {\n'
                "    if CLIENT_API (c == 0) return -1;\n    return readerFeed(c->r, c->buf, c->len);\n}\n"
                "int clientFeed(struct client *c) {\n    return FEED(c, c->buf);\n}\n",
}


def test_c_calls_reach_the_definition_behind_the_prototype_and_through_a_macro(tmp_path: Path):
    p = load(_write(tmp_path / "src", C_FILES))
    # the prototype in read.h (reached through client.h) has its body in read.c; `c->r, …` is three
    # arguments; the object-like macro CLIENT_API before `(` is never a call
    assert _calls(p, _sym(p, "client.c", "clientRead")) == ["readerFeed@read.c:7"]
    # a `static` function is called only from its own file (net.c has another `process`)
    assert _calls(p, _sym(p, "read.c", "readerFeed")) == ["process@read.c:3"]
    # a call through a function-like macro: the macro, then what its body calls
    assert _calls(p, _sym(p, "client.c", "clientFeed")) == ["FEED@client.h:3"]
    assert _calls(p, _sym(p, "client.h", "FEED")) == ["readerFeed@read.c:7"]
    # the body of a #define is read for the map's references (the grammar keeps it opaque)
    assert p.map.files["client.h"].references.get("readerFeed") == 1


def test_cpp_overloads_are_told_apart_by_their_arity_and_namespaces_are_not_types(tmp_path: Path):
    files = {"fmt/base.h": "#ifndef BASE_H\n#define BASE_H\nnamespace fmt {\n"
                           "void vprint(string_view fmt, format_args args);\n"
                           "void vprint(FILE* f, string_view fmt, format_args args);\n"
                           "template <typename... T> void print(format_string<T...> fmt, T&&... args) {\n"
                           "  detail::vprint(fmt.str, {args...});\n}\n}\n#endif\n",
             "fmt/format-inl.h": '#include "base.h"\nnamespace fmt {\n'
                                 "void vprint(FILE* f, string_view fmt, format_args args) {\n  write(f, fmt);\n}\n"
                                 "void vprint(string_view fmt, format_args args) {\n  vprint(stdout, fmt, args);\n}\n}\n",
             "fmt/xchar.h": '#include "base.h"\nnamespace fmt {\n'
                            "inline void vprint(wstring_view fmt, wformat_args args) {\n  wide(fmt);\n}\n}\n"}
    p = load(_write(tmp_path / "include", files))
    # base.h declares vprint(string_view, format_args): its body is format-inl.h's, not xchar.h's of
    # the same arity (xchar.h is not what base.h sees)
    assert _calls(p, _sym(p, "fmt/base.h", "print")) == ["vprint@fmt/format-inl.h:6"]
    # one overload calls another
    assert _calls(p, _sym(p, "fmt/format-inl.h", "vprint", 6)) == ["vprint@fmt/format-inl.h:3"]


def test_typed_parameters_and_an_implicit_this_resolve_methods(tmp_path: Path):
    py = ('class Context:\n    def invoke(self, callback):\n        return callback()\n\n\n'
          'class Command:\n    def invoke(self, ctx: Context):\n        return ctx.invoke(self.callback)\n\n'
          '    def other(self, ctx):\n        return ctx.invoke(None)\n')
    java = ("package a;\n\npublic class Gson {\n  public String toJson(Object src) {\n    return toJson(src, 1, 2);\n  }\n\n"
            "  public String toJson(Object src, int a, int b) {\n    return getAdapter(src);\n  }\n\n"
            "  public String getAdapter(Object t) {\n    return null;\n  }\n}\n")
    p = load(_write(tmp_path / "src", {"core.py": py, "a/Gson.java": java}))
    assert _calls(p, _sym(p, "core.py", "Command.invoke")) == ["Context.invoke@core.py:2"]
    assert _calls(p, _sym(p, "core.py", "Command.other")) == []  # an untyped `ctx`: not resolved
    assert _calls(p, _sym(p, "a/Gson.java", "Gson.toJson", 4)) == ["Gson.toJson@a/Gson.java:8"]
    assert _calls(p, _sym(p, "a/Gson.java", "Gson.toJson", 8)) == ["Gson.getAdapter@a/Gson.java:12"]


CLICK_README = """# clicky

Clicky makes command line interfaces out of functions, with as little code as possible.

```python
import clicky

@clicky.command()
def hello():
    clicky.echo("Hello!")

if __name__ == "__main__":
    hello()
```
"""
CLICK_CORE = '''"""Commands and their context."""

from .utils import echo


class Context:
    """The state of one invocation."""

    def invoke(self, callback):
        """Run the callback."""
        return callback()


class Command:
    """A command a user runs."""

    def __call__(self, *args):
        """Alias for main."""
        return self.main(*args)

    def main(self, args=None):
        """Run the command as a program."""
        ctx = Context()
        return self.invoke(ctx)

    def invoke(self, ctx: Context):
        """Invoke the callback in the context."""
        if self.deprecated:
            echo("deprecated")
        return ctx.invoke(self.callback)
'''
CLICK_DECORATORS = '''"""Decorators."""

from .core import Command


def command(name=None) -> Command:
    """Make a function a command."""
    def decorator(f):
        return Command()
    return decorator
'''
CLICK_UTILS = '''"""Output."""


def echo(message=None):
    """Print a message."""
    return _write(resolve_color(message))


def resolve_color(message):
    """The message's color."""
    return _strip(message)


def _write(text):
    return text


def _strip(text):
    return text
'''
CLICK_INIT = '"""Clicky."""\n\nfrom .core import Command, Context\nfrom .decorators import command\nfrom .utils import echo\n'


def test_the_central_path_starts_where_the_readme_call_begins_and_goes_down_the_objects(tmp_path: Path):
    root = _write(tmp_path / "repo", {"README.md": CLICK_README, "pyproject.toml": '[project]\nname = "clicky"\n',
                                      "src/clicky/__init__.py": CLICK_INIT, "src/clicky/core.py": CLICK_CORE,
                                      "src/clicky/decorators.py": CLICK_DECORATORS, "src/clicky/utils.py": CLICK_UTILS})
    p = load(root / "src")
    path = [s.name for s in central_path(p, entry_points(p))]
    # `@clicky.command()` returns a Command and `hello()` calls it: Command.__call__ -> main -> invoke
    # -> Context.invoke, not the deeper side road `echo -> resolve_color -> _strip` the README also calls
    assert path == ["Command.__call__", "Command.main", "Command.invoke", "Context.invoke"], path
    # chapter 1 says how the user's call gets there: `command` returns a `Command`, and calling it runs __call__
    from orchestrator.authoring.example_run import made_by
    from orchestrator.authoring.story import _path_walk

    entry, typ = made_by(p, central_path(p, entry_points(p))[0]) or (None, None)
    assert (entry.name, typ.name) == ("command", "Command")
    walk = "\n".join(_path_walk(p, central_path(p, entry_points(p)), {}, "en"))
    assert "`command` returns a `Command`, and calling what it returns runs `Command.__call__`" in walk
    assert "1. `Command.__call__` calls `Command.main`" in walk
    # each step cites the lines that show its call (the caller up to the call, the callee's head), and
    # the support check holds them: the callee's definition alone shows no call
    from orchestrator.evidence.cite import blocks
    from orchestrator.evidence.resolve import SourceFiles, cited_text, claim_problem, sentence_calls

    steps = [s for b in blocks(walk) for s in b.sentences if sentence_calls(s.text)]
    assert len(steps) == 3 and all(s.cites and all(cited_text(c, SourceFiles(p.root)) for c in s.cites) for s in steps)
    assert [claim_problem(s.names, sentence_calls(s.text), s.cites, SourceFiles(p.root)) for s in steps] == [None] * 3


def test_resolved_calls_keep_two_callees_of_one_name(tmp_path: Path):
    src = _write(tmp_path / "src", {"macros.rs": RUST_MACROS + "\nmacro_rules! both {\n    () => ({ $crate::log!(1, 2);"
                                    " $crate::__private_api::log(1, 2); })\n}\n",
                                    "__private_api.rs": RUST_PRIVATE, "lib.rs": RUST_LIB})
    p = load(src)
    both = _sym(p, "macros.rs", "both")
    code = "\n".join(p.lines_of("macros.rs")[both.d.start_line - 1:both.d.end_line])
    assert [f"{c.kind}:{c.rel}" for c in resolved_calls(p, both, code)] == ["macro:macros.rs", "function:__private_api.rs"]


def test_side_roads_are_error_handlers_and_conditions_on_errors_not_their_conditions():
    from orchestrator.authoring.sideroads import branch_lines

    c = ("int f(redisContext *c) {\n"            # 0
         "    if (redisBufferRead(c) == REDIS_ERR)\n"  # 1: the condition runs on the main line
         "        return fail(c);\n"             # 2: its body is a side road
         "    if (c->err) { report(c); }\n"      # 3: a one-line side road
         "    for (i = 0; i < n; i++) {\n"       # 4: a loop is the work itself
         "        step(c);\n"                    # 5
         "    }\n"
         "    return done(c);\n}\n")
    assert branch_lines(c) == {2, 3}
    py = ("def invoke(self, ctx):\n"
          "    if self.deprecated:\n"
          "        echo(f'{self.name!r} is deprecated')\n"
          "    try:\n"
          "        return ctx.invoke(self.callback)\n"
          "    except Abort:\n"
          "        echo('aborted')\n")
    assert branch_lines(py, "python") == {2, 6}


def test_r1_counts_a_call_made_by_any_overload_of_the_caller(tmp_path: Path):
    from orchestrator.authoring.facts import ClaimFacts

    java = ("package a;\n\npublic class Gson {\n  public String toJson(Object src) {\n    return toJson(src, 1, 2);\n  }\n\n"
            "  public String toJson(Object src, int a, int b) {\n    return getAdapter(src);\n  }\n\n"
            "  public String getAdapter(Object t) {\n    return null;\n  }\n}\n")
    p = load(_write(tmp_path / "src", {"a/Gson.java": java}))
    facts = ClaimFacts(p)
    assert facts.calls("Gson.toJson", "Gson.getAdapter") is True
    assert facts.calls("Gson.getAdapter", "Gson.toJson") is False


def test_a_declaration_is_not_a_call_of_another_overload(tmp_path: Path):
    hpp = ("#ifndef F_H\n#define F_H\nauto format(int x) -> int;\n"
           "struct range_formatter {\n  auto format(int& r, int& ctx) const -> int {\n    return format(r);\n  }\n"
           "  ~range_formatter() {}\n  range_formatter() {}\n};\n#endif\n")
    cpp = '#include "f.h"\nauto format(int x) -> int {\n  return x;\n}\n'
    p = load(_write(tmp_path / "include", {"f.h": hpp, "f.cpp": cpp}))
    member = _sym(p, "f.h", "range_formatter::format")
    # its own signature `auto format(int& r, …)` is no call; `return format(r)` is the free function
    assert _calls(p, member) == ["format@f.cpp:2"]
    assert _calls(p, _sym(p, "f.h", "range_formatter::~range_formatter")) == []


def test_a_field_typed_by_its_declaration_or_by_the_constructors_parameter(tmp_path: Path):
    py = ("class Storage:\n    def read(self):\n        return {}\n\n\n"
          "class Table:\n    def __init__(self, storage: Storage, name):\n        self._storage = storage\n"
          "        self.name = name\n\n    def all(self):\n        return self._storage.read()\n\n"
          "    def other(self):\n        return self.name.read()\n")
    go = ("package chi\n\ntype node struct{}\n\nfunc (n *node) FindRoute(p string) *node {\n\treturn n\n}\n\n"
          "type Mux struct {\n\ttree *node\n}\n\nfunc (mx *Mux) routeHTTP(p string) {\n\tmx.tree.FindRoute(p)\n}\n")
    p = load(_write(tmp_path / "src", {"table.py": py, "mux.go": go}))
    assert _calls(p, _sym(p, "table.py", "Table.all")) == ["Storage.read@table.py:2"]
    assert _calls(p, _sym(p, "table.py", "Table.other")) == []  # `name` has no declared type
    assert _calls(p, _sym(p, "mux.go", "Mux.routeHTTP")) == ["node.FindRoute@mux.go:5"]
