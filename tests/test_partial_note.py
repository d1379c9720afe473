"""A chapter written from a partial view says so (issue 36 item 5): the research report's "Left
out of the sources" section is the record; the page shows a note under the first paragraph,
naming what was cut, in the book's language; a chapter whose sources all fit shows none."""

from __future__ import annotations

import json

import pytest

from orchestrator import publish
from orchestrator.agents.source_context import with_sources_cut
from orchestrator.publish import ChapterDoc, Site
from orchestrator.publish.partial_note import partial_note, with_partial_note
from orchestrator.resources import builtin
from orchestrator.state.partial_view import cut_items, partial_hash

TEMPLATES = builtin("templates")
CUT = ["`src/app.py`: 412 of 1536 lines shown (its best ranked definitions)", "`src/cli.py`: not shown (300 lines)",
       "`src/app.py`: 380 of 1536 lines shown (its first lines)",  # cut again by the window: the last line counts
       "why: the chapter's sources (90,000 characters) are more than one prompt may carry"]
REPORT = "# Research: ch01 — The app\n\n## Sources\n\nSee [app](source:src/app.py#L1-L9).\n"
CHAPTER = """\
# The app

The app object holds the configuration
and the routes.

```python
app = Flask(__name__)
```

See [nowhere](ch09.md).
"""


def _site(language: str = "en", partial=()) -> Site:
    return Site(title="Inside", language=language, audience="developers", template_dirs=(TEMPLATES,),
                chapters=(ChapterDoc("ch01", "The app", "What the app is.", 1, CHAPTER, partial=tuple(partial)),
                          ChapterDoc("ch02", "More", "More.", 1, "# More\n\nText.\n")),
                glossary=())


def test_the_report_s_cut_section_is_read_back_and_hashed():
    report = with_sources_cut(REPORT, CUT)
    assert cut_items(report) == [("src/cli.py", "not shown (300 lines)"),
                                 ("src/app.py", "380 of 1536 lines shown (its first lines)")]
    assert cut_items(REPORT) == [] and partial_hash(REPORT) is None  # all fitted: no input, no note
    assert partial_hash(report) == partial_hash(report + "\nA person's line after it.\n")
    assert partial_hash(report) != partial_hash(with_sources_cut(REPORT, CUT[1:2]))
    assert cut_items(with_sources_cut(REPORT, CUT, "zh"))[0][0] == "src/cli.py"


def test_a_page_written_from_a_partial_view_says_so_under_its_first_paragraph():
    items = cut_items(with_sources_cut(REPORT, CUT))
    site = _site(partial=items)
    html, problems = publish.render_chapter(site, "ch01")
    assert "Written from a partial view" in html and 'class="partial-view"' in html
    # under the first paragraph, before the code
    assert html.index("and the routes.") < html.index("partial view") < html.index("<pre")
    assert "2 files were left out in whole or in part (1,456 lines)" in html
    assert html.index("src/app.py") < html.index("src/cli.py")  # the file most cut is named first
    assert "380 of 1,536 lines shown" in html and "not shown" in html
    assert [p.line for p in problems] == [10]  # the note moves no line of the final a problem names
    other, _ = publish.render_chapter(site, "ch02")
    assert "partial view" not in other  # its sources all fitted
    assert "partial view" in publish.render_print(site)  # print, and so the EPUB and PDF
    md = publish.chapter_markdown(site, "ch01")
    assert md.index("and the routes.") < md.index("> **Written from a partial view.**") < md.index("```python")
    assert "partial view" not in publish.chapter_markdown(_site(), "ch01")


def test_the_note_is_in_the_book_s_language():
    items = cut_items(with_sources_cut(REPORT, CUT, "zh"))
    html, _ = publish.render_chapter(_site("zh", items), "ch01")
    assert "本章根据部分源码写成" in html and "2 个文件" in html and "显示了 1,536 行中的 380 行" in html
    assert "partial view" not in html


def test_a_note_never_lands_inside_a_fence_or_a_list():
    md = "# T\n\n- one\n\n  more of one\n- two\n\nAfter.\n"
    out = with_partial_note(md, partial_note([("a.py", "not shown (3 lines)")], "en"))
    assert out.index("- two") < out.index("> **Written") < out.index("After.")
    assert with_partial_note(md, "") == md and partial_note([], "en") == ""
    fence = "```\ncode\n\nmore\n```\n"
    assert with_partial_note(fence, "> n").startswith(fence.rstrip("\n"))


