"""Doxygen commands in C and C++ doc comments become Markdown (issue 23 item 4), as Javadoc does:
a parameter list, a result, notes, and code blocks kept whole."""

from __future__ import annotations

from orchestrator.text.docstrings import parse, to_markdown
from orchestrator.text.markup import doxygen

DOC = r"""/**
 * \brief Connect to a Redis server.
 *
 * Opens a blocking connection; use \c redisConnectNonBlock for the
 * other kind, and see @ref redisFree. The port is \p port.
 *
 * Example:
 * \code{.c}
 * redisContext *c = redisConnect("127.0.0.1", 6379);
 * if (c == NULL || c->err) {
 *     printf("@param is not a tag here\n");
 * }
 * \endcode
 *
 * @param[in] ip   the server's address
 * @param port the server's port
 * \return a context, or NULL when out of memory
 * \retval NULL no memory
 * @note The caller frees it with redisFree().
 * @warning Not thread safe.
 * @see redisConnectWithOptions
 */"""


def test_doxygen_tags_become_parameters_result_notes_and_a_whole_code_block():
    parts = parse(DOC, "c")
    assert parts.summary == "Connect to a Redis server."
    assert [(i.name, i.text) for i in parts.params] == [("ip", "the server's address"), ("port", "the server's port")]
    assert [i.text for i in parts.returns] == ["a context, or NULL when out of memory", "`NULL` no memory"]
    assert [(n.name, n.text) for n in parts.notes] == [("note", "The caller frees it with redisFree()."),
                                                       ("warning", "Not thread safe."),
                                                       ("see also", "redisConnectWithOptions")]
    code = [b for b in parts.blocks + parts.examples if b.kind == "code"]
    assert len(code) == 1 and code[0].lang == "c"
    assert code[0].text.splitlines() == ['redisContext *c = redisConnect("127.0.0.1", 6379);',
                                         "if (c == NULL || c->err) {", '    printf("@param is not a tag here\\n");', "}"]
    md = to_markdown(DOC, "c")
    assert "`redisConnectNonBlock`" in md and "`redisFree`." in md and "`port`." in md
    for raw in ("\\brief", "\\code", "\\endcode", "@param", "\\return", "@note", "@ref", "\\c "):
        assert raw not in md.replace('printf("@param is not a tag here', ""), raw
    # the example stays after the sentence that introduces it
    assert md.index("Example:") < md.index("```c") < md.index("**Parameters**")


def test_doxygen_leaves_other_comments_and_other_languages_alone():
    plain = "Formats `args` and writes the output.\n\n    fmt::print(\"{}\", 42);"
    assert doxygen(plain, "cpp") == plain
    assert doxygen("Write to a@b.com, not @param-like text.", "c") == "Write to a@b.com, not @param-like text."
    js = parse("/** @param {string} name the name\n @note not a JSDoc tag */", "javascript")
    assert [i.name for i in js.params] == ["name"]


def test_verbatim_and_tparam():
    doc = "/// Formats a value.\n/// \\tparam T the type\n/// \\verbatim\n/// {:>8}\n/// \\endverbatim\n"
    parts = parse(doc, "cpp")
    assert [(i.name, i.text) for i in parts.params] == [("T", "the type")]
    assert [b.text for b in parts.blocks + parts.examples if b.kind == "code"] == ["{:>8}"]
