"""Messages of the Topics screen: the listing, a topic and a block inspection read, a change made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from .model import BlockInspection, TopicListing

if TYPE_CHECKING:  # the memory package loads in workers, not with the app
    from scriptorium.core.memory import TransactionResult


@dataclass
class TopicsListed(Message):
    """The topic files, their block counts and the block backlinks were read."""

    listing: TopicListing


@dataclass
class TopicRead(Message):
    """A topic's text was read from disk (None: the file does not exist)."""

    path: str
    text: str | None
    line: int | None


@dataclass
class TopicChanged(Message):
    """A save or a retirement went through the transaction: installed, or rejected.
    `error` is set instead when the transaction could not run at all (a busy lock)."""

    path: str
    draft: str
    result: TransactionResult | None
    error: str = ""
    action: str = "save"


@dataclass
class BlockInspected(Message):
    """The inspector's data for the block under the cursor (None: `error` says why not)."""

    key: tuple[str, int, str]
    inspection: BlockInspection | None
    error: str = ""
