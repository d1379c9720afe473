"""Shared fixtures. Every test works in tmp_path; nothing leaks into the repository, the home
directory or the network (no API key: the offline provider is the default)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from orchestrator.testing.helpers import make_example

# CI runs the property tests with a fixed seed: a failure there is reproducible, not luck.
# Locally they explore new examples every run.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("BOOK_OFFLINE_LATENCY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    yield


@pytest.fixture
def example_ws(tmp_path) -> Path:
    return make_example(tmp_path / "ws")


_BUILT: dict[str, Path] = {}


@pytest.fixture
def built_ws(tmp_path, tmp_path_factory) -> Path:
    """A copy of a workspace on which `book run` has completed (built once per session)."""
    if "done" not in _BUILT:
        base = tmp_path_factory.mktemp("built") / "ws"
        make_example(base)
        from orchestrator.testing.helpers import run_book

        code, _ = run_book(base)
        assert code == 0
        _BUILT["done"] = base
    dest = tmp_path / "ws"
    shutil.copytree(_BUILT["done"], dest)
    return dest


def from_an_earlier_session(path: Path) -> None:
    """Date a file 2 s back, as one left by an earlier session: a save in the clock's tick before
    a command starts looks as old as one just after, and counts as during it (kept for its author)."""
    import time

    then = time.time_ns() - 2_000_000_000
    os.utime(path, ns=(then, then))


def tree(root: Path) -> dict[str, bytes]:
    """Every file of the workspace with its bytes, but the ledger's database (a cache of the
    files whose hash cache any command may refresh)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and ".book/" not in rel:
            out[rel] = p.read_bytes()
    return out


def env_without_key() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}


def scan(ws: Path) -> dict:
    """`book scan --json` of a workspace, in-process (read-only, like the command)."""
    from orchestrator.state.book import Book, scan_report

    book = Book.open(ws, require_config=False, repair=False)
    try:
        return scan_report(book)
    finally:
        book.close()


# ---------------------------------------------------------------- killed at a write


class Crash(BaseException):
    """A simulated kill: not an Exception, so nothing in the runner catches it."""


def mutations_while(fn) -> list[tuple[str, str]]:
    """Every file mutation (kind, file name) the write protocol makes while `fn()` runs."""
    from orchestrator.state import fsio

    mutations: list[tuple[str, str]] = []
    fsio.mutation_hook = lambda kind, path: mutations.append((kind, path.name))
    try:
        fn()
    finally:
        fsio.mutation_hook = None
    return mutations


def crash_points(mutations: list[tuple[str, str]], view: str) -> list[tuple[tuple[str, str], int]]:
    """A crash point is the k-th mutation of one file name (stable when the number of rewrites of
    the view `view` differs by one between runs). The view is rebuilt on resume and each rewrite
    is the same atomic write: a crash in its first, middle and last rewrite stands for all."""
    import collections

    points, seen = [], collections.Counter()
    for key in mutations:
        seen[key] += 1
        points.append((key, seen[key]))
    views = [pt for pt in points if pt[0][1] == view]
    keep = {views[0], views[len(views) // 2], views[-1]} if views else set()
    return [pt for pt in points if pt[0][1] != view or pt in keep]


def killed_at(key: tuple[str, str], k: int, fn) -> bool:
    """Run `fn()` with a kill at the k-th mutation of `key`: True when the kill came."""
    import collections

    from orchestrator.state import fsio

    count: collections.Counter = collections.Counter()

    def hook(kind, path):
        count[(kind, path.name)] += 1
        if (kind, path.name) == key and count[key] == k:
            raise Crash(f"killed at {kind} {path.name} #{k}")

    fsio.mutation_hook = hook
    try:
        fn()
    except Crash:
        return True
    finally:
        fsio.mutation_hook = None
    return False


def write_files(root: Path, files: dict[str, str]) -> Path:
    """The files `rel -> text` written under `root` (a small source tree for a test), and `root`."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def traced(p) -> list[str]:
    """Chapter 1's set-up path, `|`, then its main path, as dotted names (authoring.example_setup, mainpath)."""
    from orchestrator.authoring.example_setup import setup_path
    from orchestrator.authoring.mainpath import central_path
    from orchestrator.authoring.overview import entry_points

    entries = entry_points(p)
    path = central_path(p, entries)
    return [s.dotted for s in setup_path(p, entries, path)] + ["|"] + [s.dotted for s in path]


def symbol(p, dotted: str, line: int = 0):
    """The project's definition `dotted` (at `line`, when several share the name)."""
    return next(s for s in p.symbols() if s.dotted == dotted and (not line or s.d.start_line == line))
