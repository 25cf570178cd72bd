"""A session without Scriptorium's index (written by OpenProgram, copied from elsewhere)
builds it from its node files on first open (issue 20, item 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scriptorium.core.sessions.marker import cut_batch, mark_written, pending, workspace_id
from scriptorium.core.sessions.errors import InvalidNode
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.tokens import count_tokens


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


FIRST_PENDING = """
import json, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import pending
store = SessionStore(sys.argv[1])
turns = pending(store, sys.argv[2], workspace=sys.argv[3])
listed = "tiktoken" in sys.modules
tokens = [t.tokens for t in turns] if sys.argv[4] == "read" else []
store.save_index(sys.argv[2])
print(json.dumps({"ids": [t.id for t in turns], "listed_loads_tokenizer": listed,
                  "tokens": tokens, "counted_loads_tokenizer": "tiktoken" in sys.modules}))
"""


def first_pending(store: SessionStore, sid: str, wid: str, read: bool) -> dict:
    out = subprocess.run([sys.executable, "-c", FIRST_PENDING, str(store.state_dir), sid, wid, "read" if read else "-"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_first_pending_lists_without_counting_and_counts_exactly_what_is_read(tmp_path: Path) -> None:
    store, sid, ids = build(tmp_path)
    wid = workspace_id(store.state_dir)
    texts = {ids[i]: f"turn {i}" for i in range(8)}
    paths = store.session_paths(sid)
    paths.index.unlink()
    paths.index_journal.unlink(missing_ok=True)

    listed = first_pending(store, sid, wid, read=False)
    assert listed["ids"] == ids[3:] and not listed["counted_loads_tokenizer"]  # a long backlog costs no tokenizer
    counted = first_pending(store, sid, wid, read=True)
    assert counted["ids"] == ids[3:] and counted["counted_loads_tokenizer"]
    assert counted["tokens"] == [count_tokens(texts[i]) for i in ids[3:]]
    again = first_pending(store, sid, wid, read=True)  # the counts were kept in the index
    assert again["tokens"] == counted["tokens"] and not again["counted_loads_tokenizer"]


def test_a_changed_turn_is_recounted(tmp_path: Path) -> None:
    store, sid, ids = build(tmp_path)
    wid = workspace_id(store.state_dir)
    assert [t.tokens for t in pending(store, sid, workspace=wid)][-1] == count_tokens("turn 7")
    store.save_index(sid)
    path = store.session_paths(sid).node(store.entry(sid, ids[7]).filename)
    doc = json.loads(path.read_bytes())
    doc["output"] = "turn 7, rewritten by hand at much greater length than before"
    path.write_bytes(json.dumps(doc).encode("utf-8"))
    fresh = SessionStore(store.state_dir)
    assert [t.tokens for t in pending(fresh, sid, workspace=wid)][-1] == count_tokens(doc["output"])


def test_cut_batch_counts_only_the_turns_it_takes(tmp_path: Path) -> None:
    store, sid, ids = build(tmp_path)
    wid = workspace_id(store.state_dir)
    paths = store.session_paths(sid)
    paths.index.unlink()
    fresh = SessionStore(store.state_dir)
    turns = pending(fresh, sid, workspace=wid)
    batch = cut_batch(turns, count_tokens("turn 3") + 1)
    assert [t.id for t in batch] == ids[3:5]
    assert [fresh.entry(sid, n).tokens for n in ids[3:]] == [count_tokens("turn 3"), count_tokens("turn 4"), -1, -1, -1]
