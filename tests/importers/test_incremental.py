"""Re-import is incremental and safe: new nodes only, old node files untouched, sources read-only."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import git

from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.marker import MARK_KEY, mark_written, pending, workspace_id
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_MAIN, CC_MAIN_ID, CODEX_SMALL, FIXTURES, PI_BRANCHING, tree_digest


def history_bytes(store: SessionStore, sid: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in store.session_paths(sid).history.iterdir()}


def test_grown_transcript_adds_only_new_nodes_and_keeps_old_files(store: SessionStore, tmp_path: Path) -> None:
    lines = CC_MAIN.read_text().splitlines(keepends=True)
    half = len(lines) // 2
    source = tmp_path / f"{CC_MAIN_ID}.jsonl"
    source.write_text("".join(lines[:half]))
    first = import_sources(store, "claude-code", [source])
    sid = first.sessions[0].session_id
    assert first.nodes_added > 0

    # memory writes part of the branch: the marker lives in the node files
    wid = workspace_id(store.state_dir)
    written = [t.id for t in pending(store, sid, workspace=wid)][:3]
    mark_written(store, sid, written, wid)
    before = history_bytes(store, sid)
    commits_before = len(list(git.Repo(store.session_dir(sid)).iter_commits()))

    with source.open("a") as fh:
        fh.write("".join(lines[half:]))
    second = import_sources(store, "claude-code", [source])

    fresh = import_sources(SessionStore(tmp_path / "fresh"), "claude-code", [source])
    assert second.nodes_added == fresh.nodes_added - first.nodes_added > 0
    assert second.nodes_unchanged == first.nodes_added
    after = history_bytes(store, sid)
    assert set(before) <= set(after)
    assert {name: after[name] for name in before} == before  # byte-identical, marks included
    assert all(store.node(sid, nid).metadata[MARK_KEY] == wid for nid in written)
    assert len(list(git.Repo(store.session_dir(sid)).iter_commits())) == commits_before + 1  # one commit per import

    third = import_sources(store, "claude-code", [source])
    assert third.nodes_added == 0 and history_bytes(store, sid) == after


def test_imports_are_deterministic_across_state_dirs(tmp_path: Path) -> None:
    shapes = []
    for name in ("a", "b"):
        store = SessionStore(tmp_path / name)
        report = import_sources(store, "claude-code", [CC_MAIN])
        sid = report.sessions[0].session_id
        shapes.append(sorted((n.id, n.predecessor, n.caller, n.kind) for n in store.nodes(sid)))
    assert shapes[0] == shapes[1]


def test_source_files_are_never_modified(store: SessionStore, tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    shutil.copytree(FIXTURES, sources)
    for p in sources.iterdir():
        os.chmod(p, 0o644)  # writable: only our discipline keeps them unchanged
    digest = tree_digest(sources)
    mtimes = {p: p.stat().st_mtime_ns for p in sources.iterdir()}
    for kind in ("claude-code", "pi", "codex"):
        import_sources(store, kind, [sources])
        import_sources(store, kind, [sources])
    assert tree_digest(sources) == digest
    assert {p: p.stat().st_mtime_ns for p in sources.iterdir()} == mtimes
    assert sorted(p.name for p in sources.iterdir()) == sorted(p.name for p in FIXTURES.iterdir())


def test_every_kind_reimports_as_a_no_op(store: SessionStore) -> None:
    for kind, source in (("pi", PI_BRANCHING), ("codex", CODEX_SMALL)):
        first = import_sources(store, kind, [source])
        again = import_sources(store, kind, [source])
        assert first.nodes_added > 0
        assert again.nodes_added == 0 and again.nodes_unchanged == first.nodes_added
