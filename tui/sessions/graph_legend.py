"""The key to the graph's glyphs, in the theme's node-state colours."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ..common.glyphs import GLYPHS, LABELS


def legend() -> Content:
    parts: list[str | tuple[str, str]] = []
    for state, glyph in GLYPHS.items():
        parts += [" ", (glyph, f"$node-{state}"), " ", (LABELS[state], "$muted-text"), " "]
    return Content.assemble(*parts)


class GraphLegend(Static):
    DEFAULT_CSS = """
    GraphLegend { height: 1; background: $panel; text-wrap: nowrap; }
    """

    def on_mount(self) -> None:
        self.update(legend())
