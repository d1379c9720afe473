"""Issue 25, item 5: every error path names the thing and the fix, with the same exit code
everywhere (2: usage or config)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestrator.cli.status import EVENT_TYPES
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import make_example

ROOT = Path(__file__).resolve().parent.parent


def test_init_refuses_a_missing_source_and_makes_nothing(tmp_path: Path):
    proc = run_cli("init", str(tmp_path / "b"), "--source", str(tmp_path / "missing"))
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and str(tmp_path / "missing") in proc.stderr and "fix:" in proc.stderr
    assert not (tmp_path / "b").exists()


def test_init_refuses_a_file_as_source(tmp_path: Path):
    f = tmp_path / "one.py"
    f.write_text("x = 1\n")
    proc = run_cli("init", str(tmp_path / "b"), "--source", str(f))
    assert proc.returncode == 2 and "is a file, not a directory" in proc.stderr and str(f) in proc.stderr


def test_init_refuses_an_empty_source(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    proc = run_cli("init", str(tmp_path / "b"), "--source", str(tmp_path / "empty"))
    assert proc.returncode == 2 and "is empty" in proc.stderr and str(tmp_path / "empty") in proc.stderr


def test_a_source_that_became_a_file_is_a_config_error_naming_book_yaml(tmp_path: Path):
    ws = make_example(tmp_path / "ws")
    (ws / "code.py").write_text("x = 1\n")
    cfg = ws / "book.yaml"
    cfg.write_text(re.sub(r"(?m)^source:.*$", 'source: "./code.py"', cfg.read_text()))
    proc = run_cli("run", "--workspace", str(ws))
    assert proc.returncode == 2 and "book.yaml:" in proc.stderr and "is a file" in proc.stderr


def test_a_run_on_a_source_without_code_names_it(tmp_path: Path):
    ws = make_example(tmp_path / "ws")
    (ws / "docs").mkdir()
    (ws / "docs/notes.txt").write_text("no code here\n")
    cfg = ws / "book.yaml"
    cfg.write_text(re.sub(r"(?m)^source:.*$", 'source: "./docs"', cfg.read_text()))
    proc = run_cli("run", "--workspace", str(ws))
    assert proc.returncode == 3 and str(ws / "docs") in proc.stderr and "no code files" in proc.stderr


def test_init_example_puts_the_sample_where_book_yaml_points(tmp_path: Path):
    proc = run_cli("init", str(tmp_path / "b"), "--example", "--source", "./x")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b/x/minikv").is_dir() and not (tmp_path / "b/src").exists()
    assert 'source: "./x"' in (tmp_path / "b/book.yaml").read_text()


@pytest.mark.parametrize("args", [["scan"], ["scan", "--json"], ["log"], ["cost"], ["replay"], ["watch"]])
def test_reading_commands_outside_a_book_exit_2(tmp_path: Path, args: list[str]):
    proc = run_cli(*args, "--workspace", str(tmp_path))
    assert proc.returncode == 2
    assert "no book here" in proc.stderr and str(tmp_path) in proc.stderr and "book init" in proc.stderr


def test_scan_of_a_bare_tree_of_files_still_works(tmp_path: Path):
    (tmp_path / "output/chapters/draft").mkdir(parents=True)
    (tmp_path / "output/chapters/draft/ch01-draft.md").write_text("# One\n\ntext\n")
    proc = run_cli("scan", "--json", "--workspace", str(tmp_path))
    assert proc.returncode == 0, proc.stderr


def test_log_refuses_an_unknown_type_and_hides_skips(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=1)
    assert run_cli("run", "--workspace", str(ws)).returncode == 3  # the steps behind the outline gate skip
    proc = run_cli("log", "--type", "bogus", "--workspace", str(ws))
    assert proc.returncode == 2 and "unknown event type 'bogus'" in proc.stderr and "step_start" in proc.stderr
    shown = run_cli("log", "--workspace", str(ws))
    assert shown.returncode == 0 and "step_skipped" not in shown.stdout
    assert re.search(r"\d+ step_skipped event\(s\) not shown", shown.stderr)
    every = run_cli("log", "--skips", "--workspace", str(ws))
    assert "step_skipped" in every.stdout


def test_event_types_name_every_event_the_code_writes():
    code = "\n".join(p.read_text() for p in (ROOT / "orchestrator").rglob("*.py") if "testing" not in p.parts)
    written = set(re.findall(r'\.event\(\s*"([a-z_]+)"', code))
    assert written and written <= EVENT_TYPES, written - EVENT_TYPES


def _built(tmp_path: Path) -> Path:
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_cli("run", "--workspace", str(ws)).returncode == 0
    return ws


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_an_outline_without_its_yaml_block_is_kept_and_the_fix_is_true(tmp_path: Path):
    ws = _built(tmp_path)
    outline = ws / "output/memory/outline.md"
    text = outline.read_text()
    broken = text.replace("```yaml", "").replace("```\n", "\n")  # a person removed the fence
    outline.write_text(broken)
    proc = run_cli("run", "--workspace", str(ws))
    assert proc.returncode == 2 and "no ```yaml block" in proc.stderr
    assert "restore" not in proc.stderr and "book redo book outline" in proc.stderr
    assert outline.read_text() == broken  # kept, never regenerated over a person's text


def test_an_outline_chapter_without_an_id_is_named_by_its_line(tmp_path: Path):
    ws = _built(tmp_path)
    outline = ws / "output/memory/outline.md"
    text = outline.read_text()
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.strip().startswith("- id: ch02"))
    outline.write_text(text.replace("- id: ch02\n    title", "- title", 1))
    proc = run_cli("scan", "--workspace", str(ws))
    assert "None" not in proc.stdout + proc.stderr
    assert re.search(rf"outline\.md:{line}: chapter 2 of the list has no id", proc.stdout + proc.stderr), proc.stdout


def test_dry_run_marks_the_steps_behind_a_waiting_gate(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="fast", max_chapters=2)
    run_cli("run", "--workspace", str(ws))
    proc = run_cli("run", "--dry-run", "--workspace", str(ws))
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert any(line.split()[:2] == ["book", "gate:outline"] and "waiting for a person" in line for line in lines)
    research = [line for line in lines if line.split()[1:2] == ["research"]]
    assert research and all("waits for a decision at the outline gate" in line for line in research)
