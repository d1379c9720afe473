"""One exception tree. The core raises these with messages a person can act on; the CLI
prints the message and exits with the code the class names. BOOK_DEBUG=1 shows tracebacks."""

from __future__ import annotations


class BookError(Exception):
    exit_code = 1


class UsageError(BookError):
    """Bad arguments or a request that cannot be honoured as asked (exit 2)."""

    exit_code = 2


class ConfigError(UsageError):
    """book.yaml (or another file a person writes, such as the outline) is wrong."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, fix: str | None = None):
        self.file, self.line, self.fix = file, line, fix
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        super().__init__(where + message + (f"\n  fix: {fix}" if fix else ""))


class PathError(UsageError):
    """A path or chapter id that would leave the workspace or is malformed."""


class LockedError(BookError):
    exit_code = 4


class NeedsHuman(BookError):
    """Stopped at a gate, a failed step or a budget cap: a person must act (exit 3)."""

    exit_code = 3


class StepFailed(BookError):
    """A step failed; `retryable` says whether trying again may help; `overload`: the API stayed
    overloaded through the provider's own retries (the runner tries it again once the slow-down ends)."""

    def __init__(self, message: str, retryable: bool = True, overload: bool = False):
        self.retryable = retryable
        self.overload = overload
        super().__init__(message)


class Refused(StepFailed):
    """The model declined the request (`stop_reason: refusal`) on every model it was sent to."""

    def __init__(self, message: str):
        super().__init__(message, retryable=False)


class RunStopped(StepFailed):
    """The API said no request can succeed now (the organization's spend limit, or a response
    with `x-should-retry: false`): the run stops before any further call, nothing is retried and
    no step is marked failed for it (exit 5)."""

    exit_code = 5

    def __init__(self, message: str):
        super().__init__(message, retryable=False)


class BudgetSpent(RunStopped):
    """What is left of `budget_usd` cannot pay the next HTTP attempt of a call (a continuation,
    a re-ask): the call stops with its text so far in the `.partial`; the runner, which set its
    `budget_stop`, reports it for a person (exit 3), as a budget stop before a call."""

    exit_code = 3


class ValidationFailed(StepFailed):
    """The model's answer did not pass the step's validation."""


class IllegalTransition(BookError):
    """An event the chapter state machine does not allow in the chapter's phase (refused, logged)."""


class Interrupted(BookError):
    """A run stopped by SIGINT or SIGTERM after writing what it had (exit 130, as shells expect)."""

    exit_code = 130
