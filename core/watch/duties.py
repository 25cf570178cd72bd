"""The memory duties of `scriptorium watch`: finish idle sessions, sleep nightly, sync with the remote."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..config import is_positive, load_config
from ..sanitize import sanitize_line
from ..sessions.store import SessionStore
from ..writer.pipeline import finish
from ..writer.reorganize import sleep
from .scheduler import SleepScheduler
from .idle import DEFAULT_IDLE_S, DEFAULT_SCAN_S, Emit, IdleWatcher
from .sync_timer import DEFAULT_INTERVAL_S, SyncTimer, has_remote


def _positive(value: Any, default: float, what: str) -> float:
    """A flag's or the config's value; unlike other settings, a bad one is an error (the
    user asked for this watcher and should hear why it will not start)."""
    if value is None:
        return default
    if not is_positive(value):
        raise ValueError(f"{what} must be a positive number, not {value!r}")
    return float(value)


def parse_clock(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", text.strip())
    if not match or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise ValueError(f"not a time of day (HH:MM): {text!r}")
    return int(match.group(1)), int(match.group(2))


def memory_duties(state_dir: Path, emit: Emit, *, finish_idle: bool, nightly_sleep: bool,
                  idle_minutes: float | None = None, scan_seconds: float | None = None, sleep_at: str = "03:00",
                  model: str | None = None, sync_remote: bool = True, sync_minutes: float | None = None) -> list[Any]:
    """The watch duties asked for; settings fall back to config `watch.idle_minutes`,
    `watch.scan_seconds` and `sync.interval_minutes` (sync only when a remote is set).
    Raises ValueError on a bad setting."""
    config = load_config(state_dir)
    idle = _positive(idle_minutes if idle_minutes is not None else config.get("watch.idle_minutes"),
                     DEFAULT_IDLE_S / 60, "the idle time") * 60
    scan = _positive(scan_seconds if scan_seconds is not None else config.get("watch.scan_seconds"),
                     DEFAULT_SCAN_S, "the scan interval")
    sync_every = _positive(sync_minutes if sync_minutes is not None else config.get("sync.interval_minutes"),
                           DEFAULT_INTERVAL_S / 60, "the sync interval") * 60
    hour, minute = parse_clock(sleep_at)
    duties: list[Any] = []
    if finish_idle:
        store = SessionStore(state_dir)
        duties.append(IdleWatcher(store, lambda sid: finish(store, sid, model=model), emit, idle_s=idle, scan_s=scan))
    if nightly_sleep:
        duties.append(SleepScheduler(lambda: sleep(state_dir, model=model), emit, hour=hour, minute=minute))
    if sync_remote and has_remote(state_dir):
        from ..sync.run import sync

        duties.append(SyncTimer(lambda: sync(state_dir), emit, interval_s=sync_every))
    return duties


def describe(doc: dict[str, Any]) -> str:
    """A plain-text line for a finish or sleep event (no markup: messages quote user text)."""
    head = {"finish": f"finish {sanitize_line(doc.get('session', ''))}", "sync": f"sync {sanitize_line(str(doc.get('remote')))}"
            }.get(doc["event"], "sleep")
    return f"{head}: {doc['outcome']} ({doc['code']}) {sanitize_line(doc['message'])}"
