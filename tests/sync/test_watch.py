"""`watch` syncs on an interval when a remote is set."""

from __future__ import annotations

import subprocess
import threading
from types import SimpleNamespace

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.sync.remote import add_remote
from scriptorium.core.watch.duties import memory_duties
from scriptorium.core.watch.sync_timer import SyncTimer


def test_the_timer_syncs_every_interval_and_survives_a_failure():
    calls, events, done = [], [], threading.Event()

    def sync_now():
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk hiccup")
        if len(calls) >= 3:
            done.set()
        return SimpleNamespace(outcome="ok", code="PUSHED", message="pushed", remote="origin", conflicts=[])

    timer = SyncTimer(sync_now, events.append, interval_s=0.01)
    timer.start()
    assert done.wait(5)
    timer.stop()
    assert events[0] == {"event": "error", "duty": "sync", "message": "disk hiccup"}
    assert events[1]["event"] == "sync" and events[1]["code"] == "PUSHED"


def test_a_sync_duty_exists_only_with_a_remote(tmp_path):
    state = tmp_path / "s"
    save_topic(Workspace.open(state), "ada.md", "# Ada\n\nAda likes tea.\n")
    names = lambda **kw: [d.name for d in memory_duties(state, lambda e: None, finish_idle=False, nightly_sleep=False, **kw)]
    assert names() == []
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    add_remote(Workspace(state).root, "origin", str(bare))
    assert names() == ["sync"]
    assert names(sync_remote=False) == []
    duty = memory_duties(state, lambda e: None, finish_idle=False, nightly_sleep=False, sync_minutes=2)[0]
    assert duty.interval_s == 120
