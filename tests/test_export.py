"""The EPUB and PDF exports: what they hold (the published chapters, the waiting ones listed as
not ready, the glossary, code, an inline SVG diagram, metadata), that the EPUB validates with
the W3C's epubcheck and the PDF's pages render (pdftoppm) with its title, contents with page
numbers, code inside the margin and the diagram; and that an export is a file-system step:
the same book gives the same bytes, an unchanged book is not redone, and a kill at any moment
leaves no file that looks finished."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from orchestrator.export import content, epub, step
from orchestrator.publish import ChapterDoc, Site
from orchestrator.resources import builtin

TEMPLATES = builtin("templates")
LONG_LINE = "result = compute_the_answer(" + ", ".join(f"argument_number_{i}" for i in range(14)) + ")  # END_OF_LINE"

CH01 = f"""# Storing keys

The store writes every `put` to the write-ahead log first. See [reading](ch03.md#the-read-path)
and [the waiting chapter](ch02.md), and the [glossary](glossary.md#memtable).

## The write path

```python file=minikv/store.py lines=1-3
def put(self, key, value):
    self.log.append(key, value)
    self.memtable[key] = value
```

```text
plain text stays plain: def not_python()
```

## A long line

```python
{LONG_LINE}
```
"""

CH03 = """# Reading

## The read path

A read looks in the memtable, then in the segments, newest first. Back to [storing](ch01.md).
"""

SVG = ('<figure class="diagram"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 60" width="200" '
       'height="60" role="img" aria-label="put flow"><rect x="1" y="1" width="90" height="40" fill="#dde"/>'
       '<text x="10" y="25">MemTable</text><path d="M91 20 L150 20" stroke="black"/>'
       '<text x="120" y="50">SSTable</text></svg></figure>')


def make_site(**kw) -> Site:
    base = dict(
        title="Inside minikv",
        language="en",
        audience="Developers who want to know how a key-value store works",
        chapters=(
            ChapterDoc("ch01", "Storing keys", "How `put` reaches the disk.", 1, CH01),
            ChapterDoc("ch02", "Compacting", "Keeping the log short.", 1, "", ready=False,
                       note="ch02: waiting at the final gate"),
            ChapterDoc("ch03", "Reading", "From memtable to segments.", 2, CH03),
        ),
        glossary=(("memtable", "The in-memory table of recent writes.", "ch01"),
                  ("segment", "A sorted file on disk.", "ch03")),
        template_dirs=(TEMPLATES,),
    )
    base.update(kw)
    return Site(**base)


def make_book(site: Site | None = None, diagram: bool = True) -> content.ExportBook:
    css = content.code_css() + (TEMPLATES / "export.css").read_text()
    meta = content.Meta(authors=("Ada Lovelace",), revision="3f9a0c1", modified="2026-11-30T12:00:00Z")
    book = content.from_site(site or make_site(), meta, css)
    if diagram:  # the Markdown renderer's ```mermaid fences become inline SVG like this one
        c = book.chapters[1]
        book = dataclasses.replace(book, chapters=(book.chapters[0], dataclasses.replace(c, body_html=c.body_html + SVG)))
    return book


def _pdf_css() -> str:
    return (TEMPLATES / "export-pdf.css").read_text()


# --------------------------------------------------------------------------- the EPUB


def _epub_files(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def test_epub_holds_the_published_chapters_waiting_listed_links_resolve_and_svg_kept():
    data = epub.build(make_book())
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as z:
        first = z.infolist()[0]
        assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED
    files = _epub_files(data)
    assert files["mimetype"] == b"application/epub+zip"
    assert {"EPUB/ch01.xhtml", "EPUB/ch03.xhtml", "EPUB/glossary.xhtml", "EPUB/nav.xhtml"} <= set(files)
    assert "EPUB/ch02.xhtml" not in files  # waiting: no page, listed as not ready
    ns = {"x": "http://www.w3.org/1999/xhtml"}
    docs = {n: ET.fromstring(b) for n, b in files.items() if n.endswith(".xhtml")}  # all well-formed XML
    ids = {n.removeprefix("EPUB/"): {e.get("id") for e in d.iter() if e.get("id")} for n, d in docs.items()}
    for name, d in docs.items():
        for a in d.iterfind(".//x:a", ns):
            href = a.get("href", "")
            if href.startswith("http"):
                continue
            file, _, frag = href.partition("#")
            target = file or name.removeprefix("EPUB/")
            assert target in ids and (not frag or frag in ids[target]), f"{name}: dead link {href}"
    nav = files["EPUB/nav.xhtml"].decode()
    assert 'epub:type="toc"' in nav and "Storing keys" in nav and "The write path" in nav
    assert 'id="ch02"' in nav and "not ready" in nav
    ch01 = files["EPUB/ch01.xhtml"].decode()
    assert 'href="ch03.xhtml#ch03--the-read-path"' in ch01 and 'href="glossary.xhtml#glossary--memtable"' in ch01
    assert "the waiting chapter" in ch01 and "ch02.xhtml" not in ch01  # its words, no link into nothing
    assert "¶" not in ch01  # the site's permalinks are not part of a book
    assert 'class="highlight"' in ch01 and '<span class="k">def</span>' in ch01
    assert "plain text stays plain: def not_python()" in ch01  # ```text: not highlighted
    ch03 = files["EPUB/ch03.xhtml"].decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 60"' in ch03
    opf = files["EPUB/package.opf"].decode()
    assert 'href="ch03.xhtml" media-type="application/xhtml+xml" properties="svg"' in opf
    assert "<dc:title>Inside minikv</dc:title>" in opf and "<dc:language>en</dc:language>" in opf
    assert "<dc:creator>Ada Lovelace</dc:creator>" in opf and "3f9a0c1" in opf
    assert '<meta property="dcterms:modified">2026-11-30T12:00:00Z</meta>' in opf


def test_epub_is_deterministic_and_its_digest_ignores_only_the_timestamp():
    a, b = make_book(), make_book()
    assert epub.build(a) == epub.build(b)
    later = dataclasses.replace(a, meta=dataclasses.replace(a.meta, modified="2027-01-01T00:00:00Z"))
    assert later.digest == a.digest
    other = make_book(make_site(title="Inside minikv, 2nd edition"))
    assert other.digest != a.digest


def test_a_zh_book_and_a_book_with_no_ready_chapter_still_give_a_valid_package():
    site = make_site(language="zh", chapters=(ChapterDoc("ch01", "存储", "", 1, "", ready=False, note="等待"),),
                     glossary=())
    files = _epub_files(epub.build(make_book(site, diagram=False)))
    assert "EPUB/ch01.xhtml" not in files
    nav = files["EPUB/nav.xhtml"].decode()
    assert 'xml:lang="zh"' in nav and "尚未完成" in nav


def _epubcheck(path: Path) -> str:
    jar = Path(__import__("epubcheck").__file__).parent / "epubcheck.jar"
    java = shutil.which("java")
    if not java:
        pytest.skip("java is not installed (.ci/run installs default-jre-headless)")
    r = subprocess.run([java, "-jar", str(jar), str(path)], capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    return out


@pytest.mark.slow
def test_epub_validates_with_epubcheck(tmp_path):
    p = tmp_path / "book.epub"
    p.write_bytes(epub.build(make_book()))
    out = _epubcheck(p)
    assert "0 fatals / 0 errors / 0 warnings" in out, out
    # and its pages open in a browser's XML parser (an e-reader's engine): the contents and a chapter
    chromium = shutil.which("chromium")
    if not chromium:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    with zipfile.ZipFile(p) as z:
        z.extractall(tmp_path / "unzipped")
    for page, expect in (("nav.xhtml", ["Contents", "Chapter 1 · Storing keys", "The write path"]),
                         ("ch03.xhtml", ["The read path", "MemTable"])):
        shot = tmp_path / f"{page}.png"
        url = (tmp_path / "unzipped/EPUB" / page).as_uri()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND"]
        dom = subprocess.run([chromium, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
        assert "error on line" not in dom and all(e in dom for e in expect), dom[:2000]
        subprocess.run([chromium, *flags, "--window-size=800,1000", f"--screenshot={shot}", url],
                       capture_output=True, timeout=120)
        assert shot.stat().st_size > 5000  # a page with text on it, not a blank


# --------------------------------------------------------------------------- the PDF


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if not found:
        pytest.skip(f"{tool} is not installed (.ci/run installs poppler-utils)")
    return found


def _pdftext(pdf: Path, page: int) -> str:
    return subprocess.run([_need("pdftotext"), "-layout", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_pdf_pages_render_with_title_contents_page_numbers_code_and_diagram(tmp_path):
    from orchestrator.export import pdf

    data, detail = pdf.build(make_book(), _pdf_css(), tmp_path)
    p = tmp_path / "book.pdf"
    p.write_bytes(data)
    pages = int(detail.split()[0])
    assert pages >= 5  # title, contents, ch01, ch03, glossary
    # every page renders to a PNG that is not blank
    subprocess.run([_need("pdftoppm"), "-r", "40", "-png", str(p), str(tmp_path / "page")], check=True)
    pngs = sorted(tmp_path.glob("page-*.png"))
    assert len(pngs) == pages and all(x.stat().st_size > 1000 for x in pngs)
    title = _pdftext(p, 1)
    assert "Inside minikv" in title and "Ada Lovelace" in title and "3f9a0c1" in title
    toc = _pdftext(p, 2)
    assert "Contents" in toc and "Storing keys" in toc and "not ready" in toc
    import re

    numbered = re.findall(r"(Storing keys|The write path|Reading|Glossary)\s*\.*\s+(\d+)\s*$", toc, re.M)
    assert {t for t, _ in numbered} >= {"Storing keys", "Reading", "Glossary"}, toc
    first = {t: int(n) for t, n in numbered}
    assert 3 <= first["Storing keys"] < first["Reading"] <= first["Glossary"] <= pages
    code_page = _pdftext(p, first["Storing keys"])
    assert "self.log.append(key, value)" in code_page and "minikv/store.py" in code_page
    # the running header names the chapter; the diagram's labels are typeset on the Reading page
    assert "Storing keys" in code_page.splitlines()[0] or "Storing keys" in code_page[:400]
    reading = _pdftext(p, first["Reading"])
    assert "MemTable" in reading and "SSTable" in reading
    # the long code line wraps: every word of the PDF lies inside the page
    box = subprocess.run([_need("pdftotext"), "-bbox", str(p), "-"], capture_output=True, text=True,
                         check=True).stdout
    width = float(re.search(r'<page width="([\d.]+)"', box).group(1))
    xs = [float(x) for x in re.findall(r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)"', box)]
    assert xs and max(xs) <= width - 20, f"text runs to {max(xs)} of {width}"
    assert "END_OF_LINE" in box


@pytest.mark.slow
def test_a_chinese_book_s_pdf_embeds_chinese_glyphs(tmp_path):
    """Pango falls back to a CJK face; export.css asks for Simplified Chinese (Noto CJK SC, which
    .ci/run installs): no box where a character should be."""
    from orchestrator.export import pdf

    if "Noto Sans CJK SC" not in subprocess.run(["fc-list"], capture_output=True, text=True).stdout:
        pytest.skip("fonts-noto-cjk is not installed (.ci/run installs it)")
    zh = make_site(language="zh", title="minikv 源码解读", chapters=(
        ChapterDoc("ch01", "写入数据", "`put` 如何写到磁盘。", 1, "# 写入数据\n\n每次写入先进入内存表，再追加到日志。\n"),))
    data, _ = pdf.build(make_book(zh, diagram=False), _pdf_css(), tmp_path)
    (tmp_path / "zh.pdf").write_bytes(data)
    fonts = subprocess.run([_need("pdffonts"), str(tmp_path / "zh.pdf")], capture_output=True, text=True).stdout
    assert "CJK-SC" in fonts, fonts
    assert "每次写入先进入内存表" in _pdftext(tmp_path / "zh.pdf", 3) + _pdftext(tmp_path / "zh.pdf", 4)


@pytest.mark.slow
def test_pdf_is_deterministic(tmp_path):
    from orchestrator.export import pdf

    assert pdf.build(make_book(), _pdf_css(), tmp_path)[0] == pdf.build(make_book(), _pdf_css(), tmp_path)[0]


def test_pdf_document_keeps_listing_with_caption_and_fetches_nothing_outside(tmp_path):
    from orchestrator.export import pdf

    html = pdf.document_html(make_book(), _pdf_css())
    assert "figure.listing, figure, tr, .cover { break-inside: avoid; }" in html
    assert "target-counter(attr(href), page)" in html and "string-set: chapter-title" in html
    assert 'id="ch02"' in html and 'href="#ch02' not in html  # the waiting chapter: listed, never linked
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"x")
    fetch = pdf._fetcher((tmp_path / "site").resolve())
    with pytest.raises(ValueError):
        fetch(outside.as_uri())
    with pytest.raises(ValueError):
        fetch("http://example.com/x.png")


# --------------------------------------------------------------------------- the step


def test_second_export_of_an_unchanged_book_changes_nothing_and_a_change_redoes_it(tmp_path):
    out = tmp_path / "output/export"
    book = make_book()
    calls = []

    def build():
        calls.append(1)
        return epub.build(book), ""

    r1 = step.run(out, "epub", book, build)
    assert r1.status == "written" and r1.waiting == ("ch02",)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()}
    r2 = step.run(out, "epub", book, build)
    assert r2.status == "unchanged" and len(calls) == 1
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before
    side = json.loads((out / "book.epub.json").read_text())
    assert side["chapters"] == ["ch01", "ch03"] and side["not_ready"] == ["ch02"]
    # a damaged file (or one killed before its sidecar) is redone, to the same bytes
    (out / "book.epub").write_bytes(b"PK truncated")
    assert step.run(out, "epub", book, build).status == "written"
    assert (out / "book.epub").read_bytes() == before["book.epub"][0]
    changed = make_book(make_site(title="Another title"))
    assert step.run(out, "epub", changed, lambda: (epub.build(changed), "")).status == "written"
    assert (out / "book.epub").read_bytes() != before["book.epub"][0]


@pytest.fixture
def exportable_ws(built_ws):
    cfg = built_ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("authors: []", 'authors: ["The minikv team"]'))
    return built_ws


@pytest.mark.slow
def test_book_export_cli_then_unchanged_then_a_new_title_redoes_both(exportable_ws):
    from orchestrator.testing.cli import run_cli

    ws = exportable_ws
    r = run_cli("export", "--epub", "--pdf", "--json", "--workspace", ws)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    kinds = {e["kind"]: e for e in doc["exports"]}
    assert kinds["epub"]["status"] == kinds["pdf"]["status"] == "written"
    assert kinds["pdf"]["detail"].endswith("pages") and kinds["epub"]["chapters"] >= 3
    snap = {p.name: p.read_bytes() for p in (ws / "output/export").iterdir()}
    r = run_cli("export", "--epub", "--pdf", "--json", "--workspace", ws)
    assert {e["status"] for e in json.loads(r.stdout)["exports"]} == {"unchanged"}
    assert {p.name: p.read_bytes() for p in (ws / "output/export").iterdir()} == snap
    _epubcheck(ws / "output/export/book.epub")
    text = (ws / "book.yaml").read_text().replace("title:", "title: \"Renamed\"\n#", 1)
    (ws / "book.yaml").write_text(text)
    r = run_cli("export", "--epub", "--json", "--workspace", ws)
    assert json.loads(r.stdout)["exports"][0]["status"] == "written"


def test_book_export_without_a_format_says_how(exportable_ws):
    from orchestrator.testing.cli import run_cli

    r = run_cli("export", "--workspace", exportable_ws)
    assert r.returncode == 2 and "--epub" in r.stderr


@pytest.mark.slow
def test_a_kill_at_random_moments_never_leaves_a_finished_looking_file(exportable_ws):
    """SIGKILL `book export --epub --pdf` at random moments: whatever is at the final paths is
    complete (the bytes an uninterrupted export gives), and the next export finishes it."""
    ws = exportable_ws
    book = [sys.executable, "-c", "from orchestrator.main import main; main()"]
    ref = subprocess.run([*book, "export", "--epub", "--pdf", "-q", "-w", str(ws)], capture_output=True, timeout=300)
    assert ref.returncode == 0, ref.stderr
    good = {k: (ws / f"output/export/book.{k}").read_bytes() for k in ("epub", "pdf")}
    rng = random.Random(26)
    for trial in range(4):
        shutil.rmtree(ws / "output/export")
        if trial % 2:  # a stale export in place: a kill must leave the old file or the new, whole
            (ws / "output/export").mkdir()
            for k in good:
                (ws / f"output/export/book.{k}").write_bytes(good[k][: len(good[k]) // 2] + b"old")
        p = subprocess.Popen([*book, "export", "--epub", "--pdf", "-q", "-w", str(ws)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 4.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        for k in good:
            f = ws / f"output/export/book.{k}"
            side = f.with_name(f.name + ".json")
            if side.exists():  # a sidecar is written last: its file is whole
                assert json.loads(side.read_text())["sha256"] == __import__("hashlib").sha256(f.read_bytes()).hexdigest()
            if f.exists():
                assert f.read_bytes() in (good[k], good[k][: len(good[k]) // 2] + b"old")
        there = os.listdir(ws / "output/export") if (ws / "output/export").is_dir() else []
        leftovers = [n for n in there if n.endswith((".epub", ".pdf")) and n not in ("book.epub", "book.pdf")]
        assert leftovers == []
        r = subprocess.run([*book, "export", "--epub", "--pdf", "-q", "-w", str(ws)], capture_output=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert {k: (ws / f"output/export/book.{k}").read_bytes() for k in good} == good
        assert not [n for n in os.listdir(ws / "output/export") if ".tmp." in n]


@pytest.mark.slow
def test_other_commands_never_import_the_typesetter():
    code = ("import sys, orchestrator.cli.commands, orchestrator.pipeline.session, orchestrator.publish; "
            "print([m for m in ('weasyprint', 'tinyhtml5', 'orchestrator.export.pdf') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_book_run_builds_the_exports_book_yaml_asks_for_once(exportable_ws):
    from orchestrator.testing.helpers import run_book

    ws = exportable_ws
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("exports: []", "exports: [epub]"))
    code, _ = run_book(ws)  # nothing else to do: the export alone is built
    assert code == 0
    epub_file = ws / "output/export/book.epub"
    files = _epub_files(epub_file.read_bytes())
    assert "The minikv team" in files["EPUB/package.opf"].decode()
    stamp = epub_file.stat().st_mtime_ns
    code, _ = run_book(ws)
    assert code == 0 and epub_file.stat().st_mtime_ns == stamp  # unchanged book: not rewritten
    assert not (ws / "output/export/book.pdf").exists()


def test_exports_in_book_yaml_are_checked(tmp_path):
    from orchestrator import config
    from orchestrator.errors import ConfigError
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws")
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("exports: []", "exports: [epub, mobi]"))
    with pytest.raises(ConfigError, match="exports lists epub and pdf only"):
        config.load(ws)


def test_a_long_book_s_contents_list_its_chapters_only_a_short_one_s_their_sections_too():
    """120 chapters with every section made 22 pages of contents before page one: past
    `TOC_LINES` the contents list chapters only (the sections stay in the PDF's bookmarks)."""
    from orchestrator.export import pdf

    short = make_book()
    assert 'class="toc-section"' in pdf._toc(short) and "The write path" in pdf._toc(short)
    c = short.chapters[0]
    many = tuple(dataclasses.replace(c, id=f"ch{n:03d}", number=n, label=f"Chapter {n}",
                                     sections=tuple((f"ch{n:03d}--s{k}", f"Section {k}") for k in range(12)))
                 for n in range(1, 41))
    toc = pdf._toc(dataclasses.replace(short, chapters=many, waiting=(), parts=()))
    assert 'class="toc-section"' not in toc and "Section 3" not in toc
    assert toc.count('class="toc-chapter"') == 41  # 40 chapters and the glossary
    assert len(many) + sum(len(x.sections) for x in many) > pdf.TOC_LINES


def _page_texts(pdf_path: Path, pages: int) -> list[str]:
    return [_pdftext(pdf_path, n) for n in range(1, pages + 1)]


@pytest.mark.slow
def test_a_book_typeset_in_pieces_is_the_same_book_as_one_document(tmp_path):
    """A long book's PDF is typeset piece by piece (its memory that of one piece): every page
    reads as in the one-document PDF (page numbers, contents, running headers), every link
    lands on a named destination, the bookmarks are all there, and the bytes are the same twice."""
    from pypdf import PdfReader

    from orchestrator.export import paged, pdf

    book = make_book()
    one, one_detail = pdf.build(book, _pdf_css(), tmp_path)
    assert not paged.needs_pieces(book)  # the default: a small book is one document
    pieces, detail = pdf.build(book, _pdf_css(), tmp_path, piece_chars=1)  # every chapter its own piece
    assert detail == one_detail and pieces != one
    (tmp_path / "one.pdf").write_bytes(one)
    (tmp_path / "pieces.pdf").write_bytes(pieces)
    n = int(detail.split()[0])
    assert _page_texts(tmp_path / "pieces.pdf", n) == _page_texts(tmp_path / "one.pdf", n)
    a, b = PdfReader(tmp_path / "one.pdf"), PdfReader(tmp_path / "pieces.pdf")

    def links(r):
        return sorted(str(x.get_object()["/Dest"]) for pg in r.pages for x in pg.get("/Annots") or []
                      if "/Dest" in x.get_object())

    assert links(b) == links(a) and links(b)  # the contents' and the cross references' links
    assert set(links(b)) <= set(b.named_destinations)
    assert [x.title for x in b.outline if not isinstance(x, list)] == [x.title for x in a.outline if not isinstance(x, list)]
    assert b.metadata.title == "Inside minikv" and b.metadata.author == "Ada Lovelace"
    assert pdf.build(book, _pdf_css(), tmp_path, piece_chars=1)[0] == pieces


@pytest.mark.slow
def test_the_sentence_that_introduces_a_diagram_goes_over_to_its_page(tmp_path):
    """A diagram is never cut; when it does not fit at the foot of a page, the sentence that
    introduces it goes with it rather than being left alone above a gap."""
    from orchestrator.export import pdf

    tall = SVG.replace('height="60"', 'height="400"').replace('viewBox="0 0 200 60"', 'viewBox="0 0 200 400"')
    for fill in (20, 40):  # the diagram does not fit below the sentence (it did, without the rule, at 20)
        book = make_book(diagram=False)
        filler = "".join(f"<p>Filler paragraph {i} about segments and logs.</p>" for i in range(fill))
        c = book.chapters[1]
        body = c.body_html + filler + "<p>INTRODUCES_THE_DIAGRAM:</p>" + tall
        book = dataclasses.replace(book, chapters=(book.chapters[0], dataclasses.replace(c, body_html=body)))
        data, detail = pdf.build(book, _pdf_css(), tmp_path)
        (tmp_path / "d.pdf").write_bytes(data)
        pages = [_pdftext(tmp_path / "d.pdf", n) for n in range(1, int(detail.split()[0]) + 1)]
        intro = [n for n, t in enumerate(pages) if "INTRODUCES_THE_DIAGRAM" in t]
        drawn = [n for n, t in enumerate(pages) if "MemTable" in t]
        assert intro and intro == drawn, (fill, intro, drawn)


@pytest.mark.slow
def test_a_120_chapter_book_s_contents_fit_a_few_pages_with_three_digit_labels_on_one_line(tmp_path):
    from orchestrator.export import pdf

    short = make_book(diagram=False)
    c = short.chapters[0]
    many = tuple(dataclasses.replace(
        c, id=f"ch{n:03d}", number=n, label=f"Chapter {n}",
        title_html=f"Subject {n} — " + ("ExtendedInstrumentationRegistry and InstrumentationManager"
                                         if n % 10 == 0 else "Connection and Dialect"),
        sections=tuple((f"ch{n:03d}--s{k}", f"Section {k}") for k in range(10)),
        body_html=f"<h1>Subject {n}</h1>" + "".join(f'<h2 id="ch{n:03d}--s{k}">Section {k}</h2>' for k in range(10)))
        for n in range(1, 121))
    data, detail = pdf.build(dataclasses.replace(short, chapters=many, waiting=(), glossary_html="", parts=()),
                             _pdf_css(), tmp_path)
    (tmp_path / "long.pdf").write_bytes(data)
    toc = [_pdftext(tmp_path / "long.pdf", n) for n in range(2, 9)]
    last = next(i for i, t in enumerate(toc) if "Chapter 120" in t)
    assert last <= 4, "the contents of 120 chapters take at most five pages"
    text = "\n".join(toc[: last + 1])
    for n in (9, 10, 99, 100, 120):  # each label on its title's line, a page number at the end of the entry
        assert re.search(rf"^\s*Chapter {n}\s+Subject {n} —", text, re.M), (n, text[:2000])
    assert "Section 3" not in text


@pytest.mark.slow
def test_a_table_of_long_names_fits_the_page(tmp_path):
    """The offline book's Reference tables (name, kind, where, used from, what it is) ran off
    the page when a name was long (`_ORMColumnEntity.setup_compile_state`): they fit now."""
    from orchestrator.export import pdf

    name = "_ORMCompileStateWithAVeryLongName.default_compile_options_of_the_state"
    rows = "".join(f"<tr><td><code>{name}{i}</code></td><td>method</td><td><code>orm/context.py:{i}</code></td>"
                   f"<td>{i} files</td><td>introduced above (orm/context.py:140-1500) END_OF_ROW{i}</td></tr>"
                   for i in range(8))
    table = ("<table><thead><tr><th>Name</th><th>Kind</th><th>Where</th><th>Used from</th><th>What it is</th>"
             f"</tr></thead><tbody>{rows}</tbody></table>")
    book = make_book(diagram=False)
    c = book.chapters[1]
    book = dataclasses.replace(book, chapters=(book.chapters[0], dataclasses.replace(c, body_html=c.body_html + table)))
    data, _ = pdf.build(book, _pdf_css(), tmp_path)
    (tmp_path / "t.pdf").write_bytes(data)
    box = subprocess.run([_need("pdftotext"), "-bbox", str(tmp_path / "t.pdf"), "-"], capture_output=True,
                         text=True, check=True).stdout
    width = float(re.search(r'<page width="([\d.]+)"', box).group(1))
    xs = [float(x) for x in re.findall(r'<word xMin="[\d.]+" yMin="[\d.]+" xMax="([\d.]+)"', box)]
    assert max(xs) <= width - 20, f"text runs to {max(xs)} of {width}"
    assert all(f"END_OF_ROW{i}" in box for i in range(8))
