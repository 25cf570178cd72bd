"""Messages of the Agents screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from .model import AgentsView


@dataclass
class AgentsLoaded(Message):
    """The doctor's facts, the last injections and the last recalls were read."""

    view: AgentsView


@dataclass
class AgentsChanged(Message):
    """An install or uninstall finished (`error` says why it could not)."""

    summary: str
    error: str | None = None
