"""What a reader of an offline chapter trips over, fixed on small fixtures: step lists that
quote half a statement or a comment, steps that only rename a value, a glossary entry that
says only where a name is defined, "lines 34–34", and a usage example with no word on where
it comes from."""

from __future__ import annotations

from pathlib import Path

from orchestrator.authoring.codeinfo import steps
from orchestrator.authoring.write import enclosing_test

PY = '''def test_client(self, use_cookies=True):
    cls = self.test_client_class
    alias = cls
    if cls is None:
        from .testing import FlaskClient as cls
    return cls(  # type: ignore
        self, self.response_class, use_cookies=use_cookies
    )
'''

GO = '''func (mx *Mux) NotFound(handlerFn http.HandlerFunc) {
	m := mx
	m.notFoundHandler = handlerFn // from this point forward
	m.updateSubRoutes(func(subMux *Mux) {
		subMux.NotFound(handlerFn)
	})
}
'''


def test_steps_are_whole_statements_without_comments_or_renames():
    py = steps(PY, "python")
    assert py == [("set", "cls = self.test_client_class"), ("check", "cls is None"), ("return", "cls(…)")]
    go = steps(GO, "go")
    assert ("set", "m.notFoundHandler = handlerFn") in go
    assert ("call", "m.updateSubRoutes(…)") in go
    assert not any(code == "m := mx" for _, code in go)  # a new name for a value is not a step
    for _, code in py + go:
        assert code.count("(") == code.count(")") and "//" not in code and "#" not in code


def test_a_usage_names_the_test_it_comes_from():
    lines = ["import pytest", "", "def test_insert_many(db):", "    db.insert({'a': 1})", "    assert db"]
    assert enclosing_test(lines, 4) == "test_insert_many"
    go = ["package x", "func TestMount(t *testing.T) {", "\tr := NewRouter()", "\tr.Mount(\"/\", h)", "}"]
    assert enclosing_test(go, 4) == "TestMount"
    js = ["describe('app', () => {", "  it('should send json', async () => {", "    res.json({a: 1})", "  })"]
    assert enclosing_test(js, 3) == "should send json"
    assert enclosing_test(["x = 1", "y = f(x)"], 2) == ""


def _chapter(tmp_path: Path, files: dict[str, str] | None = None) -> str:
    from orchestrator.authoring import authors as authoring
    from orchestrator.outline import parse as parse_outline

    src = tmp_path / "src"
    (src / "tests").mkdir(parents=True)
    for name, text in (files or {}).items():
        (src / name).write_text(text)
    if not files:
        _store(src)
    ctx = _ctx_for(src)
    o = parse_outline(authoring.write_outline(ctx), "the plan", src)
    c = o.chapters[0]
    cctx = dict(ctx, chapter=c.entry(), outline_yaml=o.to_yaml(),
                chapters=[{"id": c.id, "title": c.title, "batch": c.batch, "summary": c.summary}])
    return authoring.write_draft(dict(cctx, research=authoring.write_research(cctx)))


def _ctx_for(src: Path) -> dict:
    return {"source_root": str(src), "language": "en", "limits": {"max_chapters": 12, "batch_size": 3},
            "book": {"title": "A Book", "audience": "readers", "brief": "How it works."},
            "personas": ["Newcomer: new"], "memory": {"metaphors": [], "glossary": []}, "chapters": []}


def _store(src: Path) -> None:
    (src / "store.py").write_text(
        '"""A tiny store."""\n\n\nclass Store:\n    """A store keeps values by key in memory.\n\n    More words.\n    """\n\n'
        "    def __init__(self):\n        self.data = {}\n\n"
        '    def put(self, key, value):\n        """Keep a value."""\n        self.data[key] = value\n\n'
        '    def get(self, key):\n        """The value kept for a key."""\n        return self.data.get(key)\n\n\n'
        "class Bare:\n    pass\n\n\nLIMIT = 10\n")
    (src / "tests" / "test_store.py").write_text(
        "from store import Store, Bare\n\n\ndef test_put_then_get():\n    s = Store()\n    s.put('a', 1)\n"
        "    assert s.get('a') == 1\n    Bare()\n")


