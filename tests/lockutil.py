"""A lock holder in another process: flock conflicts between processes (and this process's
own locks are re-entrant), so "another run holds the lock" needs a real second process."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orchestrator.state.fsio import Lock

_HOLDER = """
import sys, time
from pathlib import Path
from orchestrator.state.fsio import Lock
lock = Lock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
lock.release()
"""


@contextmanager
def held_elsewhere(path: Path) -> Iterator[subprocess.Popen]:
    """Hold the lock at `path` in a child process for the duration of the block."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        try:
            proc.stdin.close()
        except OSError:
            pass  # killed by the test
        proc.wait(timeout=10)
        proc.stdout.close()


def wait_until_free(path: Path, timeout: float = 10) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if Lock(path).holder() is None:
            return True
        time.sleep(0.02)
    return False
