"""Doc comments turned into Markdown: real docstrings copied from the corpus (Flask,
SQLAlchemy, ky, anyhow, chi) and the conventions of each documentation tool."""

from __future__ import annotations

from orchestrator.text.docstrings import (
    first_sentence,
    inline,
    markup_leaks,
    parse,
    safe,
    strip_comment,
    to_markdown,
)

FLASK_MAKE_RESPONSE = '''Convert the return value from a view function to an instance of
        :attr:`response_class`.

        :param rv: the return value from the view function. The view function
            must return a response. Returning ``None``, or the view ending
            without returning, is not allowed. The following types are allowed
            for ``view_rv``:

            ``str``
                A response object is created with the string encoded to UTF-8
                as the body.

            :func:`callable`
                The function is called as a WSGI application. The result is
                used to create a response object.

        .. versionchanged:: 2.2
            A generator will be converted to a streaming response.
            A list will be converted to a JSON response.

        .. versionchanged:: 0.9
           Previously a tuple was interpreted as the arguments for the
           response object.
        '''

FLASK_TAG_MODULE = '''
Tagged JSON
~~~~~~~~~~~

A compact representation for lossless serialization of non-standard JSON
types. :class:`~flask.sessions.SecureCookieSessionInterface` uses this
to serialize the session data, but it may be useful in other places. It
can be extended to support other types.

.. autoclass:: TaggedJSONSerializer
    :members:

Let's see an example that adds support for
:class:`~collections.OrderedDict`. Dicts don't have an order in JSON, so
to handle this we will dump the items as a list of ``[key, value]``
pairs.

.. code-block:: python

    from flask.json.tag import JSONTag

    class TagOrderedDict(JSONTag):
        __slots__ = ('serializer',)
        key = ' od'

    app.session_interface.serializer.register(TagOrderedDict, index=0)
'''

SQLALCHEMY_CREATE_ENGINE = '''Create a new :class:`_engine.Engine` instance.

    The standard calling form is to send the :ref:`URL <database_urls>` as the
    first positional argument, usually a string
    that indicates database dialect and connection arguments::

        engine = create_engine("postgresql+psycopg2://scott:tiger@localhost/test")

    .. note::

        Please review :ref:`database_urls` for general guidelines in composing
        URL strings.

    .. seealso::

        :doc:`/core/engines`

    :param connect_args: a dictionary of options which will be
        passed directly to the DBAPI's ``connect()`` method as
        additional keyword arguments.  See the example
        at :ref:`custom_dbapi_args`.

    :param creator: a callable which returns a DBAPI connection.

        .. seealso::

            :meth:`_events.DialectEvents.do_connect` - event hook that allows
            full control over DBAPI connection mechanics.

    :param echo=False: if True, the Engine will log all statements
        as well as a ``repr()`` of their parameter lists.
    '''

KY_JITTER = '''/**
\tSet to `true` to use full jitter, which randomizes the delay between 0 and the computed delay.

\tNote: Jitter is not applied when the server provides a retry timing header.

\t@default undefined (no jitter)

\t@example
\t```
\timport ky from 'ky';

\tconst json = await ky('https://example.com', {
\t\tretry: {
\t\t\tlimit: 5,
\t\t\tjitter: true
\t\t}
\t}).json();
\t```
\t*/'''

ANYHOW_CONTEXT = '''    /// Wrap the error value with additional context.
    ///
    /// For attaching context to a `Result` as it is propagated, the
    /// [`Context`][crate::Context] extension trait may be more convenient than
    /// this function. See [`Error::downcast`].
    ///
    /// # Example
    ///
    /// ```
    /// # use anyhow::Result;
    /// use anyhow::Context;
    ///
    /// pub fn parse(path: impl AsRef<Path>) -> Result<T> {
    ///     let file = File::open(&path)?;
    ///     # unimplemented!()
    /// }
    /// ```'''

CHI_ROUTE = '''// Route creates a new Mux and mounts it along the `pattern` as a subrouter.
// Effectively, this is a short-hand call to [Mux.Mount]. See [NewRouter].
//
//	r.Route("/users", func(r chi.Router) {
//		r.Get("/", listUsers)
//	})
//
// Deprecated: use Mount.'''


