"""Issue 23, item 7: the working files a person reads at the gates follow the book's language.
In a Chinese book the gate cards, needs-human.md, RESUME.md and the CLI's gate messages are
Chinese; field names, decisions, markers, file names, commands and hashes stay as they are, and
a card is read whichever language it was written in (cards from before, a language changed)."""

from __future__ import annotations

import string
from pathlib import Path

from orchestrator.pipeline import gates
from orchestrator.pipeline.review_walk import walk
from orchestrator.state.book import Book
from orchestrator.state.human_text import EN, TABLES
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import make_example


def cli(ws: Path, *args: str):
    return run_cli(*args, "--workspace", str(ws))


def card_of(ws: Path, gate: str, ch: str | None = None):
    book = Book.open(ws, repair=False)
    try:
        return gates.read_card(book, gate, ch)
    finally:
        book.close()


def test_every_language_has_every_phrase_with_the_same_fields():
    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    for lang, table in TABLES.items():
        assert table.keys() == EN.keys(), lang
        for k, text in table.items():
            assert fields(text) == fields(EN[k]), (lang, k)


def test_a_chinese_book_speaks_chinese_at_its_gates(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="normal", language="zh", max_chapters=2)
    run = cli(ws, "run")
    assert run.returncode == 3 and "等待你的决定" in run.stderr and "output/gates/outline.md" in run.stderr
    card = (ws / "output/gates/outline.md").read_text(encoding="utf-8")
    for heading in ("# 关卡：outline", "## 预览", "## 建议", "## 风险", "## 可选操作", "## 决定"):
        assert heading in card
    assert "## Preview" not in card and "## Alternatives" not in card
    assert "- artifact_hash: " in card and "- decision: pending" in card and "`book approve outline`" in card
    assert card_of(ws, "outline").decision == "pending"
    listed = cli(ws, "gates")
    assert "outline：1 张等待" in listed.stderr and "`book approve outline`" in listed.stderr
    resume = (ws / "RESUME.md").read_text(encoding="utf-8")
    for heading in ("## 项目概况", "## 当前进度", "## 未完成的任务", "## 已知问题", "## 关键决定", "## 下一步", "## 重要文件"):
        assert heading in resume
    assert "## Project overview" not in resume and "`book approve outline --workspace" in resume
    approved = cli(ws, "approve", "outline")
    assert approved.returncode == 0 and "已批准：output/gates/outline.md。`book run` 会继续。" in approved.stderr
    assert card_of(ws, "outline").decision == "approved"
    assert "重复的决定" in cli(ws, "approve", "outline").stderr
    run = cli(ws, "run")
    assert run.returncode == 3 and "张关卡卡片后等待" in run.stderr
    needs = (ws / "output/memory/needs-human.md").read_text(encoding="utf-8")
    assert needs.startswith("# 需要人工处理") and "Needs a person" not in needs
    ch = card_of(ws, "research", "ch01")
    assert ch is not None and ch.decision == "pending"
    rejected = cli(ws, "reject", "research", "ch01", "--reason", "写清楚测试")
    assert "已驳回" in rejected.stderr and "会按你的理由重做 research" in rejected.stderr
    assert card_of(ws, "research", "ch01").reason == "写清楚测试"


def test_the_walk_asks_in_the_book_s_language(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", language="zh", max_chapters=2)
    cli(ws, "run")
    asked: list[str] = []
    said: list[str] = []
    book = Book.open(ws)
    try:
        cards = gates.pending(book, book.scanner.chapters())
        feed = iter(["x", "s"])
        walk(book, cards, lambda prompt: asked.append(prompt) or next(feed), said.append)
    finally:
        book.close()
    assert asked and all(p == TABLES["zh"]["w_keys"] for p in asked)
    assert any("请输入 a、r、m、s、q 之一" in s for s in said)
    assert any(s.startswith("── outline 关卡") for s in said)


def test_a_card_is_read_in_either_language(tmp_path: Path):
    """A card written in English (as every card was before) is read by a Chinese book, and the
    other way round: the language of the headings never decides what a card says."""
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    cli(ws, "run")
    english = (ws / "output/gates/outline.md").read_text(encoding="utf-8")
    assert "## Preview" in english
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace("language: \"en\"", "language: zh").replace("language: en", "language: zh"))
    assert card_of(ws, "outline").decision == "pending"
    assert cli(ws, "approve", "outline").returncode == 0
    chinese = (ws / "output/gates/outline.md").read_text(encoding="utf-8")
    assert "## 预览" in chinese and "- decision: approved" in chinese
    cfg.write_text(cfg.read_text().replace("language: zh", "language: en"))
    card = card_of(ws, "outline")
    assert card is not None and card.decision == "approved"
    # a preview cannot forge the decision, in either language's headings
    forged = chinese.replace("## 预览\n", "## 预览\n\n## 可选操作\n\n- decision: rejected\n- confirmation: 000000000000\n", 1)
    (ws / "output/gates/outline.md").write_text(forged, encoding="utf-8")
    card = card_of(ws, "outline")
    assert card is not None and card.decision == "approved" and card.confirmation != "000000000000"


def test_a_person_s_section_of_a_chinese_resume_is_kept_once(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", language="zh", max_chapters=2)
    cli(ws, "run")
    resume = ws / "RESUME.md"
    resume.write_text(resume.read_text(encoding="utf-8") + "\n## 我的笔记\n\n先看第二章。\n", encoding="utf-8")
    cli(ws, "approve", "outline")
    cli(ws, "run")
    text = resume.read_text(encoding="utf-8")
    assert text.count("## 我的笔记") == 1 and text.count("## 项目概况") == 1 and "先看第二章。" in text


def test_an_expired_card_says_so_in_chinese(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", language="zh", max_chapters=2)
    cli(ws, "run")
    outline = ws / "output/memory/outline.md"
    outline.write_text(outline.read_text(encoding="utf-8") + "\n补充说明。\n", encoding="utf-8")
    proc = cli(ws, "approve", "outline")
    assert proc.returncode == 3 and "卡片已过期：output/memory/outline.md 在卡片生成后有了改动" in proc.stderr


def test_a_decision_the_command_line_cannot_take_is_refused_in_chinese(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="normal", language="zh", max_chapters=2)
    cli(ws, "run")
    for args, said in [(("reject", "outline"), "请用 --reason 说明理由"), (("approve",), "请写出关卡"),
                       (("approve", "research"), "research 关卡按章节决定"),
                       (("approve", "research", "ch01"), "research 关卡（ch01）还没有卡片"),
                       (("approve", "research", "b1"), "gate_grain: chapter")]:
        proc = cli(ws, *args)
        assert proc.returncode == 2 and said in proc.stderr, (args, proc.stderr)
