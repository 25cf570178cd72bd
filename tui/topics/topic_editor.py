"""The topic editor: a Markdown TextArea whose rejected lines are marked in place."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import TextArea

from scriptorium.core.sanitize import sanitize


def shown(line: str) -> str:
    """`line` as the terminal may show it: what `sanitize` would change becomes one visible
    mark per character (its control picture, else U+FFFD), so columns still match the text."""
    safe = sanitize(line)
    if safe == line:
        return line
    out = []
    for ch in line:
        mark = sanitize(ch)
        out.append(ch if mark == ch else mark if len(mark) == 1 else "\ufffd")
    return "".join(out)


class TopicEditor(TextArea):
    """Markdown highlighting, line numbers (diagnostics name lines), soft wrap for prose.
    `mark(lines)` underlines the offending lines of a rejection until the next save.
    The text is edited as it is; only its display is made safe (escape sequences and
    bidi overrides never reach the terminal)."""

    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {"topic-editor--rejected"}

    DEFAULT_CSS = """
    TopicEditor { background: $surface; }
    TopicEditor > .topic-editor--rejected { background: $error 25%; color: $text-error; text-style: bold underline; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(language="markdown", soft_wrap=True, show_line_numbers=True, tab_behavior="focus",
                         id=id)
        self.marked: frozenset[int] = frozenset()  # 1-based lines

    def mark(self, lines: set[int] | frozenset[int]) -> None:
        self.marked = frozenset(lines)
        self._line_cache.clear()  # rendered lines are cached by cursor and scroll, not by our marks
        self.refresh()

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        line.plain = shown(line.plain)
        if line_index + 1 in self.marked:
            line.stylize(self.get_component_rich_style("topic-editor--rejected", partial=True))
        return line

    def go_to_line(self, line: int) -> None:
        """Put the cursor at the start of 1-based `line` and scroll it into view (centred)."""
        row = max(0, min(line - 1, self.document.line_count - 1))
        self.move_cursor((row, 0), center=True)
