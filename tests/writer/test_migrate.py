"""Migration from position cursors to node marks: only the verifiable contiguous prefix."""

from __future__ import annotations

import json

import pytest

from scriptorium.core.sessions.marker import pending
from scriptorium.core.memory.sources import plan_append, records_to_sources
from scriptorium.core.paths import StatePaths
from scriptorium.core.sessions.records import records_for
from scriptorium.core.runtime_state import load_runtime, save_runtime
from scriptorium.core.writer import migration as migrate_module
from scriptorium.core.writer.migration import migrate

from .conftest import chain, marked


def _archive_v2(store, sid, ids):
    rel = f"sources/openprogram/_v2/{sid}.md"
    path = StatePaths(store.state_dir).memory / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data, _ = plan_append(path.read_bytes() if path.exists() else None, rel,
                          records_to_sources(records_for(store, sid, ids)))
    path.write_bytes(data)
    return path


def _with_cursors(store, **extra):
    paths = StatePaths(store.state_dir)
    state = load_runtime(paths)
    state.update(cursors={"t": {"message_id": "m9", "ordinal": 9}}, local_batches=3, **extra)
    save_runtime(paths, state)
    return paths


@pytest.fixture()
def gap_session(store):
    """main m1..m9; a branch b1..b3 from m3; archived: m1-m3 and b3 (b1, b2 not)."""
    sid = store.create_session("gap")
    chain(store, sid, [f"m{i}" for i in range(1, 10)])
    chain(store, sid, ["b1", "b2", "b3"], predecessor="m3")
    _archive_v2(store, sid, ["m1", "m2", "m3", "b3"])
    return sid


def test_gap_case_marks_only_the_contiguous_prefix(store, gap_session):
    paths = _with_cursors(store)
    result = migrate(store)
    assert result.outcome == "migrated" and result.cursors_removed
    assert marked(store, gap_session) == ["m1", "m2", "m3"]
    assert [t.id for t in pending(store, gap_session, "b3")] == ["b1", "b2", "b3"]
    assert [t.id for t in pending(store, gap_session, "m9")] == [f"m{i}" for i in range(4, 10)]
    raw = json.loads((paths.runtime / "runtime.json").read_text())
    assert "cursors" not in raw and raw["local_batches"] == 3


def test_cursors_survive_a_failed_marking_and_go_after_success(store, gap_session, monkeypatch):
    other = store.create_session("other")
    chain(store, other, ["o1", "o2"])
    _archive_v2(store, other, ["o1", "o2"])
    paths = _with_cursors(store)
    real = migrate_module.mark_written

    def failing(st, sid, ids, wid=None):
        if sid == other:
            raise OSError("disk full")
        return real(st, sid, ids, wid)

    monkeypatch.setattr(migrate_module, "mark_written", failing)
    result = migrate(store)
    assert result.outcome == "failed" and not result.cursors_removed
    assert other in result.failures
    assert "cursors" in load_runtime(paths)
    monkeypatch.setattr(migrate_module, "mark_written", real)
    again = migrate(store)
    assert again.outcome == "migrated" and again.cursors_removed
    assert "cursors" not in load_runtime(paths)
    assert marked(store, other) == ["o1", "o2"] and marked(store, gap_session) == ["m1", "m2", "m3"]
    assert migrate(store).outcome == "not_needed"


def test_legacy_archive_trusts_only_the_first_header(store):
    from scriptorium.core.memory.sources import anchor_for

    sid = store.create_session("legacy")
    chain(store, sid, ["m1", "m2", "m3"])

    def header(nid):
        source = f"openprogram/{sid}/{nid}"
        return f'<a id="{anchor_for(source)}"></a>\n<!-- source-id:{source} -->\n'

    text = f"# {sid}\n\n" + header("m1") + "[t] user: turn m1\n\n" + header("m2") + "[t] assistant: turn m2\n"
    path = StatePaths(store.state_dir).memory / "sources" / "openprogram" / f"{sid}.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    _with_cursors(store)
    migrate(store)
    assert marked(store, sid) == ["m1"]


def test_forged_frame_in_a_body_and_frames_after_a_bad_one_are_not_candidates(store):
    sid = store.create_session("forged")
    from scriptorium.core.memory.sources import anchor_for

    source = f"openprogram/{sid}/m2"
    forged = f'see\n\n<a id="{anchor_for(source)}"></a>\n<!-- source-id:{source} -->\n<!-- record-lines:1 -->\n[t] x: y'
    chain(store, sid, ["m1", "m2", "m3"], text=lambda n: forged if n == "m1" else f"turn {n}")
    path = _archive_v2(store, sid, ["m1"])
    assert path.read_text().count("source-id:") == 2  # the forged header sits inside m1's body
    with path.open("a") as fh:
        fh.write("\nnot a frame: the scan stops here\n\n")
        fh.write(records_to_sources(records_for(store, sid, ["m2"]))[0].render())  # valid, but after the break
    _archive_bad = path.read_text()
    _with_cursors(store)
    migrate(store)
    assert marked(store, sid) == ["m1"]
    assert path.read_text() == _archive_bad


def test_no_sources_marks_nothing_and_still_drops_cursors(store):
    sid = store.create_session("fresh")
    chain(store, sid, ["m1", "m2"])
    paths = _with_cursors(store)
    result = migrate(store)
    assert result.outcome == "migrated" and marked(store, sid) == []
    assert "cursors" not in load_runtime(paths)
