"""Sleep: the organizer rewrites what has landed (DESIGN §8).

It adds no content (its transaction admits no new evidence), never touches
`sources/` or marks, goes through the same transaction as every other edit, and
reports the topic files it changed — not the ones it read. A preview runs the same
organizer and returns the diff without installing anything; `install_preview` then
installs exactly what was previewed, or refuses with a conflict if memory changed
since (the preview carries the workspace revision it was made on). A `progress`
callback sees each step of the run; setting `cancel` stops it before it installs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..memory import Diagnostic, Transaction, TransactionResult, Workspace
from ..outcome import Outcome, exit_code
from .classify import classify
from .counters import sleep_done
from .editing import Rejected, changed_files, edit_with_repair
from .gather import Gathered, merged_topics, said
from .model import model_timeout, resolve_model
from .progress import Cancelled, Monitor, Progress
from .prompts import organize_task
from .renaming import named_by_people
from .split import apply_split, split_chars, split_overgrown
from .tools import ORGANIZER_TOOLS

LOCK_TIMEOUT_S = 5.0
SUMMARY = "reorganize topics"


@dataclass(frozen=True)
class SleepPreview:
    """What a preview would install, and the workspace revision it was computed on."""

    base: str  # `Workspace.revision()` under the preview's lock
    topics: dict[str, bytes | None]  # "topics/<rel>" -> new bytes (None: the file goes)
    retired: dict[str, str]  # block id -> the organizer's reason


@dataclass
class SleepResult:
    outcome: Outcome
    code: str  # ok: "REORGANIZED" | "NO_CHANGE" | "PREVIEW" | "EMPTY"; else a failure code
    message: str
    changed_files: list[str] = field(default_factory=list)
    commit: str | None = None
    diff: str | None = None  # preview only
    preview: SleepPreview | None = None  # preview only: hand it to `install_preview`
    diagnostics: list[Diagnostic] = field(default_factory=list)  # why the organizer's edit was rejected
    gathered: list[Gathered] = field(default_factory=list)  # what sleep merged and moved; JSON: "merge a.md into b.md"

    @property
    def exit_code(self) -> int:
        return exit_code(self.outcome)

    def said_gathered(self, preview: bool = False) -> str:
        """"; merged a.md into b.md; moved 2 block(s) of …" ("would …" for a preview)."""
        return said(self.gathered, preview)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"outcome": self.outcome, "code": self.code, "message": self.message,
                               "changed_files": self.changed_files, "commit": self.commit}
        if self.diff is not None:
            doc["diff"] = self.diff
        if self.gathered:
            doc["gathered"] = [str(g) for g in self.gathered]
        if self.diagnostics:
            doc["diagnostics"] = [d.to_json() for d in self.diagnostics]
        return doc


def sleep(state_dir: Path, *, preview: bool = False, model: str | None = None, is_global: bool = True,
          lock_timeout: float = LOCK_TIMEOUT_S, progress: Callable[[Progress], None] | None = None,
          cancel: threading.Event | None = None) -> SleepResult:
    """Reorganize every topic now (`scriptorium sleep`, the nightly run, the TUI).

    `preview=True` returns the diff and installs nothing. An installed sleep resets
    the due counters (`is_global` also stamps the daily pass). `progress` is called
    (in this thread) after every step; once `cancel` is set the run stops with the
    retryable code `CANCELLED`, nothing installed."""
    state_dir = Path(state_dir)
    try:
        ws = Workspace.open(state_dir)
        if not ws.topic_paths():
            return SleepResult("ok", "EMPTY", "no topic files: nothing to reorganize")
        result = organize(ws, model=resolve_model(state_dir, model), timeout=model_timeout(state_dir),
                          preview=preview, lock_timeout=lock_timeout, monitor=Monitor(progress, cancel),
                          is_global=is_global)
    except Exception as exc:
        return _failed(exc)
    return result


def organize(ws: Workspace, *, model: str, timeout: float, preview: bool = False,
             lock_timeout: float = LOCK_TIMEOUT_S, monitor: Monitor | None = None,
             is_global: bool = False) -> SleepResult:
    """One organizer run in a `sleep` transaction (raises on failure; see `sleep`).

    Unless previewing, the transaction also resets the due counters (`is_global` stamps
    the daily pass too): the reset is installed with the organizer's edit, or not at all.

    Overgrown topics are split first (split.py): installed, in a transaction of their
    own, so that a rejected organizer edit cannot hold the split back; a preview shows
    the split and the organizer's edit as one diff."""
    limit = split_chars(ws.state_dir)
    split = None
    note = ""
    if not preview:
        if monitor is not None:
            monitor.check()
        split = split_overgrown(ws, limit, lock_timeout=lock_timeout)
        if split is not None and split[1].outcome == "rejected":  # left undone; the organizer still runs
            first = split[1].diagnostics[0] if split[1].diagnostics else None
            note = f"; the split of overgrown topics was rejected ({first.rule}: {first.message})" if first else ""
            split = None
    kept = named_by_people(ws)  # a name a person chose or a topic a person edited is never renamed
    with Transaction(ws, "sleep", SUMMARY, evidence=[], preview=preview, lock_timeout=lock_timeout) as txn:
        base = ws.revision() if preview else ""
        if preview:
            parts = apply_split(txn, limit).parts
            kept |= {p for old, new in parts.items() if old in kept for p in new}  # as named_by_people reads a split
        else:
            txn.count(sleep_done(is_global=is_global))
        result, audit = edit_with_repair(txn, paths=ws.paths, model=model, task=organize_task(txn.topics_dir, kept),
                                         tools=ORGANIZER_TOOLS, stage="organize", turns=0, timeout=timeout,
                                         monitor=monitor, reapply=(lambda t: apply_split(t, limit)) if preview else None)
    changed = changed_files(audit)
    gathered = merged_topics(result.before, result.after)
    if preview:
        staged = SleepPreview(base, _staged_topics(result), {str(r["id"]): str(r["reason"]) for r in result.retired})
        return SleepResult("ok", "PREVIEW", f"preview: {len(changed)} topic file(s) would change"
                           + said(gathered, preview=True), changed, None, result.diff, staged, gathered=gathered)
    if split is not None:
        changed = sorted(set(changed) | set(split[1].changed_topics))
        note = "; " + split[0].summary()
    note += said(gathered)
    if not changed:
        return SleepResult("ok", "NO_CHANGE", "reorganized: nothing needed to change" + note)
    return SleepResult("ok", "REORGANIZED", f"reorganized {len(changed)} topic file(s){note}", changed,
                       result.commit or (split[1].commit if split is not None else None), gathered=gathered)


