"""Sleep: the organizer rewrites what has landed (DESIGN §8).

It adds no content (its transaction admits no new evidence), never touches
`sources/` or marks, goes through the same transaction as every other edit, and
reports the topic files it changed — not the ones it read. A preview runs the same
organizer and returns the diff without installing anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..memory import LockBusy, Workspace
from ..memory.lock import write_lock
from ..paths import StatePaths
from .classify import Failure, classify
from .counters import note_sleep
from .editing import Rejected, changed_files, edit_with_repair
from .model import model_timeout, resolve_model
from .prompts import organize_task
from .tools import ORGANIZER_TOOLS

LOCK_TIMEOUT_S = 5.0
COUNTER_LOCK_S = 1.0


@dataclass
class SleepResult:
    outcome: str  # "ok" | "retryable" | "permanent"
    code: str  # ok: "REORGANIZED" | "NO_CHANGE" | "PREVIEW" | "EMPTY"; else a failure code
    message: str
    changed_files: list[str] = field(default_factory=list)
    commit: str | None = None
    diff: str | None = None  # preview only

    @property
    def exit_code(self) -> int:
        return {"ok": 0, "retryable": 75}.get(self.outcome, 1)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"outcome": self.outcome, "code": self.code, "message": self.message,
                               "changed_files": self.changed_files, "commit": self.commit}
        if self.diff is not None:
            doc["diff"] = self.diff
        return doc


def sleep(state_dir: Path, *, preview: bool = False, model: str | None = None, is_global: bool = True,
          lock_timeout: float = LOCK_TIMEOUT_S) -> SleepResult:
    """Reorganize every topic now (`scriptorium sleep`, the nightly run, the TUI).

    `preview=True` returns the diff and installs nothing. An installed sleep resets
    the due counters (`is_global` also stamps the daily pass)."""
    state_dir = Path(state_dir)
    paths = StatePaths(state_dir)
    try:
        ws = Workspace.open(state_dir)
        if not ws.topic_paths():
            return SleepResult("ok", "EMPTY", "no topic files: nothing to reorganize")
        result = organize(ws, model=resolve_model(state_dir, model), timeout=model_timeout(state_dir),
                          preview=preview, lock_timeout=lock_timeout)
    except Exception as exc:
        failure = classify(exc) if not isinstance(exc, Rejected) else Failure("COMMIT_REJECTED", False, str(exc))
        return SleepResult(failure.outcome, failure.code, failure.message)
    if not preview:
        _reset_counters(paths, is_global)
    return result


def organize(ws: Workspace, *, model: str, timeout: float, preview: bool = False,
             lock_timeout: float = LOCK_TIMEOUT_S) -> SleepResult:
    """One organizer run in a `sleep` transaction (raises on failure; see `sleep`)."""
    with ws.transaction("sleep", "reorganize topics", evidence=[], preview=preview, lock_timeout=lock_timeout) as txn:
        result, audit = edit_with_repair(txn, paths=ws.paths, model=model, task=organize_task(txn.topics_dir),
                                         tools=ORGANIZER_TOOLS, stage="organize", turns=0, timeout=timeout)
    changed = changed_files(audit)
    if preview:
        return SleepResult("ok", "PREVIEW", f"preview: {len(changed)} topic file(s) would change",
                           changed, None, result.diff)
    if not changed:
        return SleepResult("ok", "NO_CHANGE", "reorganized: nothing needed to change")
    return SleepResult("ok", "REORGANIZED", f"reorganized {len(changed)} topic file(s)", changed, result.commit)


def _reset_counters(paths: StatePaths, is_global: bool) -> None:
    """Counters live in runtime.json, which transactions also install: update under the lock.
    A busy lock skips the reset; the only cost is an earlier next sleep."""
    try:
        with write_lock(paths.runtime, COUNTER_LOCK_S):
            note_sleep(paths, is_global=is_global)
    except LockBusy:
        pass
