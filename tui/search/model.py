"""What the Search screen shows: hybrid search hits (words and meaning) over the topic blocks, as the agent's recall
sees them, through `scriptorium.core.search`.

No Textual here; searching runs in a worker thread (the search package, with its index,
is imported there, not with the app). A state without topics is not searched: building
the index would create its cache, and a viewer writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scriptorium.core.paths import StatePaths

if TYPE_CHECKING:
    from scriptorium.core.search import Hit

TOP_K = 20


def search(state_dir: Path, query: str, top_k: int = TOP_K) -> tuple[list[Hit], str]:
    """The best `top_k` hits for `query`, or none and why (no topics, unreadable topics)."""
    paths = StatePaths(state_dir)
    if not paths.topics.is_dir():
        return [], "No topics yet: nothing to search."
    from scriptorium.core.memory import read_consistent
    from scriptorium.core.search import SearchIndex, workspace_index

    def read(state: Path) -> list[Hit]:
        index = workspace_index(paths.memory) if state == paths.root else SearchIndex(StatePaths(state).memory)
        return index.search(query, top_k=top_k)  # else a snapshot of an install still pending
    try:
        return read_consistent(state_dir, read), ""
    except OSError as exc:
        return [], f"The topics cannot be read: {exc}"
