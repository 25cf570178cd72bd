"""A git killed mid-commit leaves `index.lock` / `HEAD.lock` in a session's repository:
the next writer recognises them as stale (older than its own session lock) and clears
them, then commits what the killed writer left; nothing wedges, nothing is doubled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scriptorium.core.git_locks import clear_stale_locks
from scriptorium.core.sessions import repo as session_git
from scriptorium.core.sessions.marker import pending
from scriptorium.core.sessions.paths import SessionPaths
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.writer import write


def run(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), *args],
                          capture_output=True, text=True)


def git(d: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(d), *args], capture_output=True, text=True, check=True).stdout


def plant_killed_commit(d: Path) -> None:
    """What `git commit` killed between writing its locks and renaming them leaves: the
    new index in `index.lock`, `HEAD.lock` and the branch's lock, the flag up and a node
    file on disk that no commit has."""
    git_dir = d / ".git"
    (git_dir / "index.lock").write_bytes((git_dir / "index").read_bytes())
    (git_dir / "HEAD.lock").write_text("ref: refs/heads/main\n")
    (git_dir / "refs" / "heads" / "main.lock").write_text("0" * 40 + "\n")
    session_git.set_flag(d, True)
    past = time.time() - 5
    for name in ("index.lock", "HEAD.lock", "refs/heads/main.lock"):
        os.utime(git_dir / name, (past, past))


def test_session_append_clears_a_killed_gits_locks_and_commits_its_leftovers(tmp_path: Path) -> None:
    state = tmp_path / "state"
    sid = run(state, "session", "new").stdout.strip()
    first = run(state, "session", "append", sid, "--role", "user", "--text", "hello").stdout.strip()
    d = state / "sessions" / sid
    written = next((d / "history").glob(f"*{first}.json"))
    stray = d / "history" / written.name.replace(first, "deadbeef0001").replace("0001-", "0099-", 1)
    stray.write_bytes(written.read_bytes().replace(first.encode(), b"deadbeef0001"))
    plant_killed_commit(d)

    done = run(state, "session", "append", sid, "--role", "assistant", "--text", "hi")
    assert done.returncode == 0, done.stderr
    assert not done.stderr
    assert not list((d / ".git").glob("*.lock")) and not list((d / ".git" / "refs" / "heads").glob("*.lock"))
    assert git(d, "status", "--porcelain") == ""  # the killed writer's file is committed too
    assert f"history/{stray.name}" in git(d, "ls-files")
    again = run(state, "session", "append", sid, "--role", "user", "--text", "more")
    assert again.returncode == 0, again.stderr


def test_write_after_a_killed_commit_marks_its_batch_once(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("locks")
    for i, text in enumerate(["What is the cache size?", "The cache is 50 GB.", "Who owns it?", "Ada owns it."]):
        store.append(sid, "user" if i % 2 == 0 else "assistant", text)
    plant_killed_commit(store.session_dir(sid))
    done = write(store, sid, force=True)
    assert done.outcome == "ok", done.message
    assert not pending(store, sid)
    again = write(SessionStore(store.state_dir), sid, force=True)
    assert again.batches == []  # nothing written twice
    topics = "".join(p.read_text() for p in (store.state_dir / "memory" / "topics").rglob("*.md"))
    assert topics.count("50 GB") == 1


def test_a_fresh_lock_has_a_live_owner_and_stays(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    held_since = time.time()
    time.sleep(0.05)
    (git_dir / "index.lock").write_bytes(b"")  # made after we took our lock: someone's git right now
    assert clear_stale_locks(git_dir, held_since) == []
    assert (git_dir / "index.lock").exists()
    assert clear_stale_locks(git_dir, time.time() + 1) == ["index.lock"]
