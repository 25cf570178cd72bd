"""Sleep: why the reorganization is or is not due, and running it — as a preview (the
diff shown, nothing installed until confirmed) or directly — with live progress, a
cancel, and the result as a per-file diff or the rejection with its diagnostics.

The run works in a thread worker; the engine reports each step through a progress
callback, which only posts a message, so the app stays responsive while a model works.
Installing a preview goes through a new transaction checked against the revision the
preview was made on: what installs is exactly what was shown, or a clear conflict.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from scriptorium.core.sanitize import sanitize_line

from . import model
from .messages import SleepFinished, SleepProgressed, SleepStatusRead
from ..common.messages import DiskChanged
from ..common.safe_text import untrusted_content
from ..common.diagnostics_panel import DiagnosticsPanel
from ..common.diff_view import DiffView
from ..common.screen_tabs import ScreenTabs
from .sleep_progress import SleepProgressView
from .sleep_status import SleepStatusView

if TYPE_CHECKING:
    from scriptorium.core.writer import Progress, SleepPreview, SleepResult


def preview_title(result: SleepResult) -> Content:
    """What the preview would do beyond the diff: the blocks it would retire, and why."""
    lines = [Content.assemble(("Preview — nothing is installed. ", "bold"), ("i", "bold $text-accent"),
                              " installs exactly this diff, ", ("d", "bold $text-accent"), " discards it.")]
    retired = result.preview.retired if result.preview is not None else {}
    for block_id, reason in sorted(retired.items()):
        lines.append(Content.assemble(("  retires ", "$muted-text"), ("^" + sanitize_line(block_id), "$node-rewound"),
                                      "  ", sanitize_line(reason)))
    return Content("\n").join(lines)


class SleepScreen(Screen):
    CSS_PATH = "sleep.tcss"

    BINDINGS = [
        Binding("p", "preview", "Preview"),
        Binding("s", "run", "Sleep now"),
        Binding("i", "install", "Install preview"),
        Binding("d", "discard", "Discard preview"),
        Binding("c", "cancel", "Cancel run"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.preview: SleepPreview | None = None  # a preview waiting for install or discard
        self.result: SleepResult | None = None
        self.running: str | None = None  # what is running ("Preview", "Sleep", "Install"), if anything
        self.progress: Progress | None = None
        self._cancel: threading.Event | None = None
        self._started = 0.0
        self._ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield ScreenTabs("sleep")
        with Vertical(id="sleep-body"):
            yield SleepStatusView(id="sleep-status")
            yield SleepProgressView(id="sleep-progress")
            with Vertical(id="sleep-result"):
                yield Static(id="result-title", markup=False)
                yield DiagnosticsPanel(id="sleep-diagnostics")
                yield DiffView(id="sleep-diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sleep-status").border_title = "Is sleep due?"
        self.query_one("#sleep-progress").border_title = "Run"
        self.query_one("#sleep-result").border_title = "Result"
        self.query_one(SleepProgressView).idle()
        self.query_one("#result-title", Static).update(untrusted_content("Nothing has run yet.", "bold"))
        self.query_one(DiffView).show("", "Run a preview (p) to see what sleep would change before anything is "
                                          "installed, or sleep now (s) to reorganize and install in one go.")
        self.app.live.subscribe(self)
        self.load_status()

    def on_unmount(self) -> None:
        self.app.live.unsubscribe(self)
        if self._cancel is not None:  # the app is closing: stop the run before it installs
            self._cancel.set()

    def on_disk_changed(self, message: DiskChanged) -> None:
        if message.topics or message.memory:  # something was written: the counters moved
            self.load_status()

    # --- status ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sleep-status")
    def load_status(self) -> None:
        status = model.load_status(self.app.state_dir, self.app.clock())
        if not get_current_worker().is_cancelled:
            self.post_message(SleepStatusRead(status))

    def on_sleep_status_read(self, message: SleepStatusRead) -> None:
        self.query_one(SleepStatusView).show(message.status, self.app.clock())

    # --- running -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("preview", "run"):
            return None if self.running else True  # shown, disabled while a run works
        if action in ("install", "discard"):
            return self.preview is not None and not self.running
        if action == "cancel":
            return self.running in ("Preview", "Sleep")
        return True

    def _start(self, what: str) -> threading.Event:
        self.running, self.progress, self.result = what, None, None
        self._cancel = threading.Event()
        self._started = self.app.clock()
        self._ticker = self.set_interval(1.0, self._show_running)
        self._show_running()
        self.refresh_bindings()
        return self._cancel

    def _show_running(self) -> None:
        if self.running is not None and self._cancel is not None:
            self.query_one(SleepProgressView).running(self.running, self.progress, self.app.clock() - self._started,
                                                      self._cancel.is_set())

    def action_preview(self) -> None:
        if not self.running:
            self.preview = None
            self.run_sleep(True, self._start("Preview"))

    def action_run(self) -> None:
        if not self.running:
            self.preview = None
            self.run_sleep(False, self._start("Sleep"))

    def action_install(self) -> None:
        if self.preview is not None and not self.running:
            staged, self.preview = self.preview, None
            self._start("Install")
            self.install(staged)

    def action_discard(self) -> None:
        if self.preview is not None and not self.running:
            self.preview = None
            self.query_one("#result-title", Static).update(
                untrusted_content("Preview discarded: nothing was installed.", "bold"))
            self.query_one(DiffView).show("", "The preview was discarded.")
            self.query_one(SleepProgressView).idle("Preview discarded.")
            self.refresh_bindings()

    def action_cancel(self) -> None:
        if self._cancel is not None and self.running in ("Preview", "Sleep"):
            self._cancel.set()
            self._show_running()

    def action_reload(self) -> None:
        self.load_status()

    @work(thread=True, exclusive=True, group="sleep-run")
    def run_sleep(self, preview: bool, cancel: threading.Event) -> None:
        result, diff = model.run_sleep(self.app.state_dir, preview, cancel,
                                       lambda progress: self.post_message(SleepProgressed(progress)))
        self.post_message(SleepFinished(result, diff))

    @work(thread=True, exclusive=True, group="sleep-run")
    def install(self, staged: SleepPreview) -> None:
        self.post_message(SleepFinished(*model.install(self.app.state_dir, staged)))

    def on_sleep_progressed(self, message: SleepProgressed) -> None:
        self.progress = message.progress
        self._show_running()

    async def on_sleep_finished(self, message: SleepFinished) -> None:
        if self._ticker is not None:
            self._ticker.stop()
        took = self.app.clock() - self._started
        result = self.result = message.result
        self.running, self._cancel = None, None
        self.preview = result.preview if result.code == "PREVIEW" and result.changed_files else None
        await self.show_result(result, message.diff, took)
        self.refresh_bindings()
        self.load_status()

    async def show_result(self, result: SleepResult, diff: str, took: float) -> None:
        title = self.query_one("#result-title", Static)
        progress = self.query_one(SleepProgressView)
        files = len(result.changed_files)
        plural = "s" if files != 1 else ""
        diagnostics = result.diagnostics if result.outcome != "ok" else []
        await self.query_one(DiagnosticsPanel).show(
            diagnostics, None, f"{len(diagnostics)} problem{'s' if len(diagnostics) != 1 else ''}: nothing installed")
        if result.code == "PREVIEW":
            progress.ended("✓", "$node-written", f"Preview ready: {files} topic file{plural} would change{result.said_gathered(preview=True)}", took)
            title.update(preview_title(result) if files else
                         untrusted_content("Preview — the organizer found nothing to change.", "bold"))
            self.query_one(DiffView).show(diff, "Nothing would change.")
        elif result.outcome == "ok":
            done = f"Installed as {result.commit[:12]}" if result.commit else "Nothing changed"
            progress.ended("✓", "$node-written", f"{done}: {result.message}", took)
            title.update(untrusted_content(f"{done} · {files} topic file{plural} changed" if result.commit
                                           else result.message, "bold"))
            self.query_one(DiffView).show(diff, "Sleep changed nothing.")
        elif result.code == "CANCELLED":
            progress.ended("■", "$text-warning", "Cancelled: nothing was installed", took)
            title.update(untrusted_content("Cancelled: nothing was installed.", "bold"))
            self.query_one(DiffView).show("", "The run was cancelled before anything was installed.")
        else:
            progress.ended("✗", "$text-error", f"{result.outcome} ({result.code}): nothing was installed", took)
            title.update(untrusted_content(result.message, "bold $text-error"))
            self.query_one(DiffView).show("", "Nothing was installed." + (
                " Try again later." if result.outcome == "retryable" else ""))
