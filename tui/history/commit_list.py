"""The workspace's commits, newest first: short sha, kind, time, summary, changed files.
The row key is the full sha."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.events import Resize
from textual.widgets import DataTable

from ..common.formatting import when
from .messages import CommitHighlighted
from ..common.safe_text import untrusted_line

if TYPE_CHECKING:
    from .model import Commit

KIND_COLOURS = {"write": "node-written", "sleep": "secondary", "edit": "accent", "revert": "node-rewound",
                "migrate": "node-elsewhere"}
MIN_SUMMARY, MAX_SUMMARY = 24, 72
OTHER_COLUMNS = 8 + 6 + 22 + 22  # sha, kind, when, topics changed (the summary takes what is left)
CHROME = 2 + 1 + 2 * 5  # border, scrollbar, one cell of padding each side of five columns


def files_label(row: Commit) -> str:
    topics = row.topic_files
    if not topics:
        return f"none · {len(row.files)} file{'s' if len(row.files) != 1 else ''}" if row.files else "—"
    first = topics[0].removeprefix("topics/")
    return first + (f" +{len(topics) - 1}" if len(topics) > 1 else "")


class CommitList(DataTable):
    DEFAULT_CSS = """
    CommitList { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cell_padding=1)
        self.rows_shown: list[Commit] = []
        self.now = 0.0
        self.summary_width = MAX_SUMMARY

    @property
    def selected_sha(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._recolour())  # kind colours: the theme's

    def _recolour(self) -> None:
        if self.rows_shown:
            self.show(self.rows_shown, self.now)

    def on_resize(self, event: Resize) -> None:
        width = max(MIN_SUMMARY, min(MAX_SUMMARY, event.size.width - OTHER_COLUMNS - CHROME))
        if width != self.summary_width:
            self.summary_width = width
            self._recolour()

    def show(self, commits: list[Commit], now: float, select: str | None = None) -> None:
        """Replace the rows; the cursor goes to `select`, else stays on the same commit."""
        keep = select or self.selected_sha
        self.rows_shown, self.now = commits, now
        colours = self.app.theme_variables
        self.clear(columns=True)
        self.add_column("Commit", key="sha")
        self.add_column("Kind", key="kind")
        self.add_column("When", key="when")
        self.add_column("Summary", key="summary", width=self.summary_width)
        self.add_column("Topics changed", key="files")
        for row in commits:
            colour = colours.get(KIND_COLOURS.get(row.kind, ""), "")
            self.add_row(Text(row.sha[:8], style="dim"), Text(row.kind or "—", style=f"bold {colour}".strip()),
                         Text(when(row.at, now), style="dim"),
                         untrusted_line(row.summary, width=self.summary_width), untrusted_line(files_label(row)),
                         key=row.sha)
        if keep is not None and keep in {r.sha for r in commits}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(CommitHighlighted(event.row_key.value))
