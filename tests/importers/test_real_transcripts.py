"""Issue 15: what real transcripts contain, on excerpts of public real sessions
(tests/fixtures/transcripts/SOURCES.md says where each comes from)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CC_SLASH = HERE / "claude-code__marot_spotter__slash-command-first.jsonl"
CC_NOTIFY = HERE / "claude-code__marot_spotter__task-notification.jsonl"
CC_COMPACT_DIR = HERE / "claude-code__marot_spotter__compaction"
CC_COMPACT_ID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
CODEX_SHELL = HERE / "codex__codemie-ai_codemie-code__rollout.excerpt.jsonl"
PI_TOOLS = HERE / "pi__badlogic_pi-mono__large-session.excerpt.jsonl"
PI_COMPACTIONS = HERE / "pi__badlogic_pi-mono__before-compaction.shortened.jsonl"
CODEX_SYNTHETIC = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts" / \
    "codex__jazzyalex_agent-sessions__small.jsonl"


def one_session(store: SessionStore, kind: str, path: Path) -> str:
    report = import_sources(store, kind, [path])
    assert len(report.sessions) == 1, report.to_json()
    return report.sessions[0].session_id


def test_slash_command_with_arguments_is_the_users_turn(store: SessionStore) -> None:
    """Item 1: the session opens with `/handgemacht:create-beads <request>`."""
    sid = one_session(store, "claude-code", CC_SLASH)
    branch = [n for n in store.get_branch(sid) if n.kind != "root"]
    first = branch[0]
    assert first.kind == "user" and first.is_record
    assert first.text.startswith("/handgemacht:create-beads websearch to learn how to fastest setup credo")
    assert "<command-" not in first.text
    assert store.meta(sid)["title"].startswith("/handgemacht:create-beads websearch")
    assert [n.kind for n in branch[:2]] == ["user", "assistant"]


def test_argument_less_command_is_not_a_turn(store: SessionStore, tmp_path: Path) -> None:
    """Item 1, the other half: `/mcp` with empty `<command-args>` (real, marot/spotter tool_heavy) is no turn."""
    lines = [json.loads(line) for line in CC_SLASH.read_text().splitlines()]
    command = next(r for r in lines if r.get("type") == "user" and "<command-args>" in str(r["message"]["content"]))
    command["message"]["content"] = ("<command-name>/mcp</command-name>\n            <command-message>mcp</command-message>"
                                     "\n            <command-args></command-args>")
    path = tmp_path / "mcp.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    sid = one_session(store, "claude-code", path)
    assert not any("/mcp" in n.text for n in store.nodes(sid) if n.kind == "user")


def test_task_notification_is_a_runtime_node_not_a_prompt(store: SessionStore) -> None:
    """Item 2: a background task's `<task-notification>` arrives as a "user" record."""
    sid = one_session(store, "claude-code", CC_NOTIFY)
    nodes = store.nodes(sid)
    notice = next(n for n in nodes if "<task-notification>" in n.text)
    assert notice.kind == "runtime" and not notice.is_record
    reply = next(n for n in nodes if n.text.startswith("That's just the notification"))
    assert reply.predecessor == notice.id  # the conversation goes on from it
    prompts = [n.text for n in store.get_branch(sid) if n.kind == "user"]
    assert prompts == ["continue until all are done"]


def test_compaction_hangs_where_it_happened_and_the_compactor_is_no_branch(store: SessionStore,
                                                                          tmp_path: Path) -> None:
    """Item 3 (Claude Code): the summary hangs at the last turn before `compact_boundary`;
    `subagents/agent-acompact-*.jsonl` is Claude Code summarising, not a sub-agent."""
    project = tmp_path / "project"
    shutil.copytree(CC_COMPACT_DIR, project)
    sid = one_session(store, "claude-code", project / f"{CC_COMPACT_ID}.jsonl")
    nodes = store.nodes(sid)
    summary = next(n for n in nodes if n.kind == "summary")
    boundary = next(json.loads(line) for line in (project / f"{CC_COMPACT_ID}.jsonl").read_text().splitlines()
                    if '"compact_boundary"' in line)
    turn_before = "1d698e31-9e57-4b0c-b787-727e7bcea2f9"
    assert store.has_node(sid, turn_before) and boundary["logicalParentUuid"]  # the fixture is what it was
    assert summary.predecessor == turn_before
    assert summary.metadata["covers_ids"][-1] == turn_before
    assert not any("create a detailed summary of the conversation so far" in n.text for n in nodes)
    assert [n for n in nodes if n.kind == "user" and n.metadata.get("spawn_branch_root")] == []
    assert len(store.list_branches(sid)) == 1


