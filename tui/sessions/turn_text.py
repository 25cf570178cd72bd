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
        said = text if text.strip() else call_summary(node.input)  # a call without output shows what it ran
        return f"{node.name}: {said}" if node.name else said
    if entry.spawn_root:
        return "sub-agent: " + text
    return text


def call_summary(arguments: object) -> str:
    """A tool call's arguments in a line: the one text they hold (a command, a path, a query),
    else `key=value` pairs."""
    if isinstance(arguments, str):
        return arguments
    if not isinstance(arguments, dict) or not arguments:
        return ""
    texts = [v for v in arguments.values() if isinstance(v, str)]
    if len(arguments) == 1 and texts:
        return texts[0]
    for key in ("command", "cmd", "file_path", "path", "pattern", "query", "url"):
        if isinstance(arguments.get(key), str):
            return arguments[key]
    return " ".join(f"{k}={v}" for k, v in arguments.items())[:EXCERPT_CHARS]
