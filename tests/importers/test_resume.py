"""Following a live transcript reads only what was appended (issue 15 item 9): a follower's
planners resume at a byte offset per file and notice a rewritten file by its fingerprints."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.importers.resume import PlannerCache
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_MAIN, CODEX_SMALL, PI_SMALL

PI_COMPACTIONS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / \
    "pi__badlogic_pi-mono__before-compaction.shortened.jsonl"


def shape(store: SessionStore) -> set[tuple]:
    return {(sid, n.id, n.kind, n.predecessor, n.caller, n.text) for sid in store.session_ids() for n in store.nodes(sid)}


@pytest.mark.parametrize(("kind", "source", "name"), [
    ("claude-code", CC_MAIN, "session.jsonl"),
    ("pi", PI_COMPACTIONS, "2025-12-08_session.jsonl"),
    ("codex", CODEX_SMALL, "rollout-2026-01-01T00-00-00-x.jsonl"),
])
def test_growing_file_is_read_once_and_lands_on_the_same_nodes(tmp_path: Path, kind: str, source: Path,
                                                               name: str) -> None:
    data = source.read_bytes()
    live = tmp_path / "live" / name
    live.parent.mkdir()
    cuts = [len(data) // 5, len(data) // 2 + 7, len(data) - 3, len(data)]  # mid-line cuts included
    store, planners, read = SessionStore(tmp_path / "followed"), PlannerCache(), 0
    for cut in cuts:
        live.write_bytes(data[:cut])
        report = import_sources(store, kind, [live], planners=planners)
        assert not report.errors
        read += report.bytes
    assert read == len(data)  # every byte read exactly once
    whole = SessionStore(tmp_path / "whole")
    import_sources(whole, kind, [live])
    assert shape(store) == shape(whole)


def test_an_unchanged_file_costs_nothing_and_a_rewritten_one_is_read_again(tmp_path: Path) -> None:
    live = tmp_path / "live" / "s.jsonl"
    live.parent.mkdir()
    data = PI_SMALL.read_bytes()
    live.write_bytes(data)
    store, planners = SessionStore(tmp_path / "state"), PlannerCache()
    first = import_sources(store, "pi", [live], planners=planners)
    assert first.bytes == len(data) and first.nodes_added > 0
    again = import_sources(store, "pi", [live], planners=planners)
    assert again.bytes == 0 and again.nodes_added == 0
    rewritten = data.replace(b"2026-05-12T01:02:27.657Z", b"2026-05-12T01:02:27.658Z", 1)
    assert rewritten != data and len(rewritten) >= len(data)
    live.write_bytes(rewritten)
    third = import_sources(store, "pi", [live], planners=planners)
    assert third.bytes == len(rewritten)  # the fingerprint changed: read from the start


def test_a_session_that_failed_to_write_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The planner's marks are past lines whose nodes never reached the store: forget them."""
    from scriptorium.core.importers import apply as apply_module
    from scriptorium.core.sessions.errors import SessionError

    live = tmp_path / "live" / "s.jsonl"
    live.parent.mkdir()
    live.write_bytes(PI_SMALL.read_bytes())
    store, planners = SessionStore(tmp_path / "state"), PlannerCache()
    real = apply_module._append

    def broken(store_, sid, node):
        raise SessionError("disk full")

    monkeypatch.setattr(apply_module, "_append", broken)
    failed = import_sources(store, "pi", [live], planners=planners)
    assert failed.errors and not planners
    monkeypatch.setattr(apply_module, "_append", real)
    again = import_sources(store, "pi", [live], planners=planners)
    assert not again.errors and again.nodes_added > 0 and again.bytes == live.stat().st_size
