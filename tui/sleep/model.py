"""What the Sleep screen shows and runs: is sleep due and why, the counters behind the
answer, when the last full pass was, and when the nightly run comes next; running sleep
(or a preview), installing a preview, and the diff of what was installed.

No Textual here; everything runs in worker threads (the writer package is imported
there, not with the app). Reading creates nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..history.model import MAX_DIFF_CHARS

if TYPE_CHECKING:
    from scriptorium.core.writer import Progress, SleepPreview, SleepResult

NIGHTLY_HOUR = 3  # the scheduler's default (`scriptorium watch --sleep-at 03:00`)


@dataclass(frozen=True)
class SleepStatus:
    reason: str | None  # "batches" | "tokens" | "daily" | None (not due)
    explanation: str
    local_batches: int
    local_tokens: int
    due_batches: int
    due_tokens: int
    write_commits_since_global: int
    last_global_at: float | None  # epoch seconds of the last full pass
    next_run: float  # epoch seconds of the next nightly run
    model: str
    topics: int  # topic files there are to reorganize

    @property
    def due(self) -> bool:
        return self.reason is not None


def load_status(state_dir: Path, now: float) -> SleepStatus:
    from scriptorium.core.memory import Workspace, read_consistent
    from scriptorium.core.paths import StatePaths
    from scriptorium.core.writer import counters, resolve_model, sleep_due
    from scriptorium.core.watch.scheduler import next_run

    due = sleep_due(StatePaths(state_dir), datetime.fromtimestamp(now).astimezone())
    last = _epoch(due.last_global_at)
    return SleepStatus(
        reason=due.reason,
        explanation=due.explain(),
        local_batches=due.local_batches,
        local_tokens=due.local_tokens,
        due_batches=counters.DUE_BATCHES,
        due_tokens=counters.DUE_TOKENS,
        write_commits_since_global=due.write_commits_since_global,
        last_global_at=last,
        next_run=next_run(datetime.fromtimestamp(now), NIGHTLY_HOUR).timestamp(),
        model=resolve_model(state_dir),
        topics=len(read_consistent(state_dir, lambda state: Workspace(state).topic_paths())),
    )


def _epoch(stamp: str | None) -> float | None:
    """An ISO time from runtime.json as epoch seconds (naive means UTC); None if unreadable."""
    try:
        parsed = datetime.fromisoformat(stamp or "")
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)).timestamp()


def run_sleep(state_dir: Path, preview: bool, cancel: threading.Event,
              progress: Callable[[Progress], None]) -> tuple[SleepResult, str]:
    """Sleep (or preview it), reporting each step to `progress`; the result and its diff."""
    from scriptorium.core.writer import sleep

    result = sleep(state_dir, preview=preview, cancel=cancel, progress=progress)
    return result, result.diff or installed_diff(state_dir, result)


def install(state_dir: Path, staged: SleepPreview) -> tuple[SleepResult, str]:
    """Install exactly the preview that was shown (or report the conflict); the result and its diff."""
    from scriptorium.core.writer import install_preview

    result = install_preview(state_dir, staged)
    return result, installed_diff(state_dir, result)


def installed_diff(state_dir: Path, result: SleepResult) -> str:
    """What the result's commit changed in the topics and the rendered core ("" when it made none)."""
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.log import commit_diff

    if not result.commit:
        return ""
    try:
        return commit_diff(Workspace(state_dir).root, result.commit)[:MAX_DIFF_CHARS]
    except Exception as exc:  # the install stands; only its display failed
        return f"(the diff of {result.commit} cannot be read: {exc})"
