"""The session list: title, last activity, branch count, pending backlog; unreadable sessions flagged."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ..formatting import ago, tokens
from ..messages import SessionHighlighted
from ..safe_text import untrusted_line
from ..session_model import SessionListing

TITLE_WIDTH = 30


class SessionList(DataTable):
    """One row per session, newest activity first; the row key is the session id."""

    DEFAULT_CSS = """
    SessionList { background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, cell_padding=1)
        self.problems: dict[str, str] = {}

    def on_mount(self) -> None:
        self.add_column("", key="flag", width=1)
        self.add_column("Session", key="title", width=TITLE_WIDTH)
        self.add_column("Activity", key="activity")
        self.add_column("Br", key="branches")
        self.add_column("Pending", key="pending")

    @property
    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def show(self, listing: SessionListing, now: float) -> None:
        """Replace the rows, keeping the cursor on the same session when it is still listed."""
        keep = self.selected_id
        self.clear()
        self.problems = {p.id: p.message for p in listing.problems}
        for row in listing.rows:
            owed = Text(f"{row.pending_turns} · {tokens(row.pending_tokens)}" if row.pending_turns else "0",
                        style="bold" if row.pending_turns else "dim", justify="right")
            title = untrusted_line(row.title or row.id, width=TITLE_WIDTH)
            self.add_row(Text(" "), title, Text(ago(row.last_activity, now), style="dim"),
                         Text(str(row.branches), justify="right"), owed, key=row.id)
        for problem in listing.problems:
            self.add_row(Text("!", style="bold red"), untrusted_line(problem.id, width=TITLE_WIDTH),
                         Text("unreadable", style="red"), Text(""), Text(""), key=problem.id)
        if keep is not None and keep in {r.id for r in listing.rows}:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(SessionHighlighted(event.row_key.value))