def test_glossary_entries_define_and_usages_say_where_they_come_from(tmp_path: Path):
    text = _chapter(tmp_path)
    assert "**Store**: A store keeps values by key in memory (the class in `store.py`)." in text
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import _term_lines

    (tmp_path / "src" / "mux.go").write_text("package web\n\n// Mux is a request multiplexer.\ntype Mux struct {\n\tn int\n}\n")
    mux = [s for s in load(tmp_path / "src").symbols() if s.name == "Mux"]
    assert _term_lines(mux, set(), phrases("en"))[0] == "**Mux**: a request multiplexer (the struct in `mux.go`)."
    assert "**Bare**" not in text  # nothing to say about it but where it is: no entry
    assert "one of the names this chapter is built around" not in text
    # the test a usage comes from is named (said one of several ways: phrases.VARY_EN["usage_in_test"])
    from orchestrator.authoring.variety import VARY_EN

    assert any(f.split("`{test}`")[0] + "`test_put_then_get`" in text for f in VARY_EN["usage_in_test"]), text
    assert "–" not in "".join(ln for ln in text.splitlines() if "(line" in ln and "lines" not in ln)


def test_a_method_is_taken_from_another_chapter_only_with_its_type():
    from types import SimpleNamespace

    from orchestrator.authoring.research import _really_used

    fmt = SimpleNamespace(qualified_name="MyError::fmt", name="fmt")
    by_ref = SimpleNamespace(qualified_name="Mut.by_ref", name="by_ref")
    func = SimpleNamespace(qualified_name="construct", name="construct")
    assert not _really_used(fmt, {"MyError": 1, "fmt": 3})  # every type has a `fmt`
    assert not _really_used(by_ref, {"by_ref": 2})  # its type is not named here
    assert _really_used(by_ref, {"by_ref": 2, "Mut": 1})
    assert _really_used(func, {"construct": 1})


def test_a_sample_of_output_is_not_an_example_of_use():
    from orchestrator.authoring.write import shows_use

    assert not shows_use("2021-03-15 12:05:57.105542", "DATETIME")
    assert not shows_use("12:05:57.10558", "TIME")
    assert shows_use("dt = DATETIME(storage_format='%(year)04d')", "DATETIME")
    assert shows_use("let v = json!({\"a\": 1});", "json")
    assert shows_use("app.run(debug=True)", "run")


WSGI = '''def wsgi_app(self, environ, start_response):
    ctx = self.request_context(environ)
    try:
        try:
            ctx.push()
            response = self.full_dispatch_request(ctx)
        except Exception as e:
            response = self.handle_exception(ctx, e)
        return response(environ, start_response)
    finally:
        ctx.pop()
'''

JS = '''function parse(text) {
  try {
    const value = JSON.parse(text);
    return value;
  } catch (err) {
    throw new ParseError(err);
  }
}
'''


def test_a_try_step_says_what_it_tries_and_what_runs_when_it_fails():
    py = steps(WSGI, "python")
    assert py[1] == ("try_do", "ctx.push()\nresponse = self.full_dispatch_request(ctx)\n"
                               "return response(environ, start_response)")
    js = steps(JS, "javascript")
    assert js == [("try_catch", "const value = JSON.parse(text)\nreturn value\x1fthrow new ParseError(err)")]
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.write import _steps_block

    class S:  # the writer's view of a symbol: its names, file and language
        short, name, rel, lang = "parse", "parse", "parse.js", "javascript"

    text = "\n".join(_steps_block(JS.replace("  try {", "  log(text);\n  try {"), S(), phrases("en")))  # type: ignore[arg-type]
    # English: the steps are joined sentences (issue 35), the try said whole inside one
    assert "tries `const value = JSON.parse(text)` and `return value`; if that fails, it runs " \
           "`throw new ParseError(err)`" in text, text