def test_each_pi_compaction_sits_at_its_own_point(store: SessionStore) -> None:
    """Item 3 (pi v1, two compactions): each summary hangs under the entry its compaction
    followed, and the first covers only what it dropped (`firstKeptEntryIndex`)."""
    sid = one_session(store, "pi", PI_COMPACTIONS)
    lines = [json.loads(line) for line in PI_COMPACTIONS.read_text().splitlines()]
    compactions = [number for number, entry in enumerate(lines, start=1) if entry["type"] == "compaction"]
    summaries = sorted((n for n in store.nodes(sid) if n.kind == "summary"), key=lambda n: n.seq)
    assert [s.id for s in summaries] == [f"L{number}" for number in compactions]
    previous = 0
    for summary, number in zip(summaries, compactions):
        point = int(store.node(sid, summary.predecessor).id[1:])
        assert previous < point < number  # under the turn its compaction followed, after the one before
        previous = number
    first_kept = lines[compactions[0] - 1]["firstKeptEntryIndex"]
    assert all(int(c[1:]) <= first_kept for c in summaries[0].metadata["covers_ids"])


def test_codex_shell_output_is_decoded_text_with_its_exit_code(store: SessionStore) -> None:
    """Item 5: `custom_tool_call_output` holds `{"output": "...", "metadata": {"exit_code": 0}}` as a string."""
    sid = one_session(store, "codex", CODEX_SHELL)
    tools = [n for n in store.nodes(sid) if n.kind == "tool"]
    patch = next(n for n in tools if n.name == "apply_patch")
    assert patch.text.startswith("Success. Updated the following files:\nM src/agents/plugins/")
    assert patch.metadata["exit_code"] == 0
    shells = [n for n in tools if "Process exited with code" in n.text]
    assert shells and all(isinstance(n.metadata.get("exit_code"), int) for n in shells)
    assert any(n.metadata["exit_code"] == 1 for n in shells)


def test_codex_reasoning_summaries_stay_with_the_assistant_turn(store: SessionStore) -> None:
    """Item 5, reasoning: a summary before a tool call is what that turn said (synthetic shapes of 0.146)."""
    sid = one_session(store, "codex", CODEX_SYNTHETIC)
    reasoned = [n for n in store.nodes(sid) if n.metadata.get("reasoning")]
    assert reasoned and all(n.kind == "assistant" and n.is_record for n in reasoned)
    assert reasoned[0].text.startswith("<reasoning>\n[trimmed for fixture]\n</reasoning>")
    assert any(n.kind == "tool" and n.caller == reasoned[0].id for n in store.nodes(sid))


def test_pi_turns_that_only_call_tools_are_folded(store: SessionStore) -> None:
    """Item 6: no blank assistant rows; the tool nodes hang under the turn before."""
    sid = one_session(store, "pi", PI_TOOLS)
    nodes = store.nodes(sid)
    assert all(n.text.strip() for n in nodes if n.kind == "assistant")
    chain = {n.id for n in nodes if n.kind in ("user", "assistant")}
    tools = [n for n in nodes if n.kind == "tool"]
    assert len(tools) == 8 and all(t.caller in chain for t in tools)
    prompt = next(n for n in nodes if n.kind == "user")
    assert sum(1 for t in tools if t.caller == prompt.id) == 1  # the first call came straight after the prompt


def run_cli(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True, timeout=120)


def test_import_of_the_wrong_kind_fails_and_names_the_kind(tmp_path: Path) -> None:
    """Item 7: `import claude-code` on a pi session exits 1 with one line saying what it is."""
    done = run_cli("import", "claude-code", str(PI_TOOLS), state=tmp_path / "s")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "not a Claude Code transcript" in done.stderr and "looks like a pi session" in done.stderr
    as_json = run_cli("import", "codex", str(CC_NOTIFY), "--json", state=tmp_path / "s")
    assert as_json.returncode == 1 and "looks like a Claude Code transcript" in as_json.stderr
    doc = json.loads(as_json.stdout)
    assert doc["not_this_kind"] == [{"path": str(CC_NOTIFY), "looks_like": "claude-code"}]
    right = run_cli("import", "pi", str(PI_TOOLS), state=tmp_path / "s")
    assert right.returncode == 0 and right.stderr == ""


def test_root_is_dated_when_the_session_began(store: SessionStore) -> None:
    """Item 8: ROOT showed the import's date, not the session's start."""
    sid = one_session(store, "claude-code", CC_NOTIFY)
    stamps = [json.loads(line).get("timestamp") for line in CC_NOTIFY.read_text().splitlines()]
    from scriptorium.core.importers.plan import parse_time

    first = min(t for t in map(parse_time, stamps) if t is not None)
    root = store.node(sid, "ROOT")
    assert abs(root.created_at - first) < 1.0
    assert all(root.created_at <= n.created_at for n in store.nodes(sid))
    summary = next(s for s in store.list_sessions()[0] if s.id == sid)
    assert abs(summary.created_at - first) < 1.0
