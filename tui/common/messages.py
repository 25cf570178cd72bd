"""Messages every screen may get: files changed on disk by someone else (live.py)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class DiskChanged(Message):
    """Files changed on disk, not by this app (live.py): sessions by id, topics by path
    (relative to topics/), other memory files (core.md, ...) by name."""

    sessions: frozenset[str]
    topics: frozenset[str]
    memory: frozenset[str]
