"""Helpers for tests and benchmarks: run the core directly, with any provider."""

from __future__ import annotations

from pathlib import Path

from ..pipeline.plan import Scope
from ..pipeline.runner import RunOptions
from ..pipeline.session import run_session
from ..providers.base import Provider
from ..state.book import Book, init_workspace


def run_book(root: Path, provider: Provider | None = None, scope: Scope | None = None, strategy: str = "conservative",
             quiet: bool = True, resume: bool = False, **opts):
    """`book run` (or `book resume`) in-process; returns (exit code, summary)."""
    book = Book.open(root)
    try:
        if resume:
            from ..pipeline.recovery import resume as do_resume

            res = do_resume(book, strategy, False, None, None, lambda m: None, quiet=True, provider_obj=provider,
                            retry_delay=0.0)
            return res.exit_code, res.summary
        options = RunOptions(scope or Scope(), strategy, retry_delay=0.0, **opts)
        result = run_session(book, options, quiet=quiet, provider=provider)
        return result.exit_code, result.summary
    finally:
        book.close()


def make_example(dest: Path, gates: str = "off", **overrides) -> Path:
    """A workspace like `book init DIR --example`, with gates off unless asked."""
    init_workspace(dest, example=True)
    cfg = dest / "book.yaml"
    text = cfg.read_text()
    if gates != "off":  # the tests of a gate's cards were written one card per chapter; book.yaml's default is per phase
        overrides.setdefault("gate_grain", "chapter")
    lines = []
    for line in text.splitlines():
        key = line.split(":", 1)[0]
        if key == "gates":
            line = f'gates: "{gates}"'
        elif key in overrides:
            line = f"{key}: {overrides.pop(key)}"
        lines.append(line)
    lines += [f"{k}: {v}" for k, v in overrides.items()]
    cfg.write_text("\n".join(lines) + "\n")
    return dest
