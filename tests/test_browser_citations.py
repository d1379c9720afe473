"""Citations in the published site, in a real browser: a citation and a code block's caption
open the cited file on the cited lines (the site's own page of the file when the source has no
remote; a permalink at the pinned commit when it has one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_browser import (
    TEMPLATES,
    browser,  # noqa: F401  (the module's headless Chromium)
)

from orchestrator import publish
from orchestrator.evidence.revision import Revision
from orchestrator.publish import ChapterDoc, Site
from orchestrator.publish.links import SourceLinks

pytestmark = pytest.mark.slow

SOURCE = "".join(f"line {n} of the store\n" for n in range(1, 80)).replace(
    "line 40 of the store\n", "def get(self, key):\n").replace("line 41 of the store\n", "    return self._data[key]\n")
CHAPTER = ("# Reading\n\n`get` returns the value ([minikv/store.py:40-41](source:minikv/store.py#L40-L41)).\n\n"
           "```python file=minikv/store.py lines=40-41\ndef get(self, key):\n    return self._data[key]\n```\n\n"
           "It is short.\n")


def _site(tmp: Path, revision: Revision) -> tuple[Site, Path]:
    src = tmp / "src"
    (src / "minikv").mkdir(parents=True, exist_ok=True)
    (src / "minikv" / "store.py").write_text(SOURCE)
    out = tmp / "site"
    docs = (ChapterDoc("ch01", "Reading", "", 1, CHAPTER),)
    return Site("Inside minikv", "en", "developers", docs, (), (TEMPLATES,), root=out,
                source=SourceLinks(revision, src), revision=revision.label()), out


def _publish(site: Site, out: Path) -> None:
    files, problems = publish.render_site(site)
    assert problems == []
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")


def test_a_citation_opens_the_cited_lines_of_the_files_page(browser, tmp_path):
    site, out = _site(tmp_path, Revision("tree", "tree:0123456789abcdef"))
    _publish(site, out)
    assert (out / "source/minikv/store.py.html").is_file()
    browser.goto((out / "ch01.html").as_uri())
    hrefs = browser.js("Array.from(document.querySelectorAll('main a[href*=store]')).map(a => a.href)")
    assert len(hrefs) == 2 and all(h.endswith("source/minikv/store.py.html#L40-L41") for h in hrefs)
    assert browser.js("document.querySelector('footer.site-meta code').textContent") == "content hash 0123456789abcdef"
    for href in hrefs:  # the citation, then the code block's caption
        browser.goto((out / "ch01.html").as_uri())  # from the chapter (a fragment alone loads nothing)
        browser.goto(href)
        assert browser.js("document.querySelector('h1').textContent") == "minikv/store.py"
        assert browser.js("document.querySelector(':target').id") == "L40-L41"
        lines = browser.js("[40, 41].map(n => document.getElementById('L' + n).textContent)")
        assert lines == ["40def get(self, key):", "41    return self._data[key]"]
        assert browser.js("document.getElementById('L40').classList.contains('cited')")
        top = browser.js("document.getElementById('L40').getBoundingClientRect().top")
        assert 0 <= top < browser.js("window.innerHeight")  # scrolled to the cited lines
        assert browser.errors() == []


def test_with_a_remote_citations_are_permalinks_at_the_pinned_commit(browser, tmp_path):
    commit = "2ac89889f4cc330eabd50f295dcef02828522c69"
    site, out = _site(tmp_path, Revision("git", commit, "https://github.com/o/minikv", "src", "github"))
    _publish(site, out)
    assert not (out / "source").exists()  # the hosting service shows the file
    browser.goto((out / "ch01.html").as_uri())
    hrefs = browser.js("Array.from(document.querySelectorAll('main a[href*=store]')).map(a => a.href)")
    assert hrefs == [f"https://github.com/o/minikv/blob/{commit}/src/minikv/store.py#L40-L41"] * 2
