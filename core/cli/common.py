"""Shared CLI plumbing: the context handed to handlers, user errors, JSON output."""

from __future__ import annotations

import argparse
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
    `ScriptoriumError` reaching `main` ends it with its own: 75 when retryable, else 1)."""

    code = "CLI_ERROR"

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message, retryable=exit_code == EXIT_RETRYABLE)
        self._exit_code = exit_code

    @property
    def exit_code(self) -> int:
        return self._exit_code


AppOpener = Callable[[Path], int]
"""Opens the terminal app on a state directory (given by the TUI's entry point)."""


@dataclass
class CliContext:
    state_dir: Path
    app_opener: AppOpener | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, app_opener: AppOpener | None = None) -> "CliContext":
        return cls(state_dir=resolve_state_dir(getattr(args, "state", None)), app_opener=app_opener)

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


def emit_json(doc: Any) -> None:
    """Print exactly one JSON document on stdout."""
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def positive_int(text: str) -> int:
    """argparse type for counts (top-k, window sizes)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value
