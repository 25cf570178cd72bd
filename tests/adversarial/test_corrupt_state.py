"""Corrupt state files met by the write pipeline and the idle watcher (the store-level
cases are in tests/core/test_adversarial_sessions.py): `meta.json`, a node file,
`runtime.json`, `session-end.json`. Each is a clear, per-session error or is read as
empty state — re-process, never stall — and nothing already written changes."""

from __future__ import annotations

import json
import time

import pytest

from scriptorium.core.sessions.marker import pending
from scriptorium.core.memory import Workspace
from scriptorium.core.paths import StatePaths
from scriptorium.core.runtime_state import load_runtime
from scriptorium.core.writer import finish, write
from scriptorium.core.watch.idle import IdleWatcher, load_processed
from stress.world import MODEL, recorder, workspace_problems

from .conftest import marked, memory_files, talk


@pytest.fixture()
def two_sessions(store):
    recorder()
    Workspace.open(store.state_dir)
    good = store.create_session("good")
    bad = store.create_session("bad")
    return good, talk(store, good, ["where is the cache?", "on the fast disk"]), bad, talk(
        store, bad, ["what about backups?", "nightly, to the tape robot"])


@pytest.mark.parametrize("damage", ["meta", "node"])
def test_a_corrupt_session_fails_alone_with_a_clear_permanent_error(store, two_sessions, damage):
    good, good_ids, bad, bad_ids = two_sessions
    target = (store.session_paths(bad).meta if damage == "meta"
              else store.session_paths(bad).node(store.entry(bad, bad_ids[1]).filename))
    target.write_bytes(b'{"id": "' + b"\xff" * 3 + b'", broken')
    damaged = target.read_bytes()
    before = memory_files(store)
    for call in (lambda: write(store, bad, force=True, model=MODEL), lambda: finish(store, bad, model=MODEL)):
        result = call()
        assert (result.outcome, result.code) == ("permanent", "SESSION_NODES_UNAVAILABLE")
        assert target.name in result.message
    assert target.read_bytes() == damaged
    assert memory_files(store) == before
    assert write(store, good, force=True, model=MODEL).code == "WRITTEN"  # the other session is unaffected
    assert marked(store, good) == set(good_ids) and workspace_problems(store.state_dir) == []


@pytest.mark.parametrize("content", [b"{", b'{"local_batches": -3, "creation_order": "x"}'])
def test_a_corrupt_runtime_json_never_blocks_writing(store, two_sessions, content):
    good, good_ids, _bad, _ = two_sessions
    runtime = StatePaths(store.state_dir).runtime
    runtime.mkdir(parents=True, exist_ok=True)
    (runtime / "runtime.json").write_bytes(content)
    result = write(store, good, force=True, model=MODEL)
    assert result.code == "WRITTEN" and marked(store, good) == set(good_ids)
    state = json.loads((runtime / "runtime.json").read_text())  # rewritten whole and valid
    assert state == load_runtime(StatePaths(store.state_dir)) and len(state["creation_order"]) == 1
    assert workspace_problems(store.state_dir) == []


@pytest.mark.parametrize("content", [b"[]", b'{"%s": "yesterday"}', b'{"%s": 1' + b"0" * 400 + b"}"])
def test_a_corrupt_session_end_json_reprocesses_instead_of_stalling(store, two_sessions, content):
    good, good_ids, _bad, _ = two_sessions
    paths = StatePaths(store.state_dir)
    paths.runtime.mkdir(parents=True, exist_ok=True)
    (paths.runtime / "session-end.json").write_bytes(content.replace(b"%s", good.encode()))
    done: list[str] = []
    events: list[dict] = []

    def finish_one(sid):
        done.append(sid)
        return finish(store, sid, model=MODEL)

    watcher = IdleWatcher(store, finish_one, events.append, idle_s=60, clock=lambda: time.time() + 3600)
    watcher.pass_once(full=True)
    assert sorted(done) == sorted(store.session_ids()) and all(e["outcome"] == "ok" for e in events)
    assert marked(store, good) == set(good_ids) and pending(store, good) == []
    assert set(load_processed(paths)) == set(store.session_ids())  # the map is whole again


def test_a_session_with_an_unreadable_updated_at_does_not_stop_the_watcher(store, two_sessions):
    good, good_ids, bad, _ = two_sessions
    meta = json.loads(store.session_paths(bad).meta.read_text())
    store.session_paths(bad).meta.write_text(json.dumps(dict(meta, updated_at="soon")))
    events: list[dict] = []
    watcher = IdleWatcher(store, lambda sid: finish(store, sid, model=MODEL), events.append, idle_s=60,
                          clock=lambda: time.time() + 3600)
    watcher.pass_once(full=True)
    assert {e["session"] for e in events} == {good, bad} and all(e["outcome"] == "ok" for e in events)
    assert marked(store, good) == set(good_ids)
