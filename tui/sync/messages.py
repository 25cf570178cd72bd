"""Messages of the Sync screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from .model import SyncStatus


@dataclass
class SyncStatusLoaded(Message):
    """Remotes, the last sync and the conflicts were read."""

    status: SyncStatus


@dataclass
class SyncFinished(Message):
    """A sync or a resolution ended: what to tell the user (`error` when it failed)."""

    text: str
    error: bool
    detail: Any = None
