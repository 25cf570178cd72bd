"""The Sessions screen's import action: read an agent's transcripts into sessions.

No Textual here; the import runs in a worker thread. The importers are loaded inside
the run, so opening the app never loads them. `locations` lists where each agent keeps
its transcripts by default, for the dialog to show what an import would read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scriptorium.core.sessions.store import SessionStore

KINDS = {"claude-code": "Claude Code", "pi": "pi", "codex": "Codex"}


@dataclass(frozen=True)
class ImportJob:
    kind: str  # a key of KINDS
    paths: tuple[Path, ...] = ()  # empty: the agent's default location


@dataclass(frozen=True)
class ImportOutcome:
    """What an import did (`ImportReport` without the engine types), or why it stopped."""

    job: ImportJob
    ok: bool
    sessions: int = 0
    created: int = 0
    added: int = 0
    unchanged: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)  # untrusted text: sanitize before display
    message: str = ""  # why it stopped, when not ok (untrusted as well)
    elapsed: float = 0.0


def locations() -> dict[str, list[Path]]:
    """Each agent's default transcript directories (that exist or not)."""
    from scriptorium.core.importers import IMPORTERS

    return {kind: list(IMPORTERS[kind].default_roots()) for kind in KINDS}


def run_import(state_dir: Path, job: ImportJob, progress: Callable[[int, int, str], None]) -> ImportOutcome:
    """Import and summarize. A missing explicit path is an outcome, not an exception."""
    from scriptorium.core.importers.run import import_sources

    started = time.monotonic()
    try:
        report = import_sources(SessionStore(state_dir), job.kind, list(job.paths) or None, progress=progress)
    except FileNotFoundError as exc:
        return ImportOutcome(job, False, message=str(exc), elapsed=time.monotonic() - started)
    return ImportOutcome(job, True, sessions=len(report.sessions), created=sum(1 for s in report.sessions if s.created),
                         added=report.nodes_added, unchanged=report.nodes_unchanged,
                         skipped=sum(report.skipped.values()), errors=report.errors,
                         elapsed=time.monotonic() - started)
