"""A chapter written from a partial view says so (issue 36 item 5): the research report's "Left
out of the sources" section is the record; the page shows a note under the first paragraph,
naming what was cut, in the book's language; a chapter whose sources all fit shows none."""

from __future__ import annotations

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
