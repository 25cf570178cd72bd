"""The session list: title, pending backlog, branch count, last activity; sessions whose last
write failed permanently, and unreadable ones, flagged with `!`."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import DataTable

from ..formatting import ago, tokens
from ..messages import SessionHighlighted
from ..safe_text import untrusted_line
from ..session_model import SessionListing

MIN_TITLE, MAX_TITLE = 12, 40
FIXED_COLUMNS = 1 + 9 + 2  # flag, pending, branches; then activity, as wide as its longest cell
CHROME = 2 + 1 + 2 * 5  # border, scrollbar, one cell of padding each side of five columns


class SessionList(DataTable):
    """One row per session, newest activity first; the row key is the session id.
    The title column takes the width the others leave."""

    DEFAULT_CSS = """
    SessionList { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cell_padding=1)
        self.listing: SessionListing | None = None
        self.now = 0.0
        self.width = 0  # the widget's, once known

    @property
    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self.width:
            self.width = event.size.width
            if self.listing is not None:
                self.show(self.listing, self.now)

    def _title_width(self, activity: list[str]) -> int:
        """What the other columns leave (dates are wider than "3 h": the title gives way)."""
        if not self.width:
            return MAX_TITLE
        others = FIXED_COLUMNS + max([len("Activity"), *map(len, activity)])
        return max(MIN_TITLE, min(MAX_TITLE, self.width - others - CHROME))

    def show(self, listing: SessionListing, now: float) -> None:
        """Replace the rows, keeping the cursor on the same session when it is still listed."""
        keep = self.selected_id
        self.listing, self.now = listing, now
        activity = [ago(row.last_activity, now) for row in listing.rows]
        self.title_width = self._title_width(activity)
        self.clear(columns=True)
        self.add_column("", key="flag", width=1)
        self.add_column("Session", key="title", width=self.title_width)
        self.add_column("Pending", key="pending")
        self.add_column("Br", key="branches")
        self.add_column("Activity", key="activity")
        for row, active in zip(listing.rows, activity):
            owed = Text(f"{row.pending_turns} · {tokens(row.pending_tokens)}" if row.pending_turns else "0",
                        style="bold" if row.pending_turns else "dim", justify="right")
            title = untrusted_line(row.title or row.id, width=self.title_width)
            flag = Text("!", style="bold red") if row.failure else Text(" ")  # its last write failed for good
            self.add_row(flag, title, owed, Text(str(row.branches), justify="right"),
                         Text(active, style="dim"), key=row.id)
        for problem in listing.problems:
            self.add_row(Text("!", style="bold red"), untrusted_line(problem.id, width=self.title_width),
                         Text("unreadable", style="red"), Text(""), Text(""), key=problem.id)
        if keep is not None and keep in {r.id for r in listing.rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(SessionHighlighted(event.row_key.value))
