"""Marking is not a model timeout (issue 19, item 7). Marks follow an installed batch, so
marking waits for a session lock an import holds as long as the import works — giving up
would only have the batch written again — and what does stop it is named for what it is:
SESSION_BUSY (the holder shows no sign of work) or MARKING_FAILED (the marks cannot be
written), never MODEL_TIMEOUT."""

from __future__ import annotations

import errno
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scriptorium.core.memory import install
from scriptorium.core.sessions import marks, writing
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import finish

from .conftest import chain, history, marked, refs

TURNS = ["u1", "a1", "u2", "a2"]


def SAID(name: str) -> str:  # noqa: N802 - a turn that is worth a note (a placeholder would be nothing to keep)
    return f"The nightly build of service {name} keeps its cache on the shared runner disk."

# An import: the session lock held through `SessionStore.batch`, for `argv[3]` seconds;
# with `argv[4]` "work", it writes a node file every half second meanwhile (tool output
# hanging off the last turn: nothing for the writer).
IMPORT = """
import sys, time
from scriptorium.core.sessions.store import SessionStore
store, sid, hold, work = SessionStore(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4] == "work"
with store.batch(sid, "import"):
    print("held", flush=True)
    end, n = time.monotonic() + hold, 0
    while time.monotonic() < end:
        time.sleep(0.5)
        if work:
            n += 1
            store.append(sid, "tool", f"imported {n}", predecessor="a2", node_id=f"imp{n}", move_head=False)
"""


@pytest.fixture()
def held_at_install(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[subprocess.Popen[str]]]:
    """Start an "import" of the session the moment the first batch is installed, before it
    is marked; the test sets what it does (`holding.append(args)` before the write)."""
    started: list[subprocess.Popen[str]] = []
    plan: list[tuple[str, float, str]] = []

    def hook(step: str) -> None:
        if step == "batch-installed" and plan and not started:
            sid, hold, work = plan[0]
            proc = subprocess.Popen([sys.executable, "-c", IMPORT, str(store.state_dir), sid, str(hold), work],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            started.append(proc)
            assert proc.stdout is not None and proc.stdout.readline().strip() == "held", proc.stderr
    monkeypatch.setattr(install, "crash_hook", hook)
    yield plan  # type: ignore[misc]
    for proc in started:
        proc.kill()
        proc.wait()


def test_finish_waits_for_an_import_past_the_lock_limit_then_marks_and_nothing_is_written_twice(
        store: SessionStore, held_at_install: list, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = store.create_session("imported while writing")
    chain(store, sid, TURNS, text=SAID)
    monkeypatch.setattr(writing, "LOCK_TIMEOUT_S", 1.0)  # the session lock's wait, lowered: held 2 s past it
    held_at_install.append((sid, 3.0, "work"))
    result = finish(store, sid)
    assert (result.outcome, result.code) == ("ok", "WRITTEN"), result.message
    assert [b.turns for b in result.batches] == [TURNS]
    assert "marking waited" in result.message
    assert marked(store, sid) == TURNS and not pending(store, sid)
    assert finish(store, sid).code == "NOTHING_PENDING"  # nothing is written again later
    handed = [ref for run in history(store, "write") for ref in refs(run["prompt"])]
    assert handed == TURNS  # each turn reached the writer exactly once


def test_a_holder_at_work_keeps_marking_waiting_past_the_stall_limit(
        store: SessionStore, held_at_install: list, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = store.create_session("long import")
    chain(store, sid, TURNS, text=SAID)
    monkeypatch.setattr(marks, "MARK_STALL_S", 2.0)  # four of the import's writes apart: a loaded machine keeps up
    held_at_install.append((sid, 4.0, "work"))
    result = finish(store, sid)
    assert (result.outcome, result.code) == ("ok", "WRITTEN"), result.message
    assert marked(store, sid) == TURNS and store.has_node(sid, "imp3")  # the import went on meanwhile
    assert finish(store, sid).code == "NOTHING_PENDING"


def test_a_holder_that_does_nothing_for_the_whole_stall_limit_is_session_busy_not_a_model_timeout(
        store: SessionStore, held_at_install: list, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = store.create_session("hung importer")
    chain(store, sid, TURNS, text=SAID)
    monkeypatch.setattr(marks, "MARK_STALL_S", 1.0)
    held_at_install.append((sid, 60.0, "idle"))
    result = finish(store, sid)
    assert (result.outcome, result.code) == ("retryable", "SESSION_BUSY"), result.message
    assert "installed" in result.message and "not marked" in result.message
    assert [t.id for t in pending(store, sid)] == TURNS  # unmarked: written again, a duplicate at worst


def test_marks_that_cannot_be_written_are_marking_failed(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = store.create_session("unwritable")
    chain(store, sid, TURNS, text=SAID)

    def refused(session_dir: object, entries: object) -> None:  # the mark's durable record cannot be written
        raise PermissionError(errno.EACCES, "Permission denied", "history/0001-u-u1.json")
    monkeypatch.setattr(marks.redo, "append", refused)
    result = finish(store, sid)
    assert (result.outcome, result.code) == ("permanent", "MARKING_FAILED"), result.message
    assert "installed" in result.message and "Permission denied" in result.message
    assert [t.id for t in pending(store, sid)] == TURNS
    assert not [p for p in store.session_paths(sid).history.iterdir() if p.name.endswith(".tmp")]  # temps gone
