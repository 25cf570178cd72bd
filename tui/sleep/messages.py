"""Messages of the Sleep screen: the status read, a run's steps and its end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the writer package loads in workers, not with the app
    from scriptorium.core.writer import Progress, SleepResult

    from .model import SleepStatus


@dataclass
class SleepStatusRead(Message):
    """Whether sleep is due, and why, was read."""

    status: SleepStatus


@dataclass
class SleepProgressed(Message):
    """A step of a running sleep (posted from the worker thread)."""

    progress: Progress


@dataclass
class SleepFinished(Message):
    """A sleep, a preview or the install of a preview ended; `diff` is what it changed
    (or would change)."""

    result: SleepResult
    diff: str
