"""The diagrams in a real browser (headless Chromium, pages from file://, no network): each
```mermaid block of a chapter is drawn on its page, every box and label laid out inside its
picture with a size, the labels readable (dark mode included), and no script or request
needed for it."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_browser import (
    TEMPLATES,
    _publish,
    browser,  # noqa: F401  (the module's headless Chromium)
)

from orchestrator import diagrams
from orchestrator.authoring.codeinfo import resolved_calls
from orchestrator.authoring.project import load
from orchestrator.publish import ChapterDoc, Site
from orchestrator.resources import builtin

pytestmark = pytest.mark.slow

CLASSES = """classDiagram
    class Store {
        +put()
        +get()
    }
    class MemTable
    Store --> MemTable
    Store *-- LRUCache
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    src = tmp_path_factory.mktemp("src") / "example"
    shutil.copytree(builtin("example"), src)
    p = load(src)
    overview = "\n".join(diagrams.for_overview(p, resolved_calls))
    chapter = "\n".join(diagrams.for_chapter(p, ["minikv/memtable.py"], [], resolved_calls))
    docs = (
        ChapterDoc("ch01", "The big picture", "Parts and the main path.", 1, f"# The big picture\n\n{overview}\n"),
        ChapterDoc("ch02", "The memtable", "Recent writes.", 1,
                   f"# The memtable\n\n{chapter}\n\n```mermaid\n{CLASSES}```\n"),
    )
    out = tmp_path_factory.mktemp("site")
    _publish(Site("Inside minikv", "en", "developers", docs, (), (TEMPLATES,), root=out), out)
    return out, overview.count("```mermaid") + chapter.count("```mermaid") + 1


# Per diagram on the page: its size, and how many of its boxes and labels lie inside it with a size.
LAID_OUT = """Array.from(document.querySelectorAll('main figure.diagram > svg')).map(svg => {
    const r = svg.getBoundingClientRect();
    const inside = el => { const b = el.getBoundingClientRect();
        return b.width > 0 && b.height > 0 && b.left >= r.left - 1 && b.right <= r.right + 1
            && b.top >= r.top - 1 && b.bottom <= r.bottom + 1; };
    const nodes = Array.from(svg.querySelectorAll('.mmd-node'));
    const texts = Array.from(svg.querySelectorAll('text'));
    return {w: r.width, h: r.height, nodes: nodes.length, nodesInside: nodes.filter(inside).length,
            texts: texts.length, textsInside: texts.filter(inside).length,
            empty: texts.filter(t => !t.textContent.trim()).length,
            source: !!svg.parentElement.querySelector('details.diagram-source code.language-mermaid')};
})"""


def test_diagrams_render_on_the_page_offline(browser, site):
    out, expected = site
    seen = 0
    for page in ("ch01.html", "ch02.html", "print.html"):
        browser.goto((out / page).as_uri())
        shown = browser.js(LAID_OUT)
        assert shown, f"no diagram drawn on {page}"
        for d in shown:
            assert d["w"] > 50 and d["h"] > 30, (page, d)
            assert d["nodes"] >= 1 and d["nodesInside"] == d["nodes"], (page, d)
            assert d["textsInside"] == d["texts"] and d["empty"] == 0, (page, d)
            assert d["source"], (page, d)
        if page != "print.html":
            seen += len(shown)
        else:
            assert len(shown) == expected
    assert seen == expected
    assert browser.errors() == []
    assert all(u.startswith("file://") for u in browser.requests())


def test_labels_follow_the_theme(browser, site):
    out, _ = site
    fill = "getComputedStyle(document.querySelector('figure.diagram text')).fill"
    browser.call("Emulation.setEmulatedMedia", session=True, features=[{"name": "prefers-color-scheme", "value": "light"}])
    browser.goto((out / "ch02.html").as_uri())
    light = browser.js(fill)
    browser.call("Emulation.setEmulatedMedia", session=True, features=[{"name": "prefers-color-scheme", "value": "dark"}])
    browser.goto((out / "ch02.html").as_uri())
    dark = browser.js(fill)
    page_fg = browser.js("getComputedStyle(document.body).color")
    browser.call("Emulation.setEmulatedMedia", session=True, features=[])
    assert light != dark and dark == page_fg  # the labels take the page's text colour


