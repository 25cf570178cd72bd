"""Claude Code: branch truth on the real and synthetic fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from scriptorium.core.importers import claude_code
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_AGENT, CC_MAIN, CC_MAIN_ID, CC_REWIND, CC_TOOL_HEAVY, forks


def only_session(store: SessionStore, report) -> str:
    assert len(report.sessions) == 1, report.to_json()
    return report.sessions[0].session_id


def test_rewind_fixture_has_one_fork_two_attempts_and_a_summary(store: SessionStore) -> None:
    sid = only_session(store, import_sources(store, "claude-code", [CC_REWIND]))
    nodes = store.nodes(sid)
    assert forks(nodes) == {"a1": {"b1u", "b2u"}}
    tips = store.list_branches(sid)
    assert len(tips) == 2
    branches = {tip: [n.id for n in store.get_branch(sid, tip)] for tip in tips}
    assert ["u1", "a1", "b1u", "b1a"] in branches.values()
    assert ["u1", "a1", "b2u", "b2a", "b2u2", "b2a2", "p1u", "p1a"] in branches.values()
    assert store.head(sid) == "p1a"

    summaries = [n for n in nodes if n.kind == "summary"]
    assert len(summaries) == 1
    summary = summaries[0]
    assert summary.id == "cs" and not summary.is_record
    assert summary.metadata["covers_ids"] == ["u1", "a1", "b2u", "b2a", "b2u2", "b2a2"]
    assert summary.predecessor == "b2a2"  # hung where the compaction happened, not off ROOT
    assert "continued from a previous conversation" in summary.text
    assert store.node(sid, "p1u").predecessor == "b2a2"  # the conversation goes on from the logical parent


def test_real_fixtures_have_no_spurious_forks(store: SessionStore, tmp_path: Path) -> None:
    for source in (CC_TOOL_HEAVY, CC_MAIN):
        sid = only_session(store, import_sources(store, "claude-code", [source]))
        nodes = store.nodes(sid)
        assert forks(nodes) == {}
        assert len(store.list_branches(sid)) == 1
        kinds = {n.kind for n in nodes}
        assert kinds <= {"root", "user", "assistant", "tool"}
        assert {"user", "assistant", "tool"} <= kinds
        chain = {n.id for n in nodes if n.kind in ("user", "assistant")}
        for tool in (n for n in nodes if n.kind == "tool"):
            assert tool.predecessor is None and tool.caller in chain  # attached to the turn that caused it
        assert all(n.text.strip() for n in nodes if n.kind == "assistant")


def test_every_typed_prompt_is_a_turn_and_tool_results_are_not(store: SessionStore) -> None:
    sid = only_session(store, import_sources(store, "claude-code", [CC_TOOL_HEAVY]))
    users = [n.text for n in store.get_branch(sid) if n.kind == "user"]
    assert users == ["start phoenix in background",
                     next(json.loads(l)["message"]["content"] for l in CC_TOOL_HEAVY.read_text().splitlines()
                          if '"scrolling back in xterm' in l)]
    tools = [n for n in store.nodes(sid) if n.kind == "tool"]
    results = sum(l.count('"type":"tool_result"') for l in CC_TOOL_HEAVY.read_text().splitlines())
    assert len(tools) == results
    assert {t.name for t in tools} >= {"Bash", "Read", "WebSearch"}


def test_sub_agent_is_a_spawn_branch_of_its_task_turn(store: SessionStore, claude_project: Path) -> None:
    sid = only_session(store, import_sources(store, "claude-code", [claude_project]))
    assert sid == f"cc-{CC_MAIN_ID}"
    task = store.node(sid, "tool-toolu_01Hf8v1Za7y4af8VUwSR4CXU")
    assert task.name == "Task"
    first_agent = json.loads(CC_AGENT.read_text().splitlines()[0])
    root = store.node(sid, first_agent["uuid"])
    assert root.metadata["spawn_branch_root"] is True and root.predecessor is None
    assert root.caller == task.caller  # the turn that called Task
    assert store.node(sid, root.caller).kind == "assistant"
    assert root.metadata["agent_id"] == "aac57f5"
    agent_branch = [n.id for n in store.get_branch(sid, store.list_branches(sid)[1])]
    assert agent_branch[0] == root.id and len(agent_branch) > 1
    assert store.head(sid) not in agent_branch  # the sub-agent never takes the head


def test_sub_agent_file_alone_pulls_in_its_main_session(claude_project: Path) -> None:
    agent = claude_project / CC_MAIN_ID / "subagents" / "agent-aac57f5.jsonl"
    assert set(claude_code.discover([agent])) == {agent, claude_project / f"{CC_MAIN_ID}.jsonl"}


def test_malformed_and_unfinished_lines_never_abort(store: SessionStore, tmp_path: Path) -> None:
    lines = CC_REWIND.read_text().splitlines(keepends=True)
    source = tmp_path / "s1.jsonl"
    source.write_text("".join(lines[:3]) + "{not json\n" + '["a list"]\n' + '{"type":"brand-new","uuid":"z9"}\n'
                      + "".join(lines[3:6]) + lines[6].rstrip("\n")[:40])
    report = import_sources(store, "claude-code", [source])
    assert report.skipped["malformed JSON line"] == 1
    assert report.skipped["line is not a JSON object"] == 1
    assert report.skipped["unknown record type (brand-new)"] == 1
    sid = only_session(store, report)
    assert {"u1", "a1", "b1u", "b1a", "b2u", "b2a"} <= {n.id for n in store.nodes(sid)}
    assert not store.has_node(sid, "b2u2")  # the half-written line waits for its newline

    source.write_text(source.read_text()[: -40] + lines[6])
    again = import_sources(store, "claude-code", [source])
    assert again.nodes_added == 1 and store.has_node(sid, "b2u2")


def test_replayed_history_adds_nothing(store: SessionStore, tmp_path: Path) -> None:
    """Compaction replays: copies with the same uuid, or with new uuids but the same time and text."""
    lines = CC_REWIND.read_text().splitlines(keepends=True)
    source = tmp_path / "s1.jsonl"
    source.write_text("".join(lines))
    first = import_sources(store, "claude-code", [source])
    renamed = []
    for line in lines[:4]:
        record = json.loads(line)
        record["uuid"] = "new-" + record["uuid"]
        record["parentUuid"] = "new-" + record["parentUuid"] if record["parentUuid"] else None
        renamed.append(json.dumps(record) + "\n")
    source.write_text("".join(lines) + "".join(lines[:4]) + "".join(renamed))
    second = import_sources(store, "claude-code", [source])
    assert second.nodes_added == 0
    assert second.nodes_unchanged == first.nodes_added
    assert second.skipped["duplicate record (replayed copy)"] == 4
    assert second.skipped["replayed copy of a turn (new uuid)"] == 4


def test_non_claude_files_are_not_sessions(store: SessionStore, tmp_path: Path) -> None:
    shutil.copyfile(CC_REWIND, tmp_path / "real.jsonl")
    (tmp_path / "other.jsonl").write_text('{"type":"session","id":"x"}\n')
    report = import_sources(store, "claude-code", [tmp_path])
    assert len(report.sessions) == 1
    assert report.skipped["file is not a Claude Code transcript"] == 1


def test_turns_written_after_a_replay_continue_the_live_line(store: SessionStore, tmp_path: Path) -> None:
    """A second /compact re-appends old history (same uuids) and the next record points into the copy."""
    lines = CC_REWIND.read_text().splitlines(keepends=True)
    follow = json.loads(lines[6])  # a typed prompt; re-parent it onto a replayed row
    follow.update(uuid="after-replay", parentUuid="b2a", timestamp="2025-07-01T11:00:00.000Z")
    follow["message"]["content"][0]["text"] = "next question"
    source = tmp_path / "s1.jsonl"
    source.write_text("".join(lines) + "".join(lines[:6]) + json.dumps(follow) + "\n")
    sid = only_session(store, import_sources(store, "claude-code", [source]))
    assert forks(store.nodes(sid)) == {"a1": {"b1u", "b2u"}}
    assert store.node(sid, "after-replay").predecessor == "p1a"


def test_lone_surrogates_in_a_transcript_are_stored_as_replacement_characters(store: SessionStore,
                                                                             tmp_path: Path) -> None:
    base = {"sessionId": "s", "timestamp": "2025-01-01T00:00:00Z"}
    rows = [{**base, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi \ud800"}},
            {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {
                "role": "assistant", "model": "m\udc80",
                "content": [{"type": "text", "text": "ok"},
                            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "echo \ud800"}}]}},
            {**base, "type": "user", "uuid": "r1", "parentUuid": "a1",
             "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "\ud800"}]}}]
    source = tmp_path / "s.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = import_sources(store, "claude-code", [source])
    assert report.nodes_added == 3 and not report.errors
    assert store.node("cc-s", "u1").text == "hi \ufffd"
    assert store.node("cc-s", "tool-t1").input == {"command": "echo \ufffd"}
