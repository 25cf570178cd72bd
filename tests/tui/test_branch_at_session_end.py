"""The branch detail says what `finish` will do with it: a sub-agent's branch is written in
full, a short retry stays pending (DESIGN §4, issue 15 item 4), on real imported transcripts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore
from scriptorium.tui.sessions.branch_graph import BranchGraph
from scriptorium.tui.sessions.branch_list import BranchList
from scriptorium.tui.sessions.detail_pane import DetailPane

from .helpers import open_session

pytestmark = pytest.mark.anyio

SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
MAIN_ID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


async def test_detail_tells_a_spawn_branch_from_a_retry(make_app, settle, tmp_path: Path) -> None:
    state = tmp_path / "state"
    store = SessionStore(state)
    project = tmp_path / "project"
    (project / MAIN_ID / "subagents").mkdir(parents=True)
    shutil.copyfile(SHARED / f"claude-code__marot_spotter__{MAIN_ID}.first400KB.jsonl", project / f"{MAIN_ID}.jsonl")
    shutil.copyfile(SHARED / "claude-code__marot_spotter__agent-aac57f5.jsonl",
                    project / MAIN_ID / "subagents" / "agent-aac57f5.jsonl")
    agents = import_sources(store, "claude-code", [project]).sessions[0].session_id
    retries = import_sources(store, "claude-code", [
        SHARED / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"]).sessions[0].session_id
    set_config_value(state, "writer.trigger_tokens", 100_000)  # every side branch below it
    seen: dict[str, str] = {}
    async with make_app(state).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for sid in (agents, retries):
            screen = await open_session(pilot, settle, sid)
            screen.query_one(BranchList).focus()
            await settle(pilot)
            for index, tip in enumerate(store.list_branches(sid)):
                if index:
                    await pilot.press("down")
                    await settle(pilot)
                assert screen.query_one(BranchGraph).selected_tip == tip
                text = " ".join(screen.query_one(DetailPane).plain.split())
                kind = "head" if tip == store.head(sid) else "spawn" if store.is_spawn_branch(sid, tip) else "retry"
                seen[kind] = text
    assert set(seen) == {"head", "spawn", "retry"}
    assert "At the session's end: written in full (the head)." in seen["head"]
    assert "At the session's end: written in full (a sub-agent's work)." in seen["spawn"]
    assert "At the session's end: stays pending (a retry, below the threshold)." in seen["retry"]


async def test_the_graph_header_counts_nodes_as_session_list_does(make_app, settle, tmp_path: Path) -> None:
    """Issue 15 item 8: the header counted ROOT; `session list` does not."""
    from scriptorium.tui.sessions.graph_header import GraphHeader

    state = tmp_path / "state"
    store = SessionStore(state)
    sid = import_sources(store, "claude-code", [
        SHARED / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"]).sessions[0].session_id
    listed = next(s for s in store.list_sessions()[0] if s.id == sid).node_count
    async with make_app(state).run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = await open_session(pilot, settle, sid)
        header = screen.query_one(GraphHeader).render()
    assert f"{listed} nodes" in str(header)
