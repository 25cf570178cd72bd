"""Sessions: which branches of which sessions are still unwritten, and what the writer gets next."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Middle, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer
from textual.widgets.data_table import RowDoesNotExist
from textual.worker import get_current_worker

from scriptorium.core.marker import WorkspaceIdError
from scriptorium.core.session_store import SessionError

from ..describe import describe_branch, describe_turn
from ..messages import (BranchHighlighted, GraphFailed, GraphLoaded, SessionHighlighted, SessionsFailed,
                        SessionsLoaded, TurnHighlighted)
from ..safe_text import untrusted_content
from ..session_model import SessionGraph, SessionListing, list_sessions, load_graph
from ..widgets.branch_graph import BranchGraph
from ..widgets.branch_list import BranchList
from ..widgets.detail_pane import DetailPane
from ..widgets.empty_state import EmptyState
from ..widgets.graph_header import GraphHeader
from ..widgets.graph_legend import GraphLegend
from ..widgets.screen_tabs import ScreenTabs
from ..widgets.session_list import SessionList


class SessionsScreen(Screen):
    CSS_PATH = "sessions.tcss"

    BINDINGS = [
        Binding("left_square_bracket", "cycle_branch(-1)", "Prev branch"),
        Binding("right_square_bracket", "cycle_branch(1)", "Next branch"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.listing: SessionListing | None = None
        self.graph: SessionGraph | None = None
        self.session_id: str | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("sessions")
        with ContentSwitcher(initial="sessions-body", id="switcher"):
            with Horizontal(id="sessions-body"):
                with Vertical(id="left"):
                    yield SessionList(id="session-list")
                    yield BranchList(id="branch-list")
                with Vertical(id="right"):
                    yield GraphHeader(id="graph-header")
                    yield BranchGraph(id="graph")
                    yield DetailPane(id="detail")
            with Middle(id="empty"):
                with Center():
                    yield EmptyState(str(self.app.state_dir))
        yield GraphLegend()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(GraphHeader).show(None, "Reading sessions…")
        self.query_one("#session-list").border_title = "Sessions"
        self.query_one("#branch-list").border_title = "Branches"
        self.query_one("#detail").border_title = "Detail"
        self.call_after_refresh(self.load_sessions)  # paint the shell first, then read

    # --- loading (worker threads; each builds its own store) ---------------

    @work(thread=True, exclusive=True, group="sessions")
    def load_sessions(self) -> None:
        try:
            message: SessionsLoaded | SessionsFailed = SessionsLoaded(list_sessions(self.app.state_dir))
        except (OSError, WorkspaceIdError) as exc:
            message = SessionsFailed(str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(message)

    @work(thread=True, exclusive=True, group="graph")
    def load_graph(self, session_id: str) -> None:
        try:
            message: GraphLoaded | GraphFailed = GraphLoaded(load_graph(self.app.state_dir, session_id))
        except (SessionError, OSError, WorkspaceIdError) as exc:
            message = GraphFailed(session_id, str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(message)

    def on_sessions_failed(self, message: SessionsFailed) -> None:
        self.query_one(GraphHeader).show(None, "The sessions cannot be read")
        self.query_one(DetailPane).show(untrusted_content(message.reason, "$text-error"))

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        self.listing = message.listing
        self.app.session_listing = message.listing
        empty = not message.listing.rows and not message.listing.problems
        self.query_one("#switcher", ContentSwitcher).current = "empty" if empty else "sessions-body"
        if empty:
            return
        session_list = self.query_one(SessionList)
        session_list.show(message.listing, self.app.clock())
        selected = session_list.selected_id
        if selected is not None:
            self.open_session(selected)

    def open_session(self, session_id: str) -> None:
        if session_id == self.session_id and self.graph is not None:
            return
        self.session_id = session_id
        self.graph = None
        for problem in self.listing.problems if self.listing else []:
            if problem.id == session_id:
                self._show_failure(session_id, problem.message)
                return
        self.query_one(GraphHeader).show(None, "Reading the session…")
        self.load_graph(session_id)

    def on_session_highlighted(self, message: SessionHighlighted) -> None:
        self.open_session(message.session_id)

    def on_graph_loaded(self, message: GraphLoaded) -> None:
        graph = message.graph
        if graph.session_id != self.session_id:
            return
        self.graph = graph
        self.query_one(GraphHeader).show(graph)
        self.query_one(BranchGraph).show(graph)
        self.query_one(BranchList).show(graph)
        if graph.branches:
            self.select_branch(graph.branches[0].tip)
        else:
            self.query_one(DetailPane).show(describe_turn(graph, graph.rows[0]))

    def on_graph_failed(self, message: GraphFailed) -> None:
        if message.session_id == self.session_id:
            self._show_failure(message.session_id, message.reason)

    def _show_failure(self, session_id: str, reason: str) -> None:
        self.query_one(GraphHeader).show(None, f"Session {session_id} cannot be read")
        self.query_one(BranchGraph).show(None)
        self.query_one(BranchList).show(None)
        self.query_one(DetailPane).show(untrusted_content(reason, "$text-error"))

    # --- selection ---------------------------------------------------------

    def select_branch(self, tip: str) -> None:
        """Select a branch: emphasise it in the graph, list it, show its pending turns and batch."""
        if self.graph is None or (branch := self.graph.branch(tip)) is None:
            return
        graph_view = self.query_one(BranchGraph)
        graph_view.select_branch(tip)
        if not graph_view.has_focus:
            graph_view.move_to(tip)
        self.query_one(BranchList).highlight_tip(tip)
        detail = self.query_one(DetailPane)
        detail.show(describe_branch(self.graph, branch, detail.scrollable_content_region.width))

    def on_branch_highlighted(self, message: BranchHighlighted) -> None:
        self.select_branch(message.tip)

    def on_turn_highlighted(self, message: TurnHighlighted) -> None:
        if self.graph is None or not self.query_one(BranchGraph).has_focus:
            return
        index = self.graph.row_index(message.node_id)
        if index is not None:
            self.query_one(DetailPane).show(describe_turn(self.graph, self.graph.rows[index]))

    def on_descendant_focus(self) -> None:
        graph_view = self.query_one(BranchGraph)
        if graph_view.has_focus and graph_view.current_row is not None and self.graph is not None:
            self.query_one(DetailPane).show(describe_turn(self.graph, graph_view.current_row))

    # --- actions -----------------------------------------------------------

    def action_cycle_branch(self, step: int) -> None:
        if self.graph is None or not self.graph.branches:
            return
        tips = [b.tip for b in self.graph.branches]
        current = self.query_one(BranchGraph).selected_tip
        index = tips.index(current) + step if current in tips else 0
        self.select_branch(tips[index % len(tips)])

    def action_reload(self) -> None:
        self.graph = None
        self.session_id = None
        self.load_sessions()

    def show_session(self, session_id: str) -> None:
        """Move the list's cursor to a session (from the command palette)."""
        session_list = self.query_one(SessionList)
        try:
            session_list.move_cursor(row=session_list.get_row_index(session_id), animate=False)
        except RowDoesNotExist:  # the list changed meanwhile
            return
        session_list.focus()
        self.open_session(session_id)
