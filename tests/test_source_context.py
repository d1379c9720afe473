"""What the model steps read of the source (agents/source_context.py): a walk that a signal
stops within a second, and a chapter's context built from the map."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from orchestrator.agents import source_context


class Stopped(Exception):
    pass


def test_a_signal_stops_a_long_walk_within_a_second(monkeypatch, tmp_path):
    calls = {}

    def endless(root, state_db, *, should_stop, progress):  # a walk of a huge tree
        calls["started"] = time.monotonic()
        while not should_stop():
            time.sleep(0.01)
        calls["stopped"] = time.monotonic()
        raise RuntimeError("stopped")

    from orchestrator.authoring import project

    monkeypatch.setattr(project, "load", endless)

    def raise_stopped(signum, frame):
        raise Stopped(signum)

    before = signal.signal(signal.SIGTERM, raise_stopped)  # what the run's own handler does
    try:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        start = time.monotonic()
        with pytest.raises(Stopped):
            source_context.load_project(tmp_path, None)
        assert time.monotonic() - start < 1.5
        assert calls["stopped"] - calls["started"] < 1.0
        assert signal.getsignal(signal.SIGTERM) is raise_stopped  # the handlers are restored
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_chapter_gets_its_files_and_the_ranked_symbols_of_what_they_use_and_their_tests(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "tests").mkdir()
    (src / "pkg" / "core.py").write_text(
        'class Engine:\n    """Runs things."""\n\n    def run(self, job):\n        return job\n')
    (src / "pkg" / "api.py").write_text(
        "from pkg.core import Engine\n\n\ndef submit(job):\n    return Engine().run(job)\n")
    (src / "tests" / "test_api.py").write_text(
        "from pkg.api import submit\n\n\ndef test_submit():\n    assert submit(1) == 1\n")
    p = source_context.load_project(src, tmp_path / "state.db")
    ctx = source_context.chapter_context(p, ["pkg/api.py"])
    # the researcher's files carry their line numbers (issue 24 item 2), and so do R1's (issue 36:
    # it checks the line ranges the draft cites)
    assert ctx["sources"] == {"pkg/api.py": "1→from pkg.core import Engine\n2→\n3→\n4→def submit(job):\n"
                                            "5→    return Engine().run(job)\n"}
    assert source_context.chapter_context(p, ["pkg/api.py"], related=False)["sources"] == ctx["sources"]
    assert ctx["related_files"] == ["pkg/core.py"] and "class Engine" in ctx["related_map"]
    assert ctx["test_files"] == ["tests/test_api.py"] and "def test_submit()" in ctx["tests_map"]
    assert set(source_context.chapter_context(p, ["pkg/api.py"], related=False)) == {"sources"}  # reviewers
    plan = source_context.planner_context(p)
    assert {f["path"] for f in plan["source_files"]} == {"pkg/core.py", "pkg/api.py", "tests/test_api.py"}
    assert "class Engine" in plan["repo_map"] and "3 files" in plan["source_summary"]


def test_a_large_chapter_stays_within_the_limit_by_rank(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(2000))
    for name in ("a", "b", "c"):
        (src / f"{name}.py").write_text(body.replace("helper_", f"{name}_helper_"))
    (src / "main.py").write_text("from a import a_helper_7\n\n\ndef main():\n    return a_helper_7(1)\n")
    p = source_context.load_project(src, None)
    limit = len(body) + 20_000
    ctx = source_context.chapter_context(p, ["a.py", "b.py", "c.py"], limit=limit)
    total = sum(len(t) for t in ctx["sources"].values())
    assert total <= limit + 1_000, total
    assert "def a_helper_7(x)" in ctx["sources"]["a.py"]  # the used definition is shown
    assert sum("not shown" in t for t in ctx["sources"].values()) >= 2
