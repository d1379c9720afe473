"""R1's source index: built from the safe walker (a FIFO, a link out or to /dev/zero and a huge
file are never opened), and kept in state.db so another process does not parse the tree again."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from orchestrator.checks import code as r1

SECRET = "OUTSIDE_ONLY_NAME_91f2"


def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "store.py").write_text("class Store:\n    def get(self, key):\n        return key\n")
    (tmp_path / "outside.py").write_text(f"def {SECRET}():\n    pass\n")
    os.symlink(tmp_path / "outside.py", src / "pkg" / "evil.py")
    return src


def test_the_index_never_opens_what_the_walker_refuses(tmp_path):
    src = tree(tmp_path)
    os.mkfifo(src / "pkg" / "pipe.py")
    os.symlink("/dev/zero", src / "pkg" / "zero.py")
    start = time.monotonic()
    found, _ = r1.check_code(f"# T\n\nSee `Store.get` and `{SECRET}()`.\n", src)
    assert time.monotonic() - start < 10
    messages = [f.message for f in found]
    assert any(SECRET in m and "is cited but" in m for m in messages)  # the outside definition is not the source's
    assert not any("Store.get" in m for m in messages)


def test_the_index_is_kept_in_state_db_for_the_next_process(tmp_path, monkeypatch):
    src, db = tree(tmp_path), tmp_path / "ws" / "state.db"
    md = "# T\n\nSee `Store.get` and `Store.put`.\n"
    first, _ = r1.check_code(md, src, state_db=db)
    assert [f.message for f in first] == ["`Store.put` is cited but class `Store` has no member `put`"]
    r1._INDEX_CACHE.clear()  # as in a new process

    def no_parse(*a, **k):
        raise AssertionError("the tree was parsed again")

    monkeypatch.setattr(r1, "_index_python", no_parse)
    again, _ = r1.check_code(md, src, state_db=db)
    assert [f.message for f in again] == [f.message for f in first]
    # a changed file changes the signature: the index is built again, with the new member
    monkeypatch.undo()
    r1._INDEX_CACHE.clear()
    store = src / "pkg" / "store.py"
    store.write_text(store.read_text() + "\n    def put(self, key, value):\n        pass\n")
    os.utime(store, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    fixed, _ = r1.check_code(md, src, state_db=db)
    assert fixed == []


def test_a_damaged_stored_index_is_rebuilt(tmp_path):
    import sqlite3

    src, db = tree(tmp_path), tmp_path / "state.db"
    r1.check_code("# T\n", src, state_db=db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE r1_index SET data = '{not json'")
    r1._INDEX_CACHE.clear()
    found, _ = r1.check_code("# T\n\n`Store.nope`\n", src, state_db=db)
    assert [f.check for f in found] == ["r1.symbol"]


@pytest.fixture(autouse=True)
def _fresh_memo():
    r1._INDEX_CACHE.clear()
    yield
    r1._INDEX_CACHE.clear()
