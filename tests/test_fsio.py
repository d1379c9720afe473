"""Writing files: atomic writes, backups that never overwrite, the workspace
gate for paths, and sweeping dead writers' temp files."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.errors import PathError
from orchestrator.state import fsio
from orchestrator.state.fsio import (
    PartialWriter,
    Workspace,
    atomic_write,
    backup,
    partial_path,
    pid_alive,
    sweep_temp_files,
    write_if_changed,
)
from orchestrator.steps import check_relpath

BOOK = Path(sys.executable).parent / "book"


def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    p = subprocess.Popen(["sleep", "0"])
    p.wait()
    assert not pid_alive(p.pid)
    return p.pid


def listing(d: Path) -> list[str]:
    return sorted(p.relative_to(d).as_posix() for p in d.rglob("*"))


def snapshot_tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- atomic_write


def test_atomic_write_creates_and_replaces_without_temp_files(tmp_path):
    p = tmp_path / "a/b/c.md"
    atomic_write(p, "first")
    assert p.read_text() == "first"
    ino = p.stat().st_ino
    atomic_write(p, b"second \xff")
    assert p.read_bytes() == b"second \xff"
    assert p.stat().st_ino != ino  # replaced by rename, never rewritten in place
    assert listing(tmp_path) == ["a", "a/b", "a/b/c.md"]


def test_atomic_write_utf8(tmp_path):
    atomic_write(tmp_path / "z.md", "中文 — é")
    assert (tmp_path / "z.md").read_bytes() == "中文 — é".encode()


def test_a_crash_before_the_rename_keeps_the_old_content(tmp_path, monkeypatch):
    p = tmp_path / "f.md"
    atomic_write(p, "old")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(fsio.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(p, "new")
    monkeypatch.undo()
    assert p.read_text() == "old"
    # what was left behind is a temp file of a live pid: not swept while we live, swept once dead
    left = [x for x in listing(tmp_path) if x != "f.md"]
    assert all(x.startswith(".f.md.tmp.") for x in left)
    assert sweep_temp_files(tmp_path) == []


def test_mutation_hook_sees_every_write(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(fsio, "mutation_hook", lambda kind, path: seen.append((kind, path.name)))
    atomic_write(tmp_path / "x.md", "1")
    backup(tmp_path / "x.md")
    w = PartialWriter(tmp_path / "y.md")
    w.retire()
    assert seen == [("write", "x.md"), ("backup", "x.md"), ("partial", "y.md.partial"),
                    ("remove-partial", "y.md.partial")]


def test_write_if_changed_leaves_identical_files_alone(tmp_path):
    p = tmp_path / "f.md"
    assert write_if_changed(p, "same") is True
    st = p.stat()
    time.sleep(0.01)
    assert write_if_changed(p, "same") is False
    assert p.stat().st_mtime_ns == st.st_mtime_ns and p.stat().st_ino == st.st_ino
    assert write_if_changed(p, b"other") is True
    assert p.read_bytes() == b"other"


# ---------------------------------------------------------------- backup


def test_backup_moves_aside_and_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.setattr(fsio, "utc_stamp", lambda: "20261129T204100000000Z")
    p = tmp_path / "ch01-draft.md"
    made = []
    for i in range(4):
        p.write_text(f"version {i}")
        made.append(backup(p))
        assert not p.exists()
    names = [m.name for m in made]
    assert names == ["ch01-draft.md.bak.20261129T204100000000Z", "ch01-draft.md.bak.20261129T204100000000Z-1",
                     "ch01-draft.md.bak.20261129T204100000000Z-2", "ch01-draft.md.bak.20261129T204100000000Z-3"]
    assert [m.read_text() for m in made] == [f"version {i}" for i in range(4)]


def test_backup_of_a_missing_file_is_none(tmp_path):
    assert backup(tmp_path / "nope.md") is None
    assert listing(tmp_path) == []


def test_backup_uses_a_utc_timestamp(tmp_path):
    p = tmp_path / "f.md"
    p.write_text("x")
    dest = backup(p)
    stamp = dest.name.split(".bak.")[1]
    assert len(stamp) == len("20261129T204100000000Z") and stamp.endswith("Z") and stamp[8] == "T"


# ---------------------------------------------------------------- partial files


def test_partial_writer_streams_resets_and_retires(tmp_path):
    final = tmp_path / "out/ch01-draft.md"
    w = PartialWriter(final, prefix="# Start\n")
    assert w.path == partial_path(final) == tmp_path / "out/ch01-draft.md.partial"
    w.write("some ")
    w.write("text")
    assert w.path.read_text() == "# Start\nsome text"  # flushed as it goes: `tail -f` works
    w.reset()
    assert w.path.read_text() == "# Start\n"
    w.write("again")
    w.reset(keep_prefix=False)
    assert w.path.read_text() == ""
    w.retire()
    assert not w.path.exists() and not final.exists()
    w.retire()  # twice is fine


# ---------------------------------------------------------------- Workspace.path


def test_workspace_path_inside(tmp_path):
    ws = Workspace(tmp_path)
    assert ws.path("output/memory/outline.md") == tmp_path.resolve() / "output/memory/outline.md"
    assert ws.path("") == tmp_path.resolve()
    assert ws.rel(ws.path("output/x.md")) == "output/x.md"


@pytest.mark.parametrize("rel", ["..", "../x", "output/../../x", "../" + "ws2/x", "/etc/passwd", "/tmp/elsewhere/x",
                                 "output/../../../../../../etc/passwd"])
def test_workspace_path_refuses_to_leave(tmp_path, rel):
    root = tmp_path / "ws"
    root.mkdir()
    with pytest.raises(PathError) as e:
        Workspace(root).path(rel)
    assert e.value.exit_code == 2
    assert "outside the workspace" in str(e.value)


def test_workspace_path_refuses_symlink_escapes(tmp_path):
    root = tmp_path / "ws"
    (root / "output").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "output/link").symlink_to(outside)
    (root / "output/dangling").symlink_to(tmp_path / "nowhere/file.md")
    (root / "inner").symlink_to(root / "output")  # a symlink that stays inside is fine
    ws = Workspace(root)
    for rel in ("output/link/x.md", "output/link", "output/dangling"):
        with pytest.raises(PathError):
            ws.path(rel)
    assert ws.path("inner/x.md") == root.resolve() / "output/x.md"
    assert listing(outside) == []


def test_workspace_prefix_sibling_is_outside(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-evil").mkdir()
    with pytest.raises(PathError):
        Workspace(tmp_path / "ws").path("../ws-evil/x")


@pytest.mark.parametrize("rel", ["../x", "/abs/x", "a/../../x", "a/..", "C:/x", "c:x", "..\\x", ""])
def test_check_relpath_refuses_dotdot_and_absolute(rel):
    with pytest.raises(PathError):
        check_relpath(rel)


def test_check_relpath_accepts_plain_relative_paths():
    assert check_relpath("minikv/store.py") == "minikv/store.py"
    assert check_relpath("a\\b.py") == "a/b.py"
    assert check_relpath("./a.py") == "a.py"


# ---------------------------------------------------------------- pids


def test_pid_alive():
    assert pid_alive(os.getpid())
    assert not pid_alive(0) and not pid_alive(-1)
    assert not pid_alive(dead_pid())


@pytest.mark.slow
def test_a_zombie_is_dead():
    p = subprocess.Popen(["sleep", "0"])
    try:
        for _ in range(200):  # wait until it has exited but is not reaped
            try:
                with open(f"/proc/{p.pid}/stat") as fh:
                    if fh.read().split(")")[-1].split()[0] == "Z":
                        break
            except OSError:
                pytest.skip("no /proc")
            time.sleep(0.01)
        assert not pid_alive(p.pid)
    finally:
        p.wait()


# ---------------------------------------------------------------- sweeping temp files


def test_sweep_removes_only_dead_writers_temp_files(tmp_path):
    dead = dead_pid()
    me = os.getpid()
    (tmp_path / "a/b").mkdir(parents=True)
    files = {
        f"a/.ch01-draft.md.tmp.{dead}": True,  # a dead writer's temp file
        f"a/b/.checkpoint.md.tmp.{dead}": True,
        f"a/.ch02-draft.md.tmp.{me}": False,  # ours: a write in progress
        "a/.ch03-draft.md.tmp.abc": False,  # not a pid
        f"a/ch04-draft.md.tmp.{dead}": False,  # not a hidden temp name
        f"a/.ch05-draft.md.tmp.{dead}.bak": False,
        "a/ch01-draft.md": False,
        "a/ch01-draft.md.partial": False,  # a partial is someone's work in flight: kept
        f"a/ch01-draft.md.bak.{dead}": False,
    }
    for rel in files:
        (tmp_path / rel).write_text("x")
    gone = sweep_temp_files(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in gone) == sorted(r for r, g in files.items() if g)
    for rel, g in files.items():
        assert (tmp_path / rel).exists() != g, rel
    assert sweep_temp_files(tmp_path) == []
