"""The outline (orchestrator/outline.py): parse errors name the line in outline.md, the
render -> parse round trip, `entry_hash` as the grain of staleness, and `visible()`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from orchestrator import outline as outline_mod
from orchestrator.errors import ConfigError
from orchestrator.outline import OUTLINE, Chapter, Outline, load, parse, render
from orchestrator.state.markers import compose

HEAD = "# Outline: T\n\nSome words for people.\n\n```yaml\n"  # the yaml content starts on line 6


def doc(y: str) -> str:
    return HEAD + y + "```\n\nNotes after the block.\n"


BASE = """\
title: T
chapters:
  - id: ch01
    title: One
    batch: 1
    sources: [a.py]
  - id: ch02
    title: Two
    batch: 1
    depends_on: [ch01]
  - id: ch03
    title: Three
    batch: 2
    summary: The third.
    depends_on: [ch02]
    sources: [pkg/b.py]
"""
# line numbers in doc(BASE): 6 title, 7 chapters, 8 "- id: ch01", 11 its sources, 12 "- id: ch02",
# 13 its title, 16 "- id: ch03", 18 its batch


def test_parse_base():
    o = parse(doc(BASE))
    assert o.title == "T"
    assert [c.id for c in o.chapters] == ["ch01", "ch02", "ch03"]
    assert o.by_id["ch03"] == Chapter("ch03", "Three", 2, "The third.", ("ch02",), ("pkg/b.py",))
    assert o.batches == [1, 2]
    assert [c.id for c in o.in_batch(1)] == ["ch01", "ch02"]
    assert o.notes == "# Outline: T\n\nSome words for people."


def edit(old: str, new: str) -> str:
    assert old in BASE
    return doc(BASE.replace(old, new, 1))


ERRORS = {
    # name: (text, line, words, fix words or None)
    "duplicate id": (edit("id: ch02", "id: ch01"), 12, ["chapter id ch01 appears twice"], "own id"),
    "unknown dependency": (edit("depends_on: [ch01]", "depends_on: [ch09]"), 12,
                           ["ch02 depends on ch09, which is not in the outline"], None),
    "cycle": (edit("    sources: [a.py]\n", "    sources: [a.py]\n    depends_on: [ch02]\n"), 8,
              ["cycle", "ch01 -> ch02 -> ch01"], None),
    "self cycle": (edit("depends_on: [ch01]", "depends_on: [ch02]"), 8, ["cycle", "ch02 -> ch02"], None),
    "later batch": (edit("    sources: [a.py]\n", "    sources: [a.py]\n    depends_on: [ch03]\n"), 8,
                    ["ch01 (batch 1) depends on ch03 of a later batch (2)"], "move ch03 to batch 1"),
    "bad batch word": (edit("batch: 2", "batch: two"), 18, ["ch03: batch must be a whole number from 1", "'two'"], None),
    "bad batch zero": (edit("batch: 2", "batch: 0"), 18, ["batch must be a whole number from 1, not 0"], None),
    "bad batch bool": (edit("batch: 2", "batch: true"), 18, ["batch must be a whole number"], None),
    "bad batch missing": (edit("    batch: 2\n", ""), 16, ["ch03: batch must be a whole number from 1, not None"], None),
    "invalid yaml": (edit("title: Two", "title: [Two"), 13, ["not valid YAML"], None),  # the `[` left open
    "bad id": (edit("id: ch02", "id: chapter2"), 12, ["chapter id 'chapter2' is not like ch01"], None),
    "one digit id": (edit("id: ch02", "id: ch2"), 12, ["is not like ch01"], None),
    "missing title": (edit("    title: Two\n", ""), 12, ["ch02 needs a title"], None),
    "unknown field": (edit("title: Two", "titel: Two"), 13, ["unknown chapter field 'titel'"], "fields are id"),
    "depends_on not a list": (edit("depends_on: [ch01]", "depends_on: ch01"), 15,
                              ["depends_on must be a list of chapter ids"], None),
    "sources with dotdot": (edit("sources: [a.py]", "sources: [../a.py]"), 11, ["invalid source path '../a.py'"], None),
    "absolute source": (edit("sources: [a.py]", "sources: [/etc/passwd]"), 11, ["invalid source path"], None),
    "empty chapters": (doc("title: T\nchapters: []\n"), 7, ["`chapters` must be a non-empty list"], None),
    "no chapters key": (doc("title: T\n"), 6, ["`chapters` must be a non-empty list"], None),
    "not a mapping": (doc("- ch01\n"), 6, ["must be a mapping with `title` and `chapters`"], None),
    "chapter not a mapping": (doc("title: T\nchapters:\n  - ch01\n"), 8, ["each chapter must be a mapping"], None),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_parse_errors_name_the_line(case):
    text, line, words, fix = ERRORS[case]
    with pytest.raises(ConfigError) as e:
        parse(text, "output/memory/outline.md")
    err = e.value
    assert err.file == "output/memory/outline.md"
    assert err.line == line, str(err)
    assert str(err).startswith(f"output/memory/outline.md:{line}: ")
    for w in words:
        assert w in str(err)
    if fix:
        assert fix in err.fix
    assert err.exit_code == 2


def test_missing_source_file_names_the_line(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/b.py").write_text("")
    with pytest.raises(ConfigError) as e:
        parse(doc(BASE), "outline.md", source_dir=tmp_path)
    assert e.value.line == 11
    assert f"ch01: source file 'a.py' does not exist in {tmp_path}" in str(e.value)
    assert "fix the path" in e.value.fix
    (tmp_path / "a.py").write_text("")
    assert parse(doc(BASE), "outline.md", source_dir=tmp_path).by_id["ch01"].sources == ("a.py",)


def test_no_yaml_block():
    with pytest.raises(ConfigError) as e:
        parse("# Outline\n\nNo block here.\n\n```python\nx = 1\n```\n", "outline.md")
    assert "no ```yaml block" in str(e.value) and e.value.fix and str(e.value).startswith("outline.md")


def test_yml_block_and_text_around_it():
    text = "intro\n\n```yml\n" + BASE + "```\n"
    assert len(parse(text).chapters) == 3


def test_invalid_yaml_line_is_inside_the_block():
    text, line, _, _ = ERRORS["invalid yaml"]
    lines = text.splitlines()
    assert lines[line - 1].strip() == "title: [Two"  # reported where the `[` was left open (issue 38)
    assert HEAD.count("\n") < line < len(lines)


# ---------------------------------------------------------------- entry_hash and visible


def test_entry_hash_changes_only_for_the_edited_chapter():
    before = parse(doc(BASE))
    for old, new, changed in [
        ("title: Two", "title: Two, retitled", "ch02"),
        ("summary: The third.", "summary: The third, longer.", "ch03"),
        ("sources: [a.py]", "sources: [a.py, c.py]", "ch01"),
        ("depends_on: [ch02]", "depends_on: [ch01, ch02]", "ch03"),
        ("batch: 2", "batch: 3", "ch03"),
    ]:
        after = parse(edit(old, new))
        diff = {c.id for c in before.chapters if c.entry_hash != after.by_id[c.id].entry_hash}
        assert diff == {changed}, (old, new)


def test_entry_hash_ignores_prose_order_and_yaml_formatting():
    before = {c.id: c.entry_hash for c in parse(doc(BASE)).chapters}
    prose = parse("# Another intro\n\nRewritten words.\n\n```yaml\n" + BASE + "```\n")
    assert {c.id: c.entry_hash for c in prose.chapters} == before
    flow = doc("title: Other title\nchapters:\n"
               "  - {id: ch03, title: Three, batch: 2, summary: The third., depends_on: [ch02], sources: [pkg/b.py]}\n"
               "  - {id: ch01, title: '  One  ', batch: 1, sources: [a.py], depends_on: []}\n"
               "  - {id: ch02, title: Two, batch: 1, depends_on: [ch01]}\n")
    assert {c.id: c.entry_hash for c in parse(flow).chapters} == before


def test_visible():
    o = parse(doc(BASE + "  - id: ch04\n    title: Four\n    batch: 2\n"
                         "  - id: ch05\n    title: Five\n    batch: 3\n    depends_on: [ch04]\n"))
    assert o.visible("ch01") == []
    assert o.visible("ch02") == ["ch01"]  # its own dependency in the same batch
    assert o.visible("ch03") == ["ch01", "ch02"]  # every earlier batch; not ch04 of its own batch
    assert o.visible("ch04") == ["ch01", "ch02"]
    assert o.visible("ch05") == ["ch01", "ch02", "ch03", "ch04"]


def test_visible_sorts_numerically():
    o = Outline("T", (Chapter("ch100", "x", 2), Chapter("ch09", "y", 1), Chapter("ch10", "z", 1)))
    assert o.visible("ch100") == ["ch09", "ch10"]


# ---------------------------------------------------------------- render -> parse


@st.composite
def outlines(draw):
    n = draw(st.integers(1, 8))
    text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
    chapters = []
    for i in range(n):
        cid = f"ch{i + 1:02d}" if i < 7 else "ch100"
        batch = draw(st.integers(1, 4))
        earlier = [c for c in chapters if c.batch <= batch]
        deps = tuple(sorted(draw(st.sets(st.sampled_from([c.id for c in earlier]))) if earlier else ()))
        srcs = tuple(draw(st.lists(st.from_regex(r"\A[a-z][a-z0-9_]{0,8}(/[a-z0-9_]{1,8}){0,2}\.py\Z"), max_size=3,
                                   unique=True)))
        title = draw(text.filter(lambda t: t.strip())).strip()
        chapters.append(Chapter(cid, title, batch, draw(text).strip(), deps, srcs))
    return Outline(draw(text), tuple(chapters))


@settings(max_examples=60, deadline=None)
@given(o=outlines(), intro=st.text(st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_render_parse_round_trip(o, intro):
    intro = intro.replace("`", "'")
    back = parse(render(o, intro))
    assert back.chapters == o.chapters
    assert back.title == o.title
    assert [c.entry_hash for c in back.chapters] == [c.entry_hash for c in o.chapters]


def test_outline_round_trip_keeps_a_next_line_character():
    o = Outline("T", (Chapter("ch01", "A\x85B", 1, "x\x85y"),))
    assert parse(render(o, "intro")).chapters == o.chapters


# ---------------------------------------------------------------- load


def test_load_only_trusts_a_finished_outline(tmp_path):
    assert load(tmp_path) is None
    p = tmp_path / OUTLINE
    p.parent.mkdir(parents=True)
    p.write_text(doc(BASE))  # no marker: half-written, not trusted
    assert load(tmp_path) is None
    p.write_text(compose(doc(BASE), "OUTLINE_COMPLETE"))
    assert [c.id for c in load(tmp_path).chapters] == ["ch01", "ch02", "ch03"]
    p.write_text(compose(doc(BASE.replace("batch: 2", "batch: x")), "OUTLINE_COMPLETE"))
    with pytest.raises(ConfigError) as e:
        load(tmp_path)
    assert str(p) in str(e.value) and e.value.line == 18


def test_load_not_utf8(tmp_path):
    p = tmp_path / OUTLINE
    p.parent.mkdir(parents=True)
    p.write_bytes(b"\xff\xfe bad\n<!-- OUTLINE_COMPLETE -->\n")
    with pytest.raises(ConfigError):
        load(tmp_path)


# ---------------------------------------------------------------- bugs


def test_unknown_tag_in_outline_is_a_config_error():
    with pytest.raises(ConfigError):
        parse(doc(BASE.replace("title: T", "title: !foo T")), "outline.md")


def test_non_string_chapter_field_is_a_config_error():
    with pytest.raises(ConfigError) as e:
        parse(doc("title: T\nchapters:\n  - {id: ch01, title: A, batch: 1, 1: x}\n"), "outline.md")
    assert e.value.line == 8


def test_scan_survives_an_outline_with_an_unknown_tag(tmp_path, monkeypatch, capsys):
    p = tmp_path / OUTLINE
    p.parent.mkdir(parents=True)
    p.write_text(compose(doc(BASE.replace("title: T", "title: !foo T")), "OUTLINE_COMPLETE"))
    from test_config import run_main

    code, out, err = run_main(monkeypatch, capsys, "scan", "--json", "--workspace", str(tmp_path))
    assert code == 0, err
    import json

    assert "outline" in (json.loads(out)["outline_error"] or "")


def test_outline_module_constants():
    assert OUTLINE == "output/memory/outline.md"
    assert outline_mod.find_cycle({"ch01": ("ch02",), "ch02": ()}) is None
    assert outline_mod.find_cycle({"ch01": ("ch02",), "ch02": ("ch03",), "ch03": ("ch01",)}) == [
        "ch01", "ch02", "ch03", "ch01"]
