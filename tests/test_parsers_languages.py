"""The map's parsers read each language as its users write it (issue 23 item 5): C/C++
declarations, Python overloads, doc-comment markup of Javadoc, JSDoc, rustdoc and Go doc."""

from __future__ import annotations

import textwrap
from pathlib import Path

from orchestrator.authoring.codeinfo import signature_parts
from orchestrator.authoring.project import Sym
from orchestrator.repo.classify import header_language, settle_headers
from orchestrator.repo.definitions import C_KEYWORDS
from orchestrator.repo.parse import FileMap, parse_source
from orchestrator.repo.walk import walk


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def by_name(fm: FileMap) -> dict:
    return {d.qualified_name: d for d in fm.definitions}


# --------------------------------------------------------------------------- C and C++

# fmt's style: macros the grammar cannot expand sit in front of keywords.
FMT_LIKE = src('''
    #include <string>
    FMT_BEGIN_NAMESPACE
    namespace detail {
    inline auto digits2(size_t value) noexcept -> const char* { return "0"; }
    template <typename T> struct float_info;
    template <> struct float_info<float> { static const int digits = 24; };
    }  // namespace detail
    template <typename T, typename Char>
    struct formatter<styled<T>, Char> : formatter<T, Char> {
      template <typename Ctx>
      FMT_CONSTEXPR auto format(const styled<T>& arg, Ctx& ctx) const -> decltype(ctx.out()) {
        bool has_style = false;
        return ctx.out();
      }
    };
    FMT_END_NAMESPACE
    namespace std {
    template <> struct hash<fmt::string_view> {};
    }
    struct visitor {
      void operator()(int value) {}
    };
    ''')


def test_no_keyword_or_builtin_type_is_a_cpp_definition() -> None:
    fm = parse_source(FMT_LIKE, "cpp")
    names = {d.name for d in fm.definitions}
    assert not names & C_KEYWORDS, sorted(names & C_KEYWORDS)
    assert "std" not in {d.qualified_name for d in fm.definitions}  # reopening std defines nothing
    assert {"detail", "digits2", "visitor"} <= names  # the real definitions are still there


def test_the_same_file_read_as_c_yields_no_keyword_either() -> None:
    # A C++ header mislabelled C is the worst case: the C grammar reads `noexcept`, `float` as names.
    fm = parse_source(FMT_LIKE, "c")
    assert not {d.name for d in fm.definitions} & C_KEYWORDS


HIREDIS_LIKE = src('''
    /* This is the reply object returned by redisCommand() */
    typedef struct redisReply {
        int type; /* REDIS_REPLY_* */
        struct redisReply **element; /* elements vector for REDIS_REPLY_ARRAY */
    } redisReply;

    /* A task of the reader's stack. */
    typedef struct {
        int type;
        void *privdata;
    } redisReadTask;

    void freeReplyObject(void *reply);
    int redisGetReply(redisContext *c, void **reply);
    redisContext *redisConnect(const char *ip, int port);
    int redisReconnect(void);
    ''')


def test_typedef_struct_is_one_struct_with_the_comment_above_it() -> None:
    defs = by_name(parse_source(HIREDIS_LIKE, "c"))
    reply = defs["redisReply"]
    assert reply.kind == "struct"
    assert reply.doc == "This is the reply object returned by redisCommand()"
    assert reply.signature == "typedef struct redisReply"
    assert [d.kind for d in parse_source(HIREDIS_LIKE, "c").definitions].count("type alias") == 0
    task = defs["redisReadTask"]  # an anonymous struct is known by its typedef's name
    assert (task.kind, task.doc) == ("struct", "A task of the reader's stack.")


def _params(code: str, lang: str, name: str) -> list[tuple[str, str]]:
    fm = parse_source(code, lang)
    d = next(d for d in fm.definitions if d.name == name)
    params, _ = signature_parts(Sym("x.h", d, 1.0, lang))
    return [(p.name, p.type) for p in params]


def test_pointer_types_are_kept_in_c_parameters() -> None:
    assert _params(HIREDIS_LIKE, "c", "freeReplyObject") == [("reply", "void *")]
    assert _params(HIREDIS_LIKE, "c", "redisGetReply") == [("c", "redisContext *"), ("reply", "void **")]
    assert _params(HIREDIS_LIKE, "c", "redisConnect") == [("ip", "const char *"), ("port", "int")]
    assert _params(HIREDIS_LIKE, "c", "redisReconnect") == []  # `(void)` is no parameter


def test_a_header_with_cpp_in_it_is_cpp() -> None:
    assert header_language("include/fmt/core.h", FMT_LIKE.encode()) == "cpp"
    assert header_language("hiredis.h", HIREDIS_LIKE.encode()) == "c"
    extern_c = b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n'
    assert header_language("api.h", extern_c) == "c"  # a C header that C++ can include is C
    assert header_language("a.hpp", b"int f();") == "cpp"
    # what a comment says is not code: hiredis's ffc.h is C that mentions `std::strtod`
    assert header_language("ffc.h", b"/* like std::strtod in C++ */\ndouble ffc_parse(const char *s);\n") == "c"


