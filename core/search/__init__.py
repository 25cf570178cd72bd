"""Search over memory: BM25+ over topic blocks, CJK-aware tokens, the recall fence.

`workspace_index(memory_dir)` is the process's index of one workspace (its parsed files
and BM25 model are reused until a file changes); `search` ranks blocks, `memory_get`
returns one block with its citations, `render_hits` fences hits for a prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..fence import NOTE, fence_memory, strip_fence
from .index import DEFAULT_TOP_K, Hit, RefreshReport, SearchIndex
from .tokenize import tokenize

_INDEXES: dict[Path, SearchIndex] = {}


def workspace_index(memory_dir: Path) -> SearchIndex:
    key = Path(memory_dir).resolve()
    if key not in _INDEXES:
        _INDEXES[key] = SearchIndex(key)
    return _INDEXES[key]


def render_hit(hit: Hit) -> str:
    """One hit as recalled context: `--- path#^id` then the text."""
    if hit.kind == "block":
        return f"--- {hit.path}#^{hit.block_id}\n{hit.text}"
    return f"--- {hit.path} ({hit.block_id})\n{hit.text}"


def render_hits(hits: list[Hit], note: str = NOTE) -> str:
    """Hits as recalled context, fenced once."""
    return fence_memory("\n\n".join(render_hit(hit) for hit in hits), note)


def __getattr__(name: str) -> Any:
    """`memory_get` and its views parse topics (the memory package): loaded when asked for,
    so that a search answered from the cache never imports them."""
    if name in ("BlockView", "CitationView", "SourceRef", "memory_get"):
        from . import get

        return getattr(get, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BlockView", "CitationView", "DEFAULT_TOP_K", "Hit", "RefreshReport", "SearchIndex", "SourceRef",
    "fence_memory", "memory_get", "render_hit", "render_hits", "strip_fence", "tokenize", "workspace_index",
]
