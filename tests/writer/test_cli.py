"""CLI contracts: write / finish / sleep / migrate / backfill JSON shapes and exit codes;
backfill writes uncited sources and leaves marks alone."""

from __future__ import annotations

import json

import pytest

from scriptorium.core.cli import main
from scriptorium.core.memory.lock import write_lock
from scriptorium.core.paths import StatePaths
from scriptorium.core.runtime_state import load_runtime, save_runtime
from scriptorium.core.writer import backfill, write

from .conftest import chain, marked, tree
from .scripted import scripted


@pytest.fixture()
def cli(store, capsys):
    def run(*args: str) -> tuple[int, dict]:
        code = main(["--state", str(store.state_dir), *args])
        out = capsys.readouterr().out
        return code, json.loads(out)

    return run


@pytest.fixture()
def sid(store):
    sid = store.create_session("cli")
    chain(store, sid, ["u1", "a1"], text=lambda n: "who owns the billing service?" if n == "u1" else "the payments team")
    return sid


def test_write_and_finish_json_and_exit_codes(cli, store, sid):
    code, doc = cli("write", sid, "--force", "--json")
    assert code == 0 and set(doc) == {"outcome", "code", "message", "batches", "redactions", "model"}
    assert doc["outcome"] == "ok" and doc["batches"][0]["turns"] == ["u1", "a1"]
    assert set(doc["batches"][0]) == {"turns", "changed_files", "commit", "redactions", "model"}
    assert doc["batches"][0]["commit"] and doc["model"]["id"] == "scriptorium/offline"
    chain(store, sid, ["u2"], predecessor="a1", text=lambda n: "and who is on call this week?")
    code, doc = cli("finish", sid, "--json")
    assert code == 0 and [b["turns"] for b in doc["batches"]] == [["u2"]]
    code, doc = cli("write", "no-such-session", "--json")
    assert code == 1 and doc["outcome"] == "permanent"


def test_write_exits_75_when_the_workspace_is_busy(cli, store, sid):
    with write_lock(StatePaths(store.state_dir).runtime, 5):
        code, doc = cli("write", sid, "--force", "--json")
    assert code == 75 and (doc["outcome"], doc["code"]) == ("retryable", "CONCURRENT_UPDATE")
    assert marked(store, sid) == []


def test_sleep_preview_and_due(cli, store, sid):
    assert cli("write", sid, "--force", "--json")[0] == 0
    code, doc = cli("sleep", "--preview", "--json")
    assert code == 0 and doc["outcome"] == "ok" and "diff" in doc and doc["commit"] is None
    code, doc = cli("sleep", "--json")
    assert code == 0 and "diff" not in doc and set(doc) >= {"outcome", "changed_files", "commit"}
    code, doc = cli("sleep", "--due", "--json")
    assert code == 0 and doc["due"] is False and doc["local_batches"] == 0


def test_migrate_json(cli, store, sid):
    paths = StatePaths(store.state_dir)
    state = load_runtime(paths)
    state["cursors"] = {"t": {"message_id": "a1", "ordinal": 2}}
    save_runtime(paths, state)
    code, doc = cli("migrate", "--json")
    assert code == 0 and doc["outcome"] == "migrated" and doc["cursors_removed"] is True
    assert cli("migrate", "--json")[1]["outcome"] == "not_needed"


def test_backfill_writes_uncited_sources_and_adds_no_marks(cli, store, sid):
    scripted(["I will not write anything."])
    assert write(store, sid, force=True, model="scripted/test").code == "WRITER_NO_PROGRESS"
    live = StatePaths(store.state_dir).memory
    assert not [p for p in tree(live) if p.startswith("topics/")]  # archived, but cited by nothing
    code, doc = cli("backfill", "--json")
    assert code == 0 and doc["outcome"] == "ok"
    assert [len(b["sources"]) for b in doc["batches"]] == [2]
    assert all(s.startswith(f"openprogram/{sid}/") for s in doc["batches"][0]["sources"])
    topics = "".join(t.decode() for p, t in tree(live).items() if p.startswith("topics/"))
    assert "who owns the billing service? the payments team." in topics.casefold()  # the answer with its question
    assert marked(store, sid) == []  # backfill ignores marks and adds none
    assert backfill(store.state_dir).code == "NOTHING_UNCITED"
