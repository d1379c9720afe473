"""The site's reader features in headless Chromium (the DevTools client of test_browser.py):
named parts, "On this page" beside a long chapter, the theme toggle remembered across pages,
the revision and date built, 404.html, sitemap.xml, the source-file index, "edit this page",
llms.txt with each chapter's Markdown beside its page, search counting "1 chapter" and opening
the first result on Enter, plain text left plain, and a Copy button that covers no code on a
390 px phone."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_browser import (
    TEMPLATES,
    _file_of,
    _publish,
    browser,  # noqa: F401  (the module's headless Chromium)
)

from orchestrator.publish import ChapterDoc, Site

pytestmark = pytest.mark.slow

LONG = "# Storing keys\n\nEvery put goes to the write-ahead log first.\n\n" + "".join(
    f"## Step {i}\n\nThe store does step {i} of a write here, carefully.\n\n" + "Filler prose. " * 40 + "\n\n"
    for i in range(1, 6)
) + ("```python file=minikv/store.py\n"
     "def put(self, key, value):  # a long first line that reaches the right edge of a phone screen\n"
     "    self.log.append((key, value))\n```\n\n"
     "```text\ndef plain(): this is output, not Python\n```\n")

CHAPTERS = (
    ChapterDoc("ch01", "Storing data — Record and encode", "How a write reaches the disk.", 1, LONG,
               file="output/chapters/final/ch01-final.md", sources=("minikv/record.py",)),
    ChapterDoc("ch02", "Compaction — merging segments", "Merging segments.", 2,
               "# Compaction\n\nOld segments are merged by the zanzibarite merger.\n",
               file="output/chapters/final/ch02-final.md", sources=("minikv/engine/compact.py",)),
    ChapterDoc("ch03", "Reading — get and scan", "Finding a key.", 2,
               "# Reading\n\nA read checks the memtable, then each segment.\n",
               file="output/chapters/final/ch03-final.md",
               sources=("minikv/engine/read.py", "minikv/engine/compact.py")),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    s = Site("Inside minikv", "en", "developers", CHAPTERS, (("segment", "A sorted file.", "ch02"),), (TEMPLATES,),
             root=out, revision="3f9a0c1d2e4b", built="2026-11-30")
    return _publish(s, out)


def test_parts_are_named_and_a_long_chapter_has_on_this_page(browser, site):
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=1400, height=900,
                 deviceScaleFactor=1, mobile=False)
    try:
        browser.goto((site / "ch01.html").as_uri())
        parts = browser.js("Array.from(document.querySelectorAll('.toc-part-label')).map(e => e.textContent)")
        # ch02 and ch03 share minikv/engine; ch01 alone is named by its title's subject
        assert parts == ["Part 1 · Storing data", "Part 2 · engine"]
        toc = browser.js("Array.from(document.querySelectorAll('#PageToc a')).map(a => a.textContent)")
        assert toc == [f"Step {i}" for i in range(1, 6)]
        # beside the text, not over it
        overlap = browser.js("""(() => { const t = document.getElementById('PageToc').getBoundingClientRect();
            const p = document.querySelector('.chapter > p:not(.chapter-label)').getBoundingClientRect();
            return t.left < p.right && p.left < t.right && t.top < p.bottom && p.top < t.bottom; })()""")
        assert browser.js("getComputedStyle(document.getElementById('PageToc')).position") == "fixed"
        assert overlap is False
        browser.goto((site / "ch02.html").as_uri())
        assert browser.js("document.getElementById('PageToc')") is None  # a short chapter has none
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
    assert browser.errors() == []


def test_theme_toggle_is_remembered_across_pages(browser, site):
    background = "getComputedStyle(document.body).backgroundColor"
    browser.goto((site / "ch01.html").as_uri())
    browser.js("localStorage.removeItem('book-theme')")
    browser.goto((site / "ch01.html").as_uri())
    light = browser.js(background)
    browser.js("document.getElementById('ThemeToggle').click()")
    assert browser.js("document.documentElement.getAttribute('data-theme')") == "dark"
    dark = browser.js(background)
    assert dark != light
    assert browser.js("getComputedStyle(document.querySelector('.highlight .k')).color") != "rgb(0, 128, 0)"
    browser.goto((site / "ch02.html").as_uri())  # another page: still dark, before any click
    assert browser.js(background) == dark
    browser.js("document.getElementById('ThemeToggle').click()")
    browser.goto((site / "index.html").as_uri())
    assert browser.js(background) == light and browser.js("localStorage.getItem('book-theme')") == "light"
    assert browser.errors() == []


def test_revision_date_edit_link_and_markdown_beside_the_page(browser, site):
    browser.goto((site / "ch01.html").as_uri())
    meta = browser.js("document.querySelector('.site-meta').textContent")
    assert "3f9a0c1d2e4b" in meta and "Built 2026-11-30" in meta
    assert "output/chapters/final/ch01-final.md" in browser.js("document.querySelector('.edit-page').textContent")
    href = browser.js("document.querySelector('.chapter-meta a').href")
    assert _file_of(href).read_text().startswith("# Storing keys")
    llms = (site / "llms.txt").read_text()
    assert llms.startswith("# Inside minikv") and "](ch01.md)" in llms and "](ch03.md)" in llms
    for name in ("ch01.md", "ch02.md", "ch03.md"):
        assert (site / name).is_file()


def test_404_sitemap_and_source_file_index(browser, site):
    browser.goto((site / "404.html").as_uri())
    assert browser.js("document.querySelector('h1').textContent") == "Page not found"
    assert _file_of(browser.js("document.querySelector('.not-found a').href")).is_file()
    root = ET.parse(site / "sitemap.xml").getroot()
    locs = [e.text for e in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert "ch01.html" in locs and all((site / loc).is_file() for loc in locs)
    browser.goto((site / "files.html").as_uri())
    rows = browser.js("""Array.from(document.querySelectorAll('.file-index tbody tr')).map(r =>
        [r.querySelector('code').textContent, Array.from(r.querySelectorAll('a')).map(a => a.getAttribute('href'))])""")
    assert ["minikv/engine/compact.py", ["ch02.html", "ch03.html"]] in rows  # where is compact.py explained?
    assert ["minikv/record.py", ["ch01.html"]] in rows
    assert browser.js("document.querySelector('a[href=\"files.html\"][aria-current=\"page\"]') !== null")
    assert browser.errors() == []


def test_search_counts_in_the_language_and_enter_opens_the_first_result(browser, site):
    browser.goto((site / "index.html").as_uri())
    browser.set_search("zanzibarite")
    assert browser.wait_for("document.getElementById('SearchStatus').textContent.includes('match')")
    assert browser.js("document.getElementById('SearchStatus').textContent") == "1 chapter matches “zanzibarite”"
    # a fresh page: Enter before the index has loaded still opens the first result
    browser.goto((site / "index.html").as_uri())
    mark = len(browser.events)
    browser.js("document.getElementById('Search').value = 'zanzibarite'")
    browser.js("document.getElementById('SearchForm').requestSubmit()")
    browser.wait_event("Page.loadEventFired", mark)
    assert browser.js("location.pathname").endswith("/ch02.html")
    assert browser.errors() == []


def test_plain_text_stays_plain_and_copy_never_covers_code_on_a_phone(browser, site):
    browser.call("Emulation.setDeviceMetricsOverride", session=True, width=390, height=800,
                 deviceScaleFactor=2, mobile=True)
    try:
        browser.goto((site / "ch01.html").as_uri())
        plain = browser.js("""Array.from(document.querySelectorAll('pre code')).filter(c =>
            c.textContent.includes('this is output')).map(c => [c.closest('pre').className, c.children.length])""")
        assert plain == [["", 0]]  # no highlight class, no token spans
        overlaps = browser.js("""Array.from(document.querySelectorAll('.pre-wrap')).map(w => {
            const b = w.querySelector('.copy-button').getBoundingClientRect();
            const code = w.querySelector('pre code');
            const r = document.createRange(); r.selectNodeContents(code);
            return Array.from(r.getClientRects()).some(t => t.width > 0 &&
                t.left < b.right && b.left < t.right && t.top < b.bottom && b.top < t.bottom); })""")
        assert overlaps and not any(overlaps)
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
    assert browser.errors() == []
