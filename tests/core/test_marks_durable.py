"""Marks are durable when `mark_written` returns, without a commit of their own (issue 20,
item 1): the uncommitted flag stays up and the session's next writer commits them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scriptorium.core.sessions.marker import MARK_KEY, mark_written, pending, workspace_id
from scriptorium.core.sessions.store import SessionStore


def git_out(d: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=d, capture_output=True, text=True, check=True).stdout


MARK_THEN_DIE = """
import os, signal, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
ids = sys.argv[3].split(",")
mark_written(SessionStore(sys.argv[1]), sys.argv[2], ids, sys.argv[4])
print("git" in sys.modules or "filelock" in sys.modules, flush=True)  # marking loads neither GitPython nor filelock
os.kill(os.getpid(), signal.SIGKILL)  # the marks are durable; no commit ever ran
"""


def test_marks_killed_before_any_commit_are_recovered_into_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session("crash")
    ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(6)]
    commits_before = git_out(store.session_dir(sid), "rev-list", "--count", "HEAD")

    child = subprocess.run([sys.executable, "-c", MARK_THEN_DIE, str(store.state_dir), sid, ",".join(ids[:4]), wid],
                           capture_output=True, text=True, check=False)
    assert child.returncode == -9, child.stderr
    assert child.stdout.strip() == "False"
    d = store.session_dir(sid)
    assert git_out(d, "rev-list", "--count", "HEAD") == commits_before  # no commit of their own
    assert len(git_out(d, "status", "--porcelain").splitlines()) == 4  # on disk, not in history yet

    later = SessionStore(tmp_path / "state")  # the next process
    assert [t.id for t in pending(later, sid, workspace=wid)] == ids[4:]
    later.append(sid, "user", "life goes on")

    assert git_out(d, "status", "--porcelain") == ""
    for e in later.branch_entries(sid)[:4]:
        assert MARK_KEY in git_out(d, "show", f"HEAD:history/{e.filename}")
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)][:1] == [ids[4]]


def test_marks_by_another_process_are_seen_by_a_loaded_index_and_a_fresh_one(tmp_path: Path) -> None:
    reader = SessionStore(tmp_path / "state")
    wid = workspace_id(reader.state_dir)
    sid = reader.create_session("two processes")
    ids = [reader.append(sid, "user", f"turn {i}").id for i in range(10)]
    assert len(pending(reader, sid, workspace=wid)) == 10  # index loaded and counted

    marker = SessionStore(tmp_path / "state")  # never loads the index
    for upto in (3, 6):
        mark_written(marker, sid, [ids[upto]], wid)
    assert [t.id for t in pending(reader, sid, workspace=wid)] == ids[7:]
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)] == ids[7:]
    mark_written(reader, sid, [ids[8]], wid)  # marking through a loaded index
    assert [t.id for t in pending(SessionStore(tmp_path / "state"), sid, workspace=wid)] == ids[9:]


# What a mark must not load: GitPython, filelock, orjson, the tokenizer (each costs more
# than twenty marks) and the standard modules the store's imports used to pull in
# (dataclasses -> inspect, typing, secrets, threading for the fsyncs, config's tomllib).
HEAVY = ("git", "filelock", "orjson", "tiktoken", "dataclasses", "inspect", "typing", "secrets", "threading",
         "tomllib", "scriptorium.core.config")
MARK_FRESH = f"""
HEAVY = {HEAVY!r}
import json, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions.marker import mark_written
mark_written(SessionStore(sys.argv[1]), sys.argv[2], sys.argv[3].split(","), sys.argv[4])
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""


def test_a_first_mark_in_a_process_loads_no_heavy_module_and_writes_every_file(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    wid = workspace_id(store.state_dir)
    sid = store.create_session("fresh marker")
    with store.batch(sid):
        ids = [store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}").id for i in range(90)]
    wanted = ids[10:80:2]  # more files than one fsync group of threads
    out = subprocess.run([sys.executable, "-c", MARK_FRESH, str(store.state_dir), sid, ",".join(wanted), wid],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []  # none of HEAVY
    fresh = SessionStore(tmp_path / "state")
    marked = {e.id for e in fresh.index(sid).entries.values() if e.marks.get(MARK_KEY) == wid}
    assert marked == set(wanted)
    for nid in wanted:
        doc = json.loads(fresh.session_paths(sid).node(fresh.entry(sid, nid).filename).read_bytes())
        assert doc["metadata"][MARK_KEY] == wid and doc["output"] == f"turn {ids.index(nid)}"
    assert [t.id for t in pending(fresh, sid, workspace=wid)] == ids[79:]
