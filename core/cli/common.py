"""Shared CLI plumbing: the context handed to handlers, user errors, JSON output."""

from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..outcome import EXIT_FAILURE, EXIT_RETRYABLE, EXIT_USAGE, ScriptoriumError
from ..paths import StatePaths, resolve_state_dir


class CliError(ScriptoriumError):
    """A user-facing failure with the exit code it ends the command with (any other
    `ScriptoriumError` reaching `main` ends it with its own: 75 when retryable, else 1);
    `code` names it in the JSON failure document (default: by the exit code)."""

    code = "CLI_ERROR"

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE, code: str | None = None) -> None:
        super().__init__(message, retryable=exit_code == EXIT_RETRYABLE,
                         code=code or {EXIT_USAGE: "USAGE", EXIT_RETRYABLE: "RETRYABLE"}.get(exit_code))
        self._exit_code = exit_code

    @property
    def exit_code(self) -> int:
        return self._exit_code


def session_cli_error(exc: ScriptoriumError) -> CliError:
    """A session error as the CLI says it: exit 1, its own code when it has one
    (UNKNOWN_SESSION), CLI_ERROR for the generic ones."""
    return CliError(str(exc), code=None if exc.code == "SESSION_ERROR" else exc.code)


@dataclass(frozen=True)
class Failure:
    """What a failed command tells its caller: exit code, stable code, one-line message."""

    exit_code: int
    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        outcome = "retryable" if self.exit_code == EXIT_RETRYABLE else "permanent"
        return {"outcome": outcome, "code": self.code, "message": self.message}


# errno -> stable code. None of these heals by itself (a full disk, a read-only mount or
# a permission stays until someone acts), so they exit 1, never 75.
_OS_CODES = {
    errno.ENOSPC: "DISK_FULL", errno.EDQUOT: "DISK_FULL", errno.EROFS: "READ_ONLY_FILESYSTEM",
    errno.EACCES: "PERMISSION_DENIED", errno.EPERM: "PERMISSION_DENIED", errno.ENOTDIR: "NOT_A_DIRECTORY",
    errno.EISDIR: "IS_A_DIRECTORY", errno.ENOENT: "NOT_FOUND", errno.ENAMETOOLONG: "NAME_TOO_LONG",
    errno.EMFILE: "TOO_MANY_OPEN_FILES", errno.EIO: "IO_ERROR",
}
_OS_RETRYABLE = {errno.EAGAIN: "BUSY", errno.EBUSY: "BUSY", errno.EINTR: "INTERRUPTED"}


def _one_line(text: str) -> str:
    from ..sanitize import sanitize_line

    return sanitize_line(" ".join(text.split())) or "failed"


def _os_message(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else ""
    what = exc.strerror or str(exc)
    return f"{what}: {where}" if where else what


def _lasting_os_error(exc: BaseException) -> OSError | None:
    """The OSError in `exc`'s cause chain that will not heal by itself, if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _OS_CODES and current.errno != errno.ENOENT:
            return current
        current = current.__cause__ or current.__context__
    return None


def failure_of(exc: BaseException) -> Failure:
    """The one mapping from an exception to the CLI's contract (0 ok / 1 failure / 2 usage /
    75 only for what heals by itself). Engine errors carry `code` and `retryable`
    (outcome.py)."""
    lasting = _lasting_os_error(exc)
    if lasting is not None:  # e.g. a retryable InstallError whose cause is a full disk: it stays full
        return Failure(EXIT_FAILURE, _OS_CODES[lasting.errno or 0], _one_line(str(exc)))
    if isinstance(exc, ScriptoriumError):  # CliError, or an engine error no handler turned into one
        return Failure(exc.exit_code, exc.code, _one_line(str(exc)))
    if isinstance(exc, OSError):
        if exc.errno in _OS_RETRYABLE:
            return Failure(EXIT_RETRYABLE, _OS_RETRYABLE[exc.errno], _one_line(_os_message(exc)))
        return Failure(EXIT_FAILURE, _OS_CODES.get(exc.errno or 0, "OS_ERROR"), _one_line(_os_message(exc)))
    if isinstance(exc, (ValueError, UnicodeError)):
        return Failure(EXIT_FAILURE, "INVALID_INPUT", _one_line(f"{exc}"))
    return Failure(EXIT_FAILURE, "INTERNAL_ERROR", _one_line(f"{type(exc).__name__}: {exc}"))


def report_failure(failure: Failure, as_json: bool) -> int:
    """One line on stderr and, under `--json` (unless the command already printed its
    document), the failure document on stdout; the exit code."""
    if as_json and not emitted():
        emit_json(failure.to_json())
    print(f"scriptorium: {failure.message}", file=sys.stderr)
    return failure.exit_code


AppOpener = Callable[[Path], int]
"""Opens the terminal app on a state directory (given by the TUI's entry point)."""

AppServer = Callable[[Path, str, int, "str | None"], int]
"""Serves the app to browsers: (state directory, host, port, token or None); runs until
stopped, its exit code (given by the TUI's entry point, like `AppOpener`)."""


@dataclass
class CliContext:
    state_dir: Path
    app_opener: AppOpener | None = None
    app_server: AppServer | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, app_opener: AppOpener | None = None,
                  app_server: AppServer | None = None) -> "CliContext":
        return cls(state_dir=resolve_state_dir(getattr(args, "state", None)), app_opener=app_opener,
                   app_server=app_server)

    def open_app(self, state_dir: Path | None = None) -> int:
        """Open the app on `state_dir` (default: this context's), if an opener was given."""
        if self.app_opener is None:
            raise CliError("this entry point has no terminal app; run `scriptorium` to open it", EXIT_USAGE)
        return self.app_opener(state_dir or self.state_dir) or 0

    @property
    def paths(self) -> StatePaths:
        return StatePaths(self.state_dir)

    @cached_property
    def store(self):
        from ..sessions.store import SessionStore

        return SessionStore(self.state_dir)


_emitted: list[Any] = []  # the JSON document this command printed (one per command)


def emitted() -> bool:
    return bool(_emitted)


def emitted_message() -> str | None:
    """The `message` (else `code`) of the document this command printed, if it has one."""
    doc = _emitted[0] if _emitted else None
    if isinstance(doc, dict):
        text = doc.get("message") or doc.get("code")
        return text if isinstance(text, str) and text else None
    return None


def reset_emitted() -> None:
    _emitted.clear()


def emit_json(doc: Any) -> None:
    """Print exactly one JSON document on stdout."""
    _emitted[:] = [doc]
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def nonempty(text: str) -> str:
    """argparse type for texts that must say something (`--reason`)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def positive_int(text: str) -> int:
    """argparse type for counts (top-k, window sizes)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value
