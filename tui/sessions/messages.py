"""Messages of the Sessions screen: the list and a graph read, the cursor moved, a write or an import running."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from .model import ImportJob, ImportOutcome, SessionGraph, SessionListing, WriteJob, WriteOutcome


@dataclass
class SessionsLoaded(Message):
    """The session list was (re)read from disk."""

    listing: SessionListing
    opening: str | None = None  # the session whose graph the same worker reads next (GraphLoaded follows)


@dataclass
class SessionsFailed(Message):
    """The sessions could not be listed at all (an unreadable state directory or workspace id)."""

    reason: str


@dataclass
class GraphLoaded(Message):
    """One session's graph snapshot is ready."""

    graph: SessionGraph


@dataclass
class GraphFailed(Message):
    """A session could not be read (corrupt node, vanished directory)."""

    session_id: str
    reason: str


@dataclass
class SessionHighlighted(Message):
    session_id: str


@dataclass
class TurnHighlighted(Message):
    """The graph's cursor moved onto a turn."""

    node_id: str


@dataclass
class BranchHighlighted(Message):
    """A branch (by its tip) was picked in the branch list or from the graph."""

    tip: str


@dataclass
class WriteStarted(Message):
    """A write job counted its pending turns and handed them to the pipeline."""

    job: WriteJob
    owed: set[str]


@dataclass
class WriteProgress(Message):
    """How many of the job's pending turns are written (marked) so far."""

    job: WriteJob
    written: int


@dataclass
class WriteFinished(Message):
    """The pipeline answered: ok, retryable or permanent (or the run raised: "error")."""

    outcome: WriteOutcome


@dataclass
class ImportProgress(Message):
    """Bytes of transcripts imported so far (of `total`), and the session being written."""

    job: ImportJob
    done: int
    total: int
    label: str


@dataclass
class ImportFinished(Message):
    """An import ended (or stopped: a missing path, an unexpected error)."""

    outcome: ImportOutcome