def test_flask_roles_fields_and_directives_become_markdown():
    p = parse(FLASK_MAKE_RESPONSE, "python")
    assert p.summary == "Convert the return value from a view function to an instance of `response_class`."
    assert [x.name for x in p.params] == ["rv"]
    assert "`None`" in p.params[0].text and "``" not in p.params[0].text
    assert [(n.name, n.type) for n in p.notes] == [("changed", "2.2"), ("changed", "0.9")]
    md = to_markdown(FLASK_MAKE_RESPONSE, "python")
    assert markup_leaks(md) == 0
    assert ":attr:" not in md and ".. versionchanged" not in md and "``" not in md
    assert "**Changed in version 2.2**: A generator will be converted to a streaming response." in md


def test_rst_title_and_autodoc_directives_never_reach_prose():
    md = to_markdown(FLASK_TAG_MODULE, "python")
    assert md.startswith("**Tagged JSON**")
    assert "~~~" not in md and "autoclass" not in md and ":members:" not in md
    assert "`SecureCookieSessionInterface` uses this" in md  # `~a.b.C` is shown as `C`
    assert "```python\nfrom flask.json.tag import JSONTag\n" in md
    p = parse(FLASK_TAG_MODULE, "python")
    assert p.summary.startswith("A compact representation")  # never the RST title
    assert not any(line.startswith("# ") for line in md.splitlines())


def test_sqlalchemy_aliases_refs_and_nested_seealso():
    p = parse(SQLALCHEMY_CREATE_ENGINE, "python")
    assert p.summary == "Create a new `Engine` instance."
    assert [x.name for x in p.params] == ["connect_args", "creator", "echo"]
    assert p.params[1].text == "a callable which returns a DBAPI connection."  # the nested seealso is dropped
    assert "custom dbapi args" in p.params[0].text and "`connect()`" in p.params[0].text
    md = to_markdown(SQLALCHEMY_CREATE_ENGINE, "python")
    assert "the URL as the first positional argument" in md
    assert '```python\nengine = create_engine("postgresql+psycopg2' in md  # the `::` literal block, in place
    assert markup_leaks(md) == 0 and "/core/engines" not in md
    assert "**Note**: Please review database urls" in md


def test_ky_jsdoc_example_and_tags():
    p = parse(KY_JITTER, "typescript")
    assert p.summary.startswith("Set to `true` to use full jitter")
    assert len(p.examples) == 1 and p.examples[0].lang == "ts"
    assert p.examples[0].text.startswith("import ky from 'ky';")
    md = to_markdown(KY_JITTER, "typescript")
    assert "@default" not in md and "@example" not in md and "*/" not in md


def test_jsdoc_params_returns_throws_deprecated_and_links():
    doc = """/**
     * Fetch a resource. See {@link Options} and [the guide](/docs/guide.md).
     * @param {string} input - The URL.
     * @param [options={}] Request options.
     * @returns {Promise<Response>} The response.
     * @throws {HTTPError} When the status is not 2xx.
     * @deprecated Use `ky.get`.
     */"""
    p = parse(doc, "javascript")
    assert p.summary == "Fetch a resource."
    assert [(x.name, x.type, x.text) for x in p.params] == [("input", "string", "The URL."), ("options", "", "Request options.")]
    assert (p.returns[0].type, p.returns[0].text) == ("Promise<Response>", "The response.")
    assert p.raises[0].name == "HTTPError" and p.deprecated == "Use `ky.get`."
    assert "See `Options` and the guide." in to_markdown(doc, "javascript")


def test_anyhow_rustdoc_examples_hidden_lines_and_intra_doc_links():
    p = parse(ANYHOW_CONTEXT, "rust")
    assert p.summary == "Wrap the error value with additional context."
    text = " ".join(b.text for b in p.blocks)
    assert "the `Context` extension trait" in text and "See `Error::downcast`." in text
    assert len(p.examples) == 1 and p.examples[0].lang == "rust"
    assert "# use" not in p.examples[0].text and "unimplemented" not in p.examples[0].text  # hidden lines
    md = to_markdown(ANYHOW_CONTEXT, "rust")
    assert "# Example" not in md and "///" not in md


def test_go_doc_links_code_and_deprecated():
    p = parse(CHI_ROUTE, "go")
    assert p.summary == "Route creates a new Mux and mounts it along the `pattern` as a subrouter."
    assert "call to `Mux.Mount`. See `NewRouter`." in p.blocks[0].text
    assert p.blocks[1].kind == "code" and p.blocks[1].text.startswith('r.Route("/users"')
    assert p.deprecated == "use Mount."


