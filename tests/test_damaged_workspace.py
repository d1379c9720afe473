"""A damaged workspace gets a clear error (issue 15): a directory where book.yaml,
checkpoint.md, RESUME.md or needs-human.md belongs, a file where output/ belongs, an
unreadable file: exit 2 with the path and what to do, never a traceback, and nothing changed."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from conftest import from_an_earlier_session, make_example, tree

from orchestrator.state.fsio import explain_os_error
from orchestrator.steps import CHECKPOINT, NEEDS_HUMAN, RESUME, STEPS
from orchestrator.testing.cli import Completed, run_cli


def book(*args: str) -> Completed:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    return run_cli(*args, env=env)


def make_dir_in_place(p: Path) -> None:
    if p.exists():
        p.unlink()
    p.mkdir(parents=True)
    (p / "something").write_text("a person's file")


def test_book_yaml_a_directory(tmp_path):
    ws = make_example(tmp_path / "ws")
    make_dir_in_place(ws / "book.yaml")
    for args in (["run"], ["scan"], ["resume"]):
        proc = book(*args, "--workspace", str(ws))
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"{ws / 'book.yaml'} is a directory where a file belongs" in proc.stderr
        assert "mv " in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("rel", [CHECKPOINT, RESUME, NEEDS_HUMAN])
def test_a_directory_where_a_state_file_belongs_stops_a_writer_before_it_writes(built_ws, rel):
    ws = built_ws
    make_dir_in_place(ws / rel)
    before = tree(ws)
    for args in (["run"], ["resume"], ["redo", "ch01", "draft"]):
        proc = book(*args, "--workspace", str(ws))
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"{ws / rel} is a directory where a file belongs" in proc.stderr and "Traceback" not in proc.stderr
    assert tree(ws) == before
    assert book("scan", "--workspace", str(ws)).returncode == 0  # reading still works


def test_scan_rebuild_names_checkpoint_md_not_its_temp_file(built_ws):
    ws = built_ws
    make_dir_in_place(ws / CHECKPOINT)
    proc = book("scan", "--rebuild", "--workspace", str(ws))
    assert proc.returncode == 2
    assert f"{ws / CHECKPOINT} is a directory where a file belongs" in proc.stderr
    assert ".tmp." not in proc.stderr
    assert not [p for p in ws.rglob("*") if ".tmp." in p.name]  # the failed write's temp file is gone


def test_a_directory_where_a_chapter_file_belongs_is_moved_aside_and_redone(built_ws):
    ws = built_ws
    draft = ws / STEPS["draft"].file("ch02")
    make_dir_in_place(draft)
    from_an_earlier_session(draft)  # not made in the tick the command starts in (that would be kept as a save)
    proc = book("run", "--workspace", str(ws))
    assert proc.returncode == 0, proc.stderr
    assert draft.is_file()
    aside = [p for p in draft.parent.iterdir() if p.name.startswith(draft.name + ".bak.")]
    assert len(aside) == 1 and (aside[0] / "something").read_text() == "a person's file"  # nothing deleted


def test_a_file_where_output_belongs(tmp_path):
    ws = make_example(tmp_path / "ws")
    (ws / "output").write_text("not a directory")
    proc = book("run", "--workspace", str(ws))
    assert proc.returncode == 2, proc.stderr
    assert f"{ws / 'output'} is a file where a directory belongs" in proc.stderr and "Traceback" not in proc.stderr
    assert (ws / "output").read_text() == "not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file: the mapping is tested below")
def test_an_unreadable_book_yaml(tmp_path):
    ws = make_example(tmp_path / "ws")
    os.chmod(ws / "book.yaml", 0)
    try:
        proc = book("run", "--workspace", str(ws))
    finally:
        os.chmod(ws / "book.yaml", 0o644)
    assert proc.returncode == 2 and "permission denied" in proc.stderr and "book.yaml" in proc.stderr


def test_an_unreadable_file_is_explained_in_process(tmp_path, monkeypatch, capsys):
    """As root a chmod 000 file is still readable, so the read fails here as it would for a
    person: PermissionError from the config loader, mapped by the entry point."""
    from test_config import run_main

    from orchestrator import config

    ws = make_example(tmp_path / "ws")
    target = ws / "book.yaml"

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(target))

    monkeypatch.setattr(config, "load", denied)
    code, _, err = run_main(monkeypatch, capsys, "run", "--workspace", str(ws))
    assert code == 2
    assert f"{target} cannot be accessed (permission denied)" in err and "chmod u+rw" in err


def test_explain_os_error_names_the_path_and_what_to_do(tmp_path):
    full = explain_os_error(OSError(errno.ENOSPC, "No space left on device", "/w/output/x.md"))
    assert "disk is full" in full and "/w/output/x.md" in full and "book resume" in full
    (tmp_path / "output").write_text("x")
    nd = explain_os_error(NotADirectoryError(errno.ENOTDIR, "Not a directory", str(tmp_path / "output/.book/x")))
    assert f"{tmp_path / 'output'} is a file where a directory belongs" in nd
    rep = explain_os_error(IsADirectoryError(errno.EISDIR, "Is a directory", "/w/.a.tmp.1", None, "/w/a"))
    assert rep.startswith("/w/a is a directory")
    ro = explain_os_error(OSError(errno.EROFS, "Read-only file system", "/w/x"))
    assert "read-only" in ro