def test_a_screenshot_of_a_diagram_is_not_blank(browser, site, tmp_path):
    out, _ = site
    browser.goto((out / "ch02.html").as_uri())
    box = browser.js("(() => { const r = document.querySelector('main figure.diagram > svg').getBoundingClientRect();"
                     " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height, scale: 1}; })()")
    shot = browser.call("Page.captureScreenshot", session=True, format="png", clip=box, captureBeyondViewport=True)
    png = base64.b64decode(shot["data"])
    (tmp_path / "diagram.png").write_bytes(png)
    assert png.startswith(b"\x89PNG") and len(png) > 2000  # lines and text, not one flat colour


MERMAID_VERSION = "11.17.2"  # the Mermaid that GitHub-like tools run; only this test uses it


@pytest.fixture(scope="module")
def mermaid_js(tmp_path_factory) -> Path:
    """Mermaid's own bundle from npm (a test-only cross-check: the book never ships or loads it)."""
    given = os.environ.get("BOOK_MERMAID_JS")
    if given and Path(given).is_file():
        return Path(given)
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the cross-check against Mermaid itself needs its bundle")
    where = tmp_path_factory.mktemp("mermaid")
    r = subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(where),
                        f"mermaid@{MERMAID_VERSION}"], capture_output=True, text=True, timeout=600)
    js = where / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
    if r.returncode != 0 or not js.is_file():
        pytest.skip(f"npm install mermaid@{MERMAID_VERSION} failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    return js


def test_what_we_accept_mermaid_itself_accepts(browser, mermaid_js, tmp_path):
    """The subset is Mermaid's: every block our parser takes (the map's diagrams of the example,
    the fixtures) parses in Mermaid too, and the labels Mermaid rejects we reject."""
    from test_diagrams import CLS, FLOW, SEQ

    src = tmp_path / "example"
    shutil.copytree(builtin("example"), src)
    p = load(src)
    blocks = [FLOW, SEQ, CLS, "graph TD\n  a[x] --> b[y] --> c[z]; c --- a",
              'flowchart LR\n  a["fmt::format"] -->|"calls"| b["存储"]',
              "sequenceDiagram\n  actor u as User\n  u->>+a: run()\n  a--x-u: err\n  a-)u: later",
              "classDiagram\n  A <|-- B\n  C ..|> D\n  E *-- F\n  G o-- H\n  I ..> J\n  K -- L\n  Foo : -count int"]
    blocks += re.findall(r"```mermaid\n(.*?)```", "\n".join(diagrams.for_overview(p, resolved_calls)), re.S)
    for rel in p.code_files():
        blocks += re.findall(r"```mermaid\n(.*?)```", "\n".join(diagrams.for_chapter(p, [rel], [], resolved_calls)), re.S)
    refused = ["flowchart LR\n  a[foo()] --> b", "flowchart LR\n  a -> b", "sequenceDiagram\n  a->>b",
               "classDiagram\n  class A {\n  +x()"]
    page = tmp_path / "mermaid.html"
    page.write_text(f'<!doctype html><script src="{mermaid_js.as_uri()}"></script>', encoding="utf-8")
    browser.goto(page.as_uri())
    browser.wait_for("!!window.mermaid")
    browser.js("mermaid.initialize({startOnLoad: false})")

    def theirs(text: str) -> str:
        return browser.js(f"mermaid.parse({json.dumps(text)}).then(() => 'ok', e => String(e && e.message || e))")

    assert len(blocks) > 15
    for b in blocks:
        diagrams.parse(b)  # ours
        assert theirs(b) == "ok", b
    for b in refused:
        with pytest.raises(diagrams.MermaidError):
            diagrams.parse(b)
        assert theirs(b) != "ok", b