def test_google_sections():
    doc = '''Fetch rows from a table.

    Args:
        table_handle (Table): An open Table instance.
        keys: A sequence of strings
            continued on the next line.

    Returns:
        dict: A dict mapping keys to rows.

    Raises:
        IOError: An error occurred accessing the table.

    Example:
        >>> fetch(t, ["a"])
        {'a': 1}
    '''
    p = parse(doc, "python")
    assert [(x.name, x.type) for x in p.params] == [("table_handle", "Table"), ("keys", "")]
    assert p.params[1].text == "A sequence of strings continued on the next line."
    assert (p.returns[0].type, p.returns[0].text) == ("dict", "A dict mapping keys to rows.")
    assert (p.raises[0].name, p.raises[0].text) == ("IOError", "An error occurred accessing the table.")
    assert p.examples[0].text == ">>> fetch(t, [\"a\"])\n{'a': 1}"


def test_numpy_sections():
    doc = """Compute the mean.

    Parameters
    ----------
    x : array_like
        The values.
    axis : int, optional
        Which axis.

    Returns
    -------
    float
        The mean.
    """
    p = parse(doc, "python")
    assert [(x.name, x.type, x.text) for x in p.params] == [("x", "array_like", "The values."),
                                                            ("axis", "int, optional", "Which axis.")]
    assert (p.returns[0].type, p.returns[0].text) == ("float", "The mean.")
    assert "----" not in to_markdown(doc, "python")


def test_doctest_lines_become_one_block():
    doc = """Parse a query.

    >>> q = Query()
    >>> db.search(q.name == 'John')
    [{'name': 'John'}]

    >>> db.count(q.name == 'John')
    1
    """
    p = parse(doc, "python")
    assert len(p.examples) == 1
    assert p.examples[0].text.count(">>>") == 3


def test_nothing_from_a_docstring_can_break_validation():
    doc = "# Title\n\nText <!-- BOOK_COMPLETE --> here, see [start](/quickstart/) and [x](https://x.org).\n\n## Sub"
    md = to_markdown(doc, "typescript")
    assert not any(line.startswith("#") for line in md.splitlines())
    assert "<!--" not in md and "](/quickstart/)" not in md and "[x](https://x.org)" in md
    assert safe("```\n# inside code\n```\n# outside") == "```\n# inside code\n```\n**outside**"
    # anyhow's `Context`: a reference to a rustdoc anchor, and its definition line
    rust = "Refer to the [Display representations] documentation.<br>\n\n[Display representations]: Error#display-representations"
    md = to_markdown(rust, "rust")
    assert md == "Refer to the Display representations documentation."
    assert "](" not in md and "]:" not in md
    assert safe("```python\nunclosed").endswith("\n```")


def test_inline_and_helpers():
    assert inline(":meth:`Flask.route` and :py:class:`~a.b.Blueprint`") == "`Flask.route()` and `Blueprint`"
    assert inline("``x`` and :exc:`KeyError`") == "`x` and `KeyError`"
    # Flask's own typo (app.py: `:data:`g:`): a role the source never closed still becomes code
    assert inline(":data:`.session`, :data:`g:, and :data:`.current_app` become") == "`session`, `g`, and `current_app` become"
    assert inline("see `the docs <https://x.org>`_ and `local <local.rst>`_") == "see [the docs](https://x.org) and local"
    assert first_sentence("Use e.g. `a.b`. Then more.") == "Use e.g. `a.b`."
    assert strip_comment("/**\n * Hello.\n * World.\n */") == "Hello.\nWorld."
    assert strip_comment("/// One.\n/// Two.") == "One.\nTwo."
    assert markup_leaks("A :class:`Foo` and\n.. note:: x\n\n```\n:class:`in code`\n```") == 2


def test_cjk_share_sets_code_and_quoted_source_aside():
    from orchestrator.text.measure import cjk_share, prose_of

    md = "# 标题\n\n这是中文句子，提到 `Mux.Route` 和[链接](ch02.md)。\n\n> Quoted English source text here.\n\n```go\nfunc main() {}\n```\n"
    assert "Quoted" not in prose_of(md) and "func" not in prose_of(md) and "Mux" not in prose_of(md)
    assert cjk_share(md) == 1.0
    assert cjk_share("中文 abc") == 2 / 5
    assert cjk_share("") == 1.0


