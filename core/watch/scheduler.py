"""The nightly sleep (DESIGN §8, §11): reorganize memory at 03:00 local time.

The wait is cut into short slices and the next run time recomputed after each, so a
suspended laptop or a clock change does not make the run hours late or repeated.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

SLICE_S = 30.0

Emit = Callable[[dict[str, Any]], None]


def next_run(now: datetime, hour: int = 3, minute: int = 0) -> datetime:
    """The first hour:minute local time strictly after `now` (a naive local datetime)."""
    candidate = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return candidate if candidate > now else candidate + timedelta(days=1)


class SleepScheduler:
    """A watch duty: run `sleep_now()` every night at `hour:minute` local time."""

    name = "nightly sleep"

    def __init__(self, sleep_now: Callable[[], Any], emit: Emit, *, hour: int = 3, minute: int = 0,
                 now: Callable[[], datetime] = datetime.now) -> None:
        self.sleep_now, self.emit, self.now = sleep_now, emit, now
        self.hour, self.minute = hour, minute
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="scriptorium-sleep-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        due = next_run(self.now(), self.hour, self.minute)
        while not self._stop.is_set():
            now = self.now()
            if now < due:
                self._stop.wait(min(SLICE_S, (due - now).total_seconds()))
                continue
            try:
                result = self.sleep_now()
                self.emit({"event": "sleep", "outcome": result.outcome, "code": result.code,
                           "message": result.message, "changed_files": result.changed_files})
            except Exception as exc:  # the schedule survives a failed night
                self.emit({"event": "error", "duty": self.name, "message": str(exc)})
            due = next_run(self.now(), self.hour, self.minute)
