"""The written-marker walk (DESIGN §4) on the design's measured case and random DAGs."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scriptorium.core.sessions.marker import (
    MARK_KEY,
    cut_batch,
    mark_written,
    pending,
    pending_branches,
    workspace_id,
)
from scriptorium.core.sessions.records import branch_records
from scriptorium.core.sessions.store import SessionStore


def chain(store: SessionStore, sid: str, after: str, n: int, label: str, tools: bool = False) -> list[str]:
    """n user/assistant turns after `after`; with tools, a tool node after every assistant turn."""
    ids, prev = [], after
    for i in range(n):
        node = store.append(sid, "user" if i % 2 == 0 else "assistant", f"{label}{i + 1} words here", predecessor=prev)
        ids.append(node.id)
        prev = node.id
        if tools and i % 2 == 1:
            prev = store.append(sid, "tool", {"stdout": "ok"}, name="shell", predecessor=prev).id
    return ids


def measured_case(store: SessionStore, wid: str):
    sid = store.create_session(title="measured")
    with store.batch(sid):
        main = chain(store, sid, "ROOT", 9, "m", tools=True)
        mark_written(store, sid, main, wid)
        five = chain(store, sid, main[2], 5, "a", tools=True)
        eleven = chain(store, sid, main[2], 11, "b", tools=True)
    return sid, main, five, eleven


def test_measured_case_branches_from_m3(store: SessionStore, wid: str) -> None:
    sid, main, five, eleven = measured_case(store, wid)
    assert [t.id for t in pending(store, sid, five[-1])] == five
    assert [t.id for t in pending(store, sid, eleven[-1])] == eleven
    assert pending(store, sid, main[-1]) == []
    # the position cursor the design replaced: records beyond a per-session count of 9
    cursor = 9
    assert len(branch_records(store, sid, five[-1])[cursor:]) != 5
    assert len(branch_records(store, sid, eleven[-1])[cursor:]) != 11


def test_marking_a_shared_prefix_stops_the_other_walk(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    shared = chain(store, sid, "ROOT", 4, "s")
    left = chain(store, sid, shared[-1], 3, "l")
    right = chain(store, sid, shared[-1], 2, "r")
    assert [t.id for t in pending(store, sid, right[-1])] == shared + right
    mark_written(store, sid, shared + left, wid)  # the left branch was written whole
    assert [t.id for t in pending(store, sid, right[-1])] == right


def test_foreign_workspace_marks_are_ignored(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    ids = chain(store, sid, "ROOT", 6, "t")
    mark_written(store, sid, ids[:4], "w-00000000")
    assert [t.id for t in pending(store, sid)] == ids
    mark_written(store, sid, ids[:2], wid)
    assert [t.id for t in pending(store, sid)] == ids[2:]


def test_rewound_turns_never_appear(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    ids = chain(store, sid, "ROOT", 6, "t")
    store.rewind(sid, ids[3])
    retry = chain(store, sid, ids[2], 2, "again")
    for b in pending_branches(store, sid, wid):
        assert not set(t.id for t in b.turns) & set(ids[3:])
    assert [t.id for t in pending(store, sid)] == ids[:3] + retry


def test_non_records_are_never_pending(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    u = store.append(sid, "user", "question")
    store.append(sid, "tool", "output", name="grep")
    store.append(sid, "assistant", "   ")  # empty text
    store.append(sid, "user", "runtime follow-up", metadata={"source": "job_followup"})
    store.append(sid, "system", "system prompt")
    a = store.append(sid, "assistant", "answer")
    store.append_summary(sid, [u.id], "summary text")
    assert [t.id for t in pending(store, sid)] == [u.id, a.id]


def test_marking_leaves_updated_at_and_unmarked_nodes_byte_identical(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    ids = chain(store, sid, "ROOT", 6, "t")
    d = store.session_dir(sid)
    meta_before = (d / "meta.json").read_bytes()
    files_before = {p.name: p.read_bytes() for p in (d / "history").iterdir()}
    mark_written(store, sid, ids[:3], wid)
    assert (d / "meta.json").read_bytes() == meta_before
    for p in (d / "history").iterdir():
        node = json.loads(p.read_bytes())
        if node["id"] in ids[:3]:
            assert node["metadata"][MARK_KEY] == wid
        else:
            assert p.read_bytes() == files_before[p.name]


def test_workspace_id_is_created_once(tmp_path: Path) -> None:
    first = workspace_id(tmp_path)
    assert first == workspace_id(tmp_path)
    assert (tmp_path / "memory" / ".scriptorium" / "workspace-id").read_text() == first + "\n"
    assert first.startswith("w-") and len(first) == 10


def test_cut_batch_takes_the_oldest_up_to_the_threshold(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    chain(store, sid, "ROOT", 8, "turn")
    turns = pending(store, sid)
    per = turns[0].tokens
    batch = cut_batch(turns, per * 3)
    assert batch == turns[: len(batch)] and sum(t.tokens for t in batch) >= per * 3
    assert sum(t.tokens for t in batch[:-1]) < per * 3
    assert cut_batch(turns, 10**9) == turns


def test_many_forks_of_one_line_each_get_their_own_backlog(store: SessionStore, wid: str) -> None:
    sid = store.create_session()
    with store.batch(sid):
        line = chain(store, sid, "ROOT", 30, "m")
        mark_written(store, sid, [line[9]], wid)
        forks = {line[i]: store.append(sid, "assistant", f"retry {i}", predecessor=line[i], move_head=False).id
                 for i in (3, 9, 10, 20, 28)}
    branches = pending_branches(store, sid, wid)
    by_tip = {b.tip: [t.id for t in b.turns] for b in branches}
    assert branches[0].tip == line[-1] and branches[0].is_head and by_tip[line[-1]] == line[10:]
    assert by_tip[forks[line[3]]] == line[:4] + [forks[line[3]]]  # forks below the mark: the whole branch
    assert by_tip[forks[line[9]]] == [forks[line[9]]]  # off the marked turn: only the retry
    assert by_tip[forks[line[20]]] == line[10:21] + [forks[line[20]]]
    assert len(branches) == 6
    for b in branches:  # the shared walk never lets one branch's list leak into another's
        assert [t.id for t in pending(store, sid, b.tip, wid)] == by_tip[b.tip]


# --- property: the walk equals the naive suffix computation on random DAGs ------------

ops = st.lists(
    st.tuples(st.sampled_from(["append", "tool", "fork", "rewind", "compact", "mark", "spawn"]), st.integers(0, 10**6)),
    min_size=1, max_size=40,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=ops)
def test_walk_matches_naive_suffix(tmp_path_factory, script) -> None:
    store = SessionStore(tmp_path_factory.mktemp("prop"))
    wid = workspace_id(store.state_dir)
    sid = store.create_session()
    with store.batch(sid):
        store.append(sid, "user", "start")
        for op, r in script:
            nodes = [e for e in store.index(sid).entries.values() if e.kind not in ("root", "summary") and not e.rewound]
            pick = nodes[r % len(nodes)] if nodes else None
            if op == "append":
                store.append(sid, "user" if r % 2 else "assistant", f"text {r}")
            elif op == "tool":
                store.append(sid, "tool", f"tool {r}")
            elif op == "fork" and pick is not None:
                store.append(sid, "assistant", f"fork {r}", predecessor=pick.id)
            elif op == "rewind":
                chain_ids = [e.id for e in store.walk_ids(sid) if not e.rewound and e.kind != "root"]
                if chain_ids:
                    store.rewind(sid, chain_ids[r % len(chain_ids)])
            elif op == "compact" and pick is not None and pick.predecessor:
                store.append_summary(sid, [pick.id], f"summary {r}")
            elif op == "mark":
                branch = [e.id for e in store.branch_entries(sid, pick.id if pick else None) if e.is_record]
                if branch:
                    store.merge_node_metadata_batch(sid, {branch[r % len(branch)]: {MARK_KEY: wid if r % 3 else "w-ffffffff"}})
            elif op == "spawn" and pick is not None:
                store.spawn_branch(sid, f"sub {r}", caller=pick.id)
    expected_by_tip = {}
    for tip in store.list_branches(sid):
        records = branch_records(store, sid, tip)
        nodes = {n.id: n for n in store.get_branch(sid, tip)}
        marked = [i for i, rec in enumerate(records) if nodes[rec.id].metadata.get(MARK_KEY) == wid]
        expected = records[marked[-1] + 1:] if marked else records
        expected_by_tip[tip] = [r.id for r in expected]
        assert [t.id for t in pending(store, sid, tip, wid)] == [r.id for r in expected]
        for tip_node in nodes.values():
            assert not tip_node.rewound
    # all branches at once (one shared walk) give exactly what each walk alone gives
    assert {b.tip: [t.id for t in b.turns] for b in pending_branches(store, sid, wid)} == expected_by_tip


def test_counts_read_from_pending_outlive_the_process_without_save_index(tmp_path: Path) -> None:
    """An API caller reads `tokens` after `pending()` and exits: the next process finds the counts."""
    import subprocess
    import sys

    from scriptorium.core.sessions.index import SessionIndex
    from scriptorium.core.tokens import count_tokens

    store = SessionStore(tmp_path / "state")
    sid = store.create_session("counted")
    ids = chain(store, sid, "ROOT", 6, "turn")
    code = ("import sys\nfrom scriptorium.core.sessions.store import SessionStore\n"
            "from scriptorium.core.sessions.marker import pending\n"
            "print(sum(t.tokens for t in pending(SessionStore(sys.argv[1]), sys.argv[2])))\n")
    out = subprocess.run([sys.executable, "-c", code, str(store.state_dir), sid], capture_output=True, text=True,
                         check=True)
    entries = SessionIndex.open(store.session_dir(sid)).entries
    counted = [count_tokens(f"turn{i + 1} words here") for i in range(6)]
    assert [entries[n].tokens for n in ids] == counted and int(out.stdout) == sum(counted)


def test_a_predecessor_cycle_is_reported_not_walked_forever(tmp_path: Path) -> None:
    import pytest

    from scriptorium.core.sessions.errors import InvalidNode, UnknownNode

    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session()
    ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(4)]
    assert [t.id for t in pending(store, sid, workspace=wid)] == ids
    with pytest.raises(UnknownNode):
        pending(store, sid, tip="nope", workspace=wid)
    layout = store.session_paths(sid)
    first = layout.node(store.entry(sid, ids[1]).filename)
    doc = json.loads(first.read_bytes())
    doc["predecessor"] = ids[3]  # 3 -> 2 -> 1 -> 3: a damaged session
    tmp = first.with_name(first.name + ".tmp")
    tmp.write_text(json.dumps(doc))
    tmp.replace(first)  # as OpenProgram writes: a temp renamed over (history/ changes, the index sees it)
    fresh = SessionStore(tmp_path / "state")
    with pytest.raises(InvalidNode, match="cycle"):
        pending(fresh, sid, workspace=wid)
    with pytest.raises(InvalidNode, match="cycle"):
        pending_branches(fresh, sid, workspace=wid)
