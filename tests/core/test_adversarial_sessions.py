"""Hostile inputs to the session store: each gets a clear error or is handled, and
nothing already written is lost or changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import mark_written, pending, workspace_id
from scriptorium.core.runtime_state import empty_runtime, load_runtime
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.errors import SessionError
from scriptorium.core.sessions.store import SessionStore


def test_nul_and_invalid_utf8_text_is_stored_readably(store: SessionStore) -> None:
    sid = store.create_session()
    raw = b"ok \xff\xfe bytes".decode("utf-8", "surrogateescape")
    a = store.append(sid, "user", "nul\x00inside")
    b = store.append(sid, "assistant", raw)
    c = store.append(sid, "user", "lone \ud800 surrogate")
    fresh = SessionStore(store.state_dir)
    texts = [n.text for n in fresh.get_branch(sid)]
    assert texts[0] == "nul\x00inside"
    assert texts[1] == "ok \ufffd\ufffd bytes"
    assert "\ufffd" in texts[2]
    for n in (a, b, c):
        json.loads(store.session_paths(sid).node(fresh.entry(sid, n.id).filename).read_bytes().decode("utf-8"))


def test_ten_megabyte_message(store: SessionStore) -> None:
    sid = store.create_session()
    big = ("word " * 2_000_000)[:10_000_000]
    node = store.append(sid, "user", big)
    turns = pending(store, sid, workspace=workspace_id(store.state_dir))
    assert [t.id for t in turns] == [node.id] and turns[0].tokens > 1_000_000


def test_corrupt_meta_json_is_reported_and_others_open(store: SessionStore) -> None:
    good = store.create_session(title="good")
    store.append(good, "user", "kept")
    bad = store.create_session(title="bad")
    store.append(bad, "user", "x")
    store.session_paths(bad).meta.write_text("{oops")
    sessions, problems = SessionStore(store.state_dir).list_sessions()
    assert [s.id for s in sessions] == [good] and [p.id for p in problems] == [bad]
    with pytest.raises(SessionError, match="meta.json"):
        store.append(bad, "user", "y")


def test_corrupt_node_json_does_not_change_other_files(store: SessionStore) -> None:
    sid = store.create_session()
    a = store.append(sid, "user", "a")
    b = store.append(sid, "assistant", "b")
    path = store.session_paths(sid).node(store.entry(sid, b.id).filename)
    path.write_bytes(b"\x00\x01 not json")
    other = store.session_paths(sid).node(store.entry(sid, a.id).filename)
    before = other.read_bytes()
    fresh = SessionStore(store.state_dir)
    with pytest.raises(SessionError, match=path.name):
        fresh.append(sid, "user", "c")
    assert other.read_bytes() == before
    corrupt = path.read_bytes()
    # marking reads and writes only the nodes it marks (issue 20: it costs what it writes),
    # so a good turn can still be marked; the corrupt file is never touched
    mark_written(fresh, sid, [a.id])
    assert path.read_bytes() == corrupt
    with pytest.raises(SessionError):
        mark_written(fresh, sid, [b.id])
    assert path.read_bytes() == corrupt


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"local_batches": "many", "creation_order": 3}', b"\xff\xfe"])
def test_corrupt_runtime_json_reads_as_empty_state(tmp_path: Path, content: bytes) -> None:
    paths = StatePaths(tmp_path)
    paths.runtime.mkdir(parents=True)
    (paths.runtime / "runtime.json").write_bytes(content)
    assert load_runtime(paths) == empty_runtime()


def test_corrupt_workspace_id_is_a_clear_error(tmp_path: Path) -> None:
    paths = StatePaths(tmp_path)
    paths.runtime.mkdir(parents=True)
    (paths.runtime / "workspace-id").write_text("garbage")
    with pytest.raises(Exception, match="corrupt workspace id"):
        workspace_id(tmp_path)
