"""An install commits exactly the paths its transaction wrote or deleted (issue 19, item 4):
a person's staged hand edit of another topic and stray untracked files stay out of the
commit and stay as they were (staged, untracked); deletions are committed; a crash
rolled forward commits the journal's paths and nothing else."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from scriptorium.core.cli import main
from scriptorium.core.memory import InstallError, Transaction, Workspace, install

from .support import Seeded, git, git_agrees


def committed_paths(ws: Workspace, rev: str = "HEAD") -> set[str]:
    out = git(ws, "diff-tree", "--no-commit-id", "--no-renames", "-r", "--name-only", "-z", f"{rev}^", rev)
    return {p for p in out.split("\0") if p}


def hand_edit(ws: Workspace) -> str:
    """A person's edit of projects/cache.md, staged with `git add` but never validated
    (no transaction saw it); returns the staged index entry."""
    path = ws.topics / "projects" / "cache.md"
    path.write_text(path.read_text().replace("The cache is sized", "The build cache is sized"))
    git(ws, "add", "topics/projects/cache.md")
    return git(ws, "ls-files", "-s", "topics/projects/cache.md")


def save(capsys: pytest.CaptureFixture[str], state: Path, topic: str, draft: Path) -> dict[str, object]:
    code = main(["--state", str(state), "topic", "save", topic, "--from", str(draft), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0, doc
    return doc


def test_a_save_leaves_a_staged_hand_edit_and_stray_files_out(seeded: Seeded, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    ws = seeded.ws
    staged = hand_edit(ws)
    (ws.topics / "scratch").mkdir()
    (ws.topics / "scratch" / "notes.txt").write_text("not memory yet\n")  # stray, untracked
    (ws.root / "sources" / "stray.txt").write_text("dropped here by hand\n")
    head_before = git(ws, "rev-parse", "HEAD").strip()
    draft = tmp_path / "ada.md"
    draft.write_text(ws.read_topic("people/ada.md").replace("green tea", "rooibos"))

    doc = save(capsys, ws.state_dir, "people/ada.md", draft)

    assert doc["outcome"] == "installed" and doc["commit"] == git(ws, "rev-parse", "HEAD").strip() != head_before
    paths = committed_paths(ws)
    assert "topics/people/ada.md" in paths
    assert "topics/projects/cache.md" not in paths  # the hand edit did not ride along
    assert not any("stray" in p or "scratch" in p for p in paths)
    assert git(ws, "show", "HEAD:topics/projects/cache.md") == git(ws, "show", f"{head_before}:topics/projects/cache.md")
    # ... and it is still staged, the very same blob; the strays are still untracked
    assert git(ws, "ls-files", "-s", "topics/projects/cache.md") == staged
    assert git(ws, "diff", "--cached", "--name-only").split() == ["topics/projects/cache.md"]
    status = git(ws, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == ["?? sources/stray.txt", "?? topics/scratch/notes.txt", "M  topics/projects/cache.md"]


def test_a_rename_commits_the_deletion_and_only_its_paths(seeded: Seeded) -> None:
    ws = seeded.ws
    text = ws.read_topic("projects/cache.md")
    other = ws.topics / "people" / "ada.md"
    other.write_text(other.read_text().replace("Ada likes", "Ada loves"))  # unstaged hand edit elsewhere
    with Transaction(ws, "edit", "rename the cache topic") as txn:
        txn.write_topic("projects/build-cache.md", text)
        txn.delete_topic("projects/cache.md")
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics
    paths = committed_paths(ws)
    assert {"topics/projects/cache.md", "topics/projects/build-cache.md"} <= paths
    assert "topics/people/ada.md" not in paths
    assert git(ws, "ls-tree", "-r", "--name-only", "HEAD", "topics/").split() == [
        "topics/core.md", "topics/people/ada.md", "topics/projects/build-cache.md"]
    assert git(ws, "status", "--porcelain").splitlines() == [" M topics/people/ada.md"]


class Crash(BaseException):
    """Stands for the process dying between the files' replacement and the commit."""


