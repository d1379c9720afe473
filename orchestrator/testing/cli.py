"""`book ARGS` in the test's own process: the same entry point as the console script
(`orchestrator.main.main`, with its error → exit code mapping and the fast path of `book
scan`), with stdout and stderr captured and `sys.argv`, the environment and the working
directory set for the call and restored after it. A subprocess costs an interpreter start and
every import again (about half a second of CPU each); tests of signals, of the lock between
processes, of crashes and of the installed package still spawn the real binary."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..main import main


@dataclass
class Completed:
    """What `subprocess.run(..., capture_output=True, text=True)` would have returned."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(*args: str | Path, env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> Completed:
    """Run `book *args` in-process; `env` replaces the environment for the call (as
    subprocess's `env=` does), `cwd` is the working directory."""
    argv = ["book", *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    code = 0
    try:
        sys.argv = argv
        if cwd is not None:
            os.chdir(cwd)
        with _environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if isinstance(e.code, str):
                    err.write(e.code + "\n")
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
    return Completed(argv, code, out.getvalue(), err.getvalue())
