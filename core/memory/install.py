"""Install a validated transaction all or nothing, and repair a crashed one on open.

A redo journal with a backup:

1. `prepared` — every new file's bytes are written (and synced) to
   `<mem>/.scriptorium-block-backup/<n>.new`, and every file about to be replaced
   or deleted is hard-linked as `…/<n>.old` (the old inode survives the replace).
2. `journal` — `.scriptorium/journal.json` is written atomically: from here on the
   transaction will be completed.
3. `replace` — each file is moved into place (`os.replace`) or deleted.
4. `installed` — then `committed` (git: exactly the journal's paths, built in a
   temporary index so whatever a person staged or left untracked stays out and stays
   as it was; history.py) and `audited` (audit log), then cleanup.

A crash before the journal exists leaves the workspace untouched (the next open
deletes the stray backup). A crash after it is rolled forward on the next open:
moving the remaining files is idempotent, the commit is made unless HEAD already
carries the transaction's trailer, the audit record is appended unless present.
An exception inside this process before the commit rolls back from `old/`
instead (journal phase `rollback`, which a crash mid-rollback also completes).
The backup is flat (numbered files, one directory): directory operations are the
slow part of an install on a real disk.
Either way the workspace ends as the old one or the new one, never a mix, and git
agrees with the files.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from ..fsutil import atomic_write_text, fsync_dir, write_synced_many
from ..paths import INSTALL_BACKUP, INSTALL_JOURNAL
from . import audit, history
from .errors import InstallError, RepositoryBusy, SymlinkRefused

JOURNAL = INSTALL_JOURNAL  # readers look for it too (reading.py), without loading this module
BACKUP = INSTALL_BACKUP

# Fault injection: called with the name of each install step ("prepared", "journal",
# "replace" after every file, "installed", "committed", "audited") and, through
# `checkpoint`, of each step boundary of a write pass ("batch-archived",
# "batch-installed": see writer/pipeline.py). Tests and bench/stress.py set it to
# crash there; it is None in normal operation.
crash_hook: Callable[[str], None] | None = None


def checkpoint(name: str) -> None:
    if crash_hook is not None:
        crash_hook(name)


@dataclass(frozen=True)
class Change:
    path: str  # relative to the workspace root
    data: bytes | None  # None: delete the file


def refuse_symlinks(root: Path, rel: str) -> None:
    """Raise `SymlinkRefused` when any part of `root/rel` below `root` is a symbolic link."""
    path = root
    for part in Path(rel).parts:
        path = path / part
        if path.is_symlink():
            raise SymlinkRefused(f"refused: {path.relative_to(root).as_posix()} is a symbolic link "
                                 "(memory is never written through one; replace it by a real directory or file)")


def refuse_mid_operation(root: Path) -> None:
    """Refuse (`RepositoryBusy`, nothing changed) while the memory repository is mid-merge,
    mid-rebase or on a detached HEAD: an install's commit would conclude or bury that."""
    git_dir = root / ".git"
    for name, what in (("MERGE_HEAD", "an unfinished merge"), ("rebase-merge", "an unfinished rebase"),
                       ("rebase-apply", "an unfinished rebase"), ("CHERRY_PICK_HEAD", "an unfinished cherry-pick"),
                       ("REVERT_HEAD", "an unfinished revert")):
        if os.path.lexists(git_dir / name):
            raise RepositoryBusy(f"the memory repository is in {what}; finish or abort it (git -C {root}) first")
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    if not head.startswith("ref: "):
        raise RepositoryBusy(f"the memory repository is on a detached HEAD; check out its branch (git -C {root}) first")


def _prune_empty(directory: Path, root: Path) -> None:
    """Remove empty directories left by deletions, below the top-level names."""
    while directory != root and directory.parent != root:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _apply(root: Path, entries: list[dict[str, Any]]) -> None:
    touched: set[Path] = set()
    for entry in entries:
        refuse_symlinks(root, entry["path"])  # one planted since the journal was written
        target = root / entry["path"]
        if entry["write"]:
            staged = root / BACKUP / f"{entry['slot']}.new"
            if staged.exists():  # else: moved into place before a crash
                target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.replace(staged, target)
                os.chmod(target, 0o600)
        else:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
            _prune_empty(target.parent, root)
        touched.add(target.parent)
        checkpoint("replace")
    for directory in touched:
        fsync_dir(directory)


