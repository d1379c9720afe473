"""The commit of a step never replaces a file the run did not write (issue 22, item 1): a person's
save at any instant of the commit, or between the run's decision and the commit, is kept in
place, marker or no marker, and the run's answer goes beside it as `<file>.partial`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from orchestrator.state import commit
from orchestrator.state.fsio import partial_path

OURS = "# Chapter\n\nThe run's earlier text.\n\n<!-- CHAPTER_FINAL body=aaaaaaaaaaaa -->\n"
ANSWER = "# Chapter\n\nThe run's new answer.\n\n<!-- CHAPTER_FINAL body=bbbbbbbbbbbb -->\n"
# how a person saves: in place (truncate and write, or append), or an editor's write-and-rename
SAVES = ("overwrite", "append", "rename_over", "delete_then_write", "late_handle")


def _save(path: Path, how: str, text: str, handles: list) -> str:
    """Apply a person's save; return what they expect the file to hold afterwards."""
    if how == "append" and path.exists():
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
        return path.read_text(encoding="utf-8")
    if how == "rename_over":
        tmp = path.with_name(path.name + ".editor~")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        return text
    if how == "delete_then_write":
        path.unlink(missing_ok=True)
    if how == "late_handle":  # an editor that opened the file earlier and writes now
        if not handles:
            handles.append(open(path, "w", encoding="utf-8"))
        fh = handles[0]
        fh.seek(0)
        fh.truncate()
        fh.write(text)
        fh.flush()
        return text
    path.write_text(text, encoding="utf-8")
    return text


class _Instant:
    """Counts the commit's primitive operations and fires the person's save before the k-th."""

    def __init__(self, k: int, act):
        self.k, self.n, self.act, self.fired = k, 0, act, False

    def wrap(self, fn):
        def inner(*a, **kw):
            if self.n == self.k and not self.fired:
                self.fired = True
                self.act()
            self.n += 1
            return fn(*a, **kw)
        return inner


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.sampled_from(["absent", "ours"]), how=st.sampled_from(SAVES), k=st.integers(-1, 9),
       marker=st.booleans(), words=st.text(alphabet="abcdefgh \n", min_size=1, max_size=40))
def test_a_save_at_any_instant_of_a_commit_loses_no_byte(tmp_path_factory, monkeypatch, start, how, k, marker, words):
    d = tmp_path_factory.mktemp("c")
    path = d / "ch01-final.md"
    if start == "ours":
        path.write_text(OURS, encoding="utf-8")
    st_ = path.stat() if path.exists() else None
    version = (st_.st_size, st_.st_mtime_ns) if st_ else None
    mine = "# Mine\n\n" + words + ("\n<!-- CHAPTER_FINAL -->\n" if marker else "\n")
    handles = [open(path, "r+", encoding="utf-8")] if how == "late_handle" and path.exists() else []
    expected: list[str] = []
    instant = _Instant(k, lambda: expected.append(_save(path, how, mine, handles)))
    if k == -1:  # between the decision and the step's start
        instant.act()
        instant.fired = True
    seen = commit.observe(path, version)
    with monkeypatch.context() as m:
        for name in ("digest", "_rename_noreplace", "_exchange"):
            m.setattr(commit, name, instant.wrap(getattr(commit, name)))
        done = commit.commit(path, ANSWER, seen)
    for fh in handles:
        fh.close()
    files = {p.name: p.read_text(encoding="utf-8") for p in d.iterdir()}
    if not expected:  # no save: the answer is in place, the run's earlier text backed up
        assert done.written and path.read_text() == ANSWER
        assert start == "absent" or done.backup is not None and done.backup.read_text() == OURS
        return
    person = expected[-1]
    if how == "late_handle":  # written through an old handle: in place, or at worst in a .bak, never lost
        assert person in files.values(), files
    else:
        assert path.read_text(encoding="utf-8") == person, files
    # and the run's answer is not lost either: it was put in place (a later save replaced it), or is beside it
    if not done.written:
        assert partial_path(path).read_text() == ANSWER
    assert not [n for n in files if ".tmp." in n]  # no temp file left


def test_a_file_created_while_the_step_ran_is_kept(tmp_path):
    path = tmp_path / "ch03-final.md"
    seen = commit.observe(path, None)
    path.write_text("# A chapter a person pasted, marker line dropped.\n")
    done = commit.commit(path, ANSWER, seen)
    assert not done.written and path.read_text().startswith("# A chapter a person pasted")
    assert partial_path(path).read_text() == ANSWER


@pytest.mark.parametrize("touch_only", [True, False])
def test_a_file_that_changed_after_the_decision_is_a_person_s(tmp_path, touch_only):
    path = tmp_path / "ch03-final.md"
    path.write_text(OURS)
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 10_000_000))
    if not touch_only:
        path.write_text(OURS + "a line\n")
    seen = commit.observe(path, (st_.st_size, st_.st_mtime_ns))
    assert seen.foreign
    done = commit.commit(path, ANSWER, seen)
    assert not done.written and path.read_text().startswith(OURS)


def test_move_aside_only_moves_the_version_the_run_saw(tmp_path):
    path = tmp_path / "ch01-draft.md"
    path.write_text("half a draft")
    st_ = path.stat()
    seen = commit.observe(path, (st_.st_size, st_.st_mtime_ns))
    path.write_text("a person's whole draft, saved meanwhile.\n")
    bak, after = commit.move_aside(path, seen)
    assert bak is None and after.foreign and path.read_text().startswith("a person's whole draft")
    seen = commit.observe(path, (path.stat().st_size, path.stat().st_mtime_ns))
    bak, after = commit.move_aside(path, seen)
    assert bak is not None and not path.exists() and after == commit.ABSENT


def test_without_renameat2_the_fallbacks_keep_the_same_promise(tmp_path, monkeypatch):
    monkeypatch.setattr(commit, "_rename2", lambda *a: None)
    path = tmp_path / "f.md"
    seen = commit.observe(path, None)
    path.write_text("mine\n")
    assert not commit.commit(path, ANSWER, seen).written and path.read_text() == "mine\n"
    seen = commit.observe(path, (path.stat().st_size, path.stat().st_mtime_ns))
    done = commit.commit(path, ANSWER, seen)
    assert done.written and path.read_text() == ANSWER and done.backup.read_text() == "mine\n"
