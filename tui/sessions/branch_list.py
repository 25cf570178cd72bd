"""The live branches of the selected session, each with its pending backlog."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from scriptorium.core.sanitize import sanitize_line

from ..common.formatting import tokens
from ..common.glyphs import GLYPHS, HEAD
from .messages import BranchHighlighted
from .model import SessionGraph, short_id
from .turn_text import excerpt


class BranchList(OptionList):
    """One option per live branch (id = its tip), the head's first."""

    DEFAULT_CSS = """
    BranchList { background: $surface; height: auto; max-height: 12; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def show(self, graph: SessionGraph | None) -> None:
        self.clear_options()
        if graph is None:
            return
        options = []
        for branch in graph.branches:
            state = HEAD if branch.is_head else ("pending" if branch.pending else "written")
            index = graph.row_index(branch.tip)
            tip_text = excerpt(graph, graph.rows[index]) if index is not None else ""
            owed = (f"{len(branch.pending)} pending · {tokens(branch.pending_tokens)}" if branch.pending
                    else "written")
            prompt = Content.assemble(
                (GLYPHS[state], f"$node-{state}"), " ", (short_id(branch.tip).ljust(8), "bold"), " ",
                (owed.ljust(18), "$node-pending" if branch.pending else "$node-written"), " ",
                (sanitize_line(tip_text)[:60], "$muted-text"),
            )
            options.append(Option(prompt, id=branch.tip))
        self.add_options(options)

    def highlight_tip(self, tip: str) -> None:
        try:
            index = self.get_option_index(tip)
        except OptionDoesNotExist:  # the list was rebuilt meanwhile
            return
        if self.highlighted != index:
            self.highlighted = index

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(BranchHighlighted(event.option.id))
