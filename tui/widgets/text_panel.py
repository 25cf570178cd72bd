"""A titled, scrollable panel of untrusted text (a topic, a render, an injection)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ..safe_text import untrusted_content


class TextPanel(VerticalScroll):
    DEFAULT_CSS = """
    TextPanel { padding: 0 1; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield Static(markup=False)

    def show(self, text: str, empty: str = "") -> None:
        """`text` as plain text; when it is empty, the `empty` note (ours, trusted) instead."""
        body = untrusted_content(text) if text else Content.styled(empty, "italic $muted-text")
        self.query_one(Static).update(body)
