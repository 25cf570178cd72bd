"""Scrollable panels of one piece of content: untrusted text (a topic, a render, an
injection), and the base every such panel shares (`ContentPanel`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from .safe_text import untrusted_content


class ContentPanel(VerticalScroll):
    """One Static in a scroll view: the content, or a muted note when there is none."""

    DEFAULT_CSS = """
    ContentPanel { padding: 0 1; background: $surface; }
    """

    def compose(self) -> ComposeResult:
        yield Static(markup=False)

    def show_body(self, body: Content | None, empty: str, *, to_top: bool = True) -> None:
        """`body`, or the `empty` note (ours, trusted) when it is None; back to the top unless told not to."""
        self.query_one(Static).update(body if body is not None else Content.styled(empty, "italic $muted-text"))
        if to_top:
            self.scroll_home(animate=False)


class TextPanel(ContentPanel):
    def show(self, text: str, empty: str = "") -> None:
        """`text` as plain text; when it is empty, the `empty` note instead (the scroll stays)."""
        self.show_body(untrusted_content(text) if text else None, empty, to_top=False)