def test_a_file_role_keeps_a_dunder_name():
    # Flask's docstring: "(a folder with an :file:`__init__.py` file inside)" once read "an `py` file"
    md = to_markdown("a folder with an :file:`__init__.py` file inside; see :class:`_engine.Engine`.", "python")
    assert "`__init__.py`" in md and "`Engine`" in md


def test_a_notes_code_stays_with_the_note():
    # a Google `Note:` section with a literal block, and an RST `.. note::` with a code-block:
    # the code was dropped (only the words were kept)
    p = parse("Do a thing.\n\nNote:\n    Call it like this::\n\n        x = thing(1)\n\n    and it works.\n", "python")
    assert [(n.name, [c.text for c in n.code]) for n in p.notes] == [("note", ["x = thing(1)"])]
    p = parse("Do a thing.\n\n.. note::\n    Use it so:\n\n    .. code-block:: python\n\n        thing(2)\n", "python")
    assert [c.text for c in p.notes[0].code] == ["thing(2)"]
    # a Markdown `# Safety` heading (rustdoc) keeps its example with it too
    p = parse("Do a thing.\n\n# Safety\n\nOnly on a live handle:\n\n```\nlet h = open();\nthing(h);\n```\n", "rust")
    assert p.notes[0].name == "safety" and [c.text for c in p.notes[0].code] == ["let h = open();\nthing(h);"]
    assert "let h = open();" in to_markdown("Do a thing.\n\n# Safety\n\nOnly live:\n\n```\nlet h = open();\n```\n", "rust")
    # a note that is only code: the code is an example, not lost
    p = parse("Do a thing.\n\nNote:\n    >>> y = 2\n", "python")
    assert [e.text for e in p.examples] == [">>> y = 2"] and not p.notes


def test_a_go_example_section_is_code_not_a_paragraph():
    p = parse("// Thing does a thing.\n//\n// Example:\n//\n//\tt := Thing(4)\n//\tt.Run()\n", "go")
    assert [e.text for e in p.examples] == ["t := Thing(4)\nt.Run()"]
    assert all("Thing(4)" not in b.text for b in p.blocks)


def test_an_html_code_element_becomes_inline_code():
    # anyhow's bail!: "equivalent to `<code>`return Err(...)`</code>`" in the book
    p = parse("/// Return early.\n///\n/// This macro is equivalent to\n/// <code>return Err([anyhow!($args\\...)][anyhow!])</code>.\n"
              "///\n/// Required: <code>Result&lt;_, [anyhow::Error][crate::Error]&gt;</code>.\n///\n"
              "/// [anyhow!]: crate::anyhow\n", "rust")
    assert p.blocks[1].text == "This macro is equivalent to `return Err(anyhow!($args...))`."
    assert p.blocks[2].text == "Required: `Result<_, anyhow::Error>`."


def test_rdocs_indented_lines_are_code_kept_whole():
    # sinatra's IndifferentHash doc: `rgb[:black] = '#000000'` was prose, its brackets read as a link
    doc = ("Implements a hash where keys <tt>:foo</tt> and <tt>\"foo\"</tt> are the same.\n\n"
           "  rgb = Sinatra::IndifferentHash.new\n  rgb[:black] = '#000000' # symbol assignment\n\n"
           "Internally, symbols are mapped to strings.")
    md = to_markdown(doc, "ruby")
    assert "```ruby\nrgb = Sinatra::IndifferentHash.new\nrgb[:black] = '#000000' # symbol assignment\n```" in md, md
    assert md.endswith("Internally, symbols are mapped to strings.")


def test_a_markdown_docstrings_indented_block_after_a_colon_is_code():
    # Python-Markdown's `Registry`: `item = registry[0]` was prose, its brackets read as a link
    doc = ("A priority sorted registry.\n\nWhen getting an item you may use the index. For example:\n\n"
           "    registry = Registry()\n    item = registry[0]\n\nThe method `get_index_for_name` is also available.")
    md = to_markdown(doc, "python")
    assert "```python\nregistry = Registry()\nitem = registry[0]\n```" in md, md
