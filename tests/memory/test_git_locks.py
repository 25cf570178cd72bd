"""A git killed inside the memory repository (mid install commit, mid first commit of a
memory that had no repository) leaves lock files; the next transaction clears the stale
ones and rolls forward as the journal says."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from scriptorium.core.memory import Transaction, Workspace, install

from .support import git, git_agrees, seed


def age(path: Path) -> None:
    past = time.time() - 5
    os.utime(path, (past, past))


def test_a_transaction_after_a_killed_head_update_installs(tmp_path: Path) -> None:
    ws = Workspace.open(tmp_path / "state")
    seed(ws)
    for name in ("HEAD.lock", "index.lock", "refs/heads/master.lock", "refs/heads/main.lock"):
        lock = ws.root / ".git" / name
        lock.write_text("ref: refs/heads/main\n")
        age(lock)
    ws = Workspace(tmp_path / "state")  # a later process: it did not make those locks
    with Transaction(ws, "edit", "after the kill") as txn:
        txn.write_topic("people/eve.md", "# Eve\n\nEve is new.\n")
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics
    assert result.commit == git(ws, "rev-parse", "HEAD").strip()
    assert git_agrees(ws)
    assert not list((ws.root / ".git").glob("*.lock"))


KILLED_CHILD = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    import git.cmd
    from scriptorium.core.memory import Workspace
    real = git.cmd.Git.execute
    def execute(self, command, *a, **k):
        if "commit" in command:
            open(os.path.join({root_mem!r}, ".git", "index.lock"), "wb").close()
            os._exit(9)  # killed inside the first commit: its index.lock stays
        return real(self, command, *a, **k)
    git.cmd.Git.execute = execute
    Workspace.open({state!r})
""")


def test_a_first_commit_killed_midway_is_completed_by_the_next_open(tmp_path: Path) -> None:
    state = tmp_path / "state"
    topics = state / "memory" / "topics"  # an OpenProgram state: memory files, no repository yet
    topics.mkdir(parents=True)
    (topics / "ada.md").write_text("# Ada\n\nAda likes tea.\n")
    root = str(Path(__file__).resolve().parents[2])
    child = subprocess.run([sys.executable, "-c", KILLED_CHILD.format(root=root, root_mem=str(state / "memory"),
                                                                      state=str(state))],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 9, child.stderr
    assert (state / "memory" / ".git" / "index.lock").exists()
    age(state / "memory" / ".git" / "index.lock")
    ws = Workspace.open(state)
    assert "topics/ada.md" in git(ws, "ls-files")
    with Transaction(ws, "edit", "after the first kill") as txn:
        txn.write_topic("people/eve.md", "# Eve\n\nEve is new.\n")
        assert txn.commit().outcome == "installed"
    assert git_agrees(ws)
    assert install.JOURNAL not in os.listdir(ws.runtime)
