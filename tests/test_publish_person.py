"""Issue 13 on the publisher's side: pure functions of a Site. Link texts follow renames,
links to a retired chapter become text, a chapter not ready is listed without a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator import publish
from orchestrator.errors import UsageError
from orchestrator.publish import ChapterDoc, Site

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"

CH01 = """# Storing keys

Before reading on, see [Old compaction title](ch02.md) and [how segments merge](ch02.md),
and [the section](ch02.md#merging). The [reader chapter](ch03.md) is gone.
"""
CH02 = "# Compacting segments\n\n## Merging\n\nSegments merge.\n"


def site(**kw) -> Site:
    base = dict(
        title="Inside minikv", language="en", audience="Developers",
        chapters=(ChapterDoc("ch01", "Storing keys", "s", 1, CH01),
                  ChapterDoc("ch02", "Compacting segments", "s", 1, CH02, former_titles=("Old compaction title",))),
        glossary=(), template_dirs=(TEMPLATES,), retired=("ch03",))
    base.update(kw)
    return Site(**base)


def test_link_texts_follow_the_current_title_and_retired_links_become_text():
    page, problems = publish.render_chapter(site(), "ch01")
    assert problems == []  # a link to a retired chapter is not a broken link
    assert '<a href="ch02.html">Compacting segments</a>' in page  # a former title: renamed
    assert '<a href="ch02.html">how segments merge</a>' in page  # the author's own words: kept
    assert '<a href="ch02.html#merging">the section</a>' in page
    assert "The reader chapter is gone." in page and "ch03.html" not in page


def test_a_chapter_not_ready_is_listed_without_a_page():
    s = site(chapters=(ChapterDoc("ch01", "Storing keys", "s", 1, CH01.replace("ch03", "ch02")),
                       ChapterDoc("ch02", "Compacting segments", "s", 1, "", ready=False,
                                  note="ch02: draft failed — see needs-human.md")), retired=())
    files, problems = publish.render_site(s)
    assert "ch02.html" not in files and "ch01.html" in files
    assert problems == []  # links to a chapter that is not ready yet are not broken: it comes
    # "not ready yet", and no operator text: what to do is for the CLI, not the public site
    assert "not ready yet" in files["index.html"] and "draft failed" not in files["index.html"]
    assert "needs-human" not in files["ch01.html"]
    assert 'class="toc-chapter not-ready"' in files["ch01.html"]
    with pytest.raises(UsageError, match="not ready"):
        publish.render_chapter(s, "ch02")
