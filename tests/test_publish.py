"""Phase 5, the publisher: pages, determinism, navigation, glossary links, code captions,
anchors, Chinese, search index, link checking, and a corpus of hostile chapters that must
never reach a page as markup."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import jinja2
import pytest

from orchestrator import publish
from orchestrator.publish import ChapterDoc, LinkProblem, Site
from orchestrator.publish.markdown import classify_url, slugify
from orchestrator.publish.search import tokenize, vocabulary
from orchestrator.resources import builtin
from orchestrator.state.markers import find_marker

HOSTILE = Path(__file__).parent / "hostile"
TEMPLATES = builtin("templates")

CH01 = """\
# Storing keys

## The write-ahead log

Every `put` goes to the write-ahead log first. Then the Write-Ahead Log is flushed;
only the first use links. [The write-ahead log chapter](ch02.md) is a link already.
Segmentation is not the term, but a segment is.

```python file=minikv/store.py
def put(self, key, value):
    self.log.append(key, value)  # write-ahead log
```

```brainfuck-not-a-language
<b>plain</b>
```

```
no language at all
```

## The API

See [compaction](ch02.md#compaction), [the API again](#the-api-1) and [top](#storing-keys).

## The API

Second section with the same name. A [footnote](#fn1)[^note].

[^note]: The note.
"""

CH02 = """\
# Compacting segments

The memtable is flushed into a segment.

## Compaction

Merging keeps the write-ahead log short. Back to [chapter one](ch01.md#the-write-ahead-log).
A [broken anchor](ch01.md#no-such-section) and a [missing chapter](ch09.md#x),
and a [missing file](../src/nowhere.py).

## What's next? (Punctuation, `code` & more)

Nothing.
"""

CH03 = """\
# Reading

Reads look in the memtable, then in every segment, newest first.

![a local figure](figures/read-path.png)
"""

GLOSSARY = (
    ("write-ahead log", "A log written *before* the data it protects.", "ch01"),
    ("segment", "An immutable file of sorted keys.", "ch02"),
    ("memtable", "The in-memory table of recent writes.", "ch02"),
)


def make_site(**changes) -> Site:
    base = dict(
        title="Inside minikv",
        language="en",
        audience="Developers who want to know how a key-value store works",
        chapters=(
            ChapterDoc("ch01", "Storing keys", "How `put` reaches the disk.", 1, CH01),
            ChapterDoc("ch02", "Compacting segments", "Keeping the log *short*.", 1, CH02),
            ChapterDoc("ch03", "Reading", "From memtable to segments.", 2, CH03),
        ),
        glossary=GLOSSARY,
        template_dirs=(TEMPLATES,),
    )
    base.update(changes)
    return Site(**base)


ZH_CH01 = """\
# 存储引擎

存储引擎先写预写日志，再更新内存表。预写日志保证持久性。

## 写入路径

数据先进入内存表，之后刷到磁盘上的 SSTable 文件。
"""

ZH_CH02 = """\
# 压缩

## 合并

后台线程合并段文件，参见[存储引擎](ch01.md#写入路径)。
"""


def make_zh_site() -> Site:
    return Site(
        title="深入 minikv",
        language="zh",
        audience="想了解键值存储的开发者",
        chapters=(
            ChapterDoc("ch01", "存储引擎", "写入如何落盘。", 1, ZH_CH01),
            ChapterDoc("ch02", "压缩", "合并段文件。", 1, ZH_CH02),
        ),
        glossary=(("预写日志", "在数据之前写入的日志。", "ch01"), ("SSTable", "有序的键值文件。", "ch01")),
        template_dirs=(TEMPLATES,),
    )


# --------------------------------------------------------------------------- helpers


class Page(HTMLParser):
    """Collects what the tests look at: tags with attributes, ids, comments, text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.comments: list[str] = []
        self.decls: list[str] = []
        self.text_parts: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_decl(self, decl):
        self.decls.append(decl)

    def unknown_decl(self, data):
        self.decls.append(data)

    def handle_pi(self, data):
        self.decls.append(data)

    def handle_data(self, data):
        self.text_parts.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a for t, a in self.tags if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def ids(self) -> list[str]:
        return [a["id"] for _, a in self.tags if a.get("id")]


def article(page: str) -> str:
    return page[page.index("<article") : page.index("</article>")]


@pytest.fixture(autouse=True)
def _fresh_caches():
    # Each test sees the publisher as a fresh process would.
    publish.clear_cache()
    yield


# --------------------------------------------------------------------------- pages


def test_every_page_renders_with_the_shared_frame():
    site = make_site()
    files, _ = publish.render_site(site)
    assert set(files) == {
        "ch01.html",
        "ch02.html",
        "ch03.html",
        "index.html",
        "glossary.html",
        "print.html",
        "search-index.js",
        "book.css",
        "book.js",
        "404.html",
        "files.html",
        "sitemap.xml",
        "llms.txt",
        "ch01.md",
        "ch02.md",
        "ch03.md",
    }
    for name in ("ch01.html", "ch02.html", "ch03.html", "index.html", "glossary.html", "print.html", "404.html",
                 "files.html"):
        text = files[name]
        page = Page(text)
        assert text.startswith('<!DOCTYPE html>\n<html lang="en"')
        assert page.find("title"), name
        assert page.find("a", class_="skip-link", href="#Main"), name
        assert page.find("main", id="Main"), name
        assert page.find("nav", id="Sidebar"), name
        assert page.find("input", id="Search")[0]["aria-keyshortcuts"] == "/ s"
        assert page.find("button", id="SidebarToggle")[0]["aria-label"]
        assert page.find("link", rel="stylesheet", href="book.css")
        assert page.find("script", src="book.js")
        assert page.find("meta", **{"http-equiv": "Content-Security-Policy"})
        assert len(page.ids()) == len(set(page.ids())), f"duplicate ids in {name}"
    ch01 = files["ch01.html"]
    assert "<title>Storing keys — Inside minikv</title>" in ch01
    # The current chapter is marked in the sidebar and its sections are listed under it.
    current = Page(ch01).find("a", **{"aria-current": "page"})
    assert [a["href"] for a in current] == ["ch01.html"]
    sidebar = ch01[ch01.index('id="Sidebar"') : ch01.index("</nav>")]
    assert '<a href="#the-write-ahead-log">The write-ahead log</a>' in sidebar
    assert '<a href="#the-api-1">The API</a>' in sidebar
    assert "#compaction" not in sidebar  # other chapters' sections are not listed


def test_the_same_site_gives_byte_identical_files():
    first, _ = publish.render_site(make_site())
    publish.clear_cache()
    second, _ = publish.render_site(make_site())  # an equal Site, built anew
    assert first == second
    assert publish.render_chapter(make_site(), "ch02")[0] == first["ch02.html"]


def test_index_groups_chapters_by_part_with_summaries():
    text = publish.render_index(make_site())
    body = text[text.index("<main") :]
    assert (
        body.index("Part 1")
        < body.index("Storing keys")
        < body.index("Compacting segments")
        < body.index("Part 2")
        < body.index("Reading")
    )
    assert "Developers who want to know how a key-value store works" in body
    assert "How <code>put</code> reaches the disk." in body
    assert "Keeping the log <em>short</em>." in body
    # One batch only: no part headings at all.
    single = make_site(
        chapters=tuple(ChapterDoc(c.id, c.title, c.summary, 1, c.markdown) for c in make_site().chapters)
    )
    publish.clear_cache()
    assert "Part 1" not in publish.render_index(single)


def test_previous_and_next_links():
    site = make_site()

    def pager(text: str) -> tuple[str | None, str | None]:
        page = Page(text)
        prev = [a["href"] for a in page.find("a", rel="prev")]
        nxt = [a["href"] for a in page.find("a", rel="next")]
        return (prev[0] if prev else None), (nxt[0] if nxt else None)

    assert pager(publish.render_index(site)) == (None, "ch01.html")
    assert pager(publish.render_chapter(site, "ch01")[0]) == ("index.html", "ch02.html")
    assert pager(publish.render_chapter(site, "ch02")[0]) == ("ch01.html", "ch03.html")
    assert pager(publish.render_chapter(site, "ch03")[0]) == ("ch02.html", "glossary.html")
    assert pager(publish.render_glossary(site)) == ("ch03.html", None)
    # Without a glossary the last chapter is the end of the book.
    publish.clear_cache()
    assert pager(publish.render_chapter(make_site(glossary=()), "ch03")[0]) == ("ch02.html", None)


def test_glossary_links_the_first_use_only_outside_code_headings_and_links():
    text = article(publish.render_chapter(make_site(), "ch01")[0])
    links = re.findall(r'<a href="glossary.html#([^"]+)"[^>]*class="glossary-term">([^<]*)</a>', text)
    assert links == [("write-ahead-log", "write-ahead log"), ("segment", "segment")]
    # The heading mentions it first, the code span and the code block too: none is linked.
    assert '<h2 id="the-write-ahead-log">The write-ahead log' in text
    assert "<code>put</code> goes to the <a" in text
    assert "Segmentation is not the term" in text  # whole words only
    assert 'title="A log written before the data it protects."' in text
    # Each chapter links its own first use again.
    ch02 = article(publish.render_chapter(make_site(), "ch02")[0])
    assert ch02.count("glossary.html#write-ahead-log") == 1
    assert ch02.count("glossary.html#memtable") == 1


def test_glossary_matching_prefers_the_leftmost_longest_whole_term():
    glossary = (
        ("log", "", "ch01"),
        ("write-ahead log", "", "ch01"),
        ("C++", "", "ch01"),
        ("跳表", "", "ch01"),
        ("put_batch", "", "ch01"),
    )
    md = "# T\n\nIn C++ the Write-Ahead Log, a log, a blog, logs,\nput_batches, put_batch; 用跳表实现。\n"
    site = make_site(chapters=(ChapterDoc("ch01", "T", "", 1, md),), glossary=glossary)
    text = article(publish.render_chapter(site, "ch01")[0])
    linked = re.findall(r'<a href="glossary.html#([^"]*)" class="glossary-term">([^<]*)</a>', text)
    assert linked == [
        ("c", "C++"),
        ("write-ahead-log", "Write-Ahead Log"),
        ("log", "log"),
        ("put_batch", "put_batch"),
        ("跳表", "跳表"),
    ]


def test_glossary_page_has_an_anchor_for_every_term():
    text = publish.render_glossary(make_site())
    page = Page(text)
    assert [a["id"] for a in page.find("dt")] == ["write-ahead-log", "segment", "memtable"]
    assert "A log written <em>before</em> the data it protects." in text
    assert '<a href="ch02.html">Chapter 2 · Compacting segments</a>' in text



def test_a_definition_that_cites_the_source_shows_the_citation_s_words_not_its_markdown():
    """Definitions are rendered without links (they sit in tables of contents): a citation
    keeps its words on the glossary page and in the search index, never `](source:`."""
    cited = (("Engine", "Connects a `Pool` (the class in `engine/base.py`) "
              "([engine/base.py:2893-3284](source:engine/base.py#L2893-L3284)).", "ch01"),)
    site = make_site(glossary=cited)
    page, index = publish.render_glossary(site), publish.search_index_js(site)
    for text in (page, index):
        assert "](source:" not in text and "[engine/base.py" not in text
        assert "engine/base.py:2893-3284" in text
    assert "Connects a <code>Pool</code>" in page

def test_code_blocks_are_highlighted_with_the_source_file_as_caption():
    text = article(publish.render_chapter(make_site(), "ch01")[0])
    figure = text[text.index('<figure class="listing">') : text.index("</figure>")]
    assert '<figcaption><span class="listing-file">minikv/store.py</span></figcaption>' in figure
    assert '<span class="k">def</span>' in figure  # Pygments classes, no inline styles
    assert "style=" not in text
    # An unknown language is plain, escaped text; so is a block without a language.
    unknown = '<code class="language-brainfuck-not-a-language">&lt;b&gt;plain&lt;/b&gt;</code>'
    assert f'<pre tabindex="0">{unknown}</pre>' in text
    assert '<pre tabindex="0"><code>no language at all</code></pre>' in text
    css = publish.static_files(make_site())["book.css"]
    assert ".highlight .k {" in css and "@media screen and (prefers-color-scheme: dark)" in css


def test_heading_anchors_slugs_duplicates_and_permalinks():
    text = article(publish.render_chapter(make_site(), "ch01")[0])
    ids = re.findall(r'<h[1-6] id="([^"]+)"', text)
    assert ids == ["storing-keys", "the-write-ahead-log", "the-api", "the-api-1"]
    assert '<a class="anchor" href="#the-api-1" aria-label="Link to this section: The API">¶</a></h2>' in text
    ch02 = article(publish.render_chapter(make_site(), "ch02")[0])
    assert 'id="whats-next-punctuation-code--more"' in ch02
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("snake_case and-dash") == "snake_case-and-dash"
    assert slugify("存储引擎：写入路径") == "存储引擎写入路径"
    assert slugify("  Spaces  twice ") == "spaces--twice"
    assert slugify("!!!") == "section"


def test_a_chapter_without_a_title_heading_gets_one():
    site = make_site(
        chapters=(ChapterDoc("ch01", "Untitled *draft*", "", 1, "Just text.\n\n## Part\n"),), glossary=()
    )
    text = article(publish.render_chapter(site, "ch01")[0])
    assert text.count("<h1") == 1
    assert '<h1 id="untitled-draft">Untitled <em>draft</em>' in text
    assert publish.chapter_anchors(site, "ch01") >= {"untitled-draft", "part"}


def test_cross_references_are_rewritten_to_pages_and_in_print_to_ids():
    site = make_site()
    ch01 = article(publish.render_chapter(site, "ch01")[0])
    assert '<a href="ch02.html#compaction">compaction</a>' in ch01
    assert '<a href="ch02.html">The write-ahead log chapter</a>' in ch01
    printed = publish.render_print(site)
    assert '<a href="#ch02--compaction">compaction</a>' in printed
    assert '<a href="#ch01--the-write-ahead-log">chapter one</a>' in printed
    assert '<a href="#glossary--write-ahead-log"' in printed
    page = Page(printed)
    ids = page.ids()
    assert len(ids) == len(set(ids)), "print.html must have unique ids across chapters"
    for target in [
        a["href"][1:] for _, a in page.tags if (a.get("href") or "").startswith("#") and a["href"] != "#"
    ]:
        if target not in ("ch01--no-such-section", "ch09--x"):  # the two broken ones of the fixture
            assert unquote(target) in ids, target
    assert printed.count('class="print-chapter chapter"') == 3


def test_check_links_reports_broken_chapters_anchors_and_files_with_lines():
    problems = publish.check_links(make_site())
    assert problems == [
        LinkProblem(
            "ch02", 8, "ch01.md#no-such-section", "ch01 has no heading with the anchor #no-such-section"
        ),
        LinkProblem("ch02", 8, "ch09.md#x", "cross reference to ch09, which is not in the book"),
        LinkProblem(
            "ch02",
            9,
            "../src/nowhere.py",
            "link to a local file that is not part of the published book: ../src/nowhere.py",
        ),
        LinkProblem(
            "ch03",
            5,
            "figures/read-path.png",
            "link to a local file that is not part of the published book: figures/read-path.png",
        ),
    ]
    # render_chapter reports the problems of its own chapter only.
    assert [p.target for p in publish.render_chapter(make_site(), "ch02")[1]] == [
        "ch01.md#no-such-section",
        "ch09.md#x",
        "../src/nowhere.py",
    ]
    assert publish.render_chapter(make_site(), "ch01")[1] == []


def test_check_links_accepts_files_that_exist_in_the_publish_folder(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "read-path.png").write_bytes(b"\x89PNG")
    (tmp_path.parent / "outside.txt").write_text("not published")
    problems = publish.check_links(make_site(root=tmp_path))
    assert "figures/read-path.png" not in [p.target for p in problems]
    site = make_site(
        chapters=(ChapterDoc("ch01", "X", "", 1, "# X\n\n[out](../outside.txt)\n"),), root=tmp_path
    )
    assert [p.target for p in publish.check_links(site)] == ["../outside.txt"]
    page = publish.render_chapter(make_site(root=tmp_path), "ch03")[0]
    assert '<img src="figures/read-path.png" alt="a local figure" loading="lazy">' in page


def test_zh_pages_and_search_index_use_bigrams():
    site = make_zh_site()
    files, problems = publish.render_site(site)
    assert problems == []
    ch01 = files["ch01.html"]
    assert ch01.startswith('<!DOCTYPE html>\n<html lang="zh"')
    assert "上一章" in ch01 and "下一章" in ch01 and "跳到正文" in ch01
    assert '<h2 id="写入路径">' in ch01
    # CJK glossary terms link as substrings; Latin ones as words.
    body = article(ch01)
    assert body.count('href="glossary.html#预写日志"') == 1
    assert body.count('href="glossary.html#sstable"') == 1
    assert '<a href="ch01.html#写入路径">存储引擎</a>' in article(files["ch02.html"])
    vocab = set(vocabulary(files["search-index.js"]))
    assert {"存储", "储引", "引擎", "预写", "写日", "日志", "sstable"} <= vocab
    assert "存储引擎" not in vocab  # bigrams, not runs
    assert tokenize("存储引擎 WAL log") == ["存储", "储引", "引擎", "wal", "log"]


def test_search_index_is_stable_safe_and_weighs_titles():
    js = publish.search_index_js(make_site())
    assert js.startswith("window.BOOK_SEARCH = {") and js.endswith("};\n")
    assert "<" not in js and ">" not in js  # safe even if inlined into a page one day
    data = json.loads(js[len("window.BOOK_SEARCH = ") : -2])
    assert [p["u"] for p in data["pages"]] == ["ch01.html", "ch02.html", "ch03.html", "glossary.html"]
    terms = dict((t, p) for t, p in data["terms"])
    # "compacting" is in ch02's title: its weight beats any body mention.
    postings = terms["compacting"]
    best = max(range(0, len(postings), 2), key=lambda i: postings[i + 1])
    assert data["docs"][postings[best]]["p"] == 1 and postings[best + 1] >= 10
    # Sections carry their anchors, so results can link into the chapter.
    anchors = {(data["pages"][d["p"]]["u"], d["a"]) for d in data["docs"]}
    assert ("ch02.html", "compaction") in anchors and ("ch01.html", "") in anchors
    # Identifier parts are indexed too.
    assert "put" in terms and tokenize("put_batch WriteAheadLog", parts=True) == [
        "put_batch",
        "put",
        "batch",
        "writeaheadlog",
        "write",
        "ahead",
        "log",
    ]


def test_static_files_make_no_external_requests():
    files = publish.static_files(make_site())
    assert set(files) == {"book.css", "book.js"}
    for name, text in files.items():
        assert "@import" not in text and "url(" not in text, name
        assert not re.search(r"https?://", text), name
        assert "fetch(" not in text and "XMLHttpRequest" not in text, name


def test_workspace_templates_override_built_in_ones_file_by_file(tmp_path):
    (tmp_path / "chapter.html").write_text(
        '{% extends "layout.html" %}\n'
        '{% block main %}<article class="custom">{{ body }}</article>{% endblock %}\n'
    )
    (tmp_path / "book.css").write_text("body { color: rebeccapurple }\n")
    site = make_site(template_dirs=(tmp_path, TEMPLATES))
    page = publish.render_chapter(site, "ch01")[0]
    assert '<article class="custom">' in page and 'id="Sidebar"' in page  # layout still built in
    files = publish.static_files(site)
    assert files["book.css"].endswith("body { color: rebeccapurple }\n")
    assert files["book.js"] == (TEMPLATES / "book.js").read_text()
    env = publish.load_templates([tmp_path, TEMPLATES])
    assert env.autoescape is True
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()  # StrictUndefined


def test_an_empty_book_still_renders():
    site = make_site(chapters=(), glossary=())
    files, problems = publish.render_site(site)
    assert problems == []
    assert "This book has no chapters yet." in files["index.html"]
    for name in ("index.html", "glossary.html", "print.html"):
        assert files[name].rstrip().endswith("</html>")


def test_unknown_chapter_and_bad_ids_are_refused():
    with pytest.raises(Exception, match="not in the site"):
        publish.render_chapter(make_site(), "ch42")
    bad = make_site(chapters=(ChapterDoc("../x", "X", "", 1, "# X"),))
    with pytest.raises(Exception, match="invalid or duplicate chapter id"):
        publish.render_index(bad)


@pytest.mark.parametrize(
    "url, kind",
    [
        ("https://example.org/x", "external"),
        ("HTTP://EXAMPLE.ORG", "external"),
        ("mailto:a@b.c", "mailto"),
        ("#x", "fragment"),
        ("ch02.md#a", "relative"),
        ("images/a b.png", "relative"),
        ("../src/x.py", "relative"),
        ("javascript:alert(1)", None),
        (" JavaScript:alert(1)", None),
        ("java%73cript:x", None),
        ("java&#x09;script:x", None),
        ("jav\u200bascript:x", None),
        ("javascript\uff1ax", None),
        ("data:image/png;base64,AAAA", None),
        ("vbscript:x", None),
        ("file:///etc/passwd", None),
        ("//evil.example/x", None),
        ("/\\evil.example", None),
        ("ftp://x", None),
        ("weird:thing", None),
    ],
)
def test_url_policy(url, kind):
    assert classify_url(url) == kind


# --------------------------------------------------------------------------- hostile corpus

ALLOWED_SCHEMES = ("http:", "https:", "mailto:")
URL_ATTRS = {
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "srcset",
    "poster",
    "data",
    "background",
    "cite",
    "longdesc",
    "usemap",
    "manifest",
    "ping",
    "lowsrc",
    "dynsrc",
}


def url_problem(value: str) -> str | None:
    """What a browser would do with this attribute value, judged strictly."""
    v = unicodedata.normalize("NFKC", html.unescape(unquote(value)))
    v = re.sub(r"[\x00-\x20\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]", "", v).lower()
    if v.startswith(("//", "\\", "/\\")):
        return "network-path reference"
    m = re.match(r"^([a-z][a-z0-9+.\-]*):", v)
    if m and not v.startswith(ALLOWED_SCHEMES):
        return f"scheme {m.group(1)}:"
    return None


# Tags a chapter must never produce; the few of ours are told apart by their ids.
FORBIDDEN_TAGS = {
    "iframe", "frame", "frameset", "object", "embed", "applet", "style", "base", "svg", "math", "video",
    "audio", "source", "input", "textarea", "button", "select", "details", "marquee", "noscript",
    "template", "portal", "form", "meta", "link", "script",
}  # fmt: skip
OURS = {
    ("input", "id", "Search"), ("button", "id", "SidebarToggle"), ("button", "id", "ThemeToggle"),
    ("form", "id", "SearchForm"),
    ("script", "src", "book.js"), ("link", "href", "book.css"), ("meta", "charset", "utf-8"),
    ("meta", "name", "viewport"), ("meta", "name", "referrer"), ("meta", "name", "color-scheme"),
    ("meta", "http-equiv", "Content-Security-Policy"),
}  # fmt: skip


def is_ours(tag: str, attrs: dict[str, str | None]) -> bool:
    if tag == "link" and attrs.get("rel") in ("prev", "next"):
        return re.fullmatch(r"(ch\d{2,}|index|glossary)\.html", attrs.get("href") or "") is not None
    return any(t == tag and attrs.get(k) == v for t, k, v in OURS)


def audit(name: str, text: str) -> list[str]:
    """Everything in a page that the publisher did not put there on purpose."""
    page = Page(text)
    found: list[str] = []
    for tag, attrs in page.tags:
        if tag in FORBIDDEN_TAGS and not is_ours(tag, attrs):
            found.append(f"<{tag} {attrs}>")
        src = (attrs.get("src") or "").lower()
        if tag == "img" and url_problem(src) is None and re.match(r"^[a-z]+:", src):
            found.append(f"remote image {src}")  # would be a network request
        for attr, value in attrs.items():
            if attr.startswith("on"):
                found.append(f"event handler {attr}=")
            if attr == "style":
                found.append("style attribute")
            if attr in URL_ATTRS and value is not None and (p := url_problem(value)):
                found.append(f"{attr}={value!r}: {p}")
    for c in page.comments:
        found.append(f"comment <!--{c}-->")
    for d in page.decls:
        if d.lower() != "doctype html":
            found.append(f"declaration {d!r}")
    if "<!--" in text:
        found.append("comment opener in the source")
    if find_marker(text.encode()) is not None:
        found.append("a completion marker on the last line")
    return [f"{name}: {f}" for f in found]


def test_the_audit_itself_catches_markup():
    # The hostile tests are only as good as this checker: show it what it must catch.
    bad = {
        "<script>alert(1)</script>": "<script",
        '<img src="x" onerror="alert(1)">': "event handler onerror",
        '<a href="JaVa&#x73;cript:alert(1)">x</a>': "scheme javascript",
        '<a href=" java&#x09;script:x">x</a>': "scheme javascript",
        '<img src="data:image/png;base64,AA">': "scheme data",
        '<img src="http://evil.example/x.png">': "remote image",
        "<iframe src=x></iframe>": "<iframe",
        "<style>body{}</style>": "<style",
        "<object data=x></object>": "<object",
        "<!-- HTML_COMPLETE -->": "comment",
        '<a href="//evil.example/">x</a>': "network-path",
        '<p style="color:red">x</p>': "style attribute",
    }
    for snippet, expected in bad.items():
        found = audit("t", f"<!DOCTYPE html><html><body>{snippet}</body></html>")
        assert any(expected in f for f in found), (snippet, found)
    assert (
        audit(
            "t",
            '<!DOCTYPE html><html><body><a href="https://ok.example/">x</a> <img src="a.png"></body></html>',
        )
        == []
    )


def hostile_site() -> Site:
    docs = []
    for i, path in enumerate(sorted(HOSTILE.glob("*.md")), 1):
        # Titles, summaries and glossary entries are hostile too: they come from models.
        docs.append(
            ChapterDoc(
                f"ch{i:02d}",
                f"{path.stem} <script>alert('title')</script>",
                "<img src=x onerror=alert('summary')> [x](javascript:alert(1))",
                1 + i % 2,
                path.read_text(encoding="utf-8"),
            )
        )
    return Site(
        title="Hostile </title><script>alert('site')</script>",
        language="en",
        audience="<iframe src=javascript:alert('audience')>",
        chapters=tuple(docs),
        glossary=(
            ("script", "<script>alert('definition')</script> [x](javascript:alert(2))", "ch01"),
            ("onerror", "<img src=x onerror=alert(3)>", "ch02"),
            ("<b>term</b>", "`<!-- HTML_COMPLETE -->`", "ch03"),
            ("HTML_COMPLETE", "<!-- HTML_COMPLETE -->", "ch99"),
        ),
        template_dirs=(TEMPLATES,),
    )


def test_the_hostile_corpus_exists():
    names = sorted(p.name for p in HOSTILE.glob("*.md"))
    assert len(names) >= 8, names
    text = "\n".join((HOSTILE / n).read_text(encoding="utf-8") for n in names)
    for needle in (
        "<script>",
        "onerror=",
        "javascript:",
        "data:",
        "&#x6A;",
        "<iframe",
        "<style>",
        "<!-- HTML_COMPLETE -->",
        "<javascript:",
        "vbscript:",
    ):
        assert needle in text, needle


@pytest.mark.parametrize("path", sorted(HOSTILE.glob("*.md")), ids=lambda p: p.stem)
def test_hostile_chapter_never_reaches_a_page_as_markup(path):
    site = Site(
        "Hostile",
        "en",
        "",
        (ChapterDoc("ch01", path.stem, "", 1, path.read_text(encoding="utf-8")),),
        (("script", "a tag", "ch01"),),
        (TEMPLATES,),
    )
    page, _ = publish.render_chapter(site, "ch01")
    assert audit(path.name, page) == []
    assert audit("print.html", publish.render_print(site)) == []
    # What was refused is still there for the reader, as text.
    assert "alert(" in " ".join(Page(page).text_parts) or path.stem.startswith("05")


def test_hostile_site_metadata_and_whole_book_are_inert():
    files, _ = publish.render_site(hostile_site())
    problems = []
    for name, text in files.items():
        if name.endswith(".html"):
            problems += audit(name, text)
    assert problems == []
    assert "<" not in files["search-index.js"]
    assert "Hostile &lt;/title&gt;&lt;script&gt;" in files["index.html"]


def test_marker_lookalikes_are_shown_as_text_not_comments():
    text = (HOSTILE / "05-markers.md").read_text(encoding="utf-8")
    page, _ = publish.render_chapter(
        Site("M", "en", "", (ChapterDoc("ch01", "M", "", 1, text),), (), (TEMPLATES,)), "ch01"
    )
    assert "<!--" not in page
    assert "&lt;!-- HTML_COMPLETE --&gt;" in page
    assert find_marker(page.encode()) is None
    assert page.rstrip().endswith("</html>")


def test_a_real_marker_left_on_the_chapter_is_not_shown():
    body = "# Done\n\nText.\n\n<!-- CHAPTER_FINAL body=3f9a0c1d2e4b run=x -->\n"
    page, _ = publish.render_chapter(
        Site("M", "en", "", (ChapterDoc("ch01", "Done", "", 1, body),), (), (TEMPLATES,)), "ch01"
    )
    assert "CHAPTER_FINAL" not in page and "<p>Text.</p>" in page


def test_a_site_built_with_lists_still_renders():
    site = make_site()
    loose = Site(
        site.title,
        site.language,
        site.audience,
        list(site.chapters),
        list(site.glossary),  # type: ignore[arg-type]
        list(site.template_dirs),
    )  # type: ignore[arg-type]
    assert publish.render_chapter(loose, "ch01")[0] == publish.render_chapter(site, "ch01")[0]