def test_undecided_headers_follow_the_repositorys_other_sources() -> None:
    cpp_repo = {"src/format.cc": "cpp", "include/os.h": "c", "README.md": None}
    assert settle_headers(cpp_repo)["include/os.h"] == "cpp"
    mixed = {"src/format.cc": "cpp", "src/glue.c": "c", "include/os.h": "c"}
    assert settle_headers(mixed)["include/os.h"] == "c"  # any C source: the header stays C
    # a header that includes a C++ header of the repository is C++, through a chain of includes
    chain = {**mixed, "include/base.h": "cpp", "include/core.h": "c", "include/fmt-c.h": "c"}
    includes = {"include/os.h": ["core.h"], "include/core.h": ["base.h"], "include/fmt-c.h": ["stdio.h"]}
    settled = settle_headers(chain, includes)
    assert (settled["include/core.h"], settled["include/os.h"], settled["include/fmt-c.h"]) == ("cpp", "cpp", "c")


def test_walk_labels_headers(tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "plain.h").write_text("#define FMT_VERSION 1\nint f(int);\n")
    (tmp_path / "include" / "core.h").write_text("namespace fmt {\nint f(int);\n}\n")
    (tmp_path / "format.cc").write_text('#include "core.h"\nint fmt::f(int x) { return x; }\n')
    langs = {f.rel: f.lang for f in walk(tmp_path).files}
    assert langs == {"include/plain.h": "cpp", "include/core.h": "cpp", "format.cc": "cpp"}
    (tmp_path / "glue.c").write_text("int g(void) { return 0; }\n")
    langs = {f.rel: f.lang for f in walk(tmp_path).files}
    assert langs["include/plain.h"] == "c" and langs["include/core.h"] == "cpp"


# --------------------------------------------------------------------------- Python overloads

OVERLOADED = src('''
    import typing as t
    from typing import overload

    @t.overload
    def command(name: t.Callable[..., t.Any]) -> Command: ...

    @t.overload
    def command(name: str | None = None, **attrs: t.Any) -> t.Callable[[F], Command]:
        """With a name: returns a decorator."""

    def command(name=None, cls=None, **attrs):
        """Creates a new Command and uses the decorated function as callback."""
        return Command(name)

    class Context:
        @overload
        def get(self, key: str) -> str: ...
        @overload
        def get(self, key: str, default: int) -> str | int: ...
        def get(self, key, default=None):
            return default
    ''')


def test_overload_stubs_give_way_to_the_implementation() -> None:
    fm = parse_source(OVERLOADED, "python")
    commands = [d for d in fm.definitions if d.qualified_name == "command"]
    assert len(commands) == 1
    cmd = commands[0]
    assert cmd.signature == "def command(name=None, cls=None, **attrs)"
    assert cmd.start_line == OVERLOADED.splitlines().index("def command(name=None, cls=None, **attrs):") + 1
    # the implementation's docstring first, then what an overload says of itself
    assert cmd.doc == ("Creates a new Command and uses the decorated function as callback.\n\n"
                       "With a name: returns a decorator.")
    gets = [d for d in fm.definitions if d.qualified_name == "Context.get"]
    assert [(d.kind, d.signature) for d in gets] == [("method", "def get(self, key, default=None)")]


def test_a_stub_file_keeps_one_overload_per_name() -> None:
    stub = src('''
        from typing import overload
        @overload
        def f(x: int) -> int:
            """For ints."""
        @overload
        def f(x: str) -> str: ...
        ''')
    fs = [d for d in parse_source(stub, "python").definitions if d.name == "f"]
    assert [(d.signature, d.doc) for d in fs] == [("def f(x: int) -> int", "For ints.")]


# --------------------------------------------------------------------------- doc markup

GSON_DOC = src('''
    /**
     * This is the main class for using Gson. It is used by invoking {@link #toJson(Object)} or
     * {@link #fromJson(String, Class) fromJson(String, Class)} methods on it.
     *
     * <p>You can create a {@code Gson} instance by invoking {@link #Gson() new Gson()}. A
     * {@code Map<String, List<Integer>>} or a {@code {"a": 1}} literal; a List&lt;String&gt; in prose,
     * and 1 &lt; 2 &amp;&amp; 3 &gt; 2.
     *
     * <p>Here is an example of how Gson is used:
     *
     * <pre>{@code
     * Gson gson = new GsonBuilder()
     *     .setPrettyPrinting()
     *     .create();
     * Map<String, Integer> m = gson.fromJson("{}", type);
     * }</pre>
     *
     * <h2>{@code JsonElement} as JSON data</h2>
     * <ul>
     *   <li>Use <b>strict</b> mode
     *   <li>See <a href="https://github.com/google/gson">the guide</a>
     * </ul>
     */
    ''')


