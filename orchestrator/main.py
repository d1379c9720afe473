"""The `book` console script (pyproject's [project.scripts] names `orchestrator.main:main`):
the entry point itself, its exit codes and the fast path of `book scan` are in cli/entry.py."""

from __future__ import annotations

from .cli.entry import main
from .cli.scan import do_scan

__all__ = ["do_scan", "main"]