def install_preview(state_dir: Path, preview: SleepPreview, *, is_global: bool = True,
                    lock_timeout: float = LOCK_TIMEOUT_S) -> SleepResult:
    """Install what a preview showed, through a new `sleep` transaction: only if the
    workspace is still at the preview's revision and the edit judges to the very bytes
    previewed; otherwise a `CONCURRENT_UPDATE` conflict, nothing installed."""
    state_dir = Path(state_dir)
    try:
        ws = Workspace.open(state_dir)
        with Transaction(ws, "sleep", SUMMARY, evidence=[], lock_timeout=lock_timeout) as txn:
            if ws.revision() != preview.base:
                return _conflict("memory changed since the preview was made")
            for path, data in preview.topics.items():
                rel = path[len("topics/"):]
                if data is None:
                    txn.delete_topic(rel)
                else:
                    txn.write_topic(rel, data)
            for block_id, reason in preview.retired.items():
                txn.retire(block_id, reason)
            txn.count(sleep_done(is_global=is_global))
            checked = txn.check()
            if not checked.ok:
                return SleepResult("permanent", "COMMIT_REJECTED", "the previewed edit is rejected now",
                                   diagnostics=checked.diagnostics)
            if _staged_topics(checked) != preview.topics:
                return _conflict("the previewed edit no longer comes out the same")
            result = txn.commit()
    except Exception as exc:
        return _failed(exc)
    changed = result.changed_topics
    if not changed:
        return SleepResult("ok", "NO_CHANGE", "reorganized: nothing needed to change")
    gathered = merged_topics(result.before, result.after)
    return SleepResult("ok", "REORGANIZED", f"reorganized {len(changed)} topic file(s)" + said(gathered), changed,
                       result.commit, gathered=gathered)


def _staged_topics(result: TransactionResult) -> dict[str, bytes | None]:
    return {path: result.after[path] for path in result.changed_topics}


def _conflict(why: str) -> SleepResult:
    hint = "preview again, then install the new preview"
    return SleepResult("permanent", "CONCURRENT_UPDATE", f"{why}: nothing was installed; {hint}",
                       diagnostics=[Diagnostic("conflict", None, None, None, why, hint)])


def _failed(exc: Exception) -> SleepResult:
    if isinstance(exc, Cancelled):
        return SleepResult("retryable", exc.code, str(exc))
    if isinstance(exc, Rejected):
        return SleepResult("permanent", "COMMIT_REJECTED", str(exc), diagnostics=exc.result.diagnostics)
    failure = classify(exc)
    return SleepResult(failure.outcome, failure.code, failure.message)
