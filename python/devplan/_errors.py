"""devplan.Error: what a call raises when the tool could not do what it was asked."""

from __future__ import annotations

from typing import Any


class Error(Exception):
    """A load error, a usage error, a bad file, or a tool that could not run. `message` is the
    tool's own message; `exit_code` its exit code (None when it did not run); `result` the
    typed result when the tool still wrote its JSON (simulate under --fail-alloc does)."""

    def __init__(self, message: str, *, exit_code: int | None = None,
                 argv: list[str] | None = None, stderr: str = "", result: Any = None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.argv = argv or []
        self.stderr = stderr
        self.result = result
