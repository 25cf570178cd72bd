"""Sleep: due rules, the organizer merging duplicates with retirements, preview."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from scriptorium.core.memory import Workspace
from scriptorium.core.paths import StatePaths
from scriptorium.core.runtime_state import load_runtime, save_runtime
from scriptorium.core.writer import sleep, sleep_due, write

from .conftest import chain, history, tree
from .scripted import scripted

QUESTION = "which database does the billing service use?"
FACT = "Which database does the billing service use? Billing runs on postgres 16."  # a short answer, with its question


def _set(paths, **values):
    state = load_runtime(paths)
    state.update(values)
    save_runtime(paths, state)


def test_due_rules(tmp_path):
    paths = StatePaths(tmp_path)
    now = datetime(2026, 5, 1, 12, tzinfo=timezone.utc)
    recent = (now - timedelta(hours=2)).isoformat()
    assert not sleep_due(paths, now).due  # nothing written yet
    _set(paths, local_batches=4, local_tokens=39_999, write_commits_since_global=4, last_global_at=recent)
    assert sleep_due(paths, now).reason is None
    _set(paths, local_batches=5)
    assert sleep_due(paths, now).reason == "batches"
    _set(paths, local_batches=1, local_tokens=40_000)
    assert sleep_due(paths, now).reason == "tokens"
    _set(paths, local_tokens=10, last_global_at=(now - timedelta(days=1, seconds=1)).isoformat())
    due = sleep_due(paths, now)
    assert due.reason == "daily" and due.is_global and "day" in due.explain()
    _set(paths, write_commits_since_global=0)
    assert not sleep_due(paths, now).due  # a day passed, but nothing was written since


def _duplicated(store):
    """Two sessions saying the same thing: two identical blocks in one topic, plus another topic."""
    for title in ("first", "second"):
        sid = store.create_session(title)
        chain(store, sid, ["u1", "a1"], text=lambda n: QUESTION if n == "u1" else "billing runs on postgres 16")
        assert write(store, sid, force=True).outcome == "ok"
    other = store.create_session("other")
    chain(store, other, ["u1", "a1"], text=lambda n: "where do the nightly backups go?" if n == "u1" else "to glacier")
    assert write(store, other, force=True).outcome == "ok"
    return StatePaths(store.state_dir).memory


def test_preview_returns_the_diff_and_installs_nothing(store):
    live = _duplicated(store)
    before, head = tree(live), Workspace.open(store.state_dir).repo.head.commit.hexsha
    result = sleep(store.state_dir, preview=True)
    assert (result.outcome, result.code) == ("ok", "PREVIEW")
    assert len(result.changed_files) == 1 and result.diff.count(f"-{FACT}") == 2 \
        and result.diff.count(f"+{FACT}") == 1  # one goes; the survivor also cites what it cited
    assert result.commit is None
    assert tree(live) == before and Workspace.open(store.state_dir).repo.head.commit.hexsha == head


def test_sleep_merges_duplicates_with_retirements_and_reports_only_changed_files(store):
    live = _duplicated(store)
    topics_before = {p: t for p, t in tree(live).items() if p.startswith("topics/")}
    assert sum(t.decode().count(FACT) for t in topics_before.values()) == 2
    result = sleep(store.state_dir)
    assert (result.outcome, result.code) == ("ok", "REORGANIZED") and result.commit
    changed = [p for p, t in tree(live).items() if p.startswith("topics/") and topics_before.get(p) != t]
    assert result.changed_files == changed and len(changed) == 1
    organize = history(store, "organize")[-1]
    read = {e["arguments"]["path"] for e in organize["audit"] if e.get("tool") == "read_file"}
    assert len(read) == len(topics_before) > len(result.changed_files)  # read everything, reports what changed
    after = "".join(t.decode() for p, t in tree(live).items() if p.startswith("topics/"))
    assert after.count(FACT) == 1
    record = Workspace.open(store.state_dir).audit_log()[0]
    assert record["kind"] == "sleep" and len(record["retired"]) == 1
    assert record["retired"][0]["reason"].startswith("duplicate of ^")
    state = load_runtime(StatePaths(store.state_dir))
    assert state["local_batches"] == 0 and state["write_commits_since_global"] == 0 and state["last_global_at"]
    assert sleep(store.state_dir).code == "NO_CHANGE"


def test_an_organizer_dropping_a_block_without_retiring_it_is_rejected(store):
    live = _duplicated(store)
    before = tree(live)
    topic = next(p for p in before if p.startswith("topics/") and FACT in before[p].decode())
    path = topic[len("topics/"):]

    def drop_everything(messages):
        return [("write_file", {"path": path, "content": "# Emptied\n"})]

    model, name = scripted(["unused"], organizer=[drop_everything, "done", drop_everything, "done"])
    result = sleep(store.state_dir, model=name)
    assert (result.outcome, result.code) == ("permanent", "COMMIT_REJECTED")
    assert "block-id-kept" in result.message
    assert [r["stage"] for r in history(store)][-2:] == ["organize", "organize-repair"]
    assert tree(live) == before


class _Killed(BaseException):
    """A process killed mid-install: nothing after the crash point runs."""


def test_the_counter_reset_is_installed_with_the_sleep_itself(store, monkeypatch):
    from scriptorium.core.memory import install

    live = _duplicated(store)
    paths = StatePaths(store.state_dir)
    _set(paths, local_batches=7, local_tokens=50_000)

    def kill_after_the_audit(step):
        if step == "audited":
            raise _Killed(step)

    monkeypatch.setattr(install, "crash_hook", kill_after_the_audit)
    try:
        sleep(store.state_dir)
    except _Killed:
        pass
    monkeypatch.setattr(install, "crash_hook", None)
    record = Workspace.open(store.state_dir).audit_log()[0]
    assert record["kind"] == "sleep" and record["retired"]  # the sleep is installed and audited
    state = load_runtime(paths)
    assert state["local_batches"] == 0 and state["local_tokens"] == 0 and state["last_global_at"]


def test_a_sleep_that_changes_nothing_resets_its_counters_and_adds_no_record(store):
    sid = store.create_session("only")
    chain(store, sid, ["u1", "a1"], text=lambda n: "where do the nightly backups go?" if n == "u1" else "to glacier")
    assert write(store, sid, force=True).outcome == "ok"
    paths = StatePaths(store.state_dir)
    records = Workspace.open(store.state_dir).audit_log()
    _set(paths, local_batches=7, local_tokens=50_000)
    result = sleep(store.state_dir)
    assert (result.outcome, result.code) == ("ok", "NO_CHANGE")
    state = load_runtime(paths)
    assert state["local_batches"] == 0 and state["local_tokens"] == 0
    # the audit log (`scriptorium log`) lists what changed memory: no empty "sleep" entry on top
    assert Workspace.open(store.state_dir).audit_log() == records
