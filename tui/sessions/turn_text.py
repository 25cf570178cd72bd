"""The one-line text a turn shows in the graph, derived from its node."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import SessionGraph, TurnRow


SUMMARY_PREFIX = "[Previous conversation summary]"
EXCERPT_CHARS = 400  # enough for any row; never fold a 100 kB tool output per paint


def excerpt(graph: SessionGraph, row: TurnRow) -> str:
    """Untrusted: pass through `safe_text` before display."""
    entry = row.entry
    if entry.kind == "root":
        return "session start"
    node = graph.node(entry.id)
    if node is None:
        return "(unreadable node file)"
    text = node.text[:EXCERPT_CHARS]
    if entry.kind == "summary":
        return "summary: " + text.removeprefix(SUMMARY_PREFIX).lstrip()
    if entry.kind == "tool":
        return f"{node.name}: {text}" if node.name else text
    if entry.spawn_root:
        return "sub-agent: " + text
    return text
