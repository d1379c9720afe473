"""Signals that end a run: SIGINT, SIGTERM and SIGHUP (a closed terminal) all stop it the same
clean way: an `interrupted` event, RESUME.md and checkpoint.md brought up to date,
the lock released, exit 128 + the signal's number.

Inside the run's event loop the session turns them into a cancellation (`STOP_SIGNALS`); outside
it (opening the workspace, reconciling) `install()` makes SIGTERM and SIGHUP raise `Terminated`,
as Python already does for SIGINT with KeyboardInterrupt, so `finally` blocks still run."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP outside the event loop. A BaseException, like KeyboardInterrupt, so
    that no `except Exception` on the way up swallows it."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


def _raise(signum: int, frame) -> None:
    if signum == signal.SIGHUP:
        detach_from_terminal()
    raise Terminated(signum)


def install() -> dict[int, object]:
    """Make SIGTERM and SIGHUP raise `Terminated` in the main thread (until an event loop
    installs its own handlers). Returns the previous handlers, for `restore`."""
    before: dict[int, object] = {}
    for s in (signal.SIGTERM, signal.SIGHUP):
        try:
            before[s] = signal.signal(s, _raise)
        except (ValueError, OSError):  # not the main thread, or a platform without it
            pass
    return before


def restore(before: dict[int, object]) -> None:
    for s, h in before.items():
        try:
            signal.signal(s, h)  # type: ignore[arg-type]
        except (ValueError, OSError, TypeError):
            pass


def detach_from_terminal() -> None:
    """After SIGHUP the terminal is gone and writing to it fails (EIO): send stdout and stderr
    that went to a terminal to /dev/null, so the clean stop is not cut short by a message."""
    for stream in (sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
            if not os.isatty(fd):
                continue
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)
        except (OSError, ValueError, AttributeError):
            pass


async def in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in a daemon thread, awaited. Unlike `asyncio.to_thread` (whose executor
    threads the interpreter joins at exit), a cancelled call is abandoned: a signal during a
    long pure computation (the offline planner on `source: /`) still ends the process within a
    second. Only for work that writes nothing a person relies on."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not fut.done():
            (fut.set_result if ok else fut.set_exception)(value)

    def work() -> None:
        try:
            result = fn(*args)
        except BaseException as e:  # handed to the awaiting task
            outcome: tuple[bool, Any] = (False, e)
        else:
            outcome = (True, result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is closed: nobody waits for this answer any more
            pass

    threading.Thread(target=work, name=getattr(fn, "__name__", "work"), daemon=True).start()
    return await fut
