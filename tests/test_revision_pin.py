"""The right revision (issue 34): a commit only when the source files are tracked by that
repository and unchanged; otherwise the tree's content hash, saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from orchestrator.evidence.gitindex import read_index
from orchestrator.evidence.revision import source_revision

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "outer"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "a.py").write_text("def f():\n    return 1\n")
    (repo / ".gitignore").write_text("vendor/\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    return repo


def test_a_folder_the_enclosing_repository_ignores_is_pinned_by_its_content(tmp_path: Path):
    repo = _repo(tmp_path)
    src = repo / "vendor" / "pkg"
    src.mkdir(parents=True)
    (src / "b.py").write_text("def g():\n    return 2\n")
    rev = source_revision(src)
    assert rev.kind == "tree" and rev.id.startswith("tree:")
    assert "not tracked" in rev.why and "not tracked" in rev.label()
    assert rev.as_dict()["why"] == rev.why and rev.permalink("b.py", 1, 1) is None


def test_a_tracked_clean_folder_is_its_commit_and_a_changed_one_its_content(tmp_path: Path):
    repo = _repo(tmp_path)
    head = _git(repo, "rev-parse", "HEAD")
    rev = source_revision(repo / "lib")
    assert (rev.kind, rev.id, rev.why) == ("git", head, "")
    (repo / "lib" / "a.py").write_text("def f():\n    return 3\n")
    rev = source_revision(repo / "lib")
    assert rev.kind == "tree" and "differ from the commit" in rev.why
    (repo / "lib" / "a.py").write_text("def f():\n    return 1\n")  # the same bytes again: the commit
    assert source_revision(repo / "lib").id == head
    (repo / "lib" / "new.py").write_text("x = 1\n")  # a file the commit lacks
    assert source_revision(repo / "lib").kind == "tree"


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_index_is_read_in_each_of_its_versions(tmp_path: Path, version: str):
    repo = _repo(tmp_path)
    for k in range(12):
        (repo / "lib" / f"module_with_a_long_name_{k}.py").write_text(f"x = {k}\n")
    _git(repo, "add", "-A")
    _git(repo, "update-index", "--index-version", version)
    idx = read_index(repo / ".git")
    assert idx is not None and "lib/a.py" in idx and "lib/module_with_a_long_name_11.py" in idx
    assert len(idx) == 14
    blob = _git(repo, "rev-parse", ":lib/a.py")
    assert idx["lib/a.py"].sha == blob
