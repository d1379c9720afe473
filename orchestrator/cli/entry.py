"""Entry point of the `book` command (the console script, via orchestrator.main): error → exit
code mapping, and the fast path of `book scan`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import BookError, Interrupted
from ..signals import Terminated, install, restore
from .console import err
from .scan import do_scan


def _fast_scan(argv: list[str]) -> bool:
    """`book scan` runs in loops, hooks and watchers, and typer's import is ~30 ms of its ~70.
    Its three options are parsed here directly; anything else (--help, a typo) goes to typer."""
    if not argv or argv[0] != "scan":
        return False
    ws, as_json, rebuild = Path("."), False, False
    it = iter(argv[1:])
    for a in it:
        if a == "--json":
            as_json = True
        elif a == "--rebuild":
            rebuild = True
        elif a in ("--workspace", "-w"):
            ws = Path(next(it, "") or ".")
        elif a.startswith("--workspace="):
            ws = Path(a.split("=", 1)[1])
        else:
            return False
    do_scan(ws, as_json, rebuild)
    return True


def _end_script(code: int = 0) -> None:
    """End the `book` process now that everything is printed, without the interpreter's
    teardown: freeing a big tree's scan object by object (~100k of them) and the collector's
    pass at exit are a tenth of the scan's time, for memory the kernel takes back at once.
    Only when this process is the console script (its __main__ calls this very main), never
    in one that goes on after main() returns (a test's)."""
    if getattr(sys.modules.get("__main__"), "main", None) is not main:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _next_step() -> str:
    """What continues an interrupted command, truly: `book resume` continues a run, not an export."""
    cmd = next((a for a in sys.argv[1:] if not a.startswith("-")), "")
    if cmd == "export":  # each export is written whole or not at all (export/step.py)
        return "an export not finished leaves no half-written file; `book export` again builds what is missing"
    if cmd in ("run", "resume", "redo"):
        return "`book resume` continues"
    return "what was written is whole; run the command again to finish it"


def _interrupted() -> None:
    """SIGINT outside the run's event loop (opening the workspace, its first scan): what was
    written is kept; as for Interrupted, no interpreter teardown delays the exit."""
    try:
        err(f"interrupted; {_next_step()}")
    except OSError:
        pass
    _end_script(130)
    sys.exit(130)


def main() -> None:
    from ..state.lock import fs_clock_ns, mark_command_start

    # a person's save from now on is during this command, also the moments before it takes the lock
    mark_command_start(fs_clock_ns())
    before = install()
    try:
        _main()
    finally:
        restore(before)  # the `book` process ends here; a test calling main() in-process goes on
        mark_command_start(None)


def _main() -> None:
    try:
        if _fast_scan(sys.argv[1:]):
            _end_script()
            return
        from .commands import app

        # prog_name: the usage says `book` also when the entry point is called from `python -m pytest`
        code = app(standalone_mode=False, prog_name="book")  # without standalone mode, typer.Exit(n) returns n
        if code == 130:  # typer's word for a KeyboardInterrupt (Ctrl-C before the run's loop began)
            _interrupted()
        code = code if isinstance(code, int) else 0
        # a finished command ends without the interpreter's teardown too: freeing the map of a
        # huge tree takes seconds, and a Ctrl-C then (our handlers already restored) would end
        # the process by the signal's default action (exit -2) rather than with the command's code
        _end_script(code)
        sys.exit(code)
    except BookError as e:
        if os.environ.get("BOOK_DEBUG"):
            raise
        err(f"error: {e}")
        if isinstance(e, Interrupted):  # a signal: the run wrote what it had; the teardown of a
            _end_script(e.exit_code)  # huge tree's map (a second or two) must not delay the exit
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        _interrupted()
    except Terminated as e:
        try:
            err(f"{e}; {_next_step()}")
        except OSError:
            pass
        _end_script(128 + e.signum)
        sys.exit(128 + e.signum)
    except BrokenPipeError:  # `book scan | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except OSError as e:  # a damaged workspace: a directory where a file belongs, a full disk
        if os.environ.get("BOOK_DEBUG"):
            raise
        from ..state.fsio import explain_os_error

        err(f"error: {explain_os_error(e)}")
        sys.exit(2)
    except SystemExit:
        raise
    except Exception as e:  # click usage errors and the like
        import click

        if isinstance(e, click.exceptions.Abort):  # click's word for a KeyboardInterrupt inside a command
            _interrupted()
        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(2)
        if os.environ.get("BOOK_DEBUG"):
            raise
        err(f"error: {type(e).__name__}: {e} (BOOK_DEBUG=1 shows the traceback)")
        sys.exit(1)
