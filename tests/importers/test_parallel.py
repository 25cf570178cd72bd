"""Sessions are written by several threads at once: the result must not depend on it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scriptorium.core.importers import claude_code
from scriptorium.core.importers.run import import_sources
from scriptorium.core.sessions.nodes import ROOT_ID
from scriptorium.core.sessions.store import SessionStore

from .conftest import CC_MAIN, CC_REWIND, CC_TOOL_HEAVY, PI_BRANCHING, PI_SMALL


def corpus(tmp_path: Path) -> Path:
    project = tmp_path / "projects" / "-home-user-p"
    project.mkdir(parents=True)
    for source in (CC_MAIN, CC_REWIND, CC_TOOL_HEAVY):
        shutil.copyfile(source, project / source.name)
    return tmp_path / "projects"


def node_files(store: SessionStore) -> dict[str, bytes]:
    """Every node file of every session but the ROOT placeholders (those carry the import time)."""
    return {f"{p.parent.parent.name}/{p.name}": p.read_bytes()
            for p in sorted(store.root.glob("*/history/*.json")) if ROOT_ID not in p.name}


def test_parallel_import_equals_sequential_import(tmp_path: Path) -> None:
    source = corpus(tmp_path)
    one = SessionStore(tmp_path / "one")
    many = SessionStore(tmp_path / "many")
    seq = import_sources(one, "claude-code", [source], workers=1)
    par = import_sources(many, "claude-code", [source], workers=3)
    assert [s.session_id for s in par.sessions] == [s.session_id for s in seq.sessions]
    assert par.to_json()["nodes_added"] == seq.to_json()["nodes_added"] > 0
    assert node_files(many) == node_files(one)
    for sid in one.session_ids():
        assert one.list_branches(sid) == many.list_branches(sid)
    registry = json.loads((many.root / "index.json").read_text())  # written once, at the end
    assert set(registry) == set(many.session_ids()) == {s.session_id for s in par.sessions}


def test_two_files_of_one_session_are_never_written_at_once(tmp_path: Path) -> None:
    """Two copies of one pi session map to the same session id: applied one after the other."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        shutil.copyfile(PI_BRANCHING, tmp_path / name / PI_BRANCHING.name)
    store = SessionStore(tmp_path / "state")
    report = import_sources(store, "pi", [tmp_path / n for n in ("a", "b", "c")], workers=3)
    assert not report.errors
    assert len({s.session_id for s in report.sessions}) == 1
    assert report.nodes_added == sum(1 for _ in store.index(report.sessions[0].session_id).entries) - 1
    assert report.nodes_unchanged == 2 * report.nodes_added


def test_an_unusable_session_is_reported_and_the_others_are_imported(tmp_path: Path) -> None:
    pi_dir = tmp_path / "pi"
    pi_dir.mkdir()
    shutil.copyfile(PI_BRANCHING, pi_dir / PI_BRANCHING.name)
    shutil.copyfile(PI_SMALL, pi_dir / PI_SMALL.name)
    store = SessionStore(tmp_path / "state")
    first = import_sources(store, "pi", [pi_dir])
    broken = import_sources(store, "pi", [pi_dir / PI_BRANCHING.name]).sessions[0].session_id
    healthy = next(s.session_id for s in first.sessions if s.session_id != broken)
    store.session_paths(broken).meta.write_text("{not json")
    with (pi_dir / PI_BRANCHING.name).open("a") as fh:  # both sessions grow
        fh.write(json.dumps({"type": "message", "id": "zz1", "parentId": "e7", "timestamp": "2026-01-01T00:00:09Z",
                             "message": {"role": "user", "content": "one more question"}}) + "\n")
    with (pi_dir / PI_SMALL.name).open("a") as fh:
        fh.write(json.dumps({"type": "message", "id": "zz2", "parentId": "2c19d326", "timestamp": "2026-05-12T01:03:00Z",
                             "message": {"role": "user", "content": "and now?"}}) + "\n")

    second = import_sources(store, "pi", [pi_dir], workers=2)

    by_id = {s.session_id: s for s in second.sessions}
    assert by_id[broken].errors and "meta.json" in by_id[broken].errors[0]
    assert not by_id[healthy].errors and by_id[healthy].added == 1
    assert any(e.startswith(broken) for e in second.errors)


def test_interrupted_import_leaves_only_whole_committed_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = corpus(tmp_path)
    real = claude_code.plan_sessions

    def interrupted(files, planners=None):
        for count, plan in enumerate(real(files, planners)):
            if count == 2:
                raise KeyboardInterrupt
            yield plan

    monkeypatch.setattr(claude_code, "plan_sessions", interrupted)
    store = SessionStore(tmp_path / "state")
    with pytest.raises(KeyboardInterrupt):
        import_sources(store, "claude-code", [source], workers=2)
    sids = store.session_ids()
    assert 1 <= len(sids) <= 2
    for sid in sids:
        d = store.session_dir(sid)
        assert subprocess.run(["git", "status", "--porcelain"], cwd=d, capture_output=True, text=True).stdout == ""
    monkeypatch.setattr(claude_code, "plan_sessions", real)
    again = import_sources(store, "claude-code", [source])  # the next run completes the import
    assert not again.errors and len(store.session_ids()) == 3


def test_two_imports_of_the_same_transcripts_at_once_agree(tmp_path: Path) -> None:
    """`scriptorium import` in two terminals (or the app and `watch`): every session created
    once, every node written once, both runs clean."""
    import sys

    source = corpus(tmp_path)
    state = tmp_path / "state"
    cmd = [sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "import", "claude-code",
           str(source), "--json"]
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    reports = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        reports.append(json.loads(out))
    assert all(not r["errors"] for r in reports)
    assert sum(r["sessions_created"] for r in reports) == 3
    total = reports[0]["nodes_added"] + reports[0]["nodes_unchanged"]
    assert sum(r["nodes_added"] for r in reports) == total  # each node written by exactly one run
    store = SessionStore(state)
    assert len(store.session_ids()) == 3
    for sid in store.session_ids():
        d = store.session_dir(sid)
        assert subprocess.run(["git", "status", "--porcelain"], cwd=d, capture_output=True, text=True).stdout == ""
