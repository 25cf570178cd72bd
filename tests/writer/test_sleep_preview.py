"""Sleep for the TUI: progress reports, cancellation, installing exactly what a preview
showed (or a conflict), and the diagnostics of a rejected organizer edit."""

from __future__ import annotations

import threading

from scriptorium.core.memory import Workspace, save_topic
from scriptorium.core.paths import StatePaths
from scriptorium.core.runtime_state import load_runtime
from scriptorium.core.writer import install_preview, sleep, write

from .conftest import chain, history, tree
from .scripted import scripted

QUESTION = "which queue does the billing service use?"
FACT = "Billing uses rabbitmq."  # the offline writer's note of the answer


def _duplicated(store):
    """Two sessions saying the same thing: the offline organizer has a duplicate to merge."""
    for title in ("first", "second"):
        sid = store.create_session(title)
        chain(store, sid, ["u1", "a1"], text=lambda n: QUESTION if n == "u1" else "billing uses rabbitmq")
        assert write(store, sid, force=True).outcome == "ok"
    return StatePaths(store.state_dir).memory


def _head(store) -> str:
    return Workspace.open(store.state_dir).repo.head.commit.hexsha


def test_progress_reports_every_phase_round_and_tool_call(store):
    _duplicated(store)
    events = []
    result = sleep(store.state_dir, preview=True, progress=events.append)
    assert result.code == "PREVIEW"
    calls = [e for e in history(store, "organize")[-1]["audit"] if e.get("round")]
    assert [e.phase for e in events][0] == "organize" and events[-1].phase == "validate"
    assert max(e.tool_calls for e in events) == len(calls) > 0
    assert [e.tool for e in events if e.tool][-1] == calls[-1]["tool"]
    rounds = [e.rounds for e in events if e.phase == "organize"]
    assert rounds == sorted(rounds) and rounds[-1] == history(store, "organize")[-1]["rounds"]


def test_cancel_stops_the_run_before_anything_installs(store):
    live = _duplicated(store)
    before, head = tree(live), _head(store)
    counters = load_runtime(StatePaths(store.state_dir))
    cancel = threading.Event()

    def on_progress(event):
        if event.tool_calls:
            cancel.set()  # as a user pressing cancel while the model works

    result = sleep(store.state_dir, progress=on_progress, cancel=cancel)
    assert (result.outcome, result.code) == ("retryable", "CANCELLED") and result.exit_code == 75
    assert tree(live) == before and _head(store) == head
    assert load_runtime(StatePaths(store.state_dir)) == counters  # not counted as a sleep


def test_install_preview_installs_exactly_what_was_previewed(store):
    live = _duplicated(store)
    preview = sleep(store.state_dir, preview=True)
    assert preview.code == "PREVIEW" and preview.preview is not None and preview.preview.retired
    assert set(preview.preview.topics) == set(preview.changed_files)
    result = install_preview(store.state_dir, preview.preview)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED") and result.commit == _head(store)
    assert result.changed_files == preview.changed_files
    for path, data in preview.preview.topics.items():
        assert tree(live).get(path) == data
    record = Workspace.open(store.state_dir).audit_log()[0]
    assert record["kind"] == "sleep" and {r["id"] for r in record["retired"]} == set(preview.preview.retired)
    assert load_runtime(StatePaths(store.state_dir))["local_batches"] == 0


def test_install_preview_refuses_when_memory_changed_since(store):
    live = _duplicated(store)
    preview = sleep(store.state_dir, preview=True)
    ws = Workspace.open(store.state_dir)
    topic = next(p for p in ws.topic_paths() if FACT in ws.read_topic(p))
    assert save_topic(ws, topic, ws.read_topic(topic).replace("rabbitmq", "RabbitMQ")).outcome == "installed"
    before, head = tree(live), _head(store)
    result = install_preview(store.state_dir, preview.preview)
    assert (result.outcome, result.code) == ("permanent", "CONCURRENT_UPDATE")
    assert [d.rule for d in result.diagnostics] == ["conflict"] and "preview again" in result.message
    assert tree(live) == before and _head(store) == head


def test_a_rejected_organizer_edit_carries_its_diagnostics(store):
    live = _duplicated(store)
    before = tree(live)
    path = next(p for p in before if p.startswith("topics/") and FACT in before[p].decode())[len("topics/"):]

    def drop(messages):
        return [("write_file", {"path": path, "content": "# Emptied\n"})]

    _, model = scripted(["unused"], organizer=[drop, "done", drop, "done"])
    result = sleep(store.state_dir, model=model, preview=True)
    assert result.code == "COMMIT_REJECTED" and result.diagnostics
    assert {d.rule for d in result.diagnostics} == {"block-id-kept"}
    assert result.to_json()["diagnostics"][0]["file"] == f"topics/{path}"
    assert tree(live) == before
