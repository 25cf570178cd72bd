"""The idle watcher, the nightly scheduler, and `scriptorium watch`."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime


from scriptorium.core.paths import StatePaths
from scriptorium.core.watch.scheduler import SleepScheduler, next_run
from scriptorium.core.watch.idle import IdleWatcher, load_processed

from .conftest import chain, marked


@dataclass
class Outcome:
    outcome: str
    code: str = "X"
    message: str = ""
    batches: list = field(default_factory=list)
    changed_files: list = field(default_factory=list)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _updated(store, sid) -> float:
    return store.meta(sid)["updated_at"]


def test_idle_sessions_are_finished_once_per_updated_at(store):
    idle = store.create_session("idle")
    chain(store, idle, ["u1", "a1"])
    time.sleep(0.01)
    busy = store.create_session("busy")
    chain(store, busy, ["u1"])
    clock = Clock(_updated(store, idle) + 1800)  # idle for 30 min; busy for a little less
    calls: list[str] = []
    events: list[dict] = []
    watcher = IdleWatcher(store, lambda sid: calls.append(sid) or Outcome("ok"), events.append, idle_s=1800, clock=clock)
    watcher.pass_once(full=True)
    assert calls == [idle]
    assert load_processed(StatePaths(store.state_dir)) == {idle: _updated(store, idle)}
    assert events[0]["event"] == "finish" and events[0]["session"] == idle
    watcher.pass_once(full=True)
    assert calls == [idle]  # processed at this updated_at: not again
    clock.now = _updated(store, busy) + 1800
    watcher.pass_once(full=False)  # its deadline passed: found without a full scan
    assert calls == [idle, busy]
    store.append(idle, "user", "back again")
    clock.now = _updated(store, idle) + 1800
    watcher.pass_once(full=True)
    assert calls == [idle, busy, idle]  # a new updated_at is a new state to finish


def test_retryable_results_are_retried_and_permanent_ones_recorded(store):
    flaky, broken = store.create_session("flaky"), store.create_session("broken")
    results = {flaky: [Outcome("retryable", "CONCURRENT_UPDATE"), Outcome("ok")],
               broken: [Outcome("permanent", "COMMIT_REJECTED", "repair edits were rejected too")]}
    events: list[dict] = []
    clock = Clock(time.time() + 3600)
    watcher = IdleWatcher(store, lambda sid: results[sid].pop(0), events.append, idle_s=60, clock=clock)
    watcher.pass_once(full=True)
    processed = load_processed(StatePaths(store.state_dir))
    assert broken in processed and flaky not in processed
    assert any(e["code"] == "COMMIT_REJECTED" and "rejected too" in e["message"] for e in events)
    watcher.pass_once(full=True)
    assert flaky in load_processed(StatePaths(store.state_dir)) and results[flaky] == []


def test_the_observer_finishes_a_session_as_soon_as_it_is_idle(store):
    sid = store.create_session("live")
    finished = threading.Event()
    target: list[float] = []

    def finish(s: str) -> Outcome:
        # Only the finish of the appended turn counts: on a loaded machine the start-up scan
        # may itself find the new (empty) session idle and finish it first.
        if target and store.meta(s)["updated_at"] == target[0]:
            finished.set()
        return Outcome("ok")

    watcher = IdleWatcher(store, finish, lambda e: None, idle_s=0.5, scan_s=3600)
    watcher.start()
    try:
        time.sleep(0.2)  # the start-up scan has (usually) run; no further scan is due for an hour
        store.append(sid, "user", "a turn the observer notices")
        target.append(store.meta(sid)["updated_at"])
        assert finished.wait(10)
    finally:
        watcher.stop()
    assert load_processed(StatePaths(store.state_dir))[sid] == target[0]


def test_next_run_is_the_next_three_oclock():
    assert next_run(datetime(2026, 3, 1, 2, 59)) == datetime(2026, 3, 1, 3, 0)
    assert next_run(datetime(2026, 3, 1, 3, 0)) == datetime(2026, 3, 2, 3, 0)
    assert next_run(datetime(2026, 3, 31, 23, 0)) == datetime(2026, 4, 1, 3, 0)


def test_scheduler_sleeps_once_at_three(monkeypatch):
    monkeypatch.setattr("scriptorium.core.watch.scheduler.SLICE_S", 0.01)
    times = iter([datetime(2026, 3, 1, 2, 59, 59), datetime(2026, 3, 1, 2, 59, 59, 990000)]
                 + [datetime(2026, 3, 1, 3, 0, 1)] * 1000)
    ran = threading.Event()
    calls = []

    def sleep_now():
        calls.append(1)
        ran.set()
        return Outcome("ok", "NO_CHANGE")

    events: list[dict] = []
    scheduler = SleepScheduler(sleep_now, events.append, now=lambda: next(times))
    scheduler.start()
    assert ran.wait(5)
    time.sleep(0.1)
    scheduler.stop()
    assert calls == [1] and events[0]["event"] == "sleep"


def test_watch_command_finishes_idle_sessions_and_stops_cleanly(store):
    sid = store.create_session("cli")
    chain(store, sid, ["u1", "a1"], text=lambda n: "which database does billing use?" if n == "u1" else "postgres 16")
    proc = subprocess.Popen([sys.executable, "-m", "scriptorium.core.cli", "--state", str(store.state_dir), "watch",
                             "--finish", "--sleep", "--idle", "0.001", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    try:
        started = json.loads(lines.get(timeout=60))
        assert started == {"event": "started", "duties": ["finish idle sessions", "nightly sleep"]}
        event = json.loads(lines.get(timeout=60))
        assert event["event"] == "finish" and event["session"] == sid and event["outcome"] == "ok"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert json.loads(lines.get(timeout=5)) == {"event": "stopped"}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert marked(store, sid) == ["u1", "a1"]
