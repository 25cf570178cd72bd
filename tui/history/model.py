"""What the History screen shows: the workspace's commits (kind, time, summary, changed
files) and, for one commit, its audit record and its diff — read from the workspace's
git repository and audit log.

No Textual here; every function runs in a worker thread (GitPython is imported there,
not with the app). Reading creates nothing: a state without memory has no history.
Summaries, paths and diffs quote memory and conversations: the screen shows them as
untrusted text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scriptorium.core.paths import StatePaths

MAX_COMMITS = 1000
DIFF_PATHS = ("topics", "core.md")  # what a person reads; sources/ are append-only evidence
MAX_DIFF_CHARS = 400_000
_RECORD, _FIELD = "\x1e", "\x1f"


@dataclass(frozen=True)
class CommitRow:
    sha: str
    kind: str  # write / sleep / edit / revert / migrate; "" for a commit not made by a transaction
    summary: str
    at: float  # commit time, epoch seconds
    files: tuple[str, ...]  # every path the commit changed

    @property
    def topic_files(self) -> list[str]:
        return [f for f in self.files if f.startswith("topics/")]


@dataclass(frozen=True)
class CommitDetail:
    row: CommitRow
    audit: dict[str, Any] | None  # the transaction's audit record, when there is one
    diff: str  # topics/ and core.md
    stats: list[tuple[str, int | None, int | None]] = field(default_factory=list)  # path, added, removed
    truncated: bool = False
    revertable: bool = False  # has a parent and changed a topic


def _repo(state_dir: Path):
    import git

    root = StatePaths(Path(state_dir)).memory
    if not (root / ".git").is_dir():
        return None
    repo = git.Repo(root)
    return repo if repo.head.is_valid() else None


def _git(repo: Any, *args: str) -> str:
    """A git command in the workspace repository; paths printed as they are, not quoted."""
    return repo.git.execute(["git", "-c", "core.quotepath=off", *args])


def _split(subject: str) -> tuple[str, str]:
    from scriptorium.core.memory import KINDS

    kind, sep, rest = subject.partition(": ")
    return (kind, rest) if sep and kind in KINDS else ("", subject)


def list_commits(state_dir: Path, limit: int = MAX_COMMITS) -> list[CommitRow]:
    """The newest `limit` commits, newest first."""
    repo = _repo(state_dir)
    if repo is None:
        return []
    out = _git(repo, "log", f"-n{limit}", f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%s", "--name-only", "HEAD")
    rows = []
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        head, _, rest = record.partition("\n")
        sha, at, subject = head.split(_FIELD, 2)
        kind, summary = _split(subject)
        files = tuple(line for line in rest.splitlines() if line.strip())
        rows.append(CommitRow(sha, kind, summary, float(at), files))
    return rows


def load_commit(state_dir: Path, row: CommitRow) -> CommitDetail:
    """The audit record, per-file line counts and the diff of one commit."""
    from scriptorium.core.memory import Workspace

    repo = _repo(state_dir)
    if repo is None:
        return CommitDetail(row, None, "")
    diff = commit_diff(repo, row.sha)
    truncated = len(diff) > MAX_DIFF_CHARS
    stats = []
    for line in _git(repo, "show", "--format=", "--numstat", "--no-renames", row.sha).splitlines():
        added, removed, path = line.split("\t", 2)
        stats.append((path, int(added) if added.isdigit() else None, int(removed) if removed.isdigit() else None))
    audit = next((r for r in Workspace(state_dir).audit_log() if r.get("commit") == row.sha), None)
    revertable = bool(repo.commit(row.sha).parents) and bool(row.topic_files)
    return CommitDetail(row, audit, diff[:MAX_DIFF_CHARS], stats, truncated, revertable)


def commit_diff(repo: Any, sha: str) -> str:
    """The unified diff a commit made to the topics and the rendered core."""
    return _git(repo, "show", "--format=", "--patch", "--no-color", "--no-renames", sha, "--", *DIFF_PATHS)


def installed_diff(state_dir: Path, sha: str) -> str:
    """`commit_diff` by state directory (the Sleep screen's result after an install)."""
    repo = _repo(state_dir)
    return "" if repo is None else commit_diff(repo, sha)[:MAX_DIFF_CHARS]
