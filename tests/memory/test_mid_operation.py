"""An install refuses, changing nothing, while the memory repository is mid-merge,
mid-rebase or on a detached HEAD (issue 19, item 4, its refusal half)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scriptorium.core.memory import Transaction, Workspace
from scriptorium.core.memory.errors import RepositoryBusy

from .support import git, seed, snapshot


@pytest.mark.parametrize("state", ["merge", "rebase", "detached"])
def test_an_install_refuses_mid_operation(tmp_path: Path, state: str) -> None:
    ws = Workspace.open(tmp_path / "state")
    seed(ws)
    if state == "merge":
        (ws.root / ".git" / "MERGE_HEAD").write_text(git(ws, "rev-parse", "HEAD"))
    elif state == "rebase":
        (ws.root / ".git" / "rebase-merge").mkdir()
    else:
        git(ws, "checkout", "-q", "--detach")
    before = snapshot(ws)
    with pytest.raises(RepositoryBusy):
        with Transaction(ws, "edit", "mid operation") as txn:
            txn.write_topic("people/eve.md", "# Eve\n\nEve is new.\n")
            txn.commit()
    assert snapshot(ws) == before
