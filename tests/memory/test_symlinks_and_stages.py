"""Writes stay inside the workspace (a symlinked directory or file under topics/ or
sources/ is refused, nothing outside changes) and a killed transaction's stage in
/dev/shm is removed by the next one (issue 19, items 3 and 10)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scriptorium.core.memory import Transaction, Workspace
from scriptorium.core.memory.errors import SymlinkRefused
from scriptorium.core.memory.transaction import stage as stage_module

from .support import seed


@pytest.mark.parametrize("where", ["topics/people", "topics/people/notes.md", "sources/linked"])
def test_a_symlink_in_the_workspace_is_refused_and_nothing_outside_changes(tmp_path: Path, where: str) -> None:
    ws = Workspace.open(tmp_path / "state")
    seed(ws)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.md").write_text("precious\n")
    link = ws.root / where
    if link.is_dir():
        shutil.rmtree(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "notes.md" if where.endswith(".md") else outside)
    with pytest.raises(SymlinkRefused, match="symbolic link"):
        with Transaction(ws, "edit", "through a link") as txn:
            txn.write_topic("people/notes.md", "# Notes\n\nOverwritten.\n")
            txn.commit()
    assert (outside / "notes.md").read_text() == "precious\n"
    assert sorted(p.name for p in outside.iterdir()) == ["notes.md"]


def test_topic_save_through_a_symlinked_directory_is_a_clear_error(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ws = Workspace.open(state)
    seed(ws)
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws.root / "topics" / "notes").symlink_to(outside)
    text = tmp_path / "t.md"
    text.write_text("# Notes\n\nOverwritten.\n")
    done = subprocess.run([sys.executable, "-m", "scriptorium.core.cli", "--state", str(state), "topic", "save",
                           "notes/x.md", "--from", str(text)], capture_output=True, text=True)
    assert done.returncode == 1 and "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


KILLED = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from scriptorium.core.memory import Transaction, Workspace
    with Transaction(Workspace.open({state!r}), "edit", "killed") as txn:
        print(txn.stage, flush=True)
        os._exit(9)
""")


def test_a_killed_transactions_stage_is_removed_by_the_next(tmp_path: Path) -> None:
    state = tmp_path / "state"
    seed(Workspace.open(state))
    root = str(Path(__file__).resolve().parents[2])
    child = subprocess.run([sys.executable, "-c", KILLED.format(root=root, state=str(state))],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 9, child.stderr
    left = Path(child.stdout.strip()).parent  # <stage>/memory -> the stage directory
    assert left.is_dir() and (left / "memory" / "sources").is_dir()
    other = Path(stage_module._stage_parent() or "/tmp") / "scriptorium-stage-someoneelse"
    other.mkdir(exist_ok=True)
    try:
        with Transaction(Workspace(state), "edit", "next") as txn:
            assert txn.stage.parent != left
        assert not left.exists()
        assert other.exists()  # another workspace's stage is not ours to remove
    finally:
        os.rmdir(other)
