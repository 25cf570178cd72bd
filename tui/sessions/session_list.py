"""The session list: title, pending backlog, branch count, last activity; sessions whose last
write failed permanently, and unreadable ones, flagged with `!`; sessions secrets were
redacted from with `*` (when nothing worse is to flag)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.events import Resize
from textual.widgets import DataTable

from ..common.formatting import ago, tokens
from .messages import SessionHighlighted
from ..common.safe_text import untrusted_line

if TYPE_CHECKING:
    from .model import SessionListing

MIN_TITLE, MAX_TITLE = 12, 40
CHROME = 2 + 1 + 2 * 5  # border, scrollbar, one cell of padding each side of five columns


class SessionList(DataTable):
    """One row per session, newest activity first; the row key is the session id.
    Every column is exactly as wide as its widest cell (set, not measured later: a
    re-render during a resize must not cut "unreadable" or a date); the title takes
    the width the others leave."""

    DEFAULT_CSS = """
    SessionList { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cell_padding=1)
        self.listing: SessionListing | None = None
        self.now = 0.0
        self.known_width = 0  # the widget's, once laid out
        self.title_width = MAX_TITLE

    @property
    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self.known_width:
            self.known_width = event.size.width
            if self.listing is not None:
                self.show(self.listing, self.now)

    def show(self, listing: SessionListing, now: float) -> None:
        """Replace the rows, keeping the cursor on the same session when it is still listed."""
        keep = self.selected_id
        self.listing, self.now = listing, now
        rows: list[tuple[str, Text, str, Text, Text, Text]] = []
        for row in listing.rows:
            owed = Text(f"{row.pending_turns} · {tokens(row.pending_tokens)}" if row.pending_turns else "0",
                        style="bold" if row.pending_turns else "dim", justify="right")
            flag = (Text("!", style="bold red") if row.failure  # its last write failed for good
                    else Text("*", style="bold yellow") if row.redactions else Text(" "))
            rows.append((row.id, flag, row.title or row.id, owed, Text(str(row.branches), justify="right"),
                         Text(ago(row.last_activity, now), style="dim")))
        for problem in listing.problems:
            rows.append((problem.id, Text("!", style="bold red"), problem.id, Text("unreadable", style="red"),
                         Text(""), Text("")))
        widths = [max([len(label), *(cells[index].cell_len for cells in rows)])
                  for label, index in (("Pending", 3), ("Br", 4), ("Activity", 5))]
        if self.known_width:
            spare = self.known_width - 1 - sum(widths) - CHROME
            self.title_width = max(MIN_TITLE, min(MAX_TITLE, spare))
        self.clear(columns=True)
        self.add_column("", key="flag", width=1)
        self.add_column("Session", key="title", width=self.title_width)
        for (label, key), width in zip((("Pending", "pending"), ("Br", "branches"), ("Activity", "activity")), widths):
            self.add_column(label, key=key, width=width)
        for key, flag, title, owed, branches, active in rows:
            self.add_row(flag, untrusted_line(title, width=self.title_width), owed, branches, active, key=key)
        if keep is not None and keep in {r.id for r in listing.rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(SessionHighlighted(event.row_key.value))
