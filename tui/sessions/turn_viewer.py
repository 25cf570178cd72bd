"""The whole of one turn (`o` on a turn in the detail pane): for a turn too long for the
pane's preview, a 1 MB answer or a tool's 1 MB input. Opened on demand; nothing of it is
laid out before."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ..common.footer import Footer
from .whole_text import WholeText


class TurnViewer(Screen[None]):
    BINDINGS = [Binding("escape,o", "close", "Close")]

    DEFAULT_CSS = """
    TurnViewer #viewer-title { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    TurnViewer #whole-text { height: 1fr; border: round $border; border-title-color: $text-primary; }
    """

    def __init__(self, title: Content, text: str) -> None:
        """`title`: already safe (built by describe.py); `text`: untrusted, sanitized by the view."""
        super().__init__()
        self.title_content = title
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.title_content, id="viewer-title", markup=False)
        yield WholeText(self.text, id="whole-text")
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(WholeText)
        view.border_title = "Whole turn"
        view.focus()

    def action_close(self) -> None:
        self.dismiss(None)
