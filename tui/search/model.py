"""What the Search screen shows: BM25 hits over the topic blocks, as the agent's recall
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
    from scriptorium.core.search import workspace_index

    try:
        return workspace_index(paths.memory).search(query, top_k=top_k), ""
    except OSError as exc:
        return [], f"The topics cannot be read: {exc}"
