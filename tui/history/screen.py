"""History: the workspace's commits (kind, time, summary, changed files); for the selected
commit its audit record and its diff; and revert — a new, validated `revert`
transaction that is rejected with diagnostics, never forced, when it would break later
memory. Reading git and reverting run in thread workers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import get_current_worker

from scriptorium.core.sanitize import sanitize_line

from . import model
from .messages import CommitHighlighted, CommitRead, HistoryRead, RevertFinished
from ..common.messages import DiskChanged
from .commit_list import CommitList
from .commit_record import CommitRecord
from ..common.diagnostics_panel import DiagnosticsPanel
from ..common.diff_view import DiffView
from ..common.screen_tabs import ScreenTabs
from ..topics.dialogs import Choice

if TYPE_CHECKING:
    from .model import Commit, CommitDetail

EMPTY = ("No memory history yet: the first write, edit or migration creates the workspace "
         "and its first commit.")


class HistoryScreen(Screen):
    CSS_PATH = "history.tcss"

    BINDINGS = [
        Binding("u", "revert", "Revert commit"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[Commit] = []
        self.detail: CommitDetail | None = None
        self.reverting: str | None = None  # the sha being reverted
        self._select: str | None = None  # the commit to select once the list is read again

    def compose(self) -> ComposeResult:
        yield ScreenTabs("history")
        with Vertical(id="history-body"):
            yield CommitList(id="commits")
            with Horizontal(id="commit-detail"):
                yield CommitRecord(id="commit-record")
                with Vertical(id="commit-changes"):
                    yield DiagnosticsPanel(id="revert-diagnostics")
                    yield DiffView(id="commit-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#commits").border_title = "Commits"
        self.query_one("#commit-record").border_title = "Commit"
        self.query_one("#commit-changes").border_title = "Diff · topics and the rendered core"
        self.query_one(CommitRecord).show(None, "Reading the history…")
        self.app.live.subscribe(self)
        self.load_history()

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)

    def on_disk_changed(self, message: DiskChanged) -> None:
        if message.topics or message.memory:  # a write, an edit or a sleep elsewhere made a commit
            self.load_history()

    # --- reading -----------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="history")
    def load_history(self) -> None:
        commits = model.list_commits(self.app.state_dir)
        if not get_current_worker().is_cancelled:
            self.post_message(HistoryRead(commits))

    def on_history_read(self, message: HistoryRead) -> None:
        self.commits = message.commits
        commit_list = self.query_one(CommitList)
        commit_list.show(message.commits, self.app.clock(), select=self._select)
        self._select = None
        if not message.commits:
            self.query_one(CommitRecord).show(None, EMPTY)
            self.query_one(DiffView).show("", "")
            return
        sha = commit_list.selected_sha
        if sha is not None and (self.detail is None or self.detail.row.sha != sha):
            self.open_commit(sha)

    def on_commit_highlighted(self, message: CommitHighlighted) -> None:
        self.open_commit(message.sha)

    def open_commit(self, sha: str) -> None:
        row = next((r for r in self.commits if r.sha == sha), None)
        if row is not None:
            self.load_commit(row)

    @work(thread=True, exclusive=True, group="commit")
    def load_commit(self, row: Commit) -> None:
        detail = model.load_commit(self.app.state_dir, row)
        if not get_current_worker().is_cancelled:
            self.post_message(CommitRead(detail))

    async def on_commit_read(self, message: CommitRead) -> None:
        detail = message.detail
        if detail.row.sha != self.query_one(CommitList).selected_sha:
            return  # the cursor moved on meanwhile
        self.detail = detail
        self.query_one(CommitRecord).show(detail)
        note = "This commit changed no topic and not the rendered core (only evidence or derived views)."
        self.query_one(DiffView).show(detail.diff + ("\n(diff truncated)" if detail.truncated else ""), note)
        self.query_one("#commit-changes").border_title = f"Diff of {detail.row.sha[:12]} · topics and the rendered core"
        await self.query_one(DiagnosticsPanel).show([], None)
        self.refresh_bindings()

    # --- revert ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "revert":
            return None if self.detail is None or not self.detail.revertable or self.reverting else True
        return True

    def action_revert(self) -> None:
        detail = self.detail
        if detail is None or not detail.revertable or self.reverting:
            return
        row = detail.row
        body = Content.assemble(
            "Undo the topic changes of ", (row.sha[:12], "bold"), f" ({row.kind or 'commit'}: ",
            sanitize_line(row.summary), ") as a new ", ("revert", "bold"), " commit.\n\n",
            "Later changes stay. If undoing it would break later memory — a later block linking to a block "
            "it created, or later edits of the same lines — the revert is rejected and nothing changes.")

        def chosen(answer: str | None) -> None:
            if answer == "revert":
                self.reverting = row.sha
                self.refresh_bindings()
                self.revert(row.sha)

        self.app.push_screen(Choice("Revert this commit?", body,
                                    [("revert", "Revert", "warning"), ("cancel", "Cancel", "default")]), chosen)

    @work(thread=True, exclusive=True, group="revert")
    def revert(self, sha: str) -> None:
        result, error = model.revert(self.app.state_dir, sha)
        self.post_message(RevertFinished(sha, result, error))

    async def on_revert_finished(self, message: RevertFinished) -> None:
        self.reverting = None
        self.refresh_bindings()
        result, short = message.result, message.sha[:12]
        panel = self.query_one(DiagnosticsPanel)
        if result is None:
            self.notify(sanitize_line(message.error), title=f"Cannot revert {short}", severity="error", markup=False)
        elif result.outcome == "installed":
            self.notify(f"Reverted {short} as {(result.commit or '')[:12]}", title="Revert installed", markup=False)
            self._select = result.commit
            self.detail = None
            self.load_history()
        else:
            count = len(result.diagnostics)
            problems = f"{count} problem{'s' if count != 1 else ''}"
            await panel.show(result.diagnostics, None, f"Revert of {short} rejected ({problems}): nothing changed")
            self.notify(f"Revert of {short} rejected: nothing changed", severity="warning", markup=False)

    def action_reload(self) -> None:
        self.load_history()
