"""Messages of the Search screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the search package loads in workers, not with the app
    from scriptorium.core.search import Hit


@dataclass
class SearchFinished(Message):
    """Search hits for a query (or why there are none)."""

    query: str
    hits: list[Hit]
    error: str = ""