def test_a_type_has_no_steps():
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.write import _steps_block

    class T:
        short, lang, kind = "KyInstance", "typescript", "interface"

    body = "type KyInstance = {\n  const json = await ky('x').json();\n  console.log(json);\n}"
    assert _steps_block(body, T(), phrases("en")) == []  # type: ignore[arg-type]


def test_a_one_line_c_family_if_checks_its_condition_not_the_statement_after_it():
    # acorn's `if (!curContext || !curContext.preserveSpace) this.skipSpace()`: "checks `… this.skipSpace()`" misread it
    code = ("pp.nextToken = function() {\n  if (!ctx || !ctx.preserveSpace) this.skipSpace()\n  this.start = this.pos\n"
            "  for (let i = 0; i < n; i++) this.go(i)\n  if (a) || b {\n    go()\n  }\n}")
    assert steps(code, "javascript")[:3] == [("check", "!ctx || !ctx.preserveSpace"), ("set", "this.start = this.pos"),
                                             ("loop", "let i = 0; i < n; i++")]
    assert steps(code, "javascript")[3] == ("check", "(a) || b")  # (more of the condition, not a statement)


def test_an_undocumented_functions_parameters_and_result_are_a_labelled_list_not_a_lead_in_sentence(tmp_path: Path):
    """A sentence before every function's parameters and after them for its result ("A single argument goes in:",
    "The caller gets `T` back.") was a third of a large book's repeated prose (issue 35): English lists them under
    the labels a documented function's list has; nothing given back needs no line."""
    src = ('def fetch(url: str, retries: int = 3) -> bytes:\n    data = _get(url)\n    return data\n\n\n'
           'def ping(host: str) -> None:\n    _get(host)\n\n\ndef _get(u: str) -> bytes:\n    return u.encode()\n')
    text = _chapter(tmp_path, {"net.py": src})
    assert "**Parameters**\n\n- `url` of type `str`" in text and "**Returns**\n\n- `bytes`" in text, text
    assert "gives back" not in text and "goes in:" not in text and "gives nothing back" not in text


def test_a_chapter_without_an_image_of_its_own_gets_none(tmp_path: Path):
    """No fixed list of metaphors: a router no longer becomes "a telephone switchboard" in every
    book (issue 35); without a picture in the project's own docs, the chapter draws none."""
    router = ('"""Routing requests to handlers."""\n\n\nclass Router:\n    """A router dispatches each request to '
              'its route."""\n\n    def dispatch(self, url):\n        """Find the route of a url."""\n        return url\n')
    text = _chapter(tmp_path, {"router.py": router})
    assert "Think of it as" not in text and "switchboard" not in text and "picture it as" not in text, text[:800]


def test_an_image_the_docs_draw_is_quoted_in_the_chapter_about_it_and_remembered(tmp_path: Path):
    from orchestrator.providers.offline import remember

    mw = ('"""Middleware around handlers."""\n\n\nclass Middleware:\n    """A middleware wraps a handler."""\n\n'
          '    def wrap(self, handler):\n        """Wrap a handler."""\n        return handler\n')
    readme = ("# Layers\n\nSome words first. Think of the middleware as being layered like an onion where each new "
              "layer wraps all previous layers. More words.\n\n```text\nThe router is like a switchboard.\n```\n")
    text = _chapter(tmp_path, {"middleware.py": mw, "README.md": readme})
    line = ("The project's own docs picture it as **an onion**: “Think of the middleware as being layered like an "
            "onion where each new layer wraps all previous layers.” (`README.md`, line 3).")
    assert line in text, text[:1500]
    assert "switchboard" not in text  # a picture inside a code block is not the docs' prose
    ctx = {"chapter": {"id": "ch01", "title": "T", "summary": "s"}, "draft": text, "chapters": [{"id": "ch01", "title": "T"}]}
    assert "- **an onion**: “Think of the middleware" in remember(ctx, {})


