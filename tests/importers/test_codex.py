"""Codex: rollout families (forks, sub-agents) in one session, copied history de-duplicated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scriptorium.core.importers import codex
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

from .conftest import CODEX_SMALL, forks


def meta(tid: str, ts: str, **extra: Any) -> dict:
    return {"timestamp": ts, "type": "session_meta", "payload": {"id": tid, "timestamp": ts, "cwd": "/repo", **extra}}


def item(ts: str, **payload: Any) -> dict:
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def say(ts: str, role: str, text: str) -> dict:
    kind = "input_text" if role == "user" else "output_text"
    return item(ts, type="message", role=role, content=[{"type": kind, "text": text}])


def event(ts: str, **payload: Any) -> dict:
    return {"timestamp": ts, "type": "event_msg", "payload": payload}


def rollout(root: Path, tid: str, rows: list[dict]) -> Path:
    path = root / "sessions" / "2026" / "01" / "01" / f"rollout-2026-01-01T00-00-00-{tid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def shared_history(ts: str) -> list[dict]:
    return [
        item(ts, type="message", role="user", content=[{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]),
        event(ts, type="user_message", message="hello"),
        say(ts, "user", "hello"),
        say(ts, "assistant", "hi"),
        event(ts, type="agent_message", message="hi"),
        item(ts, type="function_call", call_id="c1", name="shell", arguments='{"command":["ls"]}'),
        item(ts, type="function_call_output", call_id="c1", output="a.txt"),
    ]


def family(tmp_path: Path) -> dict[str, Path]:
    parent = rollout(tmp_path, "p-1", [meta("p-1", "2026-01-01T00:00:00Z"), *shared_history("2026-01-01T00:00:01Z"),
                                       say("2026-01-01T00:00:02Z", "user", "second"),
                                       event("2026-01-01T00:00:03Z", type="collab_agent_spawn_end", new_thread_id="s-1"),
                                       say("2026-01-01T00:00:04Z", "assistant", "answer two")])
    fork = rollout(tmp_path, "f-1", [meta("f-1", "2026-01-01T01:00:00Z", forked_from_id="p-1"),
                                     meta("p-1", "2026-01-01T00:00:00Z"),
                                     *shared_history("2026-01-01T01:00:00Z"),  # copied, re-stamped
                                     say("2026-01-01T01:00:05Z", "user", "different second"),
                                     say("2026-01-01T01:00:06Z", "assistant", "other answer")])
    # a long-running sub-agent: its rollout is read after the fork's, and must still not take the head
    spawn = rollout(tmp_path, "s-1", [meta("s-1", "2026-01-01T02:00:00Z",
                                           source={"subagent": {"thread_spawn": {"parent_thread_id": "p-1", "depth": 1}}}),
                                      say("2026-01-01T02:00:00Z", "user", "do the subtask"),
                                      say("2026-01-01T02:00:04Z", "assistant", "subtask done")])
    return {"parent": parent, "fork": fork, "spawn": spawn}


def by_text(store: SessionStore, sid: str) -> dict[str, Any]:
    return {n.text: n for n in store.nodes(sid) if n.kind in ("user", "assistant")}


def test_fork_and_spawn_rollouts_join_the_parent_session(store: SessionStore, tmp_path: Path) -> None:
    family(tmp_path)
    report = import_sources(store, "codex", [tmp_path / "sessions"])
    assert [s.session_id for s in report.sessions] == ["codex-p-1"]
    sid = "codex-p-1"
    turns = by_text(store, sid)
    assert set(turns) == {"hello", "hi", "second", "answer two", "different second", "other answer",
                          "do the subtask", "subtask done"}  # the copied history appears once
    assert forks(store.nodes(sid)) == {turns["hi"].id: {turns["second"].id, turns["different second"].id}}
    spawn_root = turns["do the subtask"]
    assert spawn_root.metadata["spawn_branch_root"] is True and spawn_root.caller == turns["second"].id
    assert turns["subtask done"].predecessor == spawn_root.id
    assert len([n for n in store.nodes(sid) if n.kind == "tool"]) == 1
    assert report.skipped["copied parent history (de-duplicated)"] == 2
    assert report.skipped["event_msg duplicate of a response_item"] == 4  # 2 mirrors, in parent and copy
    assert report.skipped["injected context (environment, instructions)"] == 2
    assert store.head(sid) == turns["other answer"].id  # newest main-line activity; never the sub-agent
    assert len(store.list_branches(sid)) == 3


def test_a_fork_given_alone_brings_its_parent(tmp_path: Path) -> None:
    files = family(tmp_path)
    assert set(codex.discover([files["fork"]])) == {files["fork"], files["parent"]}


def test_rollback_makes_the_next_prompt_a_fork(store: SessionStore, tmp_path: Path) -> None:
    ts = "2026-01-01T00:00:00Z"
    rollout(tmp_path, "r-1", [meta("r-1", ts), say(ts, "user", "a"), say(ts, "assistant", "A"),
                              say(ts, "user", "b"), say(ts, "assistant", "B"),
                              event(ts, type="thread_rolled_back", num_turns=1),
                              say(ts, "user", "c"), say(ts, "assistant", "C")])
    report = import_sources(store, "codex", [tmp_path / "sessions"])
    sid = report.sessions[0].session_id
    turns = by_text(store, sid)
    assert forks(store.nodes(sid)) == {turns["A"].id: {turns["b"].id, turns["c"].id}}
    assert [n.text for n in store.get_branch(sid)] == ["a", "A", "c", "C"]


def test_schema_drift_fixture_imports_its_conversation_once(store: SessionStore) -> None:
    report = import_sources(store, "codex", [CODEX_SMALL])
    sid = report.sessions[0].session_id
    texts = [n.text for n in store.nodes(sid) if n.kind in ("user", "assistant")]
    assert texts.count("Found 2 files.") == 1  # response_item kept, its agent_message mirror dropped
    assert sum(t.startswith("List the files") for t in texts) == 1
    assert report.skipped["event_msg duplicate of a response_item"] > 0
    assert not report.errors
    tools = {n.name for n in store.nodes(sid) if n.kind == "tool"}
    assert "shell" in tools


def test_early_rollouts_with_a_bare_header_and_bare_items(store: SessionStore, tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-05-01-old-1.jsonl"
    rows = [{"id": "old-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the build"}]},
            {"record_type": "state"},
            {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "k1"},
            {"type": "function_call_output", "call_id": "k1", "output": "ok"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "fixed"}]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = import_sources(store, "codex", [path])
    assert [s.session_id for s in report.sessions] == ["codex-old-1"]
    assert [n.text for n in store.get_branch("codex-old-1")] == ["fix the build", "fixed"]
    assert report.skipped["not a turn (state)"] == 1
