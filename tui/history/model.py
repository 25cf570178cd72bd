"""What the History screen shows: the workspace's commits (kind, time, summary, changed
files) and, for one commit, its audit record and its diff — read through
`scriptorium.core.memory.log` and the workspace's audit log.

No Textual here; every function runs in a worker thread (the memory package, and
GitPython with it, is imported there, not with the app). Reading creates nothing: a
state without memory has no history. Summaries, paths and diffs quote memory and
conversations: the screen shows them as untrusted text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scriptorium.core.memory import TransactionResult
    from scriptorium.core.memory.log import Commit

MAX_COMMITS = 1000
MAX_DIFF_CHARS = 400_000


@dataclass(frozen=True)
class CommitDetail:
    row: Commit
    audit: dict[str, Any] | None  # the transaction's audit record, when there is one
    diff: str  # topics/ and core.md
    stats: list[tuple[str, int | None, int | None]] = field(default_factory=list)  # path, added, removed
    truncated: bool = False
    revertable: bool = False  # has a parent and changed a topic


def list_commits(state_dir: Path, limit: int = MAX_COMMITS) -> list[Commit]:
    """The newest `limit` commits, newest first."""
    from scriptorium.core.memory import Workspace
    from scriptorium.core.memory.log import commits

    return commits(Workspace(state_dir).root, limit)


def load_commit(state_dir: Path, row: Commit) -> CommitDetail:
    """The audit record, per-file line counts and the diff of one commit."""
    from scriptorium.core.memory import Workspace, read_consistent
    from scriptorium.core.memory.log import commit_changes

    workspace = Workspace(state_dir)
    changes = commit_changes(workspace.root, row.sha)
    if changes is None:
        return CommitDetail(row, None, "")
    records = read_consistent(state_dir, lambda state: Workspace(state).audit_log())  # never half an install
    audit = next((r for r in records if r.get("commit") == row.sha), None)
    return CommitDetail(row, audit, changes.diff[:MAX_DIFF_CHARS], changes.stats, len(changes.diff) > MAX_DIFF_CHARS,
                        changes.has_parent and bool(row.topic_files))


def revert(state_dir: Path, sha: str) -> tuple[TransactionResult | None, str]:
    """Undo commit `sha` as a new, validated `revert` transaction: its result (installed or
    rejected), or None and why it could not run at all."""
    from scriptorium.core.memory import Workspace, WorkspaceError
    from scriptorium.core.memory.revert import revert_commit

    try:
        return revert_commit(Workspace.open(state_dir), sha), ""
    except WorkspaceError as exc:
        return None, str(exc)
