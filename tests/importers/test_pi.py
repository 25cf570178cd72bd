"""pi: id/parentId trees, non-turn entries folded, compaction and branch summaries."""

from __future__ import annotations

import json
from pathlib import Path

from scriptorium.core.importers import pi
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

from .conftest import PI_BRANCHING, PI_SMALL, forks


def entries(path: Path) -> dict[str, dict]:
    return {e["id"]: e for e in map(json.loads, path.read_text().splitlines()) if "id" in e and e["type"] != "session"}


def test_branching_fixture_forks_at_e2(store: SessionStore) -> None:
    report = import_sources(store, "pi", [PI_BRANCHING])
    sid = report.sessions[0].session_id
    assert sid == "pi-fixture-session"
    nodes = store.nodes(sid)
    source = entries(PI_BRANCHING)
    # e2 is a model change and e3 an assistant message that only calls a tool: both fold into e1, so the
    # fork sits at e1, between the branch that goes on (e6) and the one that starts with a tool call (e7)
    assert source["e2"]["type"] == "model_change"
    assert forks(nodes) == {source["e2"]["parentId"]: {"e6", "e7"}}
    assert not store.has_node(sid, "e3")
    assert not store.has_node(sid, "e2")
    assert len(store.list_branches(sid)) == 2
    assert report.skipped["unknown entry type (future_entry)"] == 1
    assert not store.has_node(sid, "e8")
    tool = next(n for n in nodes if n.kind == "tool")
    assert tool.caller == "e1" and tool.name == "read" and tool.text == "redacted fixture"
    summary = store.node(sid, "e5")
    assert summary.kind == "summary" and summary.metadata["covers_ids"] == ["e1"]  # e3 onwards was kept
    assert store.node(sid, "e6").predecessor == "e1"  # the reply after the compaction continues the branch
    assert store.node(sid, "e5").predecessor == "e1"  # the summary hangs where the compaction happened


def test_compactions_and_model_changes(store: SessionStore) -> None:
    report = import_sources(store, "pi", [PI_SMALL])
    sid = report.sessions[0].session_id
    nodes = store.nodes(sid)
    summaries = [n for n in nodes if n.kind == "summary"]
    compactions = [e for e in entries(PI_SMALL).values() if e["type"] == "compaction"]
    assert len(summaries) == len(compactions) == 2
    covered = [c for s in summaries for c in s.metadata["covers_ids"]]
    assert len(covered) == len(set(covered))  # each compaction covers only what came after the previous one
    assert report.skipped["not a turn (model_change)"] == 1
    assert report.skipped["not a turn (thinking_level_change)"] == 1
    assert forks(nodes) == {} and len(store.list_branches(sid)) == 1
    assert [n.kind for n in store.get_branch(sid)] == ["user", "assistant", "user", "assistant"]


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_branch_summary_covers_the_branch_left_behind(store: SessionStore, tmp_path: Path) -> None:
    def msg(eid, parent, role, text):
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": role, "content": [{"type": "text", "text": text}]}}

    source = write(tmp_path / "s.jsonl", [
        {"type": "session", "version": 3, "id": "tree", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"},
        msg("u1", None, "user", "plan it"), msg("a1", "u1", "assistant", "plan A"),
        msg("u2", "a1", "user", "go with A"), msg("a2", "u2", "assistant", "A done"),
        {"type": "branch_summary", "id": "bs", "parentId": "a1", "fromId": "a2", "timestamp": "2026-01-01T00:01:00Z",
         "summary": "Tried A; it was slow."},
        msg("u3", "bs", "user", "try B instead"),
        {"type": "label", "id": "lb", "parentId": "u3", "targetId": "u1", "label": "start", "timestamp": "2026-01-01T00:02:00Z"},
        {"type": "session_info", "id": "si", "parentId": "lb", "name": "Plan A vs B", "timestamp": "2026-01-01T00:02:00Z"},
        msg("a3", "si", "assistant", "B done"),
    ])
    report = import_sources(store, "pi", [source])
    sid = report.sessions[0].session_id
    assert store.meta(sid)["title"] == "Plan A vs B"
    summary = store.node(sid, "bs")
    assert summary.metadata["covers_ids"] == ["u2", "a2"] and summary.predecessor == "a1"
    assert forks(store.nodes(sid)) == {"a1": {"u2", "u3"}}
    assert [n.id for n in store.get_branch(sid)] == ["u1", "a1", "u3", "a3"]


def test_non_pi_files_are_skipped() -> None:
    plans = list(pi.plan_sessions([PI_BRANCHING, Path(__file__)]))
    assert [bool(p.nodes) for p in plans] == [True, False]
    assert plans[1].skipped["file is not a pi session (no session header)"] == 1


def test_version_1_linear_files_get_positional_ids(store: SessionStore, tmp_path: Path) -> None:
    rows = [{"type": "session", "id": "v1s", "timestamp": "2025-10-01T00:00:00Z", "cwd": "/w"},
            {"type": "message", "timestamp": 1, "message": {"role": "user", "content": "hi"}},
            {"type": "thinking_level_change", "timestamp": 2, "thinkingLevel": "high"},
            {"type": "message", "timestamp": 3, "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}}]
    source = write(tmp_path / "v1.jsonl", rows)
    first = import_sources(store, "pi", [source])
    with source.open("a") as fh:
        fh.write(json.dumps({"type": "message", "timestamp": 4, "message": {"role": "user", "content": "more"}}) + "\n")
    second = import_sources(store, "pi", [source])
    assert second.nodes_added == 1 and second.nodes_unchanged == first.nodes_added == 2
    assert [n.text for n in store.get_branch("pi-v1s")] == ["hi", "hello", "more"]
