"""Stale git lock files: what a git process killed mid-write leaves behind.

git guards its index and refs with `<name>.lock` files it creates exclusively and
renames into place; a git killed in between leaves the lock and every later git
command that writes fails ("Unable to create '…/index.lock': File exists"). Nothing
else ever removes it, so one kill would wedge a repository for good.

A lock file is stale when it has no live owner. Scriptorium runs git in its
repositories only while holding its own file lock (the session's `lock`, the
workspace's `write.lock`, the memory's first-commit lock); so while we hold ours, a
git lock file older than the moment we acquired it was made by an earlier holder,
which has released its lock — by finishing or by dying. A lock newer than that is
left alone (someone running git by hand right now). Callers clear stale locks
right after acquiring their own and before rolling forward or back.
"""

from __future__ import annotations

import os
from pathlib import Path

# The lock files git's writing commands create at the top of the git directory.
_TOP_LOCKS = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "packed-refs.lock", "config.lock")


def _branch_lock(git_dir: Path) -> str | None:
    """`refs/heads/<branch>.lock` for the branch HEAD names (a commit updates that ref)."""
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if head.startswith("ref: refs/") and ".." not in head:
        return head[len("ref: "):] + ".lock"
    return None


def clear_stale_locks(git_dir: Path, held_since: float) -> list[str]:
    """Remove the git lock files under `git_dir` last modified before `held_since` (the
    time the caller acquired its own file lock, which it still holds); the names removed,
    relative to `git_dir`."""
    names = list(_TOP_LOCKS)
    if (branch := _branch_lock(git_dir)) is not None:
        names.append(branch)
    removed = []
    for name in names:
        path = os.path.join(git_dir, name)
        try:
            if os.lstat(path).st_mtime < held_since:
                os.unlink(path)
                removed.append(name)
        except FileNotFoundError:
            continue
    return removed
