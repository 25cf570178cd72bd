"""`watch` syncs memory with its remote every few minutes (DESIGN §17).

Only when a remote is set; the first sync runs one interval after start (a user who just
started `watch` has usually just synced). An unreachable remote is normal (offline): the
outcome is reported and the next interval tries again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..paths import StatePaths

DEFAULT_INTERVAL_S = 15 * 60.0

Emit = Callable[[dict[str, Any]], None]


class SyncTimer:
    """A watch duty: `sync_now()` every `interval_s` seconds until stopped."""

    name = "sync"

    def __init__(self, sync_now: Callable[[], Any], emit: Emit, *, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.sync_now, self.emit, self.interval_s = sync_now, emit, interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="scriptorium-sync", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                result = self.sync_now()
                self.emit({"event": "sync", "outcome": result.outcome, "code": result.code,
                           "message": result.message, "remote": result.remote,
                           "conflicts": len(result.conflicts)})
            except Exception as exc:  # the timer survives a failed sync
                self.emit({"event": "error", "duty": self.name, "message": str(exc)})


def has_remote(state_dir: Path) -> bool:
    from ..sync.remote import list_remotes

    paths = StatePaths(Path(state_dir))
    return paths.memory_git.is_dir() and bool(list_remotes(paths.memory))
