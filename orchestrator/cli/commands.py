"""The typer `app`: the version flag, the top-level help, and every command, registered in the
order `book --help` lists them. Heavy imports (the runner, providers, anthropic) happen inside
the commands that need them."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import __version__
from . import asking, export, gates, setup, status, writing

# -h as well as --help, on the app and every command: people type it first
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


def _version(value: bool) -> None:
    if value:
        print(f"book {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="print the version and exit")] = False) -> None:
    # one paragraph per line: rich keeps a docstring's line breaks
    """Write a technical book about a codebase with a team of LLM agents. The file system is the state: stop it any time, edit by hand, run it again.

    Phases (`book run --phase N`): 1 plan, 2 style guide, 3 chapters (research, draft, reviews, panel, memory), 4 finals and audit, 5 HTML site."""  # noqa: E501


for command in (setup.init, status.scan, writing.run, writing.redo, writing.accept, status.log, status.cost,
                writing.resume, status.replay, gates.gates, gates.review, gates.approve, gates.reject, gates.modify, setup.doctor,
                status.watch, export.export, asking.ask, asking.mcp):
    app.command()(command)
