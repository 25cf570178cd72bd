"""Messages of the History screen: the commits and one commit read, the cursor moved, a revert ended."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the memory package loads in workers, not with the app
    from scriptorium.core.memory import TransactionResult

    from .model import Commit, CommitDetail


@dataclass
class HistoryRead(Message):
    """The workspace's commits were listed, newest first."""

    commits: list[Commit]


@dataclass
class CommitHighlighted(Message):
    sha: str


@dataclass
class CommitRead(Message):
    """One commit's audit record and diff were read."""

    detail: CommitDetail


@dataclass
class RevertFinished(Message):
    """A revert went through the transaction (installed or rejected), or could not run (`error`)."""

    sha: str
    result: TransactionResult | None
    error: str = ""
