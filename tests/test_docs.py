"""Docs that cannot drift, and every command's failure paths through the real entry point."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO

from orchestrator.cli import app
from orchestrator.testing.cli import run_cli


def commands() -> dict[str, str]:
    import typer.main

    group = typer.main.get_command(app)
    return {name: (cmd.help or "") for name, cmd in group.commands.items()}


def test_every_command_is_in_the_readme_with_help_text():
    readme = (REPO / "README.md").read_text()
    for name, help_text in commands().items():
        assert f"`book {name}" in readme, f"README.md does not show `book {name}`"
        assert len(help_text.strip()) > 20, f"`book {name}` has no help text"


def test_readme_opens_with_the_two_commands_ci_runs():
    readme = (REPO / "README.md").read_text().splitlines()
    block = readme[readme.index("```sh") + 1: readme.index("```sh") + 3]
    assert block[0].endswith(".venv/bin/book run")
    assert block[1].endswith(".venv/bin/pytest -n auto")  # the whole suite, on every core
    assert block[1] in (REPO / ".ci/run").read_text()


@pytest.mark.parametrize("args,code,says", [
    (["scan", "--workspace", "/nonexistent/place"], 2, "does not exist"),
    (["run", "--workspace", "."], 2, "no book.yaml here"),
    (["run", "--strategy", "bold"], 2, "unknown strategy"),
    (["redo", "chapter1", "draft"], 2, "invalid chapter id"),
    (["redo", "ch01", "polish"], 2, "unknown step"),
    (["approve", "everything"], 2, ""),
    (["reject", "research", "ch01"], 2, "--reason"),
    (["frobnicate"], 2, "No such command"),
])
def test_failure_paths_exit_codes_and_messages(tmp_path, args, code, says):
    if args[0] in ("approve", "reject"):
        from conftest import make_example

        make_example(tmp_path / "ws")
        args = args + ["--workspace", str(tmp_path / "ws")]
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    assert says in proc.stderr
    assert "Traceback" not in proc.stderr


def test_read_only_commands_on_an_empty_directory_create_nothing(tmp_path):
    for args in (["scan"], ["scan", "--json"], ["log"], ["cost"], ["replay"]):
        proc = run_cli(*args, "--workspace", str(tmp_path))
        assert proc.returncode == 2 and "no book here" in proc.stderr, (args, proc.stderr)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_commands_that_call_no_model_never_import_anthropic(tmp_path):
    """`import anthropic` alone costs ~2 s: scan, and an offline run, must not pay it."""
    from conftest import make_example

    ws = make_example(tmp_path / "ws", max_chapters=1)
    code = f"""
import sys
from orchestrator.main import do_scan
do_scan(__import__('pathlib').Path({str(ws)!r}), True, False)
assert 'anthropic' not in sys.modules and 'typer' not in sys.modules and 'jinja2' not in sys.modules, 'scan'
from orchestrator.testing.helpers import run_book
assert run_book(__import__('pathlib').Path({str(ws)!r}))[0] == 0
assert 'anthropic' not in sys.modules and 'httpx' not in sys.modules, 'offline run'
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
