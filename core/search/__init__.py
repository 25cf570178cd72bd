"""Search over memory: BM25+ over topic blocks, CJK-aware tokens, the recall fence.

`workspace_index(memory_dir)` is the process's index of one workspace (its parsed files
and BM25 model are reused until a file changes); `search` ranks blocks, `memory_get`
returns one block with its citations, `render_hits` fences hits for a prompt.
"""

from __future__ import annotations

from pathlib import Path

from ..fence import fence_memory, strip_fence
from .get import BlockView, CitationView, SourceRef, memory_get
from .index import DEFAULT_TOP_K, Hit, RefreshReport, SearchIndex
from .tokenize import tokenize

_INDEXES: dict[Path, SearchIndex] = {}


def workspace_index(memory_dir: Path) -> SearchIndex:
    key = Path(memory_dir).resolve()
    if key not in _INDEXES:
        _INDEXES[key] = SearchIndex(key)
    return _INDEXES[key]


def render_hits(hits: list[Hit]) -> str:
    """Hits as recalled context, fenced once: `--- path#^id` then the text."""
    body = "\n\n".join(
        f"--- {hit.path}#^{hit.block_id}\n{hit.text}" if hit.kind == "block" else f"--- {hit.path} ({hit.block_id})\n{hit.text}"
        for hit in hits
    )
    return fence_memory(body)


__all__ = [
    "BlockView", "CitationView", "DEFAULT_TOP_K", "Hit", "RefreshReport", "SearchIndex", "SourceRef",
    "fence_memory", "memory_get", "render_hits", "strip_fence", "tokenize", "workspace_index",
]
