"""Big imports survive a kill (issue 19): every list of paths reaches git on stdin, so
recovering tens of thousands of files never overflows argv (E2BIG).

The processes that matter run with a 1 MiB stack limit: Linux caps argv and the
environment at a quarter of it (256 KiB), so a few thousand long node file names
overflow argv exactly as 40,000 ordinary ones do at the default limit. Times are
bench/big_import.py's, never asserted here.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from scriptorium.core.sessions.store import SessionStore

from .test_batch_commit import assert_head_matches_disk, git_out

STACK = 1 << 20  # argv + environment limit: 256 KiB
TURNS = 2500  # node file names of ~140 bytes: ~350 KiB of paths
LONG = "n" * 110  # node ids may be 128 characters long

IMPORT = """
import os, sys
from scriptorium.core.sessions.store import SessionStore
from scriptorium.core.sessions import pack
store, sid, how, turns = SessionStore(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
if how == "killed-after-fast-import":  # the pack is committed; the process dies before git's index is in step
    real_close = pack.PackedCommit.close
    def close_then_die(self):
        if real_close(self):
            os._exit(3)
        return False
    pack.PackedCommit.close = close_then_die
with store.batch(sid, message="import"):
    for i in range(turns):
        store.append(sid, "user" if i % 2 == 0 else "assistant", f"turn {i}", node_id=f"{sys.argv[5]}{i:06d}")
"""

APPEND = """
import sys
from scriptorium.core.sessions.store import SessionStore
SessionStore(sys.argv[1]).append(sys.argv[2], "user", "life goes on")
"""


def small_stack() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (STACK, hard if hard != resource.RLIM_INFINITY else STACK))


def run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False,
                          preexec_fn=small_stack)


def test_the_small_stack_really_caps_argv(tmp_path: Path) -> None:
    """The premise: under this limit, the paths of one of these imports cannot go on argv."""
    names = [f"history/{i:04d}-u-{LONG}{i:06d}.json" for i in range(TURNS)]
    done = subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.run(['true', *sys.argv[1:]])",
                           *names[:1]], capture_output=True, text=True, check=False, preexec_fn=small_stack)
    assert done.returncode == 0, done.stderr  # python and a short argv are fine
    with pytest.raises(OSError, match="Argument list too long"):
        subprocess.run(["true", *names], check=False, preexec_fn=small_stack)


def test_a_kill_between_the_packed_commit_and_the_index_sync_is_recovered_for_thousands_of_files(
        tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("big import")
    child = run_python(IMPORT, str(store.state_dir), sid, "killed-after-fast-import", str(TURNS), LONG)
    assert child.returncode == 3, child.stderr
    d = store.session_dir(sid)
    assert git_out(d, "status", "--porcelain") != ""  # git's index lags behind the commit; the flag is up

    after = run_python(APPEND, str(store.state_dir), sid)  # the next writer recovers them
    assert after.returncode == 0, after.stderr[-2000:]

    store = SessionStore(tmp_path / "state")
    assert_head_matches_disk(store, sid)
    subjects = git_out(d, "log", "--format=%s").splitlines()
    assert subjects[0].startswith("turn: life goes on") and subjects[1].startswith("recover:")
    assert len(store.index(sid).entries) == 1 + TURNS + 1


def test_a_big_batch_the_pack_declines_is_committed_without_argv(tmp_path: Path) -> None:
    """A detached HEAD makes the pack decline: the batch falls back to the ordinary commit,
    which must take its thousands of paths on stdin too."""
    store = SessionStore(tmp_path / "state")
    sid = store.create_session("detached")
    d = store.session_dir(sid)
    git_out(d, "checkout", "-q", "--detach")
    child = run_python(IMPORT, str(store.state_dir), sid, "plain", str(TURNS), LONG)
    assert child.returncode == 0, child.stderr[-2000:]
    assert_head_matches_disk(SessionStore(tmp_path / "state"), sid)
