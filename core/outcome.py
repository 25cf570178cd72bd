"""How an operation ended, and the one mapping from that to a process's exit code.

Callers act on three outcomes (DESIGN §5): `ok`; `retryable` (heals by itself: a busy
lock, an unreachable model or remote); `permanent` (the same input gives the same
answer). The CLI's contract maps them to 0, 75 and 1 (2 is argparse's usage error).
`ScriptoriumError` is the base of the engine's exceptions: each carries a stable `code`
and says whether retrying can help, and the CLI prints any that reaches it as one line
with its exit code.
"""

from __future__ import annotations

from .values import TYPE_CHECKING

if TYPE_CHECKING:  # typing is not loaded for it: every session error imports this module
    from typing import Literal

    Outcome = Literal["ok", "retryable", "permanent"]
else:
    Outcome = str

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_RETRYABLE = 75


def exit_code(outcome: str) -> int:
    """0 for ok, 75 for retryable, 1 for anything else."""
    return EXIT_OK if outcome == "ok" else EXIT_RETRYABLE if outcome == "retryable" else EXIT_FAILURE


def failed(retryable: bool) -> Outcome:
    """The outcome of a failure."""
    return "retryable" if retryable else "permanent"


class ScriptoriumError(Exception):
    """Base class; `code` is a stable name, `retryable` says whether to try again later."""

    code = "ERROR"
    retryable = False

    def __init__(self, message: str, *, code: str | None = None, retryable: bool | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if retryable is not None:
            self.retryable = retryable

    @property
    def outcome(self) -> Outcome:
        return failed(self.retryable)

    @property
    def exit_code(self) -> int:
        return exit_code(self.outcome)
