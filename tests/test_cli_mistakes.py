"""Issue 13, item 7: every CLI mistake exits 2 with a message naming what was wrong and the
valid choices; `book --version`; help that explains steps, gates and phases; `book log`
says when there is nothing yet; `book approve` says `book run` continues. In-process,
through the real entry point (its error → exit-code mapping)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orchestrator import __version__
from orchestrator.main import main
from orchestrator.testing.helpers import make_example, run_book


def book(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["book", *args])
    with pytest.raises(SystemExit) as e:
        main()
    out = capsys.readouterr()
    return int(e.value.code or 0), out.out + out.err


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    ws = make_example(tmp_path_factory.mktemp("cli") / "ws", max_chapters=2)
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    return ws


def test_run_unknown_chapter(built, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "run", "--chapter", "ch99", "--workspace", str(built))
    assert code == 2 and "ch99 is not in the outline" in msg and "ch01, ch02" in msg and "KeyError" not in msg


def test_run_unknown_batch(built, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "run", "--batch", "9", "--workspace", str(built))
    assert code == 2 and "no batch 9" in msg and "batches: 1" in msg


def test_redo_unknown_chapter(built, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "redo", "ch99", "draft", "--workspace", str(built))
    assert code == 2 and "ch99 is not in the outline" in msg and "ch01" in msg


def test_redo_unknown_step(built, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "redo", "ch01", "drafts", "--workspace", str(built))
    assert code == 2 and "unknown step 'drafts'" in msg and "research, draft" in msg


def test_unknown_provider_even_with_nothing_to_do(built, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "run", "--provider", "nosuch", "--workspace", str(built))
    assert code == 2 and "unknown provider 'nosuch'" in msg and "offline, anthropic" in msg


def test_init_unsupported_language(tmp_path, capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "init", str(tmp_path / "b"), "--language", "fr")
    assert code == 2 and "--language 'fr'" in msg and "en or zh" in msg
    assert not (tmp_path / "b/book.yaml").exists()


def test_empty_title_in_book_yaml(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", title='""')
    code, msg = book(capsys, monkeypatch, "run", "--workspace", str(ws))
    assert code == 2 and "title is empty" in msg and "book.yaml" in msg


def test_version(capsys, monkeypatch):
    code, msg = book(capsys, monkeypatch, "--version")
    assert code == 0 and msg.strip() == f"book {__version__}"


def test_help_names_steps_gates_and_phases(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    _, msg = book(capsys, monkeypatch, "redo", "--help")
    assert all(s in msg for s in ("research", "panel", "memory", "final", "audit"))
    _, msg = book(capsys, monkeypatch, "approve", "--help")
    assert all(g in msg for g in ("outline", "research", "review", "final"))
    _, msg = book(capsys, monkeypatch, "run", "--help")
    assert "1 plan" in msg and "5 HTML" in msg
    _, msg = book(capsys, monkeypatch, "--help")
    assert "Phases" in msg and "3 chapters" in msg and "5 HTML site" in msg


def test_log_says_when_there_is_nothing(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws")
    code, msg = book(capsys, monkeypatch, "log", "--workspace", str(ws))
    assert code == 0 and "no events yet" in msg


def test_approve_says_book_run_continues(tmp_path, capsys, monkeypatch):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=1)
    code, _ = run_book(ws)
    assert code == 3
    code, msg = book(capsys, monkeypatch, "approve", "outline", "--workspace", str(ws))
    assert code == 0 and "`book run` will continue" in msg and "resume" not in msg
