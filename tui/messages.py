"""Messages the app's widgets and workers post; screens react to them."""

from __future__ import annotations

from textual.message import Message

from .core_model import CoreView
from .session_model import SessionGraph, SessionListing


class SessionsLoaded(Message):
    """The session list was (re)read from disk."""

    def __init__(self, listing: SessionListing) -> None:
        super().__init__()
        self.listing = listing


class SessionsFailed(Message):
    """The sessions could not be listed at all (an unreadable state directory or workspace id)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class GraphLoaded(Message):
    """One session's graph snapshot is ready."""

    def __init__(self, graph: SessionGraph) -> None:
        super().__init__()
        self.graph = graph


class GraphFailed(Message):
    """A session could not be read (corrupt node, vanished directory)."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.reason = reason


class SessionHighlighted(Message):
    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class TurnHighlighted(Message):
    """The graph's cursor moved onto a turn."""

    def __init__(self, node_id: str) -> None:
        super().__init__()
        self.node_id = node_id


class BranchHighlighted(Message):
    """A branch (by its tip) was picked in the branch list or from the graph."""

    def __init__(self, tip: str) -> None:
        super().__init__()
        self.tip = tip


class CoreLoaded(Message):
    """The core's canonical text, render, injection and budget were read."""

    def __init__(self, view: CoreView) -> None:
        super().__init__()
        self.view = view


class DiskChanged(Message):
    """Files changed on disk, not by this app (live.py): sessions by id, topics by path
    (relative to topics/), other memory files (core.md, ...) by name."""

    def __init__(self, sessions: frozenset[str], topics: frozenset[str], memory: frozenset[str]) -> None:
        super().__init__()
        self.sessions = sessions
        self.topics = topics
        self.memory = memory
