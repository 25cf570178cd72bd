"""Messages the app's widgets and workers post; screens react to them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from ..core.model import CoreView
from ..sessions.model import ImportJob, ImportOutcome, SessionGraph, SessionListing, WriteJob, WriteOutcome
from ..project.model import ProjectView
from ..topics.model import BlockInspection, TopicListing

if TYPE_CHECKING:  # the engine's memory and search packages load in workers, not with the app
    from scriptorium.core.memory import TransactionResult
    from scriptorium.core.search import Hit
    from scriptorium.core.writer import Progress, SleepResult

    from ..history.model import CommitDetail, Commit
    from ..sleep.model import SleepStatus


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


class WriteStarted(Message):
    """A write job counted its pending turns and handed them to the pipeline."""

    def __init__(self, job: WriteJob, owed: set[str]) -> None:
        super().__init__()
        self.job = job
        self.owed = owed


class WriteProgress(Message):
    """How many of the job's pending turns are written (marked) so far."""

    def __init__(self, job: WriteJob, written: int) -> None:
        super().__init__()
        self.job = job
        self.written = written


class WriteFinished(Message):
    """The pipeline answered: ok, retryable or permanent (or the run raised: "error")."""

    def __init__(self, outcome: WriteOutcome) -> None:
        super().__init__()
        self.outcome = outcome


class ImportProgress(Message):
    """Bytes of transcripts imported so far (of `total`), and the session being written."""

    def __init__(self, job: ImportJob, done: int, total: int, label: str) -> None:
        super().__init__()
        self.job = job
        self.done = done
        self.total = total
        self.label = label


class ImportFinished(Message):
    """An import ended (or stopped: a missing path, an unexpected error)."""

    def __init__(self, outcome: ImportOutcome) -> None:
        super().__init__()
        self.outcome = outcome


class ProjectLoaded(Message):
    """A project's trilogy was read (or found missing)."""

    def __init__(self, view: ProjectView) -> None:
        super().__init__()
        self.view = view


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


class TopicsListed(Message):
    """The topic files, their block counts and the block backlinks were read."""

    def __init__(self, listing: TopicListing) -> None:
        super().__init__()
        self.listing = listing


class TopicRead(Message):
    """A topic's text was read from disk (None: the file does not exist)."""

    def __init__(self, path: str, text: str | None, line: int | None) -> None:
        super().__init__()
        self.path = path
        self.text = text
        self.line = line


class TopicChanged(Message):
    """A save or a retirement went through the transaction: installed, or rejected.
    `error` is set instead when the transaction could not run at all (a busy lock)."""

    def __init__(self, path: str, draft: str, result: TransactionResult | None, error: str = "",
                 action: str = "save") -> None:
        super().__init__()
        self.path = path
        self.draft = draft
        self.result = result
        self.error = error
        self.action = action


class BlockInspected(Message):
    """The inspector's data for the block under the cursor (None: `error` says why not)."""

    def __init__(self, key: tuple[str, int, str], inspection: BlockInspection | None, error: str = "") -> None:
        super().__init__()
        self.key = key
        self.inspection = inspection
        self.error = error


class SearchFinished(Message):
    """BM25 hits for a query (or why there are none)."""

    def __init__(self, query: str, hits: list[Hit], error: str = "") -> None:
        super().__init__()
        self.query = query
        self.hits = hits
        self.error = error


class SleepStatusRead(Message):
    """Whether sleep is due, and why, was read."""

    def __init__(self, status: SleepStatus) -> None:
        super().__init__()
        self.status = status


class SleepProgressed(Message):
    """A step of a running sleep (posted from the worker thread)."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress


class SleepFinished(Message):
    """A sleep, a preview or the install of a preview ended; `diff` is what it changed
    (or would change)."""

    def __init__(self, result: SleepResult, diff: str) -> None:
        super().__init__()
        self.result = result
        self.diff = diff


class HistoryRead(Message):
    """The workspace's commits were listed, newest first."""

    def __init__(self, commits: list[Commit]) -> None:
        super().__init__()
        self.commits = commits


class CommitHighlighted(Message):
    def __init__(self, sha: str) -> None:
        super().__init__()
        self.sha = sha


class CommitRead(Message):
    """One commit's audit record and diff were read."""

    def __init__(self, detail: CommitDetail) -> None:
        super().__init__()
        self.detail = detail


class RevertFinished(Message):
    """A revert went through the transaction (installed or rejected), or could not run (`error`)."""

    def __init__(self, sha: str, result: TransactionResult | None, error: str = "") -> None:
        super().__init__()
        self.sha = sha
        self.result = result
        self.error = error
