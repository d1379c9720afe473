"""A source tree built to hurt (issue 10): links out of the source to a file holding a secret
and to a directory, a FIFO named like code, a link to /dev/zero, a dangling link, link loops
and a 50 MB file. The book still builds, offline and through the Claude path (the fake
Messages API), quickly and within bounded memory, and nothing from outside the source root
appears anywhere in the workspace or in a request to the model."""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

import pytest

from orchestrator.testing.helpers import make_example, run_book

SECRET = "TOPSECRET-b7e1c9-never-read"


def hostile(tmp_path: Path) -> Path:
    ws = make_example(tmp_path / "ws")
    src = ws / "src"
    outside = tmp_path / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "secret.py").write_text(f'def leak():\n    """{SECRET}"""\n    return "{SECRET}"\n')
    (outside / "pkg" / "hidden.py").write_text(f'KEY = "{SECRET}"\n\n\ndef hidden():\n    return KEY\n')
    (outside / "pyproject.toml").write_text(f'[project]\nname = "{SECRET}"\n')
    os.symlink(outside / "pyproject.toml", src / "pyproject.toml")  # the project's name must not come from it
    os.symlink(outside / "secret.py", src / "evil.py")  # a file out of the source
    os.symlink(outside / "pkg", src / "vendored_pkg")  # a directory out of the source
    os.mkfifo(src / "pipe.py")  # opening it would block forever
    os.symlink("/dev/zero", src / "zero.py")  # reading it never ends
    os.symlink(src / "missing.py", src / "dangling.py")
    os.symlink(src / "loop_b.py", src / "loop_a.py")
    os.symlink(src / "loop_a.py", src / "loop_b.py")
    os.symlink(".", src / "again")  # a directory loop
    with open(src / "huge.py", "w") as fh:  # 50 MB of plausible code
        line = "VALUE_%07d = %d  # a generated table nobody reads\n"
        n = 0
        while fh.tell() < 50_000_000:
            fh.write("".join(line % (n + k, n + k) for k in range(10_000)))
            n += 10_000
    return ws


def leaked_files(ws: Path) -> list[str]:
    """Workspace files (the source excepted: its links point out) that hold the secret."""
    out = []
    for dirpath, dirnames, filenames in os.walk(ws):
        if Path(dirpath) == ws / "src":
            dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
            filenames = [f for f in filenames if not (Path(dirpath) / f).is_symlink()
                         and f not in ("pipe.py", "huge.py")]
        for name in filenames:
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            if SECRET.encode() in p.read_bytes():
                out.append(str(p.relative_to(ws)))
    return out


def check_source_map(ws: Path) -> None:
    text = next(ws.glob("output/**/source-map.md")).read_text()
    assert "## Left out" in text
    for name in ("pyproject.toml", "evil.py", "vendored_pkg", "pipe.py", "zero.py", "dangling.py", "huge.py"):
        assert f"`{name}" in text.split("## Left out", 1)[1], name
    assert "outside the source" in text and "too large" in text


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.skipif(sys.platform != "linux", reason="FIFOs and /dev/zero as on Linux")
def test_a_hostile_source_tree_builds_offline_and_nothing_from_outside_leaks(tmp_path):
    ws = hostile(tmp_path)
    start = time.monotonic()
    code, summary = run_book(ws)
    took = time.monotonic() - start
    assert code == 0, summary.needs_human
    assert took < 120, f"the build took {took:.0f} s"
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert peak_mb < 1500, f"peak memory {peak_mb:.0f} MB"
    assert leaked_files(ws) == []
    check_source_map(ws)
    # `book scan` says what was read and left out, from source-map.md (no walk, no tree-sitter)
    from orchestrator.state.book import Book, scan_report

    book = Book.open(ws)
    try:
        summary_line = scan_report(book, book.snapshot())["source"]
    finally:
        book.close()
    assert "left out" in summary_line and "FIFO" in summary_line and "too large" in summary_line


@pytest.mark.skipif(sys.platform != "linux", reason="FIFOs and /dev/zero as on Linux")
@pytest.mark.slow
def test_a_hostile_source_tree_sends_nothing_from_outside_to_the_model(tmp_path, monkeypatch):
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer

    ws = hostile(tmp_path)
    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-hostile")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        start = time.monotonic()
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
        took = time.monotonic() - start
        dump = api.dump()
        requests = api.message_requests()
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    assert took < 120, f"the build took {took:.0f} s"
    assert len(requests) > 10
    assert SECRET not in dump
    planner = next(r for r in requests if "## The repository map" in str(r))
    assert "minikv/" in str(planner) and "evil.py" not in str(planner).split("## The repository map", 1)[1]
    assert leaked_files(ws) == []
    check_source_map(ws)