def test_an_image_goes_only_to_the_chapter_whose_code_it_is_about(tmp_path: Path):
    from orchestrator.authoring.images import _images, chapter_image
    from orchestrator.authoring.project import load

    (tmp_path / "README.md").write_text("A Context is like a luggage tag, travelling with the request.\n")
    (tmp_path / "ctx.py").write_text('class Context:\n    """The request context."""\n')
    p = load(tmp_path)
    [im] = _images((tmp_path / "README.md").read_text(), "README.md")
    assert (im.phrase, im.line, im.words) == ("a luggage tag", 1, frozenset({"context"}))
    assert chapter_image(p, ["Routing", "router.py", "Router"], set(), "en") is None
    assert chapter_image(p, ["The request", "ctx.py", "Context"], set(), "en") == im
    assert chapter_image(p, ["ctx.py", "Context"], {"a luggage tag"}, "en") is None  # taken by an earlier chapter
    assert chapter_image(p, ["ctx.py", "Context"], set(), "zh") is None  # an English sentence in a Chinese book


def test_a_deprecation_note_is_not_a_glossary_term(tmp_path: Path):
    import re

    old = '"""Old things."""\n\n\ndef old_api(x):\n    """Do the old thing.\n\n    .. deprecated:: 2.0\n        Use new_api.\n    """\n' \
          '    return x\n\n\ndef new_api(x):\n    """Do the new thing."""\n    return old_api(x)\n'
    text = _chapter(tmp_path, {"old.py": old})
    assert "Deprecated" in text, text
    # the memory keeper's reading of a glossary entry (providers/offline.py: remember)
    terms = [m.group(1) for ln in text.splitlines() if (m := re.match(r"\*\*(.+?)\*\*[:：]\s*(.+)$", ln))]
    assert not any("eprecated" in t for t in terms), terms


def test_a_doc_comments_code_reaches_the_chapter(tmp_path: Path):
    # a note's code block and every example of use (up to three) were dropped: only the note's
    # words and the first example were kept
    gizmo = ('"""Gizmos."""\n\n\ndef twiddle(n, times=1):\n'
             '    """Twiddle `n` the given number of times.\n\n'
             '    Note:\n        It is cheap; call it in a loop::\n\n            for i in range(3):\n'
             '                twiddle(i)\n\n'
             '    Examples:\n        >>> twiddle(2)\n        4\n\n        >>> twiddle(2, times=2)\n        8\n    """\n'
             '    for _ in range(times):\n        n = n * 2\n    return n\n')
    text = _chapter(tmp_path, {"gizmo.py": gizmo})
    assert "It is cheap; call it in a loop" in text
    assert "for i in range(3):\n    twiddle(i)" in text, text
    assert ">>> twiddle(2)\n4" in text and ">>> twiddle(2, times=2)\n8" in text


def test_a_chinese_glossary_entry_says_what_the_type_offers(tmp_path: Path):
    # a zh entry said only "defined in mux.go, one of the names this chapter is built around"
    from orchestrator.authoring.phrases import phrases
    from orchestrator.authoring.project import load
    from orchestrator.authoring.write import _term_lines

    src = tmp_path / "src"
    src.mkdir()
    (src / "mux.go").write_text("package web\n\n// Mux is a request multiplexer.\ntype Mux struct {\n\tn int\n}\n\n"
                                "// Handle registers a handler.\nfunc (m *Mux) Handle(p string) {\n\tm.n++\n}\n\n"
                                "// Serve answers.\nfunc (m *Mux) Serve() int {\n\treturn m.n\n}\n\n"
                                "type bare struct{}\n")
    (src / "app.go").write_text("package web\n\nfunc NewApp() *Mux {\n\treturn &Mux{}\n}\n")
    p = load(src)
    mux = [s for s in p.symbols() if s.name in ("Mux", "bare")]
    lines = _term_lines(mux, set(), phrases("zh"), p)
    entry = next(x for x in lines if x.startswith("**Mux**"))
    assert entry.startswith("**Mux**：`mux.go` 中的结构体，提供 2 个方法，主要有 `Handle` 与 `Serve`"), entry
    assert "另有 1 个文件用到它" in entry
    assert "源码注释：「Mux is a request multiplexer.」" in entry  # the English is quoted (「…」), not put in the sentence
    assert not any(x.startswith("**bare**") for x in lines)  # nothing known: no entry
