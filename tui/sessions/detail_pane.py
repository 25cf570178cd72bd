"""The detail pane: a selected turn in full, or a branch with the writer's next batch."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static


class DetailPane(VerticalScroll):
    DEFAULT_CSS = """
    DetailPane { background: $surface; padding: 0 1; }
    DetailPane > #detail-body { width: 1fr; }
    DetailPane > #detail-body.-lines { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="detail-body", markup=False)

    def show(self, content: Content, *, wrap: bool = True) -> None:
        """Show `content`; `wrap=False`: one row per line, cut at the pane's edge (a list of
        turns, which no wrapping makes easier to read, and which lays out much faster)."""
        body = self.query_one("#detail-body", Static)
        body.set_class(not wrap, "-lines")
        body.update(content)
        self.scroll_home(animate=False)

    @property
    def plain(self) -> str:
        """The text the pane shows, without styles."""
        return str(self.query_one("#detail-body", Static).content)
