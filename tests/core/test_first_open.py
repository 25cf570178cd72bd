"""A session without Scriptorium's index (written by OpenProgram, copied from elsewhere)
builds it from its node files on first open (issue 20, item 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import mark_written, pending, workspace_id
from scriptorium.core.sessions.store import InvalidNode, SessionStore


def build(tmp_path: Path) -> tuple[SessionStore, str, list[str]]:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("copied")
    ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(8)]
    store.append(sid, "tool", {"stdout": "ok"}, name="shell")
    store.append(sid, "assistant", "a retry", predecessor=ids[3], move_head=False)
    mark_written(store, sid, [ids[2]], workspace_id(store.state_dir))
    return store, sid, ids


def test_first_open_without_an_index_sees_what_the_writer_saw(tmp_path: Path) -> None:
    store, sid, _ids = build(tmp_path)
    wid = workspace_id(store.state_dir)
    before = ([(e.id, e.kind, e.predecessor, e.is_record, e.marks) for e in store.index(sid).entries.values()],
              store.list_branches(sid), [t.id for t in pending(store, sid, workspace=wid)])
    paths = store.session_paths(sid)
    paths.index.unlink()
    paths.index_journal.unlink(missing_ok=True)
    fresh = SessionStore(store.state_dir)
    after = ([(e.id, e.kind, e.predecessor, e.is_record, e.marks) for e in fresh.index(sid).entries.values()],
             fresh.list_branches(sid), [t.id for t in pending(fresh, sid, workspace=wid)])
    assert sorted(map(repr, after[0])) == sorted(map(repr, before[0])) and after[1:] == before[1:]


def test_node_files_orjson_refuses_are_still_read(tmp_path: Path) -> None:
    store, sid, ids = build(tmp_path)
    path = store.session_paths(sid).node(store.entry(sid, ids[0]).filename)
    doc = json.loads(path.read_bytes())
    doc["metadata"]["note"] = "\ud800 lone surrogate"  # valid JSON text, invalid for orjson
    path.write_bytes(json.dumps(doc).encode("ascii"))
    store.session_paths(sid).index.unlink()
    assert SessionStore(store.state_dir).entry(sid, ids[0]).kind == "user"


def test_a_node_file_that_is_no_node_is_reported(tmp_path: Path) -> None:
    store, sid, ids = build(tmp_path)
    path = store.session_paths(sid).node(store.entry(sid, ids[1]).filename)
    path.write_bytes(b'{"id": "x", "role": "wizard"}')
    store.session_paths(sid).index.unlink()
    with pytest.raises(InvalidNode, match="unknown role"):
        SessionStore(store.state_dir).index(sid)
