"""The outline's part titles as a reader sees them in headless Chromium (test_browser's
module-scoped browser): above each group of chapters on the index, in the table of contents
beside every page with the chapters under their part, and on the print page; in Chinese for a
Chinese book."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import (
    TEMPLATES,
    _publish,
    browser,  # noqa: F401  (the module's headless Chromium)
)

from orchestrator.publish import ChapterDoc, Site

pytestmark = pytest.mark.slow

DOCS = (
    ChapterDoc("ch01", "minikv at a glance", "What the store is for.", 1, "# minikv at a glance\n\nA store.\n"),
    ChapterDoc("ch02", "Writing a key", "How a put reaches the disk.", 2, "# Writing a key\n\nThe log first.\n"),
    ChapterDoc("ch03", "Reading a key", "How a get finds it.", 2, "", ready=False, note="waits for a person"),
    ChapterDoc("ch04", "Files on disk", "The helpers everything uses.", 3, "# Files on disk\n\nfsync.\n"),
)
PARTS = (("The big picture", ("ch01",)), ("Using minikv", ("ch02", "ch03")), ("Foundations and utilities", ("ch04",)))

PART_TITLES = "Array.from(document.querySelectorAll('{sel}')).map(e => e.textContent.trim())"
TOC = """Array.from(document.querySelectorAll('#Sidebar .toc-part')).map(p => [
    p.querySelector('.toc-part-label').textContent.trim(),
    Array.from(p.querySelectorAll('li')).map(li => li.textContent.trim().split('\\n')[0].trim())])"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    out = {}
    for lang, parts in (("en", PARTS), ("zh", (("全局概览", ("ch01",)), ("使用 minikv", ("ch02", "ch03")),
                                                ("基础与工具", ("ch04",))))):
        d = tmp_path_factory.mktemp(f"parts-{lang}")
        out[lang] = _publish(Site("Inside minikv", lang, "developers", DOCS, (), (TEMPLATES,), root=d, parts=parts), d)
    return out


def test_the_index_and_every_page_s_contents_show_the_outline_s_part_titles(browser, sites):
    site = sites["en"]
    want = ["Part 1 · The big picture", "Part 2 · Using minikv", "Part 3 · Foundations and utilities"]
    browser.goto((site / "index.html").as_uri())
    assert browser.js(PART_TITLES.format(sel=".cover .part-title")) == want
    # each part's chapters under its title on the index, the waiting one listed, not linked
    groups = browser.js("""Array.from(document.querySelectorAll('.toc-part-block')).map(b =>
        Array.from(b.querySelectorAll('.cover-toc-title')).map(t => t.textContent.trim()))""")
    assert groups == [["minikv at a glance"], ["Writing a key", "Reading a key"], ["Files on disk"]]
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=1280, height=900,
                 deviceScaleFactor=1, mobile=False)  # the sidebar beside the page (a phone's is a drawer)
    try:
        for page in ("index.html", "ch02.html", "ch04.html"):
            browser.goto((site / page).as_uri())
            toc = browser.js(TOC)
            assert [label for label, _ in toc] == want, page
            assert [len(entries) for _, entries in toc] == [1, 2, 1], (page, toc)
            # the labels are shown, not only present
            assert browser.js("""Array.from(document.querySelectorAll('#Sidebar .toc-part-label'))
                .every(e => e.getBoundingClientRect().height > 0 && getComputedStyle(e).visibility !== 'hidden')""")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
    browser.goto((site / "print.html").as_uri())
    assert browser.js(PART_TITLES.format(sel=".print-toc .part-title")) == want
    # a part's title above its first published chapter: Part 2 right before Writing a key
    assert browser.js("""(() => { const p = Array.from(document.querySelectorAll('.print-part'));
        return p.map(e => [e.textContent.trim(), e.nextElementSibling.id]); })()""") == [
        [want[0], "ch01"], [want[1], "ch02"], [want[2], "ch04"]]
    assert browser.errors() == []


def test_a_chinese_book_s_parts_read_in_chinese(browser, sites):
    browser.goto((sites["zh"] / "ch01.html").as_uri())
    toc = browser.js(TOC)
    assert [label for label, _ in toc] == ["第 1 部分 · 全局概览", "第 2 部分 · 使用 minikv", "第 3 部分 · 基础与工具"]
    browser.goto((sites["zh"] / "index.html").as_uri())
    assert browser.js(PART_TITLES.format(sel=".cover .part-title"))[0] == "第 1 部分 · 全局概览"
    assert browser.errors() == []