LEFT_OUT = {"src/app.py": ["Flask.run", "Flask.test_client", "Flask.wsgi_app", "Flask.make_response", "Flask.route",
                           "Flask.errorhandler", "Flask.url_for", "Flask.send_static_file"],
            "src/cli.py": ["main", "FlaskGroup"]}


def test_the_note_names_the_definitions_left_out_per_file_capped():
    report = with_sources_cut(REPORT, CUT, left_out=LEFT_OUT)
    assert "; left out: `Flask.run`, `Flask.test_client`," in report  # the record: the report's section
    items = cut_items(report)
    assert partial_hash(report) != partial_hash(with_sources_cut(REPORT, CUT))  # the page follows the names
    site = _site(partial=items)
    html, _ = publish.render_chapter(site, "ch01")
    assert "The definitions it could not see:" in html
    app = html[html.index("in <code>src/app.py</code>"):]
    app = app[:app.index("</li>")]
    # the most needed first, six named, the rest counted
    assert app.index("Flask.run") < app.index("Flask.test_client") and "and 2 more" in app
    assert "Flask.url_for" not in app and "Flask.errorhandler" in app
    assert "<code>main</code>, <code>FlaskGroup</code>" in html  # the other file's, in their own item
    assert "FlaskGroup" in publish.render_print(site)  # print, and so the EPUB and PDF
    md = publish.chapter_markdown(site, "ch01")
    assert "> - in `src/cli.py`: `main`, `FlaskGroup`" in md
    assert md.index("and the routes.") < md.index("Flask.run") < md.index("```python")
    zh, _ = publish.render_chapter(_site("zh", cut_items(with_sources_cut(REPORT, CUT, "zh", LEFT_OUT))), "ch01")
    assert "本章看不到的定义" in zh and "另有 2 个" in zh and "FlaskGroup" in zh


def test_a_report_without_names_keeps_the_note_it_had():
    html, _ = publish.render_chapter(_site(partial=cut_items(with_sources_cut(REPORT, CUT))), "ch01")
    assert "Written from a partial view" in html and "could not see" not in html


@pytest.mark.slow  # a whole book through the fake compatible server
def test_through_a_small_window_the_page_names_the_definitions_the_chapter_could_not_see(tmp_path, monkeypatch):
    """A weak local model with a 32k window: a re-ask's room cuts a chapter's sources (as in
    test_server_honest); its page names the definitions left out, which are the map's
    definitions of that file whose first line the research prompt did not show."""
    from conftest import make_example

    from orchestrator.agents.source_context import NUMBERED_RE
    from orchestrator.authoring import project as project_mod
    from orchestrator.state.partial_view import left_out_names
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.fake_compatible import Compatible
    from orchestrator.testing.helpers import run_book
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer, compatible=Compatible(window=32768, off_contract=0.2, seed=5))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        ws = make_example(tmp_path / "ws", server="compatible", model="qwen3-coder", context_window=32768,
                          max_output=4096, provider="anthropic", retries=5)
        code, summary = run_book(ws)
        bodies = [json.dumps(r["body"], ensure_ascii=False) for r in api.message_requests() if r["body"]]
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    named = 0
    for report in sorted((ws / "output/research").glob("ch*-report.md")):
        ch = report.name.split("-")[0]
        for path, what in cut_items(report.read_text(encoding="utf-8")):
            names, _ = left_out_names(what)
            page = (ws / "output/publish" / f"{ch}.html").read_text(encoding="utf-8")
            defs = {d.qualified_name: d for d in project_mod.load(ws / "src", None).map.files[path].definitions}
            asked = [b for b in bodies if f"Write the research report for {ch}" in b]
            shown = {int(m.group(0)[:-1]) for b in asked[-1:]
                     for ln in b.split("\\n") if (m := NUMBERED_RE.match(ln))}
            assert shown  # the last research request showed part of the file, numbered
            for name in names:
                assert name in defs, (path, name)  # a definition the map knows, in that file
                assert defs[name].start_line not in shown  # whose first line the research prompt did not show
                assert f"<code>{name}</code>" in page, (ch, name)
            named += len(names)
            assert ("could not see" in page) == bool(names)
    assert named  # e.g. minikv/sstable.py's SSTable._block