def _restore(root: Path, entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        target = root / entry["path"]
        if entry["existed"]:
            kept = root / BACKUP / f"{entry['slot']}.old"
            if kept.exists():
                target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.replace(kept, target)
        else:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
            _prune_empty(target.parent, root)


def _cleanup(root: Path, runtime: Path) -> None:
    shutil.rmtree(root / BACKUP, ignore_errors=True)
    try:
        (runtime / JOURNAL).unlink()
    except FileNotFoundError:
        pass


def _finish(root: Path, runtime: Path, journal: dict[str, Any], sha: str | None) -> None:
    # Only what changed memory is audited: an install of runtime counters alone (a sleep
    # that found nothing to reorganize still resets its due counters) is bookkeeping.
    if journal["commit"] and not audit.has_record(runtime, journal["txn"]):
        audit.append_record(runtime, dict(journal["audit"], commit=sha))
    checkpoint("audited")
    _cleanup(root, runtime)


def _commit_once(repo: git.Repo, journal: dict[str, Any]) -> str | None:
    """Commit the journal's own paths (written or deleted), unless HEAD already carries
    the transaction; either way the person's index is brought up to date for them (a
    crash between the commit and that leaves it to the roll forward)."""
    paths = [entry["path"] for entry in journal["entries"]]
    if history.head_transaction(repo) == journal["txn"]:
        history.sync_index(repo, paths)
        return history.head_sha(repo)
    return history.commit(repo, journal["message"], journal["txn"], paths) if journal["commit"] else None


def install(
    root: Path, runtime: Path, repo: git.Repo, changes: list[Change], *,
    txn: str, message: str, audit_record: dict[str, Any],
) -> str | None:
    """Install `changes` (paths relative to `root`); returns the commit sha (None when
    no versioned file changed). Raises `InstallError` after rolling back."""
    refuse_mid_operation(root)
    for change in changes:
        refuse_symlinks(root, change.path)  # before anything changed
    backup = root / BACKUP
    shutil.rmtree(backup, ignore_errors=True)
    entries: list[dict[str, Any]] = []
    journal = {"txn": txn, "phase": "install", "message": message, "entries": entries, "audit": audit_record,
               "commit": any(not c.path.startswith(runtime.name + "/") for c in changes)}
    try:
        backup.mkdir(mode=0o700)
        staged: list[tuple[Path | str, bytes]] = []
        for slot, change in enumerate(changes):
            target = root / change.path
            existed = target.is_file()
            if change.data is not None:
                staged.append((backup / f"{slot}.new", change.data))
            if existed:
                os.link(target, backup / f"{slot}.old")
            entries.append(
                {"slot": slot, "path": change.path, "write": change.data is not None, "existed": existed})
        write_synced_many(staged)  # fsynced together: one journal commit of the file system, not one per file
        fsync_dir(backup)
        checkpoint("prepared")
        atomic_write_text(runtime / JOURNAL, json.dumps(journal, ensure_ascii=False))
    except Exception as exc:
        shutil.rmtree(backup, ignore_errors=True)
        raise InstallError(f"install failed before anything changed: {exc}") from exc
    try:
        checkpoint("journal")
        _apply(root, entries)
        checkpoint("installed")
        sha = _commit_once(repo, journal)
        checkpoint("committed")
    except Exception as exc:
        if history.head_transaction(repo) == txn:  # the commit landed: finish instead
            sha = history.head_sha(repo)
            history.sync_index(repo, [entry["path"] for entry in entries])
            _finish(root, runtime, journal, sha)
            return sha
        _rollback(root, runtime, journal)
        raise InstallError(f"install failed and was rolled back: {exc}") from exc
    _finish(root, runtime, journal, sha)
    return sha


def _rollback(root: Path, runtime: Path, journal: dict[str, Any]) -> None:
    atomic_write_text(runtime / JOURNAL, json.dumps(dict(journal, phase="rollback"), ensure_ascii=False))
    _restore(root, journal["entries"])  # (the person's index was not touched: commits are built aside)
    _cleanup(root, runtime)


def recover(root: Path, runtime: Path, repo: git.Repo) -> bool:
    """Complete or undo an install a crash interrupted. Call with the write lock held,
    after clearing stale git locks (git_locks.py). The person's index is never reset:
    an install stages nothing in it before its commit lands (history.commit), so a
    killed one left nothing half-staged there, and what the person staged stays staged.
    Returns True when there was something to repair."""
    path = runtime / JOURNAL
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if (root / BACKUP).exists():
            shutil.rmtree(root / BACKUP, ignore_errors=True)  # crashed before the journal: nothing installed
            return True
        return False
    except ValueError:
        journal = None
    if not isinstance(journal, dict) or journal.get("phase") not in ("install", "rollback"):
        # An atomic write cannot leave a torn journal; a foreign one is not ours to act on.
        raise InstallError(f"unreadable install journal {path}; inspect it and remove it to continue")
    if journal["phase"] == "rollback":
        _restore(root, journal["entries"])
        _cleanup(root, runtime)
        return True
    _apply(root, journal["entries"])
    sha = _commit_once(repo, journal)
    _finish(root, runtime, journal, sha)
    return True
