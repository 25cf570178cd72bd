"""Live following: re-import transcripts as an agent writes them (watchdog).

A watchdog observer reports created/modified/moved `.jsonl` files under the watched
roots; a worker thread coalesces them (coalesce.py: a short quiet period, bounded latency) and
imports just those files (plus the family files each needs), so a session being
written shows up turn by turn. The follower keeps each session's planner
(importers/resume.py): a byte offset per file plus fingerprints of what was read, so
an import reads only the bytes appended since the last one (a rewritten file is read
again from the start). A line still being written (no newline yet) is left for the
next event. The delays still grow with the last import's duration, so a burst that
is slow to write stays a small share of one core.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ..sessions.store import SessionStore
from ..importers.resume import PlannerCache
from ..importers.run import ImportReport, import_sources, resolve_files
from .coalesce import Coalescer

QUIET_S = 0.3  # wait for the writer to pause...
MAX_DELAY_S = 2.0  # ...but never longer than this behind a busy writer
QUIET_FACTOR, DELAY_FACTOR = 2.0, 10.0  # ...unless an import takes long: then k × its duration


class ImportFollower:
    """Initial import of everything under `paths` (default: the agent's own store), then
    incremental re-imports of the files that change. `start()` returns at once; `stop()`
    ends the observer and the worker and waits for an import in progress to finish."""

    name = "import"

    def __init__(self, state_dir: Path, kind: str, paths: list[Path] | None = None, *,
                 on_report: Callable[[ImportReport], None] | None = None,
                 on_error: Callable[[Exception], None] | None = None) -> None:
        self.state_dir = Path(state_dir)
        self.kind = kind
        self.paths = [Path(p).expanduser().resolve() for p in paths] if paths else None
        self.on_report = on_report
        self.on_error = on_error
        self._changed: Coalescer[Path] = Coalescer(self.delays)
        self._observer = Observer()
        self._worker = threading.Thread(target=self._run, name=f"import-follow-{kind}", daemon=True)
        self.initial_done = threading.Event()
        self.last_import_s = 0.0  # how long the last incremental import took
        self.planners = PlannerCache()  # where each session's reading stopped (worker thread only)

    def delays(self) -> tuple[float, float]:
        """(quiet period, longest delay) before importing changed files."""
        return max(QUIET_S, QUIET_FACTOR * self.last_import_s), max(MAX_DELAY_S, DELAY_FACTOR * self.last_import_s)

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        resolve_files(self.kind, self.paths)  # fail fast on a missing explicit path
        handler = _Handler(self)
        for root in self._watch_roots():
            self._observer.schedule(handler, str(root), recursive=True)
        self._observer.start()
        self._worker.start()

    def stop(self) -> None:
        self._changed.close()
        self._observer.stop()
        if self._observer.is_alive():
            self._observer.join()
        if self._worker.is_alive():
            self._worker.join()

    def _watch_roots(self) -> list[Path]:
        if self.paths is None:
            from ..importers import importer

            return [r for r in importer(self.kind).default_roots() if r.is_dir()]
        return sorted({p if p.is_dir() else p.parent for p in self.paths})

    # --- events --------------------------------------------------------------

    def wants(self, path: Path) -> bool:
        """A `.jsonl` file under a watched directory, or a watched file (or its sub-agent
        files, which Claude Code keeps in `<session>/subagents/`)."""
        if path.suffix != ".jsonl":
            return False
        if self.paths is None:
            return True
        for p in self.paths:
            if p.is_dir() and p in path.parents:
                return True
            if path == p or (p.parent / p.stem) in path.parents:
                return True
        return False

    def notify(self, path: Path) -> None:
        if self.wants(path):
            self._changed.add([path])

    # --- worker --------------------------------------------------------------

    def _run(self) -> None:
        store = SessionStore(self.state_dir)
        self._import(store, self.paths)
        self.initial_done.set()
        while True:
            batch = self._changed.next_batch()
            if batch is None:
                return
            started = time.monotonic()
            self._import(store, sorted(p for p in batch if p.is_file()))
            self.last_import_s = time.monotonic() - started

    def _import(self, store: SessionStore, paths: list[Path] | None) -> None:
        if paths is not None and not paths:
            return
        try:
            report = import_sources(store, self.kind, paths, planners=self.planners)
        except Exception as exc:  # a follower must outlive one bad file or a busy lock
            if self.on_error is not None:
                self.on_error(exc)
            return
        if self.on_report is not None:
            self.on_report(report)


class _Handler(FileSystemEventHandler):
    def __init__(self, follower: ImportFollower) -> None:
        self.follower = follower

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in ("created", "modified", "moved", "closed"):
            return
        target = getattr(event, "dest_path", "") or event.src_path
        self.follower.notify(Path(target.decode() if isinstance(target, bytes) else target))
