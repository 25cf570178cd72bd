"""Sessions: which branches of which sessions are still unwritten, and what the writer gets next;
write a branch now, finish a session, or import an agent's transcripts.

A write runs in a worker thread (one at a time) while the screen stays usable: its
progress is polled from the marks on disk, its outcome — ok, retryable or permanent
with the code and the reason — is shown above the detail pane and as a notification,
and the list and the graph are read again so the marks show what was written.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Middle, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher
from textual.widgets.data_table import RowDoesNotExist
from textual.worker import Worker, WorkerState, get_current_worker

from .describe import describe_branch, describe_turn, turn_title, whole_turn
from .messages import (
    BranchHighlighted,
    GraphFailed,
    GraphLoaded,
    ImportFinished,
    ImportProgress,
    SessionHighlighted,
    SessionsFailed,
    SessionsLoaded,
    TurnHighlighted,
    WriteFinished,
    WriteProgress,
    WriteStarted,
)
from ..common.footer import Footer
from ..common.messages import DiskChanged
from ..common.safe_text import untrusted_content
from .branch_graph import BranchGraph
from .branch_list import BranchList
from .detail_pane import DetailPane
from ..common.empty_state import EmptyState
from .graph_header import GraphHeader
from .graph_legend import GraphLegend
from . import import_status
from .import_status import ImportStatus
from ..common.screen_tabs import ScreenTabs
from .session_list import SessionList
from .write_status import WriteStatus, finished, job_label, running, standing_failure, summary

if TYPE_CHECKING:
    from .model import ImportJob, ImportOutcome, SessionGraph, SessionListing, TurnRow, WriteJob, WriteOutcome

PROGRESS_EVERY_S = 0.5  # how often a running write's marks are read back
IMPORT_OUTCOME_S = 20.0  # how long an import's outcome line stays (the notification says it too)


class SessionsScreen(Screen):
    CSS_PATH = "sessions.tcss"

    BINDINGS = [
        Binding("left_square_bracket", "cycle_branch(-1)", "Prev branch"),
        Binding("right_square_bracket", "cycle_branch(1)", "Next branch"),
        Binding("r", "reload", "Reload"),
        Binding("w", "write_branch", "Write branch"),
        Binding("f", "finish_session", "Finish session"),
        Binding("i", "import_sessions", "Import"),
        Binding("o", "open_turn", "Whole turn"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.listing: SessionListing | None = None
        self.graph: SessionGraph | None = None
        self.session_id: str | None = None
        self.graph_loading: str | None = None  # the session whose graph a worker is reading now
        self.prefetching: str | None = None  # the session whose graph the listing's worker reads next
        self.detail_turn: str | None = None  # the turn the detail pane shows (None: a branch, a failure)
        self.job: WriteJob | None = None  # the write running now (one at a time)
        self.job_owed: frozenset[str] | None = None  # its pending turns when it started
        self.job_written = 0
        self.job_started = 0.0
        self.outcomes: dict[str, WriteOutcome] = {}  # the last write's outcome, per session
        self._write_timers: list[Timer] = []  # while a write runs: the spinner, and reading its marks back
        self.import_job: ImportJob | None = None  # the import running now (one at a time)

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
                    yield WriteStatus(id="write-status")
                    yield DetailPane(id="detail")
            with Middle(id="empty"):
                with Center():
                    yield EmptyState(str(self.app.state_dir))
        yield ImportStatus(id="import-status")
        yield GraphLegend()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(GraphHeader).show(None, "Reading sessions…")
        self.query_one("#session-list").border_title = "Sessions"
        self.query_one("#branch-list").border_title = "Branches"
        self.query_one("#detail").border_title = "Detail"
        self.call_after_refresh(self.load_sessions)  # paint the shell first, then read (and import the engine)
        self.app.live.subscribe(self)

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)

    def on_disk_changed(self, message: DiskChanged) -> None:
        """Another process appended, imported or marked turns: read the sessions again."""
        if message.sessions:
            self.action_reload()

    # --- loading (worker threads; each builds its own store) ---------------

    def load_sessions(self) -> None:
        """Read the list, then (same worker) the graph of the session it will select."""
        self.prefetching = None  # a listing still running is cancelled, with its graph
        self._list_worker(self.query_one(SessionList).selected_id)

    @work(thread=True, exclusive=True, group="sessions")
    def _list_worker(self, prefer: str | None) -> None:
        from .model import GRAPH_ERRORS, LIST_ERRORS, list_and_open  # the engine: after the first paint

        worker = get_current_worker()
        try:
            listing, next_graph = list_and_open(self.app.state_dir, prefer)
        except LIST_ERRORS as exc:
            if not worker.is_cancelled:
                self.post_message(SessionsFailed(str(exc)))
            return
        if worker.is_cancelled:
            return
        self.post_message(SessionsLoaded(listing, next_graph.session_id if next_graph else None))
        if next_graph is None:
            return
        try:
            message: GraphLoaded | GraphFailed = GraphLoaded(next_graph.read())
        except GRAPH_ERRORS as exc:
            message = GraphFailed(next_graph.session_id, str(exc))
        if not worker.is_cancelled:
            self.post_message(message)

    @work(thread=True, exclusive=True, group="graph")
    def load_graph(self, session_id: str) -> None:
        from .model import GRAPH_ERRORS, load_graph

        try:
            message: GraphLoaded | GraphFailed = GraphLoaded(load_graph(self.app.state_dir, session_id))
        except GRAPH_ERRORS as exc:
            message = GraphFailed(session_id, str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(message)

    def on_sessions_failed(self, message: SessionsFailed) -> None:
        self.query_one(GraphHeader).show(None, "The sessions cannot be read")
        self._show_detail(untrusted_content(message.reason, "$text-error"))

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        self.listing = message.listing
        self.prefetching = message.opening  # its graph follows from the same worker
        self.app.session_listing = message.listing
        self.refresh_bindings()  # the write actions appear once there is a session to write
        empty = not message.listing.rows and not message.listing.problems
        self.query_one("#switcher", ContentSwitcher).current = "empty" if empty else "sessions-body"
        if empty:
            return
        session_list = self.query_one(SessionList)
        session_list.show(message.listing, self.app.clock())
        selected = session_list.selected_id
        if selected is not None:
            self.open_session(selected)
        self._show_write_status()

    def open_session(self, session_id: str) -> None:
        if session_id == self.session_id and (self.graph is not None or self._being_read(session_id)):
            return  # shown, or being read (the list's cursor announces the session it opened too)
        self.session_id = session_id
        self.graph = None
        self._show_write_status()
        for problem in self.listing.problems if self.listing else []:
            if problem.id == session_id:
                self._show_failure(session_id, problem.message)
                return
        self.query_one(GraphHeader).show(None, "Reading the session…")
        if not self._being_read(session_id):
            self.graph_loading = session_id
            self.load_graph(session_id)

    def _being_read(self, session_id: str) -> bool:
        return session_id in (self.graph_loading, self.prefetching)

    def on_session_highlighted(self, message: SessionHighlighted) -> None:
        self.open_session(message.session_id)

    def on_graph_loaded(self, message: GraphLoaded) -> None:
        graph = message.graph
        self._read(graph.session_id)
        if graph.session_id != self.session_id:
            return
        self.graph = graph
        graph_view = self.query_one(BranchGraph)
        # The same session read again (after a write, a reload): the same branch and turn stay selected.
        again = graph_view.graph is not None and graph_view.graph.session_id == graph.session_id
        keep_tip = graph_view.selected_tip if again else None
        keep_row = graph_view.current_row.id if again and graph_view.current_row else None
        self.query_one(GraphHeader).show(graph)
        graph_view.show(graph)
        if keep_row is not None and graph_view.has_focus:
            graph_view.move_to(keep_row)
        self.query_one(BranchList).show(graph)
        if graph.branches:
            self.select_branch(keep_tip if graph.branch(keep_tip or "") else graph.branches[0].tip)
        else:
            self._show_turn(graph.rows[0])

    def _read(self, session_id: str) -> None:
        """A worker is done reading `session_id`'s graph."""
        if session_id == self.graph_loading:
            self.graph_loading = None
        if session_id == self.prefetching:
            self.prefetching = None

    def on_graph_failed(self, message: GraphFailed) -> None:
        self._read(message.session_id)
        if message.session_id == self.session_id:
            self._show_failure(message.session_id, message.reason)

    def _show_failure(self, session_id: str, reason: str) -> None:
        self.query_one(GraphHeader).show(None, f"Session {session_id} cannot be read")
        self.query_one(BranchGraph).show(None)
        self.query_one(BranchList).show(None)
        self._show_detail(untrusted_content(reason, "$text-error"))

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
        self._show_detail(describe_branch(self.graph, branch, detail.scrollable_content_region.width), wrap=False)

    def on_branch_highlighted(self, message: BranchHighlighted) -> None:
        self.select_branch(message.tip)

    def on_turn_highlighted(self, message: TurnHighlighted) -> None:
        if self.graph is None or not self.query_one(BranchGraph).has_focus:
            return
        index = self.graph.row_index(message.node_id)
        if index is not None:
            self._show_turn(self.graph.rows[index])

    def on_descendant_focus(self) -> None:
        graph_view = self.query_one(BranchGraph)
        if graph_view.has_focus and graph_view.current_row is not None and self.graph is not None:
            self._show_turn(graph_view.current_row)

    def _show_turn(self, row: TurnRow) -> None:
        """A turn in the detail pane: a bounded preview, the whole on `o`, and the branch `w` writes."""
        assert self.graph is not None
        self._show_detail(describe_turn(self.graph, row, writes=self._branch_through(row.id)), turn=row.id)

    def _branch_through(self, node_id: str) -> str | None:
        """The branch a turn belongs to for `w`: the selected branch if it passes there, else the
        first live branch through it (the head's first); None for a rewound turn or a summary."""
        assert self.graph is not None
        tips = [b.tip for b in self.graph.branches_through(node_id)]
        selected = self.query_one(BranchGraph).selected_tip
        return selected if selected in tips else (tips[0] if tips else None)

    def write_target(self) -> str | None:
        """What `w` writes: the branch of the turn under the graph's cursor while the detail
        shows a turn, otherwise the branch selected in the list."""
        if self.graph is None:
            return None
        if self.detail_turn is not None:
            return self._branch_through(self.detail_turn)
        return self.query_one(BranchGraph).selected_tip

    def _show_detail(self, content: Content, *, turn: str | None = None, wrap: bool = True) -> None:
        self.query_one(DetailPane).show(content, wrap=wrap)
        if turn != self.detail_turn:
            self.detail_turn = turn
            self.refresh_bindings()  # `o` is offered only while a turn is shown

    # --- actions -----------------------------------------------------------

    def action_open_turn(self) -> None:
        """The whole of the turn the detail pane previews, in its own screen (read on demand)."""
        from .turn_viewer import TurnViewer

        graph = self.graph
        index = graph.row_index(self.detail_turn) if graph is not None and self.detail_turn else None
        if graph is None or index is None:
            self.notify("Select a turn in the graph first.", severity="warning")
            return
        row = graph.rows[index]
        node = graph.node(row.id)
        if node is None:
            self.notify("The node file could not be read.", severity="error")
            return
        self.app.push_screen(TurnViewer(turn_title(row, node), whole_turn(row, node)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("write_branch", "finish_session"):
            return bool(self.listing and self.listing.rows)
        if action == "open_turn":
            return self.detail_turn is not None
        return True

    def action_cycle_branch(self, step: int) -> None:
        if self.graph is None or not self.graph.branches:
            return
        tips = [b.tip for b in self.graph.branches]
        current = self.query_one(BranchGraph).selected_tip
        index = tips.index(current) + step if current in tips else 0
        self.select_branch(tips[index % len(tips)])

    def action_reload(self) -> None:
        self.graph = None
        self.session_id = self.graph_loading = None
        self.load_sessions()

    def action_write_branch(self) -> None:
        """Write the highlighted branch now (`write_target`): every pending turn, batch by batch
        (a forced write)."""
        tip = self.write_target()
        if self.graph is None or tip is None or self.graph.branch(tip) is None:
            self.notify("Select a session and one of its branches (or a turn on one) first.", severity="warning")
            return
        from .model import WriteJob

        self._start(WriteJob(self.graph.session_id, tip))

    def action_finish_session(self) -> None:
        """The session's end: its head written whole, side branches only if they reach the threshold."""
        if self.graph is None:
            self.notify("Select a session first.", severity="warning")
            return
        from .model import WriteJob

        self._start(WriteJob(self.graph.session_id, None))

    # --- writing (a worker thread; progress polled, outcome shown) ---------

    def _start(self, job: WriteJob) -> None:
        if self.job is not None:
            self.notify(f"Wait for the running write to end ({job_label(self.job, self.session_id)}).",
                        severity="warning", markup=False)
            return
        self.job, self.job_owed, self.job_written, self.job_started = job, None, 0, time.monotonic()
        self.outcomes.pop(job.session_id, None)
        self._write_timers = [self.set_interval(0.1, self._show_write_status),
                              self.set_interval(PROGRESS_EVERY_S, self._poll)]
        self._show_write_status()
        self.run_write(job)

    @work(thread=True, group="write", exit_on_error=False)
    def run_write(self, job: WriteJob) -> WriteOutcome:
        from .model import owed_ids, run_job

        self.post_message(WriteStarted(job, owed_ids(self.app.state_dir, job)))
        return run_job(self.app.state_dir, job)

    @work(thread=True, exclusive=True, group="write-progress", exit_on_error=False)
    def poll_progress(self, job: WriteJob, owed: frozenset[str]) -> None:
        from .model import owed_ids

        written = len(owed - owed_ids(self.app.state_dir, job))
        if not get_current_worker().is_cancelled:
            self.post_message(WriteProgress(job, written))

    def _poll(self) -> None:
        if self.job is not None and self.job_owed:
            self.poll_progress(self.job, self.job_owed)

    def on_write_started(self, message: WriteStarted) -> None:
        if message.job == self.job:
            self.job_owed = frozenset(message.owed)
            self._show_write_status()

    def on_write_progress(self, message: WriteProgress) -> None:
        if message.job == self.job:
            self.job_written = max(self.job_written, message.written)
            self._show_write_status()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A write worker ended: with the pipeline's outcome, or with an exception (shown as "error")."""
        worker = event.worker
        if worker.group == "import":
            self._import_worker_changed(event)
            return
        if worker.group != "write" or self.job is None:
            return
        from .model import WriteOutcome  # (not before: the first worker's start comes before the first paint)

        if event.state == WorkerState.SUCCESS and isinstance(worker.result, WriteOutcome):
            self.post_message(WriteFinished(worker.result))
        elif event.state == WorkerState.ERROR:
            error = worker.error
            self.post_message(WriteFinished(WriteOutcome(self.job, "error", type(error).__name__, str(error), 0,
                                                         elapsed=time.monotonic() - self.job_started)))

    def on_write_finished(self, message: WriteFinished) -> None:
        outcome = message.outcome
        self.job, self.job_owed = None, None
        for timer in self._write_timers:
            timer.stop()
        self._write_timers = []
        self.outcomes[outcome.job.session_id] = outcome
        severity = {"ok": "information", "retryable": "warning"}.get(outcome.outcome, "error")
        self.notify(summary(outcome), title=f"{job_label(outcome.job, self.session_id).capitalize()}: "
                    f"{outcome.outcome}", severity=severity, markup=False)
        # Read the list (backlogs, failure marks) and the graph (node marks) again.
        if self.session_id == outcome.job.session_id:
            self.graph = self.graph_loading = None
        self._show_write_status()
        self.load_sessions()

    def _show_write_status(self) -> None:
        """The running write (whatever session it is in), else this session's last outcome, else
        its standing permanent failure, else nothing."""
        status = self.query_one(WriteStatus)
        if self.job is not None:
            owed = None if self.job_owed is None else len(self.job_owed)
            status.show(running(self.job, owed, self.job_written, time.monotonic() - self.job_started,
                                self.session_id))
        elif self.session_id in self.outcomes:
            status.show(finished(self.outcomes[self.session_id]))
        elif self.listing and self.session_id and (row := self.listing.row(self.session_id)) and row.failure:
            status.show(standing_failure(row.failure))
        else:
            status.show(None)

    # --- importing (a worker thread; progress reported, outcome shown) ------

    def action_import_sessions(self) -> None:
        """Ask what to import, then import it while the screen stays usable."""
        from .import_dialog import ImportDialog
        from .model import import_locations

        if self.import_job is not None:
            self.notify("An import is already running.", severity="warning")
            return
        self.app.push_screen(ImportDialog(import_locations()), self._start_import)

    def _start_import(self, job: ImportJob | None) -> None:
        if job is None or self.import_job is not None:
            return
        self.import_job = job
        self.query_one(ImportStatus).show(import_status.running(job, 0, 0, "reading the transcripts…"))
        self.import_worker(job)

    @work(thread=True, group="import", exit_on_error=False)
    def import_worker(self, job: ImportJob) -> ImportOutcome:
        from .model import run_import

        last = 0.0

        def progress(done: int, total: int, label: str) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= 0.1 or done >= total:  # a message per node would flood the app
                last = now
                self.post_message(ImportProgress(job, done, total, label))

        return run_import(self.app.state_dir, job, progress)

    def on_import_progress(self, message: ImportProgress) -> None:
        if message.job == self.import_job:
            self.query_one(ImportStatus).show(import_status.running(message.job, message.done, message.total,
                                                             message.label))

    def _import_worker_changed(self, event: Worker.StateChanged) -> None:
        if self.import_job is None:
            return
        from .model import ImportOutcome

        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, ImportOutcome):
            self.post_message(ImportFinished(event.worker.result))
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            self.post_message(ImportFinished(ImportOutcome(self.import_job, False,
                                                           message=f"{type(error).__name__}: {error}")))

    def on_import_finished(self, message: ImportFinished) -> None:
        outcome = message.outcome
        self.import_job = None
        self.query_one(ImportStatus).show(import_status.finished(outcome))
        self.set_timer(IMPORT_OUTCOME_S, self._hide_import_outcome)
        severity = "information" if outcome.ok and not outcome.errors else "error"
        self.notify(import_status.summary(outcome), title="Import finished" if outcome.ok else "Import stopped",
                    severity=severity, markup=False)
        self.action_reload()

    def _hide_import_outcome(self) -> None:
        if self.import_job is None:
            self.query_one(ImportStatus).show(None)

    def show_session(self, session_id: str) -> None:
        """Move the list's cursor to a session (from the command palette)."""
        session_list = self.query_one(SessionList)
        try:
            session_list.move_cursor(row=session_list.get_row_index(session_id), animate=False)
        except RowDoesNotExist:  # the list changed meanwhile
            return
        session_list.focus()
        self.open_session(session_id)
