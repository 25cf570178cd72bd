"""The Sessions screen's write actions: write one branch now, or finish a session.

No Textual here; both run in a worker thread. The write pipeline (and with it the
memory package, and litellm when the model is called) is imported inside the run,
so opening the app never loads it. Progress is read from disk while the pipeline
works: each batch is marked when it is installed, so the turns of the job that are
no longer pending are the turns written so far.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from scriptorium.core.sessions.marker import pending, workspace_id
from scriptorium.core.sessions.store import SessionStore


@dataclass(frozen=True)
class WriteJob:
    session_id: str
    tip: str | None  # the branch to write now (forced); None: finish the session

    @property
    def action(self) -> str:
        return "finish" if self.tip is None else "write"


@dataclass(frozen=True)
class WriteOutcome:
    """What the pipeline answered (`WriteResult` without the engine types)."""

    job: WriteJob
    outcome: str  # "ok" | "retryable" | "permanent"
    code: str
    message: str  # untrusted in part (model and exception text): sanitize before display
    turns: int  # turns written (and marked)
    files: list[str] = field(default_factory=list)  # topic files changed
    elapsed: float = 0.0


def owed_ids(state_dir: Path, job: WriteJob) -> set[str]:
    """The turns still pending in the job's scope: its branch, or every live branch of the session."""
    store = SessionStore(state_dir)
    wid = workspace_id(state_dir)
    tips = [job.tip] if job.tip is not None else store.list_branches(job.session_id)
    return {turn.id for tip in tips for turn in pending(store, job.session_id, tip, wid)}


def run_job(state_dir: Path, job: WriteJob) -> WriteOutcome:
    """Run the job through the write pipeline with the configured model. The pipeline turns
    its own failures into outcomes; anything it raises is the caller's to report."""
    from scriptorium.core.writer import finish, write

    started = time.monotonic()
    store = SessionStore(state_dir)
    if job.tip is None:
        result = finish(store, job.session_id)
    else:
        result = write(store, job.session_id, tip=job.tip, force=True)
    files = sorted({f for batch in result.batches for f in batch.changed_files})
    turns = sum(len(batch.turns) for batch in result.batches)
    return WriteOutcome(job, result.outcome, result.code, result.message, turns, files, time.monotonic() - started)
