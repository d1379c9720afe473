"""Issue 25, item 7: the quick loop (`pytest -m "not slow"`) stays quick and stays most of the
suite. Nothing is timed: the split is counted. A test that starts a process (the console
script, a signal, a second writer) is slow; most tests are not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _tests() -> list[tuple[str, bool, str]]:
    """(file::name, marked slow, source) for every test function of the suite."""
    out = []
    for p in sorted(TESTS.glob("test_*.py")):
        if p.name == Path(__file__).name:
            continue  # this file names what it looks for
        tree = ast.parse(p.read_text(encoding="utf-8"))
        module_slow = any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
                          and "slow" in ast.unparse(n.value) for n in tree.body)
        for n in tree.body:
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test_"):
                slow = module_slow or any("slow" in ast.unparse(d) for d in n.decorator_list)
                out.append((f"{p.name}::{n.name}", slow, ast.unparse(n)))
    return out


def test_a_test_that_starts_a_process_is_marked_slow():
    spawning = [name for name, slow, src in _tests() if not slow and ("subprocess." in src or "Popen" in src)]
    assert spawning == [], "mark these @pytest.mark.slow (they start a process): " + ", ".join(spawning)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_the_quick_loop_keeps_most_of_the_suite():
    tests = _tests()
    slow = sum(s for _, s, _ in tests)
    assert len(tests) > 700 and slow <= 0.2 * len(tests), (slow, len(tests))
