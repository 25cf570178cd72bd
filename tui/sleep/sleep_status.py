"""Why sleep is or is not due: the counters since the last sleep against their limits,
the last full pass, the next nightly run, and the model that would do the work."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from scriptorium.core.sanitize import sanitize_line

from ..common.formatting import stamp, when
from .model import SleepStatus

LABEL = 22


def until(timestamp: float, now: float) -> str:
    """How long until `timestamp`: "in 40 min", "in 15 h"."""
    delta = max(0.0, timestamp - now)
    return f"in {int(delta // 60)} min" if delta < 3600 else f"in {int(delta // 3600)} h"


def _row(label: str, *parts: tuple[str, str] | str) -> Content:
    return Content.assemble(("  " + label.ljust(LABEL), "$muted-text"), *parts)


def _meter(value: int, limit: int, unit: str) -> tuple[str, str]:
    return f"{value:,} / {limit:,} {unit}", "bold $node-pending" if value >= limit else "bold"


def status_content(status: SleepStatus, now: float) -> Content:
    if status.due:
        head = Content.assemble(("Sleep is due", "bold $node-pending"), ": ", status.explanation)
    else:
        head = Content.styled("Sleep is not due", "bold $node-written")
    last = when(status.last_global_at, now) if status.last_global_at is not None else "never"
    commits = status.write_commits_since_global
    return Content("\n").join([
        head,
        _row("since the last sleep", _meter(status.local_batches, status.due_batches, "batches"), "   ",
             _meter(status.local_tokens, status.due_tokens, "tokens")),
        _row("last full pass", (last, "bold"),
             (f"   {commits} write commit{'s' if commits != 1 else ''} since" if commits
              else "   nothing written since", "$muted-text")),
        _row("next nightly run", (f"{stamp(status.next_run)} ({until(status.next_run, now)})", "bold"),
             ("   while `scriptorium watch` runs", "$muted-text")),
        _row("model", (sanitize_line(status.model), "bold"),
             (f"   {status.topics} topic file{'s' if status.topics != 1 else ''} to reorganize", "$muted-text")),
    ])


class SleepStatusView(Static):
    DEFAULT_CSS = """
    SleepStatusView { height: auto; padding: 0 1; }
    """

    def show(self, status: SleepStatus, now: float) -> None:
        self.update(status_content(status, now))
