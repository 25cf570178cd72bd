"""finish at a session boundary: spawn branches in full, retries by the threshold (DESIGN §4,
issue 15 item 4), on real imported transcripts."""

from __future__ import annotations

import shutil
from pathlib import Path

from scriptorium.core.config import set_config_value
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish

SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "transcripts"
MAIN_ID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def spawned(store: SessionStore, sid: str, tip: str) -> bool:
    """The branch starts at a sub-agent's spawn root (read from the nodes themselves)."""
    return bool(store.get_branch(sid, tip)[0].metadata.get("spawn_branch_root"))


def test_finish_writes_every_spawn_branch_and_leaves_a_short_retry_pending(store: SessionStore,
                                                                          tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / MAIN_ID / "subagents").mkdir(parents=True)
    shutil.copyfile(SHARED / f"claude-code__marot_spotter__{MAIN_ID}.first400KB.jsonl", project / f"{MAIN_ID}.jsonl")
    shutil.copyfile(SHARED / "claude-code__marot_spotter__agent-aac57f5.jsonl",
                    project / MAIN_ID / "subagents" / "agent-aac57f5.jsonl")
    agents = import_sources(store, "claude-code", [project]).sessions[0].session_id
    rewind = import_sources(store, "claude-code", [SHARED / "claude-code__daaain_claude-code-log__dag_compact_after_rewind.jsonl"])
    retries = rewind.sessions[0].session_id

    spawns = [tip for tip in store.list_branches(agents) if spawned(store, agents, tip)]
    assert spawns == [tip for tip in store.list_branches(agents) if store.is_spawn_branch(agents, tip)]
    assert spawns and store.head(agents) not in spawns
    spawn_tokens = max(sum(t.tokens for t in pending(store, agents, tip)) for tip in spawns)
    retry = next(tip for tip in store.list_branches(retries) if tip != store.head(retries))
    assert not spawned(store, retries, retry)
    retry_tokens = sum(t.tokens for t in pending(store, retries, retry))
    threshold = max(spawn_tokens, retry_tokens) + 1  # every side branch is below it
    set_config_value(store.state_dir, "writer.trigger_tokens", threshold)

    assert finish(store, agents).outcome == "ok"
    assert finish(store, retries).outcome == "ok"
    assert all(pending(store, agents, tip) == [] for tip in spawns)  # the sub-agent's work is written
    assert pending(store, agents, store.head(agents)) == []
    assert [t.id for t in pending(store, retries, retry)] and retry_tokens < threshold  # a retry stays pending
    assert pending(store, retries, store.head(retries)) == []
