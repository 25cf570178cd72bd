"""The idle watcher (DESIGN §11): a session left alone for a while gets `finish`.

It is notified, not only polling: a watchdog observer on `sessions/` marks the
session whose files changed, and a deadline is set at its `updated_at` plus the idle
time, so the finish happens as soon as the session has been idle long enough. A
periodic full scan (default every 5 min) is the fallback for missed events.

The processed map `.scriptorium/session-end.json` (`{session_id: updated_at}`) says
which state of each session was already finished: marks never move `updated_at`,
so the watcher's own writes do not wake it again. `ok` and `permanent` results are
recorded there (a permanent one with its reason on the event stream and in
`writer-status.json`); a `retryable` one is not, and is tried again on the next scan.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from watchdog.events import FileSystemEvent, FileSystemEventHandler

from ..fsutil import atomic_write_text
from ..paths import StatePaths
from ..sessions.paths import UNTRACKED_PARTS
from ..sessions.errors import SessionError
from ..sessions.store import SessionStore

PROCESSED_FILE = "session-end.json"
DEFAULT_IDLE_S = 30 * 60.0
DEFAULT_SCAN_S = 5 * 60.0

Emit = Callable[[dict[str, Any]], None]
Finish = Callable[[str], Any]  # session id -> a WriteResult-like object (outcome, code, message, batches)


def _stamp(value: Any) -> float | None:
    """A timestamp read from a file someone may have damaged; None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer too large for a float
        return None


def load_processed(paths: StatePaths) -> dict[str, float]:
    """The processed map; a corrupt file (or entry) reads as unprocessed: re-process, never stall."""
    try:
        doc = json.loads((paths.runtime / PROCESSED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict):
        return {}
    return {k: stamp for k, v in doc.items() if (stamp := _stamp(v)) is not None}


def save_processed(paths: StatePaths, processed: dict[str, float]) -> None:
    paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write_text(paths.runtime / PROCESSED_FILE, json.dumps(processed, indent=2, sort_keys=True) + "\n")


class IdleWatcher:
    """A watch duty: finish idle sessions (see the module docstring)."""

    name = "finish idle sessions"

    def __init__(self, store: SessionStore, finish: Finish, emit: Emit, *, idle_s: float = DEFAULT_IDLE_S,
                 scan_s: float = DEFAULT_SCAN_S, clock: Callable[[], float] = time.time) -> None:
        self.paths = StatePaths(store.state_dir)
        self.store = store
        self.finish, self.emit, self.clock = finish, emit, clock
        self.idle_s, self.scan_s = idle_s, scan_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._dirty: set[str] = set()
        self._dirty_lock = threading.Lock()
        self._deadlines: dict[str, float] = {}
        self._thread: threading.Thread | None = None
        self._observer: Any = None

    # -- duty -------------------------------------------------------------------------

    def start(self) -> None:
        self.paths.sessions.mkdir(parents=True, exist_ok=True)
        from watchdog.observers import Observer

        self._observer = Observer()
        self._observer.schedule(_Handler(self), str(self.paths.sessions), recursive=True)
        self._observer.daemon = True
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="scriptorium-idle-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._thread is not None:
            self._thread.join()

    def touched(self, sid: str) -> None:
        """A file of this session changed (called from the observer thread)."""
        with self._dirty_lock:
            self._dirty.add(sid)
        self._wake.set()

    # -- the loop ---------------------------------------------------------------------

    def _run(self) -> None:
        next_scan = 0.0  # scan once at start
        while not self._stop.is_set():
            now = self.clock()
            full = now >= next_scan
            if full:
                next_scan = now + self.scan_s
            try:
                self.pass_once(full=full)
            except Exception as exc:  # one bad pass must not end the duty
                self.emit({"event": "error", "duty": self.name, "message": str(exc)})
            waits = [next_scan] + list(self._deadlines.values())
            self._wake.wait(max(0.05, min(waits) - self.clock()))
            self._wake.clear()

    def pass_once(self, *, full: bool) -> None:
        """Look at the changed sessions (every session when `full`) and finish the idle ones."""
        with self._dirty_lock:
            candidates, self._dirty = set(self._dirty), set()
        now = self.clock()
        candidates |= {sid for sid, due in self._deadlines.items() if due <= now}
        if full:
            candidates |= set(self.store.session_ids())
        if not candidates:
            return
        self.paths.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        lock = FileLock(str(self.paths.runtime / "session-end.lock"), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return  # another watcher is doing this pass
        try:
            processed = load_processed(self.paths)
            for sid in sorted(candidates):
                if self._stop.is_set():
                    break
                self._consider(sid, processed, now)
        finally:
            lock.release()

    def _consider(self, sid: str, processed: dict[str, float], now: float) -> None:
        self._deadlines.pop(sid, None)
        try:
            updated = _stamp(self.store.meta(sid).get("updated_at")) or 0.0  # unreadable: long idle
        except SessionError:
            return
        if processed.get(sid) == updated:
            return
        if now - updated < self.idle_s:
            self._deadlines[sid] = updated + self.idle_s
            return
        result = self.finish(sid)
        self.emit({"event": "finish", "session": sid, "outcome": result.outcome, "code": result.code,
                   "message": result.message, "turns": sum(len(b.turns) for b in result.batches)})
        if result.outcome in ("ok", "permanent"):
            processed[sid] = updated
            save_processed(self.paths, processed)


class _Handler(FileSystemEventHandler):
    """watchdog events -> `IdleWatcher.touched(session id)`; git and cache churn ignored."""

    def __init__(self, watcher: IdleWatcher) -> None:
        super().__init__()
        self.watcher = watcher
        self.root = watcher.paths.sessions

    def on_any_event(self, event: FileSystemEvent) -> None:
        for raw in (getattr(event, "src_path", ""), getattr(event, "dest_path", "")):
            if not raw:
                continue
            try:
                parts = Path(str(raw)).relative_to(self.root).parts
            except ValueError:
                continue
            if len(parts) >= 2 and parts[1] not in UNTRACKED_PARTS:
                self.watcher.touched(parts[0])
