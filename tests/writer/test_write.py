"""write / finish end to end, through the offline model or scripted models."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

from scriptorium.core.config import set_config_value
from scriptorium.core.sessions.marker import pending
from scriptorium.core.paths import StatePaths
from scriptorium.core.tokens import count_tokens
from scriptorium.core.writer import finish, write
from scriptorium.core.writer import pipeline as pipeline_module

from .conftest import chain, history, marked, refs, tree
from .scripted import CustomLLMError, scripted

MAIN = [f"m{i}" for i in range(1, 10)]


def test_measured_case_branches_from_m3_are_written_whole_and_the_prefix_once(store):
    sid = store.create_session("measured")
    chain(store, sid, MAIN)
    first = write(store, sid, force=True)
    assert first.outcome == "ok" and first.code == "WRITTEN"
    assert [b.turns for b in first.batches] == [MAIN]
    chain(store, sid, [f"a{i}" for i in range(1, 6)], predecessor="m3", first_role="assistant")
    chain(store, sid, [f"b{i}" for i in range(1, 12)], predecessor="m3", first_role="assistant")

    five = write(store, sid, force=True, tip="a5")
    eleven = write(store, sid, force=True, tip="b11")
    assert [b.turns for b in five.batches] == [[f"a{i}" for i in range(1, 6)]]
    assert [b.turns for b in eleven.batches] == [[f"b{i}" for i in range(1, 12)]]
    handed = [refs(run["prompt"]) for run in history(store, "write")]
    assert handed == [MAIN, [f"a{i}" for i in range(1, 6)], [f"b{i}" for i in range(1, 12)]]
    assert sum(ids.count("m3") for ids in handed) == 1  # the shared prefix went to the writer once
    assert set(marked(store, sid)) == set(MAIN) | {f"a{i}" for i in range(1, 6)} | {f"b{i}" for i in range(1, 12)}
    assert all(not pending(store, sid, tip) for tip in store.list_branches(sid))


def test_unforced_write_waits_for_the_threshold_and_takes_the_oldest_batch(store):
    sid = store.create_session("threshold")
    text = "cache sizing for the shared runners " * 5
    chain(store, sid, ["u1"], text=lambda n: text)
    set_config_value(store.state_dir, "writer.trigger_tokens", 2 * count_tokens(text))
    below = write(store, sid)
    assert (below.outcome, below.code, below.batches) == ("ok", "BELOW_THRESHOLD", [])
    chain(store, sid, ["a1", "u2", "a2", "u3", "a3"], predecessor="u1", text=lambda n: text, first_role="assistant")
    once = write(store, sid)
    assert [b.turns for b in once.batches] == [["u1", "a1"]]  # one pass, from the oldest record
    assert [t.id for t in pending(store, sid)] == ["u2", "a2", "u3", "a3"]
    assert [b.turns for b in write(store, sid, force=True).batches] == [["u2", "a2"], ["u3", "a3"]]


def test_finish_writes_the_head_fully_and_other_branches_only_at_threshold(store):
    sid = store.create_session("finish")
    text = lambda n: f"deploy window planning for the {n} service, with rollback notes"  # noqa: E731
    chain(store, sid, ["m1", "m2", "m3", "m4"], text=text)
    chain(store, sid, [f"long{i}" for i in range(1, 9)], predecessor="m2", text=text, first_role="user")
    chain(store, sid, ["retry1"], predecessor="m3", text=text, first_role="assistant")
    store.append(sid, "assistant", text("h"), predecessor="m4", node_id="head1")  # the head: m1..m4, head1
    set_config_value(store.state_dir, "writer.trigger_tokens", 60)
    result = finish(store, sid)
    assert result.outcome == "ok"
    assert result.batches[0].turns[0] == "m1"  # the head branch first
    assert not pending(store, sid, "head1")  # written completely, below threshold or not
    long_left = sum(t.tokens for t in pending(store, sid, "long8"))
    assert 0 <= long_left < 60  # written while the backlog reached the threshold
    assert any(t.startswith("long") for b in result.batches for t in b.turns)
    assert [t.id for t in pending(store, sid, "retry1")] == ["retry1"]  # a one-turn retry is not knowledge
    written = [t for b in result.batches for t in b.turns]
    assert len(written) == len(set(written))  # shared prefix m1, m2 once


def test_a_writer_that_changes_nothing_marks_nothing_and_is_permanent(store):
    sid = store.create_session("no progress")
    chain(store, sid, ["u1", "a1"])
    bad_edits = [[("edit_file", {"path": "notes.md", "old_string": f"never there {i}", "new_string": "x"})]
                 for i in range(6)]  # each a new attempt: not the same call again (that is a loop)
    model, name = scripted(bad_edits + ["Success: memory updated."])
    before = tree(StatePaths(store.state_dir).memory / "topics")
    result = write(store, sid, force=True, model=name)
    assert (result.outcome, result.code) == ("permanent", "WRITER_NO_PROGRESS")
    assert result.batches == [] and marked(store, sid) == []
    assert [t.id for t in pending(store, sid)] == ["u1", "a1"]
    assert tree(StatePaths(store.state_dir).memory / "topics") == before
    run = history(store, "write")[-1]
    assert run["reply"] == "Success: memory updated." and run["rounds"] == 7
    assert all(e["status"] == "error" for e in run["audit"] if e.get("round"))
    status = json.loads((StatePaths(store.state_dir).runtime / "writer-status.json").read_text())
    assert status["last_failure"]["reason_code"] == "WRITER_NO_PROGRESS" and not status["last_failure"]["retryable"]


def test_rounds_are_bounded(store):
    sid = store.create_session("bounded")
    chain(store, sid, ["u1", "a1"])
    model, name = scripted([lambda messages: [("list_files", {"path": f"dir{len(messages)}"})]])  # never stops
    result = write(store, sid, force=True, model=name)
    assert result.code == "WRITER_NO_PROGRESS" and "never finished: 20 rounds" in result.message
    assert history(store, "write")[-1]["rounds"] == 20 and history(store, "write")[-1]["stop_reason"] == "max_rounds"


def _uncited(messages):
    return [("write_file", {"path": "ops.md", "content": "# Ops\n\nThe deploy window is Tuesday.\n"})]


def test_rejection_gets_one_repair_then_commit_rejected(store):
    sid = store.create_session("rejected")
    chain(store, sid, ["u1", "a1"])
    model, name = scripted([_uncited, "done", _uncited, "done again"])
    live = StatePaths(store.state_dir).memory
    result = write(store, sid, force=True, model=name)
    assert (result.outcome, result.code) == ("permanent", "COMMIT_REJECTED")
    assert marked(store, sid) == [] and [t.id for t in pending(store, sid)] == ["u1", "a1"]
    assert not (live / "topics" / "ops.md").exists()
    first, repair = model.prompts
    assert "REJECTED" in repair and "The deploy window is Tuesday." in repair  # the rejected text
    assert "Fix:" in repair and "u1" in repair  # a rule-specific hint, and the original task
    assert [r["stage"] for r in history(store)][-2:] == ["write", "write-repair"]


def test_a_successful_repair_installs_and_marks(store):
    sid = store.create_session("repaired")
    chain(store, sid, ["u1", "a1"])

    def cited(messages):
        ref = next(json.loads(line)["ref"] for line in messages[1]["content"].splitlines() if line.startswith('{"ref"'))
        return [("write_file", {"path": "ops.md", "content": "# Ops\n\nThe deploy window is Tuesday.[^e1]\n\n"
                                f"[^e1]: Time: `2026-01-05`; Sources: [deploy]({ref})\n"})]

    model, name = scripted([_uncited, "done", cited, "fixed"])
    result = write(store, sid, force=True, model=name)
    assert result.outcome == "ok" and result.batches[0].changed_files == ["topics/ops.md"]
    assert marked(store, sid) == ["u1", "a1"]
    text = (StatePaths(store.state_dir).memory / "topics" / "ops.md").read_text()
    assert "[^e1]" not in text and "[^e-" in text and " ^" in text  # runtime ids assigned


@pytest.mark.parametrize(("error", "outcome", "code"), [
    (CustomLLMError(429, "slow down"), "retryable", "MODEL_RATE_LIMIT"),
    (CustomLLMError(401, "bad key"), "permanent", "MODEL_AUTHENTICATION"),
    (CustomLLMError(503, "overloaded"), "retryable", "MODEL_PROVIDER_INTERNAL"),
    (CustomLLMError(400, "bad request"), "permanent", "MODEL_INVALID_REQUEST"),
])
def test_model_errors_are_classified_and_mark_nothing(store, error, outcome, code):
    sid = store.create_session("model error")
    chain(store, sid, ["u1", "a1"])
    model, name = scripted([error])
    result = write(store, sid, force=True, model=name)
    assert (result.outcome, result.code) == (outcome, code)
    assert result.exit_code == (75 if outcome == "retryable" else 1)
    assert marked(store, sid) == []


def test_invalid_input_is_permanent(store):
    sid = store.create_session("input")
    assert write(store, "nope").code == "SESSION_NODES_UNAVAILABLE"
    assert write(store, "").code == "MISSING_SESSION_ID"
    bad_tip = write(store, sid, tip="missing")
    assert (bad_tip.outcome, bad_tip.code) == ("permanent", "INVALID_ARGUMENT")


class Crash(BaseException):
    """Stands for the process dying at this point."""


def test_crash_between_archive_and_install_leaves_the_batch_pending(store, monkeypatch):
    sid = store.create_session("crash")
    chain(store, sid, ["u1", "a1", "u2", "a2"])
    live = StatePaths(store.state_dir).memory

    def die(*args, **kwargs):
        raise Crash()

    monkeypatch.setattr(pipeline_module, "edit_with_repair", die)
    with pytest.raises(Crash):
        write(store, sid, force=True)
    archive = live / "sources" / "openprogram" / "_v2" / f"{sid}.md"
    archived = archive.read_bytes()
    assert archived.count(b"<!-- source-id:") == 4  # evidence first
    assert tree(live / "topics") == {} and marked(store, sid) == []
    assert [t.id for t in pending(store, sid)] == ["u1", "a1", "u2", "a2"]
    monkeypatch.undo()
    redo = write(store, sid, force=True)
    assert redo.outcome == "ok" and marked(store, sid) == ["u1", "a1", "u2", "a2"]
    assert archive.read_bytes() == archived  # archiving the same batch again changes no byte


def test_crash_between_install_and_marking_redoes_the_batch(store):
    sid = store.create_session("crash2")
    chain(store, sid, ["u1", "a1"], text=lambda n: "where does the staging cluster move?" if n == "u1" else "to eu-west")
    script = textwrap.dedent(f"""
        import os, sys
        from scriptorium.core.sessions.store import SessionStore
        from scriptorium.core.writer import pipeline, write
        pipeline.mark_written = lambda *a, **k: os._exit(9)
        write(SessionStore(sys.argv[1]), {sid!r}, force=True)
    """)
    proc = subprocess.run([sys.executable, "-c", script, str(store.state_dir)], timeout=120)
    assert proc.returncode == 9
    live = StatePaths(store.state_dir).memory
    installed = {p: t for p, t in tree(live / "topics").items()}
    assert installed  # the topics were installed ...
    assert marked(store, sid) == [] and [t.id for t in pending(store, sid)] == ["u1", "a1"]  # ... but not marked
    redo = write(store, sid, force=True)
    assert redo.outcome == "ok" and [b.turns for b in redo.batches] == [["u1", "a1"]]
    assert marked(store, sid) == ["u1", "a1"]
    text = "".join(t.decode() for t in tree(live / "topics").values())
    assert text.casefold().count("where does the staging cluster move?") == 1  # the sleep that followed merged the duplicate
    retired = json.loads((live / ".scriptorium" / "retired.json").read_text())
    assert len(retired) == 1 and "duplicate" in next(iter(retired.values()))["reason"]


def test_workspace_lock_held_by_another_process_is_retryable_within_a_second(store):
    sid = store.create_session("locked")
    chain(store, sid, ["u1", "a1"])
    runtime = StatePaths(store.state_dir).runtime
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from scriptorium.core.memory.lock import write_lock
        with write_lock(Path({str(runtime)!r}), 5):
            print("held", flush=True)
            time.sleep(30)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        result = write(store, sid, force=True)
        elapsed = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert (result.outcome, result.code) == ("retryable", "CONCURRENT_UPDATE")
    assert elapsed < 2.5
    assert marked(store, sid) == []


def test_model_path_traversal_is_refused_and_nothing_outside_staging_changes(store, tmp_path, monkeypatch):
    sid = store.create_session("traversal")
    chain(store, sid, ["u1", "a1"])
    outside = tmp_path / "outside.md"
    outside.write_text("precious\n")
    stages = []
    real_task = pipeline_module.write_task
    monkeypatch.setattr(pipeline_module, "write_task",
                        lambda items, topics, *rest: stages.append(topics) or real_task(items, topics, *rest))

    def plant_symlinks(messages):
        (stages[-1] / "link.md").symlink_to(outside)
        (stages[-1] / "linkdir").symlink_to(tmp_path)
        return [("write_file", {"path": "../sources/x.md", "content": "forged"}),
                ("read_file", {"path": "/etc/passwd"}),
                ("write_file", {"path": "/tmp/evil.md", "content": "x"}),
                ("write_file", {"path": f"sources/openprogram/_v2/{sid}.md", "content": "forged"}),
                ("write_file", {"path": "a/../../../outside.md", "content": "pwned"}),
                ("write_file", {"path": "link.md", "content": "pwned"}),
                ("edit_file", {"path": "link.md", "old_string": "precious", "new_string": "pwned"}),
                ("write_file", {"path": "linkdir/outside.md", "content": "pwned"}),
                ("read_file", {"path": "linkdir/outside.md"})]

    live = StatePaths(store.state_dir).memory
    scripted(["nothing to write"])
    assert write(store, sid, force=True, model="scripted/test").code == "WRITER_NO_PROGRESS"  # archives the batch
    before = tree(live)
    model, name = scripted([plant_symlinks, "done"])
    write(store, sid, force=True, model=name)
    results = [m for m in model.requests[1] if m["role"] == "tool"]
    assert len(results) == 9 and all(m["content"].startswith("error: refused") for m in results)
    assert outside.read_text() == "precious\n" and not (tmp_path / "evil.md").exists()
    assert not list(tmp_path.glob("**/x.md"))
    assert tree(live) == before and marked(store, sid) == []
