"""All of a long text (a 1 MB turn), drawn a screen at a time.

A Line-API scroll view: the text is sanitized and cut into rows of the view's width
once per width (by cells, not at words — plain slicing for ASCII lines), and only the
rows on screen become styled strips. Textual's `TextArea` and `Static` lay out the
whole text first, which takes seconds for a megabyte of short lines.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left

from rich.cells import cell_len, chop_cells
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from scriptorium.core.redact.placeholder import MARK_RE
from scriptorium.core.sanitize import sanitize

from ..common.safe_text import REDACTED_TEXT_STYLE

TAB = 4


class WholeText(ScrollView, can_focus=True):
    """An untrusted text, read-only, wrapped at the view's width."""

    BINDINGS = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home,g", "scroll_home", "Start", show=False),
        Binding("end,G", "scroll_end", "End", show=False),
    ]

    DEFAULT_CSS = """
    WholeText { background: $surface; padding: 0 1; }
    """

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = sanitize(text).expandtabs(TAB).split("\n")
        self._width = 0
        # One entry per drawn row: which line, and where in it the row starts and ends.
        self._line = array("q")
        self._start = array("q")
        self._end = array("q")

    @property
    def row_count(self) -> int:
        return len(self._line)

    def _wrap(self, width: int) -> None:
        """Cut every line into rows of at most `width` cells (once per width)."""
        width = max(width, 1)
        line_of, starts, ends = array("q"), array("q"), array("q")
        for number, line in enumerate(self.lines):
            length = len(line)
            if line.isascii():
                if length <= width:
                    line_of.append(number)
                    starts.append(0)
                    ends.append(length)
                    continue
                cuts = range(0, length, width)
                line_of.extend([number] * len(cuts))
                starts.extend(cuts)
                ends.extend(min(cut + width, length) for cut in cuts)
            elif cell_len(line) <= width:
                line_of.append(number)
                starts.append(0)
                ends.append(length)
            else:
                at = 0
                for piece in chop_cells(line, width):
                    line_of.append(number)
                    starts.append(at)
                    at += len(piece)
                    ends.append(at)
        top = self._line[int(self.scroll_y)] if self.row_count and int(self.scroll_y) < self.row_count else 0
        self._line, self._start, self._end, self._width = line_of, starts, ends, width
        self.virtual_size = Size(width, len(line_of))
        # Keep the line at the top in view across a resize.
        row = bisect_left(line_of, top) if top else 0
        self.scroll_to(0, row, animate=False, immediate=True)

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width and width != self._width:
            self._wrap(width)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = self.scroll_offset.y + y
        base = self.rich_style
        if width != self._width and width:
            self._wrap(width)
        if index >= self.row_count:
            return Strip.blank(width, base)
        line = self.lines[self._line[index]][self._start[index]:self._end[index]]
        text = Text(line, no_wrap=True, end="")
        text.highlight_regex(MARK_RE, REDACTED_TEXT_STYLE)
        return Strip(text.render(self.app.console)).crop_extend(0, width, base).apply_style(base)
