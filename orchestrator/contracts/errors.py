"""The one error of the contracts: something a model or a person wrote cannot be read.

It is a `ValidationFailed` (a retryable `StepFailed`), so the runner's existing re-ask loop
handles a model's bad answer with no new code: the message is the reason given back to the
model. For a file a person edited, `file` and `line` say where, `expected` what would do."""

from __future__ import annotations

from ..errors import ValidationFailed


class ContractError(ValidationFailed):
    def __init__(self, problem: str, *, file: str | None = None, line: int | None = None,
                 path: str | None = None, expected: str | None = None):
        self.problem, self.file, self.line, self.path, self.expected = problem, file, line, path, expected
        where = ""
        if file:
            where = f"{file}:{line}: " if line else f"{file}: "
        if path:
            where += f"at {path}: "
        super().__init__(where + problem + (f"; expected {expected}" if expected else ""))
