"""Node and session ids are whole strings: a trailing newline is not part of a valid id
(a regex's `$` matches before one), and a file whose name ends in one is not a node file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scriptorium.core.sessions import redo
from scriptorium.core.sessions.errors import InvalidNode, UnknownSession
from scriptorium.core.sessions.marker import MARK_KEY, mark_written, pending, workspace_id
from scriptorium.core.sessions.nodes import valid_node_id
from scriptorium.core.sessions.store import SessionStore


@pytest.mark.parametrize("bad", ["abc\n", "abc\r\n", "\nabc", "ab\ncd", "abc\n\n", "", ".", "..", "-a", "a/b"])
def test_an_id_with_a_newline_or_a_separator_is_not_valid(bad: str) -> None:
    assert not valid_node_id(bad)


@pytest.mark.parametrize("good", ["abc", "a", "ROOT", "a.b:c-d_e", "x" * 128])
def test_plain_ids_are_valid(good: str) -> None:
    assert valid_node_id(good)


def test_an_append_or_a_session_named_with_a_trailing_newline_is_refused(store: SessionStore) -> None:
    sid = store.create_session()
    with pytest.raises(InvalidNode):
        store.append(sid, "user", "x", node_id="abc\n")
    with pytest.raises(UnknownSession):
        store.append(f"{sid}\n", "user", "x")
    with pytest.raises(UnknownSession):
        store.create_session(session_id="fresh\n")
    assert store.session_ids() == [sid]


def test_a_file_named_like_a_node_plus_a_newline_is_not_read_as_a_node(store: SessionStore) -> None:
    sid = store.create_session()
    turn = store.append(sid, "user", "the real one")
    history = store.session_paths(sid).history
    stray = history / f"0002-u-{'z' * 12}.json\n"
    payload = {"id": "z" * 12, "created_at": 1.0, "seq": 2, "role": "user", "name": "", "input": None,
               "output": "a stray", "caller": "", "predecessor": turn.id, "reads": [], "metadata": {}}
    stray.write_text(json.dumps(payload))
    store.session_paths(sid).index.unlink(missing_ok=True)
    fresh = SessionStore(store.state_dir)
    assert "z" * 12 not in fresh.index(sid).entries
    assert [t.id for t in pending(fresh, sid, workspace=workspace_id(store.state_dir))] == [turn.id]


def test_a_checkpoint_reads_the_redo_log_once_and_still_repairs_what_a_crash_undid(
        tmp_path: Path, monkeypatch) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session()
    ids = [store.append(sid, "user", f"turn {i}").id for i in range(6)]
    store.save_index(sid)
    layout = store.session_paths(sid)
    f = layout.node(store.entry(sid, ids[2]).filename)
    kept = f.with_name(f.name + ".before")
    os.link(f, kept)
    mark_written(SessionStore(tmp_path / "state"), sid, ids[1:4], wid)
    os.replace(kept, f)  # a crash undid this one's rename
    assert MARK_KEY not in f.read_text()

    log = str(layout.marks_redo)
    opened: list[int] = []
    real_open = os.open

    def counting_open(path, flags, *args, **kwargs):
        if str(path) == log and not flags & (os.O_WRONLY | os.O_RDWR):
            opened.append(flags)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    redo.checkpoint(layout.root)
    monkeypatch.undo()
    assert len(opened) == 1
    assert json.loads(f.read_bytes())["metadata"][MARK_KEY] == wid
    assert layout.marks_redo.stat().st_size == 0


def test_a_shared_workspace_id_with_a_trailing_newline_is_not_one() -> None:
    from scriptorium.core.sessions.marker import read_shared_ids

    assert read_shared_ids(json.dumps({"workspaces": ["w-0123abcd", "w-0123abce\n", "w-0123abc"]}).encode()) == [
        "w-0123abcd"]
