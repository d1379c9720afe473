"""Signals that end a run: SIGINT, SIGTERM and SIGHUP (a closed terminal) all stop it the same
clean way: an `interrupted` event, RESUME.md and checkpoint.md brought up to date,
the lock released, exit 128 + the signal's number.

Inside the run's event loop the session turns them into a cancellation (`STOP_SIGNALS`); outside
it (opening the workspace, reconciling) `install()` makes SIGTERM and SIGHUP raise `Terminated`,
as Python already does for SIGINT with KeyboardInterrupt, so `finally` blocks still run.

The loop hears a signal only when it gets control back, and long computations (the walk of a
huge tree, its map, the tree's content hash, the offline planner) hold it or the interpreter for
seconds. So a session also sets a process-wide stop flag the moment the signal arrives
(`watch_stop`): the walk and the map check it every few entries (`stop_requested`), and a daemon
worker whose awaiting task was cancelled is abandoned at its next bytecode (`in_daemon_thread`),
so that nothing computes on while the run writes its last files and exits."""

from __future__ import annotations

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


class Stopping(Exception):
    """Raised in an abandoned worker thread (see `in_daemon_thread`): its result is not wanted."""


_stop = threading.Event()  # a stop signal arrived during this session (watch_stop)
_signum: list[int] = []  # which one


def stop_requested() -> bool:
    """True once a stop signal arrived while a session watched for one: long work ends early."""
    return _stop.is_set()


def stopped_by() -> int | None:
    """The stop signal that arrived during this session, if one did."""
    return _signum[0] if _stop.is_set() and _signum else None


def check_stop() -> None:
    """In a task of the run's loop, between two pieces of synchronous work (a step's checks, its
    prompt, the staleness of its inputs): end the task now if a stop signal arrived. The loop
    hears a signal only when it next gets control, and the steps ready at that moment would each
    run their synchronous part first: a second and more on a loaded machine."""
    if _stop.is_set():
        import asyncio

        raise asyncio.CancelledError


def watch_stop(signals: tuple[signal.Signals, ...] = STOP_SIGNALS) -> Callable[[], None]:
    """From now on a stop signal also sets the stop flag, the moment it arrives (a Python-level
    handler runs between two bytecodes of the main thread, even while the event loop is held up).
    Call after `loop.add_signal_handler`: the loop still hears the signal through its wakeup fd,
    which does not depend on the Python-level handler. Returns the function that undoes it."""
    _stop.clear()
    _signum.clear()

    def flag(signum: int, frame) -> None:
        _signum.append(signum)
        _stop.set()
        if signum == signal.SIGHUP:  # the terminal is gone: before any message of the stop
            detach_from_terminal()

    before: dict[int, Any] = {}
    for s in signals:
        try:
            before[s] = signal.signal(s, flag)
        except (ValueError, OSError):  # not the main thread: the loop's handler alone
            pass

    def undo() -> None:
        _signum.clear()
        _stop.clear()  # the next session in this process (a test's) starts unstopped
        for s, h in before.items():
            try:
                if signal.getsignal(s) is flag:  # the loop may have put back its own default already
                    signal.signal(s, h)
            except (ValueError, OSError, TypeError):
                pass

    return undo


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
    import asyncio  # here, not at the top: `book scan`'s fast path imports this module

    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not fut.done():
            (fut.set_result if ok else fut.set_exception)(value)

    finished = threading.Event()  # fn returned: nothing left to abandon
    gate = _Gate()

    def work() -> None:
        try:
            try:
                result = fn(*args)
            except BaseException as e:  # handed to the awaiting task
                outcome: tuple[bool, Any] = (False, e)
            else:
                outcome = (True, result)
            gate.leave()
            finished.set()
            loop.call_soon_threadsafe(settle, *outcome)
        # The loop is closed, or the worker was abandoned just as `fn` returned (`Stopping` lands at
        # any bytecode before `gate.leave` ends): nobody waits for this answer any more.
        except (RuntimeError, Stopping):
            pass

    worker = threading.Thread(target=work, name=getattr(fn, "__name__", "work"), daemon=True)
    worker.start()
    try:
        return await fut
    except asyncio.CancelledError:
        if not finished.is_set():
            gate.abandon(worker)
        raise


class _Gate:
    """Says whether a worker is still inside its work, under a lock, so that `Stopping` is raised
    in it only there. Raised any later, it would land in the thread's own bootstrap code, or, once
    the thread has ended, in the next thread the system gives the same id: a thread hit before it
    has said it started leaves its `Thread.start` waiting forever (a full test run hung so once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = True

    def leave(self) -> None:
        """Called by the worker as its work ends: from here on it is never hit; one already sent is
        raised here (inside the worker's own handler) or taken back."""
        with self._lock:
            self._inside = False
        _set_async_exc(threading.get_ident(), None)

    def abandon(self, worker: threading.Thread) -> None:
        with self._lock:
            if self._inside and worker.ident is not None:
                _set_async_exc(worker.ident, Stopping)


def _set_async_exc(ident: int, exc: type[BaseException] | None) -> None:
    """Raise `exc` in thread `ident` at its next bytecode (`None` takes back one not yet raised):
    a pure computation that checks no flag would otherwise hold the interpreter while the run
    writes its last files, and a loaded machine makes every wait for it longer. CPython only."""
    import ctypes

    set_async_exc = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async_exc is not None:
        set_async_exc(ctypes.c_ulong(ident), ctypes.py_object(exc) if exc is not None else None)