def test_a_crash_rolled_forward_commits_the_journal_paths_only(seeded: Seeded, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = seeded.ws
    staged = hand_edit(ws)
    head_before = git(ws, "rev-parse", "HEAD").strip()

    def hook(point: str) -> None:
        if point == "installed":
            raise Crash(point)
    monkeypatch.setattr(install, "crash_hook", hook)
    with pytest.raises(Crash):
        with Transaction(ws, "edit", "crash before the commit") as txn:
            txn.write_topic("people/ada.md", txn.read_topic("people/ada.md").replace("green tea", "oolong"))
            txn.commit()
    monkeypatch.setattr(install, "crash_hook", None)
    assert git(ws, "rev-parse", "HEAD").strip() == head_before  # crashed before committing

    reopened = Workspace.open(ws.state_dir)  # rolls the journal forward
    assert git(reopened, "rev-parse", "HEAD").strip() != head_before
    assert git(reopened, "log", "-1", "--format=%s") == "edit: crash before the commit\n"
    paths = committed_paths(reopened)
    assert "topics/people/ada.md" in paths and "topics/projects/cache.md" not in paths
    assert git(reopened, "ls-files", "-s", "topics/projects/cache.md") == staged
    assert git(reopened, "status", "--porcelain").splitlines() == ["M  topics/projects/cache.md"]


def test_more_path_bytes_than_a_command_line_holds_commit_in_one_install(ws: Workspace) -> None:
    """The path list goes to git NUL-separated on stdin, never on the command line: 600
    paths of ~3.4 kB are ~2 MB, past ARG_MAX (E2BIG were they arguments)."""
    deep = "/".join(["d" * 240] * 14)
    with Transaction(ws, "edit", "many deep topics") as txn:
        for n in range(600):
            txn.write_topic(f"{deep}/topic-{n:04}.md", f"# Topic {n}\n\nFact number {n}.\n")
        result = txn.commit()
    assert result.outcome == "installed", result.diagnostics[:3]
    paths = committed_paths(ws)
    assert len([p for p in paths if p.startswith("topics/d")]) == 600 and sum(map(len, paths)) > 2_000_000
    assert git_agrees(ws)


def test_a_rolled_back_install_leaves_the_persons_index_alone(seeded: Seeded, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = seeded.ws
    staged = hand_edit(ws)
    head_before = git(ws, "rev-parse", "HEAD").strip()

    def hook(point: str) -> None:
        if point == "installed":
            raise OSError("disk gone")
    monkeypatch.setattr(install, "crash_hook", hook)
    with pytest.raises(InstallError):
        with Transaction(ws, "edit", "rolled back") as txn:
            txn.write_topic("people/ada.md", txn.read_topic("people/ada.md").replace("green tea", "oolong"))
            txn.commit()
    assert git(ws, "rev-parse", "HEAD").strip() == head_before
    assert git(ws, "ls-files", "-s", "topics/projects/cache.md") == staged  # still staged: no reset
    assert git(ws, "status", "--porcelain").splitlines() == ["M  topics/projects/cache.md"]


def test_a_stale_index_lock_does_not_unstage_the_persons_work(seeded: Seeded) -> None:
    ws = seeded.ws
    staged = hand_edit(ws)
    lock = ws.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    past = time.time() - 5
    os.utime(lock, (past, past))  # a git killed before this process took the write lock
    later = Workspace(ws.state_dir)
    with Transaction(later, "edit", "after a killed git") as txn:
        txn.write_topic("people/ada.md", txn.read_topic("people/ada.md").replace("green tea", "oolong"))
        assert txn.commit().outcome == "installed"
    assert not lock.exists()
    assert git(later, "ls-files", "-s", "topics/projects/cache.md") == staged
    assert git(later, "status", "--porcelain").splitlines() == ["M  topics/projects/cache.md"]
