"""The session DAG store: on-disk shape, branches, rewinds, summaries, spawns, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import git
import pytest

from scriptorium.core.sessions.errors import InvalidNode, UnknownNode, UnknownSession

from scriptorium.core.sessions.store import SessionStore


def files_snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and ".git" not in p.parts and ".scriptorium" not in p.parts}


def test_on_disk_format_is_openprogram_shaped(store: SessionStore) -> None:
    sid = store.create_session(title="T")
    u = store.append(sid, "user", "hello")
    a = store.append(sid, "assistant", "hi")
    t = store.append(sid, "tool", {"ok": True}, name="ls")
    d = store.session_dir(sid)
    names = sorted(p.name for p in (d / "history").iterdir())
    assert names == ["0000-u-ROOT.json", f"0001-u-{u.id}.json", f"0002-l-{a.id}.json", f"0003-c-{t.id}.json"]
    payload = json.loads((d / "history" / names[1]).read_text())
    assert set(payload) == {"id", "created_at", "seq", "role", "name", "input", "output", "caller", "predecessor", "reads", "metadata"}
    assert payload["predecessor"] == "ROOT" and payload["output"] == "hello"
    meta_text = (d / "meta.json").read_text()
    assert not meta_text.endswith("\n")
    meta = json.loads(meta_text)
    assert meta["head_id"] == t.id and meta["title"] == "T"
    # one commit per appended turn, on top of the init commit
    assert len(list(git.Repo(d).iter_commits())) == 4
    assert not git.Repo(d).is_dirty(untracked_files=True)


def test_append_moves_head_and_bumps_updated_at(store: SessionStore) -> None:
    sid = store.create_session()
    before = store.meta(sid)["updated_at"]
    n = store.append(sid, "user", "x")
    meta = store.meta(sid)
    assert meta["head_id"] == n.id and meta["updated_at"] >= before


def test_branches_forks_and_rewind(store: SessionStore) -> None:
    sid = store.create_session()
    m = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"m{i}").id for i in range(4)]
    alt = store.append(sid, "assistant", "alt", predecessor=m[0])
    assert store.list_branches(sid)[0] == alt.id  # the head's tip first
    assert set(store.list_branches(sid)) == {alt.id, m[3]}
    assert [n.id for n in store.get_branch(sid, m[3])] == m
    assert [n.id for n in store.get_branch(sid)] == [m[0], alt.id]
    hidden = store.rewind(sid, alt.id)
    assert hidden == [alt.id]
    assert store.head(sid) == m[0]
    assert store.list_branches(sid) == [m[3]] or set(store.list_branches(sid)) == {m[3], m[0]}
    assert alt.id not in [n.id for n in store.get_branch(sid, alt.id)]


def test_rewind_refuses_nodes_off_the_head_branch(store: SessionStore) -> None:
    sid = store.create_session()
    a = store.append(sid, "user", "a")
    store.append(sid, "assistant", "b")
    other = store.append(sid, "assistant", "c", predecessor=a.id)
    store.append(sid, "user", "d", predecessor=other.id)
    snap = files_snapshot(store.session_dir(sid))
    with pytest.raises(InvalidNode):
        store.rewind(sid, store.list_branches(sid)[1])
    assert files_snapshot(store.session_dir(sid)) == snap


def test_summary_is_a_sibling_and_never_head_nor_tip(store: SessionStore) -> None:
    sid = store.create_session()
    a = store.append(sid, "user", "a")
    b = store.append(sid, "assistant", "b")
    c = store.append(sid, "user", "c")
    s = store.append_summary(sid, [b.id, c.id], "they talked")
    assert s.predecessor == a.id and s.metadata["covers_ids"] == [b.id, c.id]
    assert s.id.startswith("summary_") and s.text.startswith("[Previous conversation summary]")
    assert store.head(sid) == c.id
    assert store.list_branches(sid) == [c.id]
    assert not s.is_record


def test_spawn_branch_root(store: SessionStore) -> None:
    sid = store.create_session()
    a = store.append(sid, "user", "please research")
    task = store.append(sid, "assistant", "spawning a helper")
    root = store.spawn_branch(sid, "research X", caller=task.id)
    child = store.append(sid, "assistant", "found X", predecessor=root.id, move_head=False)
    assert store.head(sid) == task.id
    assert root.predecessor is None and root.metadata["spawn_branch_root"] is True
    assert [n.id for n in store.get_branch(sid, child.id)] == [root.id, child.id]
    assert set(store.list_branches(sid)) == {task.id, child.id}
    assert a.id not in [n.id for n in store.get_branch(sid, child.id)]


def test_bad_input_changes_nothing(store: SessionStore, tmp_path: Path) -> None:
    sid = store.create_session()
    store.append(sid, "user", "a")
    other = store.create_session()
    foreign = store.append(other, "user", "elsewhere")
    snap = files_snapshot(store.session_dir(sid))
    with pytest.raises(UnknownNode):
        store.append(sid, "user", "x", predecessor=foreign.id)
    with pytest.raises(UnknownNode):
        store.merge_node_metadata_batch(sid, {"nope": {"a": 1}})
    with pytest.raises(InvalidNode):
        store.append(sid, "wizard", "x")
    with pytest.raises(InvalidNode):
        store.append(sid, "user", "x", node_id="../evil")
    with pytest.raises(UnknownSession):
        store.append("missing", "user", "x")
    with pytest.raises(UnknownSession):
        store.get_branch("../etc")
    assert files_snapshot(store.session_dir(sid)) == snap


def test_unreadable_node_file_reports_that_session_only(store: SessionStore) -> None:
    good = store.create_session(title="good")
    store.append(good, "user", "fine")
    bad = store.create_session(title="bad")
    n = store.append(bad, "user", "soon corrupt")
    store.session_paths(bad).node(n.filename).write_text("{not json")
    fresh = SessionStore(store.state_dir)
    sessions, problems = fresh.list_sessions()
    assert [s.id for s in sessions] == [good]
    assert [p.id for p in problems] == [bad] and n.filename in problems[0].message
    with pytest.raises(InvalidNode):
        fresh.get_branch(bad)


def test_merge_metadata_keeps_updated_at_and_other_files(store: SessionStore) -> None:
    sid = store.create_session()
    ids = [store.append(sid, "user", f"t{i}").id for i in range(5)]
    d = store.session_dir(sid)
    before = files_snapshot(d)
    store.merge_node_metadata_batch(sid, {ids[1]: {"k": "v"}})
    after = files_snapshot(d)
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {f"history/{store.entry(sid, ids[1]).filename}"}
    assert json.loads(after[f"history/{store.entry(sid, ids[1]).filename}"])["metadata"]["k"] == "v"


def test_another_process_append_is_seen_by_an_open_store(store: SessionStore) -> None:
    sid = store.create_session()
    store.append(sid, "user", "first")
    assert len(store.get_branch(sid)) == 1  # the index is now cached in this process
    code = textwrap.dedent(f"""
        from scriptorium.core.sessions.store import SessionStore
        s = SessionStore({str(store.state_dir)!r})
        s.append({sid!r}, "assistant", "from another process")
        s.merge_node_metadata_batch({sid!r}, {{s.head({sid!r}): {{"seen": True}}}})
    """)
    subprocess.run([sys.executable, "-c", code], check=True)
    branch = store.get_branch(sid)
    assert [n.text for n in branch] == ["first", "from another process"]
    assert store.entry(sid, branch[-1].id).kind == "assistant"
    assert branch[-1].metadata["seen"] is True


def test_index_cache_survives_a_new_store_and_sees_edits(store: SessionStore) -> None:
    sid = store.create_session()
    ids = [store.append(sid, "user", f"t{i}").id for i in range(3)]
    assert store.session_paths(sid).index.is_file()
    fresh = SessionStore(store.state_dir)
    assert [e.id for e in fresh.branch_entries(sid)] == ids
    store.merge_node_metadata_batch(sid, {ids[0]: {"rewound": True}})
    assert [e.id for e in fresh.branch_entries(sid)] == ids[1:]


def test_batch_makes_one_commit(store: SessionStore) -> None:
    sid = store.create_session()
    repo = git.Repo(store.session_dir(sid))
    before = len(list(repo.iter_commits()))
    with store.batch(sid, "import: 20 turns"):
        for i in range(20):
            store.append(sid, "user", f"t{i}")
    assert len(list(repo.iter_commits())) == before + 1
    assert not repo.is_dirty(untracked_files=True)


def test_session_fields_are_keywords_and_a_meta_mapping_is_refused(store: SessionStore) -> None:
    """`create_session(meta={"cwd": ...})` nested the fields where no reader looks: five
    writer tests and the 100k bench ran without a project that way. Refused, nothing made."""
    sid = store.create_session("shop", cwd="/home/u/shop", source="claude-code")
    meta = store.meta(sid)
    assert (meta["cwd"], meta["source"]) == ("/home/u/shop", "claude-code")
    before = sorted(p.name for p in store.session_dir(sid).parent.iterdir())
    with pytest.raises(TypeError, match="keywords"):
        store.create_session("bad", session_id="bad1", meta={"cwd": "/home/u/shop"})
    assert sorted(p.name for p in store.session_dir(sid).parent.iterdir()) == before
