"""The book's parts as a field of the outline: chapters listed under `parts:` (a title each),
read strictly with the file and line of a mistake, written by both planners, checked on the
gate card, and shown with their titles by the site, the print page, llms.txt, the EPUB and the
PDF. An older outline without parts still reads (one part per batch, as before). A part's
title is not in any chapter's entry: renaming it republishes the pages and redoes nothing else."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import scan

from orchestrator import outline as O
from orchestrator.contracts import ContractError, OutlinePlan, parse as P, render as R
from orchestrator.errors import ConfigError
from orchestrator.pipeline.outline_checks import outline_risks, part_risks
from orchestrator.publish import ChapterDoc, Site, render_site
from orchestrator.resources import builtin
from orchestrator.steps import BOOK_STEPS, STEPS

TEMPLATES = builtin("templates")
OUTLINE = BOOK_STEPS["outline"].path


def chapter(cid: str, batch: int = 1, deps: tuple[str, ...] = ()) -> str:
    d = "[" + ", ".join(deps) + "]"
    return (f"  - id: {cid}\n    title: Title of {cid}\n    batch: {batch}\n    summary: What {cid} says.\n"
            f"    depends_on: {d}\n    sources: [{cid}.py]\n")


def outline_md(parts: list[tuple[str, list[str]]]) -> str:
    y = "title: A book\nparts:\n"
    for title, ids in parts:
        y += f"- title: {title}\n  chapters:\n" + "".join(chapter(i) for i in ids)
    return f"# Outline: A book\n\nFor people.\n\n```yaml\n{y}```\n"


def line_of(text: str, needle: str) -> int:
    return next(n for n, t in enumerate(text.splitlines(), 1) if needle in t)


# ---------------------------------------------------------------- reading and writing


def test_chapters_under_parts_read_in_book_order_and_round_trip():
    text = outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02", "ch03"]), ("Foundations", ["ch04"])])
    o = O.parse(text)
    assert [c.id for c in o.chapters] == ["ch01", "ch02", "ch03", "ch04"]
    assert [(p.title, p.chapters) for p in o.parts] == [
        ("The big picture", ("ch01",)), ("Using it", ("ch02", "ch03")), ("Foundations", ("ch04",))]
    assert [o.part_of(c) for c in ("ch01", "ch03", "ch04")] == [1, 2, 3]
    again = O.parse(O.render(o, "For people."))
    assert again.parts == o.parts and again.chapters == o.chapters
    assert "parts:\n- title: The big picture\n  chapters:\n  - id: ch01\n" in o.to_yaml()


def test_a_part_s_title_is_not_in_its_chapters_entries():
    """The grain of a chapter's staleness is its entry: the same in a flat outline and under a
    part, whatever the part is called."""
    nested = O.parse(outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02"])]))
    renamed = O.parse(outline_md([("Overview", ["ch01"]), ("Daily use", ["ch02"])]))
    flat_text = "```yaml\ntitle: A book\nchapters:\n" + re.sub(r"(?m)^  ", "", chapter("ch01") + chapter("ch02")) + "```\n"
    flat = O.parse(flat_text)
    assert flat.parts == () and flat.part_of("ch01") == 0
    assert [c.entry_hash for c in nested.chapters] == [c.entry_hash for c in renamed.chapters] == \
        [c.entry_hash for c in flat.chapters]
    assert "parts" not in flat.to_yaml()  # an old outline is written back as it was: no migration


@pytest.mark.parametrize(("edit", "needle", "message"), [
    (lambda t: t.replace("- title: Using it\n", "- title: ''\n"), "- title: ''", "part 2 needs a title"),
    (lambda t: t.replace("- title: Using it\n", "- title: Using it\n  about: x\n"), "about: x",
     "part 2: unknown field 'about'"),
    (lambda t: t.replace("- title: Using it\n  chapters:\n" + chapter("ch02"), "- title: Using it\n  chapters: []\n"),
     "chapters: []", "part 2 (Using it) has no chapters"),
    (lambda t: t.replace("- title: Using it\n  chapters:\n" + chapter("ch02"), "- title: Using it\n"),
     "- title: Using it", "part 2 (Using it) has no chapters"),
    (lambda t: t.replace("    batch: 1\n", "    batch: 1\n    part: Using it\n", 1), "part: Using it",
     "unknown chapter field 'part'"),
    (lambda t: t.replace("parts:\n", "chapters: []\nparts:\n"), "chapters: []", "the yaml block has both `parts` and `chapters`"),
    (lambda t: t.replace("- title: Using it\n", "- Using it\n- title: Using it\n"), "- Using it",
     "part 2 must be a mapping"),
])
def test_a_broken_part_is_an_error_naming_the_file_and_line(edit, needle, message):
    text = edit(outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02"])]))
    with pytest.raises(ConfigError) as e:
        O.parse(text, "output/memory/outline.md")
    err = str(e.value)
    assert f"output/memory/outline.md:{line_of(text, needle)}: {message}" in err, err
    assert "fix:" in err or "mapping" in message


def test_a_chapter_listed_in_two_parts_is_named():
    text = outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02"])])
    text = text.replace("- title: Using it\n  chapters:\n", "- title: Using it\n  chapters:\n" + chapter("ch01"))
    with pytest.raises(ConfigError, match=r"outline\.md:\d+: chapter id ch01 appears twice"):
        O.parse(text, "outline.md")


def test_the_planner_contract_has_parts_and_still_reads_a_flat_answer():
    from orchestrator.contracts.examples import OUTLINE as EXAMPLE

    data = EXAMPLE.to_json()
    assert "chapters" not in data and [p["title"] for p in data["parts"]][0] == "The big picture"
    plan = OutlinePlan.from_json(json.dumps(data))
    assert plan == EXAMPLE
    md = R.render_outline(plan)
    assert P.parse_outline(md + "\n<!-- OUTLINE_COMPLETE -->\n") == plan  # what people write reads back
    o = O.parse(md)
    assert [(p.title, p.chapters) for p in o.parts] == [(p.title, p.chapters) for p in plan.parts]
    flat = {k: v for k, v in data.items() if k != "parts"} | {
        "chapters": [c for p in data["parts"] for c in p["chapters"]]}
    old = OutlinePlan.from_json(flat)
    assert old.parts == () and old.chapters == plan.chapters and "parts:" not in R.render_outline(old)
    bad = json.loads(json.dumps(data))
    bad["parts"][1]["title"] = " "
    with pytest.raises(ContractError, match=r"\$\.parts\[1\]\.title"):
        OutlinePlan.from_json(bad)
    with pytest.raises(ContractError, match="not both"):
        OutlinePlan.from_json(data | {"chapters": flat["chapters"]})
    assert OutlinePlan.SCHEMA["required"] == ["title", "intro", "parts"]


# ---------------------------------------------------------------- the checks


def test_part_checks_say_why_a_part_is_not_one_part():
    good = O.parse(outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02", "ch03"])]))
    assert part_risks(good) == [] and outline_risks(O.render(good, "x")) == []
    split = part_risks(O.parse(outline_md([("The big picture", ["ch01", "ch03"]), ("Using it", ["ch02"])])))
    assert split == ["part 1 (The big picture) is split: ch02 of part 2 (Using it) comes after its ch01 in reading "
                     "order, so the contents show the part in two places; list ch02 under part 1, or give it a "
                     "number outside ch01–ch03"]
    late = part_risks(O.parse(outline_md([("Using it", ["ch02"]), ("The big picture", ["ch01"])])))
    assert late and late[0].startswith("the book opens with ch01, of part 2 (The big picture), not with part 1")
    order = part_risks(O.parse(outline_md([("A", ["ch01"]), ("B", ["ch03"]), ("C", ["ch02"])])))
    assert order == ["part 3 (C) is listed after part 2 (B) but its first chapter ch02 comes before ch03: the "
                     "contents show the parts in the order listed"]
    assert part_risks(O.parse(outline_md([("A", ["ch01"]), ("a", ["ch02"])]))) == [
        "part 2 has the same title as an earlier part: 'a'"]
    flat = "```yaml\ntitle: A book\nchapters:\n" + re.sub(r"(?m)^  ", "", chapter("ch01")) + "```\n"
    assert part_risks(O.parse(flat)) == []  # parts derived from the batches: nothing to check
    # a plan the loader refuses still has its parts checked on the card
    empty = outline_md([("The big picture", ["ch01"]), ("Using it", ["ch02"])]).replace("- title: Using it", "- title: ''")
    risks = outline_risks(empty)
    assert risks[0].startswith("the plan cannot be used") and "part 2 has no title" in risks


# ---------------------------------------------------------------- the pages


def _site(language: str = "en", parts=(("The big picture", ("ch01",)), ("Using minikv", ("ch02", "ch03")))) -> Site:
    docs = (ChapterDoc("ch01", "minikv at a glance", "The big picture.", 1, "# minikv at a glance\n\nText.\n"),
            ChapterDoc("ch02", "Writing", "Puts.", 2, "", ready=False, note="waits"),
            ChapterDoc("ch03", "Reading", "Gets.", 2, "# Reading\n\nA read checks the memtable.\n"))
    return Site("Inside minikv", language, "developers", docs, (), (TEMPLATES,), parts=parts)


def test_every_page_shows_the_outline_s_part_titles():
    files, problems = render_site(_site())
    assert problems == []
    for page in ("index.html", "ch01.html", "ch03.html", "glossary.html", "print.html"):
        html = files[page]
        assert "Part 1 · The big picture" in html and "Part 2 · Using minikv" in html, page
    index = files["index.html"]
    assert index.index("Part 2 · Using minikv") < index.index("Writing") < index.index("Reading")
    printed = files["print.html"]
    # the print page's contents by part, and the part's title above its first published chapter
    assert printed.count('<p class="part-title print-part">Part 2 · Using minikv</p>') == 1
    assert printed.index('print-part">Part 2') < printed.index('id="ch03"')
    assert "## Part 2 · Using minikv" in files["llms.txt"]


def test_a_chinese_book_labels_its_parts_in_chinese():
    files, _ = render_site(_site("zh", (("全局概览", ("ch01",)), ("使用 minikv", ("ch02", "ch03")))))
    assert "第 1 部分 · 全局概览" in files["index.html"] and "第 2 部分 · 使用 minikv" in files["ch01.html"]


def test_the_offline_planner_titles_parts_in_the_book_s_language(tmp_path: Path):
    from orchestrator.authoring import authors as authoring
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws")
    src = ws / "src"
    titles = {}
    for lang in ("en", "zh"):
        ctx = {"source_root": str(src), "language": lang, "limits": {"max_chapters": 8, "batch_size": 3},
               "book": {"title": "", "audience": "developers", "brief": ""}, "personas": [],
               "memory": {"metaphors": [], "glossary": []}, "chapters": []}
        o = O.parse(authoring.write_outline(ctx), "the plan", src)
        assert o.parts[0].chapters == ("ch01",) and part_risks(o) == []
        titles[lang] = [p.title for p in o.parts]
    assert titles["en"][:3] == ["The big picture", "Using minikv", "Inside minikv"]
    assert titles["zh"][:3] == ["全局概览", "使用 minikv", "minikv 的内部"]


def test_the_exports_show_the_part_titles():
    from orchestrator.export import content, epub, pdf

    book = content.from_site(_site(), content.Meta(), "")
    assert book.parts == (("Part 1 · The big picture", ("ch01",)), ("Part 2 · Using minikv", ("ch02", "ch03")))
    assert [c.part_label for c in book.chapters] == ["Part 1 · The big picture", "Part 2 · Using minikv"]
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(epub.build(book))) as z:
        nav = z.read("EPUB/nav.xhtml").decode()
        ch03 = z.read("EPUB/ch03.xhtml").decode()
    assert re.search(r"<li><span>Part 2 · Using minikv</span><ol>\s*<li><a href=\"ch03.xhtml#ch03\">", nav), nav
    assert '<p class="part-label">Part 2 · Using minikv</p>' in ch03
    toc = pdf.document_html(book, "")
    assert toc.index('<li class="toc-part">Part 2 · Using minikv</li>') < toc.index("toc-waiting") < \
        toc.index('href="#ch03"')
    renamed = content.from_site(_site(parts=(("Overview", ("ch01",)), ("Using minikv", ("ch02", "ch03")))),
                                content.Meta(), "")
    assert renamed.digest != book.digest  # a new part title is a new export


@pytest.mark.slow
def test_an_epub_with_parts_validates_with_epubcheck(tmp_path: Path):
    from test_export import _epubcheck, make_book

    site = _site()
    p = tmp_path / "book.epub"
    from orchestrator.export import epub

    p.write_bytes(epub.build(make_book(site, diagram=False)))
    out = _epubcheck(p)
    assert "0 fatals / 0 errors / 0 warnings" in out, out


# ---------------------------------------------------------------- a person renames a part


def test_renaming_a_part_by_hand_republishes_the_pages_and_redoes_no_chapter_step(built_ws: Path):
    from orchestrator.testing.helpers import run_book

    outline = built_ws / OUTLINE
    text = outline.read_text()
    old = O.parse(text).parts[1].title
    kept = {p: p.read_bytes() for p in (built_ws / "output").rglob("*.md")
            if p.is_file() and "publish" not in p.parts and p != outline and "memory" not in p.parts[-2:-1]}
    kept |= {p: p.read_bytes() for p in (built_ws / "output/memory/chapters").glob("*.md")}
    outline.write_text(text.replace(f"- title: {old}\n", "- title: How a key is stored\n", 1))
    rep = scan(built_ws)
    stale = rep["stale"]
    assert stale and all(s.startswith("output/publish/") or s == "output/memory/source-map.md" for s in stale), stale
    assert {STEPS["html"].file(ch) for ch in rep["chapters"]} <= set(stale) and "output/publish/index.html" in stale
    code, _ = run_book(built_ws)
    assert code == 0
    assert {p: p.read_bytes() for p in kept} == kept  # no research, draft, review, memory or final redone
    for page in ("index.html", "ch01.html", "print.html"):
        html = (built_ws / "output/publish" / page).read_text()
        assert "Part 2 · How a key is stored" in html and f"Part 2 · {old}" not in html, page
    assert scan(built_ws)["stale"] == []
