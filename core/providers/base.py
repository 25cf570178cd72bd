"""The one interface between memory and an agent runtime: nine methods.

Every method but `name` has a default, so a memory system implements only what it has
work for. The runtime calls them along a session's life: `initialize` at session start,
`system_prompt` for the always-on injection, `search` before each turn, `write` after
each turn (and with `force=True` at the session boundary), `extract_before_discard`
when a compactor is about to drop messages, `reorganize` nightly or on demand,
`shutdown` at the end. Recalled text comes back already wrapped in `<memory-context>`
by the provider that produced it; the runtime never wraps it again.

There is no tool-registration method on purpose: a memory system that offers tools
comes in as a plugin, through the runtime's ordinary plugin mechanism.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

Message = dict[str, Any]  # {"role": ..., "content": ..., optional "id"}


class MemoryProvider(ABC):
    @property
    @abstractmethod
    def name(self) -> str:
        """The provider's registry name (also the key of its written marker)."""

    def is_available(self) -> bool:
        """Whether this provider can work here (configured, enabled, its files reachable)."""
        return True

    def initialize(self, session_id: str = "", **options: Any) -> None:
        """Session start."""

    def system_prompt(self) -> str:
        """The always-on memory for the system prompt, fenced; "" when there is none."""
        return ""

    def search(self, query: str, *, top_k: int | None = None) -> str:
        """Recall for the coming turn, fenced; "" when nothing matches."""
        return ""

    def write(self, messages: list[Message] | None = None, *, session_id: str = "", force: bool = False) -> Any:
        """After a turn (`force=False`) or at the session boundary (`force=True`).

        Returns the provider's outcome (None when there is nothing to report).
        """
        return None

    def reorganize(self, **options: Any) -> dict[str, Any]:
        """Rework what memory holds (nightly, or on demand)."""
        return {"status": "skipped"}

    def extract_before_discard(self, messages: list[Message]) -> str:
        """A compactor is about to drop `messages`: what should its summary keep?"""
        return ""

    def shutdown(self) -> None:
        """Session end."""
