"""Marks across machines: a transcript written on one machine is not written again on
another that shares its memory through sync."""

from __future__ import annotations

import subprocess
from pathlib import Path

from scriptorium.core.importers.run import import_sources
from scriptorium.core.memory import Workspace
from scriptorium.core.sessions.marker import MARK_KEY, counted_ids, pending, workspace_id
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sync.remote import add_remote
from scriptorium.core.sync.run import sync
from scriptorium.core.writer import finish

# a real session with something worth keeping (a placeholder transcript, "Start" / "Ready", is
# nothing to keep: no topic would cite it, so the other machine could not tell it was written)
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / \
    "claude-code__marot_spotter__compaction" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"


def machine(tmp_path: Path, name: str, bare: Path) -> tuple[Path, SessionStore, str]:
    state = tmp_path / name
    add_remote(Workspace.open(state).root, "origin", str(bare))
    store = SessionStore(state)
    report = import_sources(store, "claude-code", [FIXTURE])
    return state, store, report.sessions[0].session_id


def test_the_same_transcript_written_on_one_machine_is_not_written_again_on_the_other(tmp_path):
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a, store_a, sid = machine(tmp_path, "a", bare)
    b, store_b, sid_b = machine(tmp_path, "b", bare)
    assert sid_b == sid
    assert finish(store_a, sid).outcome == "ok"
    assert sync(a).outcome == "ok"
    assert sync(b).outcome == "ok"
    assert workspace_id(a) in counted_ids(b)
    head = store_b.head(sid)
    before = len(pending(store_b, sid, head))
    assert before > 0  # nothing on b is marked yet: its nodes never left a
    result = finish(store_b, sid)
    assert result.outcome == "ok" and "already in memory through sync" in result.message
    assert pending(store_b, sid, head) == []  # the head branch: written on a, marked here
    marked = [e for e in store_b.index(sid).entries.values() if e.marks.get(MARK_KEY) == workspace_id(b)]
    assert marked
    written_again = sum(len(batch.turns) for batch in result.batches)
    assert written_again < before


def test_marks_of_a_workspace_that_shares_the_memory_count_as_written(tmp_path):
    bare = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    a, store_a, sid = machine(tmp_path, "a", bare)
    assert finish(store_a, sid).outcome == "ok"
    assert pending(store_a, sid, store_a.head(sid)) == []
    sync(a)
    b = tmp_path / "b"
    add_remote(Workspace.open(b).root, "origin", str(bare))
    sync(b)
    # the session directory itself copied over (a backup restored, a synced folder)
    subprocess.run(["cp", "-a", str(a / "sessions"), str(b / "sessions")], check=True)
    store_b = SessionStore(b)
    assert pending(store_b, sid, store_b.head(sid)) == []
    assert pending(store_b, sid, store_b.head(sid), workspace_id(b)) != []  # by b's own id alone: pending