def test_javadoc_html_and_inline_tags_become_markdown() -> None:
    from orchestrator.text import docstrings

    md = docstrings.to_markdown(GSON_DOC, "java")
    prose = "\n".join(ln for ln in md.split("```java")[0].splitlines())
    for raw in ("<p>", "{@code", "{@link", "&lt;", "&amp;", "<pre>", "<li>", "<b>", "<a "):
        assert raw not in md, (raw, md)
    assert "invoking `toJson()` or fromJson(String, Class) methods" in prose
    assert "by invoking new Gson()." in prose
    assert "A `Map<String, List<Integer>>` or a `{\"a\": 1}` literal; a `List<String>` in prose" in prose
    assert "and 1 < 2 && 3 > 2." in prose
    assert "**`JsonElement` as JSON data**" in md
    assert "- Use **strict** mode" in md and "- See [the guide](https://github.com/google/gson)" in md
    # the <pre> block is one example, indentation and generics kept, right after its sentence
    assert ("Here is an example of how Gson is used:\n\n```java\nGson gson = new GsonBuilder()\n"
            "    .setPrettyPrinting()\n    .create();\nMap<String, Integer> m = gson.fromJson(\"{}\", type);\n```") in md


def test_brackets_in_inline_code_are_kept() -> None:
    from orchestrator.text import markup

    assert markup.inline("Use `f()[key][0]` to read it.") == "Use `f()[key][0]` to read it."
    assert markup.inline("Use `a[0](x)` here.") == "Use `a[0](x)` here."
    # outside code, links still become their text
    assert markup.inline("See [the docs][ref] and [`Foo`](crate::Foo).") == "See the docs and `Foo`."


def test_an_example_stays_after_the_sentence_that_introduces_it() -> None:
    from orchestrator.text import docstrings

    doc = "Runs the command.\n\nFor example:\n\n```go\nr.Get(\"/\", h)\n```\n\nThen it returns."
    parts = docstrings.parse(doc, "go")
    assert [b.kind for b in parts.blocks] == ["p", "p", "code", "p"] and not parts.examples
    alone = docstrings.parse("Runs the command.\n\n```go\nr.Get(\"/\", h)\n```", "go")
    assert [e.text for e in alone.examples] == ['r.Get("/", h)']  # no introducing sentence: an example



def test_only_complete_entities_are_decoded() -> None:
    from orchestrator.text import markup

    assert markup.html_doc("Calls &copyFrom and &notify; then &#64;Nullable &amp; x.") == \
        "Calls &copyFrom and &notify; then @Nullable & x."


# --------------------------------------------------------------------------- vendored code

def test_a_vendored_test_framework_is_left_out(tmp_path: Path) -> None:
    from orchestrator.repo.classify import vendored_copy

    for rel in ("test/gtest/gtest.h", "test/gtest/gmock/gmock.h", "src/format.cc", "googletest/src/gtest.cc"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("namespace testing { int f(); }\n")
    tree = walk(tmp_path)
    assert [f.rel for f in tree.files] == ["googletest/src/gtest.cc", "src/format.cc"]
    assert [(s.rel, s.reason) for s in tree.skipped] == [("test/gtest", "vendored (a copy of googletest)")]
    assert vendored_copy("googletest") is None  # the googletest repository's own code is its code
    assert vendored_copy("third/deps/catch2") == "vendored (a copy of Catch2)"


def test_rst_escaped_suffix_after_inline_code_is_joined() -> None:
    from orchestrator.text import markup

    assert markup.inline(r"attach all decorated :func:`option`\s as parameters") == \
        "attach all decorated `option()`s as parameters"
    assert markup.inline(r"a newline is `\n` here") == r"a newline is `\n` here"


def test_html_in_a_javascript_doc_is_its_content() -> None:
    from orchestrator.text import docstrings

    doc = "/**\n * Send a response.\n *\n * Examples:\n *\n *     res.send('<p>some html</p>');\n */"
    md = docstrings.to_markdown(doc, "javascript")
    assert "res.send('<p>some html</p>');" in md


def test_template_specializations_keep_their_own_name() -> None:
    code = src('''
        template <typename T> struct is_ref : std::false_type {};
        template <typename T> struct is_ref<std::reference_wrapper<T>> : std::true_type {};
        template <typename T>
        struct is_string_like<T, void_t<decltype(std::declval<T>().find_first_of(
                                      typename T::value_type(), 0))>> : std::true_type {};
        template <> struct formatter<date> {};
        ''')
    names = [d.name for d in parse_source(code, "cpp").definitions]
    assert names == ["is_ref", "is_ref<std::reference_wrapper<T>>", "is_string_like<…>", "formatter<date>"]
