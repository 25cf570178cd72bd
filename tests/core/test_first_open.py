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


# Node files of every shape a first open must classify as a `Node` would (issue 30: the
# index reads them straight from JSON, with shortcuts for the common shapes).
ODD_NODES = [
    {"id": "dr", "role": "user", "seq": 0, "output": "", "metadata": {"display": "root"}},
    {"id": "u1", "role": "user", "seq": 1, "output": "hello", "predecessor": "ROOT", "metadata": {}},
    {"id": "a1", "role": "llm", "seq": 2, "output": "hi", "predecessor": "u1"},
    {"id": "sp", "role": "llm", "seq": 3, "output": " \n\t ", "predecessor": "a1"},  # whitespace: no record
    {"id": "nb", "role": "llm", "seq": 4, "output": "\u00a0\u2003", "predecessor": "sp"},  # Unicode spaces too
    {"id": "ls", "role": "llm", "seq": 5, "output": [{"type": "text", "text": "block"}], "predecessor": "nb"},
    {"id": "le", "role": "llm", "seq": 6, "output": [{"type": "text", "text": "  "}], "predecessor": "ls"},
    {"id": "sy", "role": "llm", "seq": 7, "output": "be brief", "metadata": {"role": "system"}, "predecessor": "le"},
    {"id": "tl", "role": "code", "seq": 8, "output": {"stdout": "ok"}, "name": "shell", "predecessor": "sy"},
    {"id": "sm", "role": "llm", "seq": 9, "output": "summary", "name": "context/summary", "predecessor": "tl"},
    {"id": "sc", "role": "llm", "seq": 10, "output": "s", "metadata": {"covers_ids": ["u1"]}, "predecessor": "sm"},
    {"id": "rt", "role": "user", "seq": 11, "output": "later", "name": "context/followup", "predecessor": "sc"},
    {"id": "rs", "role": "user", "seq": 12, "output": "x", "metadata": {"source": "job_followup"}, "predecessor": "rt"},
    {"id": "rw", "role": "user", "seq": 13, "output": "undone", "metadata": {"rewound": True}, "predecessor": "rs"},
    {"id": "ag", "role": "user", "seq": 14, "output": "go", "metadata": {"source": "agent_spawn"}, "caller": "a1"},
    {"id": "sb", "role": "user", "seq": 15, "output": "go", "metadata": {"spawn_branch_root": True}},
    {"id": "mk", "role": "user", "seq": 16, "output": "seen", "predecessor": "rw", "created_at": 5,
     "metadata": {"memory_written_scriptorium": "w-0000abcd", "memory_written_x": 3, "other": "y"}},
    {"id": "nm", "role": "llm", "seq": 17, "output": None, "name": None, "caller": None, "predecessor": "mk",
     "metadata": None, "created_at": None},
]


def test_a_first_open_reads_every_shape_of_node_as_a_node_would(tmp_path: Path) -> None:
    import gc

    from scriptorium.core.sessions import index as index_module
    from scriptorium.core.sessions.index import IndexEntry, read_node_file

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("shapes")
    history = store.session_paths(sid).history
    for doc in ODD_NODES:
        (history / f"{doc['seq'] + 100:04d}-{doc['role'][0]}-{doc['id']}.json").write_text(json.dumps(doc))
    for i in range(index_module.GC_PAUSE_FILES):  # enough files for the collector to be paused while they are read
        (history / f"{i + 1000:04d}-u-bulk{i}.json").write_text(json.dumps(
            {"id": f"bulk{i}", "role": "user", "seq": i + 1000, "output": f"turn {i}", "predecessor": None}))
    store.session_paths(sid).index.unlink(missing_ok=True)

    for collector_on in (True, False):
        (gc.enable if collector_on else gc.disable)()
        try:
            fresh = SessionStore(store.state_dir)
            entries = fresh.index(sid).entries
            assert gc.isenabled() is collector_on  # paused while reading, then as it was
        finally:
            gc.enable()
        for path in history.iterdir():
            node = read_node_file(path)
            st = path.stat()
            assert entries[node.id] == IndexEntry.from_node(node, path.name, (st.st_mtime_ns, st.st_size)), node.id
        kinds = {nid: (entries[nid].kind, entries[nid].is_record) for nid in ("sp", "nb", "ls", "le", "sy", "rs")}
        assert kinds == {"sp": ("assistant", False), "nb": ("assistant", False), "ls": ("assistant", True),
                         "le": ("assistant", False), "sy": ("system", False), "rs": ("runtime", False)}
        assert entries["mk"].marks == {"memory_written_scriptorium": "w-0000abcd"}
        assert (entries["ag"].spawn_root, entries["sb"].spawn_root, entries["rw"].rewound) == (True, True, True)
        store.session_paths(sid).index.unlink()
