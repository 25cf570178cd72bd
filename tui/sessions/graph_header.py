"""One line above the graph: the session's title, branch count and pending backlog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

from ..common.formatting import tokens

if TYPE_CHECKING:
    from .model import SessionGraph


class GraphHeader(Static):
    DEFAULT_CSS = """
    GraphHeader { height: 1; padding: 0 1; background: $panel; color: $text; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def show(self, graph: SessionGraph | None, note: str = "") -> None:
        if graph is None:
            self.update(Content.styled(note, "$muted-text"))
            return
        count = len(graph.branches)
        self.update(Content.assemble(
            (sanitize_line(graph.title or graph.session_id), "bold"),
            ("  ·  ", "$muted-text"), f"{count} branch{'es' if count != 1 else ''}",
            ("  ·  ", "$muted-text"), (f"{graph.pending_turns} pending", "$node-pending bold"),
            f" ({tokens(graph.pending_tokens)} tok)",
            ("  ·  ", "$muted-text"), (f"{sum(1 for r in graph.rows if r.entry.kind != 'root')} nodes", "$muted-text"),
        ))
