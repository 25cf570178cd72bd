"""Watching a model-driven run while it works, and stopping it (the TUI's Sleep screen).

A `Monitor` is handed down the agent loop: it reports a `Progress` after every step
(a phase begins, a model round starts, a tool call returns) to a callback, and it
raises `Cancelled` at the next step once its cancel event is set. A model call in
flight is not interrupted; the run stops when it returns, before anything installs.
The callback runs in the worker's thread: a UI posts a message from it, nothing more.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    phase: str  # "organize", "organize-repair", "validate", "install"
    rounds: int  # model rounds started in this phase
    tool_calls: int  # tool calls made so far in the whole run
    tool: str | None = None  # the last tool called


class Cancelled(Exception):
    """The run was cancelled before anything was installed."""

    code = "CANCELLED"
    retryable = True


class Monitor:
    """Counts a run's steps, reports them, and carries its cancellation."""

    def __init__(self, report: Callable[[Progress], None] | None = None,
                 cancel: threading.Event | None = None) -> None:
        self.report = report
        self.cancel = cancel
        self.phase = ""
        self.rounds = 0
        self.tool_calls = 0
        self.tool: str | None = None

    def enter(self, phase: str) -> None:
        """A new phase begins (raises `Cancelled` if the run was cancelled)."""
        self.check()
        self.phase, self.rounds = phase, 0
        self._emit()

    def round(self) -> None:
        """A model round is about to start."""
        self.check()
        self.rounds += 1
        self._emit()

    def called(self, tool: str) -> None:
        """A tool call returned."""
        self.tool_calls += 1
        self.tool = tool
        self._emit()

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("cancelled: nothing was installed")

    def _emit(self) -> None:
        if self.report is not None:
            self.report(Progress(self.phase, self.rounds, self.tool_calls, self.tool))
