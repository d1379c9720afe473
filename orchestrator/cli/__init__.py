"""The command line: parse, call the core, map errors to exit codes.

Data goes to stdout (`--json`: one JSON document), messages and progress to stderr.
Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 stopped for a person, 4 locked.

- `entry`: the `book` console script (orchestrator.main re-exports it): exceptions → exit
  codes, and `book scan`'s fast path, which imports neither typer nor this package's app.
- `scan`: `book scan` itself (light: the fast path runs it).
- `console`: messages to stderr, JSON and plain output to stdout, the run summary.
- `commands`: the typer `app`; it registers the commands of `setup` (init, doctor), `writing` (run,
  redo, accept, resume), `status` (scan, log, cost, replay, watch) and `gates`
  (gates, approve, reject, modify), `export` and `asking` (ask, mcp), whose shared options are in
  `options`.

This package's own import is light: `app` (typer and every command) loads on first use.
(`orchestrator.cli.app` is that object, not a module, so no module here is named `app`.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .commands import app as app


def __getattr__(name: str):
    if name == "app":  # `from orchestrator.cli import app`: typer only when the app is wanted
        from .commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
