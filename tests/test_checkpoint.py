"""checkpoint.md: render -> parse round trip in both languages, the
exact zh headers, and `compare` finding where it and the files disagree."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from orchestrator.outline import Chapter, Outline
from orchestrator.state import checkpoint
from orchestrator.state.checkpoint import SYMBOLS, compare, parse, render
from orchestrator.state.markers import compose, short_hash
from orchestrator.state.scan import Scanner, Snapshot, StepState, snapshot, status_word
from orchestrator.steps import BOOK_STEPS, MEMORY_FILES, ORDER, PHASE3, STEPS

ZH_HEADER = "| 章节 | 研究 | 写作 | R1审查 | R2审查 | R3审查 | 合并审查 | 读者评审 | 长记忆更新 |"
EN_HEADER = "| Chapter | Research | Write | R1 | R2 | R3 | Merged review | Reader panel | Memory |"
NOW = dt.datetime(2026, 11, 29, 20, 41, tzinfo=dt.UTC)


def state(status: str, path: str) -> StepState:
    if status == "stale":
        return StepState("done", path, stale=["research"], checked=True)
    return StepState(status, path)


def make_snapshot(matrix: dict[str, dict[str, str]], batches: dict[str, int] | None = None,
                  book_done: bool = False) -> Snapshot:
    chapters = {ch: {k: state(row.get(k, "missing"), STEPS[k].file(ch)) for k in ORDER} for ch, row in matrix.items()}
    book = {k: StepState("done" if book_done else "missing", s.path) for k, s in BOOK_STEPS.items()}
    outline = None
    if batches is not None:
        outline = Outline("T", tuple(Chapter(ch, f"Chapter {ch}", b) for ch, b in batches.items()))
    return Snapshot(Path("."), chapters, book, {k: book_done for k in MEMORY_FILES}, outline, None)


def expected(snap: Snapshot, live: dict, lang: str = "zh") -> dict[tuple[str, str], str]:
    sym = SYMBOLS["zh" if lang == "zh" else "en"]
    return {(ch, k): sym[live.get((ch, k)) or status_word(snap.chapters[ch][k])]
            for ch in snap.chapters for k in ORDER}


STATUSES = ["missing", "half_finished", "done", "edited", "stale"]
LIVE = ["running", "failed", "needs_human"]


@st.composite
def snapshots(draw):
    n = draw(st.integers(1, 6))
    ids = [f"ch{i:02d}" for i in range(1, n + 1)] + draw(st.sampled_from([[], ["ch117"]]))
    matrix = {ch: {k: draw(st.sampled_from(STATUSES)) for k in ORDER} for ch in ids}
    with_outline = draw(st.booleans())
    batches = {ch: draw(st.integers(1, 3)) for ch in ids} if with_outline else None
    if batches and draw(st.booleans()):  # one chapter with files but not in the outline
        batches.pop(ids[-1])
    live = {}
    for ch in ids:
        for k in ORDER:
            if draw(st.integers(0, 9)) == 0:
                live[(ch, k)] = draw(st.sampled_from(LIVE))
    return make_snapshot(matrix, batches, draw(st.booleans())), live


@settings(max_examples=150, deadline=None)
@given(case=snapshots(), lang=st.sampled_from(["en", "zh"]), title=st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30))
def test_render_parse_round_trip(case, lang, title):
    snap, live = case
    text = render(snap, title, lang, live, now=NOW)
    assert parse(text) == expected(snap, live, lang)
    # a checkpoint rendered from the files agrees with those files, whatever the live statuses
    if not live:
        assert compare(snap, text, lang) == []


def test_zh_headers_are_exactly_the_designed_ones():
    snap = make_snapshot({"ch01": {"research": "done"}, "ch02": {}}, {"ch01": 1, "ch02": 2}, book_done=True)
    text = render(snap, "书", "zh", now=NOW)
    lines = text.splitlines()
    assert lines[0] == "# 书 — 项目进度检查点"
    assert "最后更新: 2026-11-29 20:41 UTC" in lines
    assert "当前Phase: 3" in lines
    assert "当前批次: Batch 1" in lines
    assert "## Phase 1: 大纲定稿 — ✅ 完成" in lines
    assert "## Phase 2: 共享资源构建 — ✅ 完成" in lines
    assert "## Phase 3: 逐章写作 — ⏳ 进行中" in lines
    assert "### Batch 1" in lines and "### Batch 2 — 未开始" in lines
    assert "## Phase 4: 统稿审计 — 未开始" in lines and "## Phase 5: HTML装帧 — 未开始" in lines
    assert lines.count(ZH_HEADER) == 2  # one table per batch
    assert "| 章节 | 定稿 |" in lines and "| 章节 | HTML |" in lines
    assert lines[-1] == "图例: ✅完成  ⏳进行中  ❌失败  ⚠️需人工  🔄需重做  — 未开始"
    row = next(line for line in lines if line.startswith("| ch01 |"))
    assert [c.strip() for c in row.strip("|").split("|")] == ["ch01", "✅"] + ["—"] * 7
    assert [checkpoint.label(k, "zh") for k in PHASE3] == ZH_HEADER.strip("| ").split(" | ")[1:]


def test_en_headers():
    snap = make_snapshot({"ch01": {}}, None)
    text = render(snap, "Book", "en", now=NOW)
    assert EN_HEADER in text.splitlines()
    assert "### Not in the outline — not started" in text.splitlines()
    assert "Current phase: 1" in text and "Current batch: —" in text


def test_needs_human_section():
    snap = make_snapshot({"ch01": {"research": "done"}}, {"ch01": 1})
    text = render(snap, "B", "zh", live={("ch01", "draft"): "needs_human"}, needs_human={"ch01": "gate research"}, now=NOW)
    assert "## 需人工处理" in text and "- ch01: NEEDS_HUMAN_REVIEW — gate research" in text
    assert parse(text)[("ch01", "draft")] == "⚠️需人工"


def test_an_english_checkpoint_has_no_chinese_label():
    snap = make_snapshot({"ch01": {"research": "done"}}, {"ch01": 1})
    text = render(snap, "B", "en", live={("ch01", "draft"): "needs_human"}, needs_human={"ch01": "gate research"},
                  now=NOW, gates=["output/gates/research-ch01.md"])
    assert "需" not in text and "✋ output/gates/research-ch01.md" in text
    assert parse(text)[("ch01", "draft")] == "✋"
    assert compare(snap, text, "en") == []  # the sign reads back as "waiting for a person"


def test_parse_tolerates_hand_formatting():
    text = "\n".join([
        "# whatever",
        "|章节|研究|写作|",
        "|---|:---:|---|",
        "|  ch01 |✅|  🔄  |",
        "| ch02 | — | ⚠️ |",
        "not a table line | ch03 | ✅ |",
        "| Chapter | Final |",
        "|-|-|",
        "| ch01 | ❌ |",
    ])
    assert parse(text) == {("ch01", "research"): "✅", ("ch01", "draft"): "🔄", ("ch02", "research"): "—",
                           ("ch02", "draft"): "⚠️", ("ch01", "final"): "❌"}
    assert parse("") == {} and parse("| ch01 | ✅ |") == {}  # a row without a header is ignored


# ---------------------------------------------------------------- compare against real files


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "ws"
    write(root, STEPS["research"].file("ch01"), compose("research", "RESEARCH_COMPLETE"))
    write(root, STEPS["draft"].file("ch01"), compose("draft", "DRAFT_COMPLETE", {"research": short_hash("research")}))
    write(root, STEPS["research"].file("ch02"), "half written")
    return root


def scan(root: Path) -> Snapshot:
    return snapshot(Scanner(root))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_agrees_with_a_fresh_render(tree, lang):
    snap = scan(tree)
    assert status_word(snap.chapters["ch01"]["draft"]) == "done"
    assert compare(snap, render(snap, "B", lang), lang) == []


def test_compare_reports_a_done_claim_for_a_half_finished_file(tree):
    text = render(scan(tree), "B", "en")
    draft = tree / STEPS["draft"].file("ch01")
    draft.write_text("draft\n")  # the marker is gone: half-finished
    issues = compare(scan(tree), text, "en")
    assert issues == [f"checkpoint.md says ch01 Write ✅, but {STEPS['draft'].file('ch01')} is half_finished"]


def test_compare_reports_a_done_claim_for_a_missing_file(tree):
    text = render(scan(tree), "B", "zh")
    (tree / STEPS["research"].file("ch01")).unlink()
    issues = compare(scan(tree), text, "zh")
    assert f"checkpoint.md says ch01 研究 ✅, but {STEPS['research'].file('ch01')} is missing" in issues
    # the draft it was made from is now stale: also a disagreement
    assert f"checkpoint.md says ch01 写作 ✅, but {STEPS['draft'].file('ch01')} is stale" in issues


def test_compare_reports_files_the_checkpoint_does_not_know(tree):
    text = render(scan(tree), "B", "en")
    write(tree, STEPS["r1"].file("ch01"), compose("r1", "R1_CODE_REVIEW_COMPLETE"))
    write(tree, STEPS["research"].file("ch03"), compose("r", "RESEARCH_COMPLETE"))
    issues = compare(scan(tree), text, "en")
    assert f"checkpoint.md says ch01 R1 —, but {STEPS['r1'].file('ch01')} is done" in issues
    assert f"checkpoint.md does not list ch03 Research, but {STEPS['research'].file('ch03')} is done" in issues


def test_compare_accepts_a_hand_edit_as_done(tree):
    text = render(scan(tree), "B", "en")
    draft = tree / STEPS["draft"].file("ch01")
    draft.write_text(draft.read_text().replace("draft", "draft, improved by hand", 1))
    snap = scan(tree)
    assert status_word(snap.chapters["ch01"]["draft"]) == "edited"
    assert compare(snap, text, "en") == []


def test_compare_live_symbols(tree):
    snap = scan(tree)
    text = render(snap, "B", "en", live={("ch02", "research"): "running", ("ch01", "r1"): "failed",
                                         ("ch01", "research"): "needs_human"})
    assert compare(snap, text, "en") == []
    # but "running" for a step whose file is done is a disagreement
    text = render(snap, "B", "en", live={("ch01", "research"): "running"})
    assert len(compare(snap, text, "en")) == 1


def test_a_built_books_checkpoint_matches_its_files(built_ws):
    from orchestrator.state.book import Book, scan_report

    text = (built_ws / "output/memory/checkpoint.md").read_text()
    symbols = parse(text)
    assert symbols and set(symbols.values()) == {"✅"}
    assert {k for _, k in symbols} == set(ORDER)
    book = Book.open(built_ws, repair=False)
    try:
        assert scan_report(book)["discrepancies"] == []
    finally:
        book.close()
