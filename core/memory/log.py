"""The memory history read back from the workspace's git repository: the commits newest
first, what one commit changed, and the commits that changed one block.

The TUI's History screen and block inspector and `scriptorium log --block` read git
only through here. Reading writes nothing: a workspace without a repository (or
without a first commit) has no history. Summaries, paths and diffs quote memory and
conversations: callers display them as untrusted text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import git

from .topics import parse_cached
from .transaction.lifecycle import KINDS

DIFF_PATHS = ("topics", "core.md")  # what a person reads; sources/ are append-only evidence
BLOCK_SCAN = 200  # commits touching topics/ looked at for one block's history
_RECORD, _FIELD = "\x1e", "\x1f"

Change = Literal["created", "edited", "moved", "removed"]


@dataclass(frozen=True)
class Commit:
    sha: str
    kind: str  # write / sleep / edit / revert / migrate; "" for a commit not made by a transaction
    summary: str
    at: float  # commit time, epoch seconds
    files: tuple[str, ...]  # every path the commit changed

    @property
    def topic_files(self) -> list[str]:
        return [f for f in self.files if f.startswith("topics/")]


@dataclass(frozen=True)
class CommitChanges:
    diff: str  # the unified diff of topics/ and core.md
    stats: list[tuple[str, int | None, int | None]]  # every changed path, lines added, removed (None: binary)
    has_parent: bool


@dataclass(frozen=True)
class BlockChange:
    commit: str
    at: float
    summary: str  # the commit's subject
    change: Change
    path: str | None  # where the block is after the commit, relative to topics/ (None once removed)

    def to_json(self) -> dict[str, Any]:
        """`scriptorium log --block --json`: the time as the audit records write it (ISO, UTC)."""
        at = datetime.fromtimestamp(self.at, timezone.utc).isoformat(timespec="seconds")
        return {"commit": self.commit, "at": at, "summary": self.summary, "change": self.change,
                "path": self.path}


@contextmanager
def _repo(root: Path) -> Iterator[git.Repo | None]:
    """The workspace's repository, or None when there is no history to read."""
    if not (Path(root) / ".git").is_dir():
        yield None
        return
    with git.Repo(root) as repo:
        yield repo if repo.head.is_valid() else None


def _git(repo: git.Repo, *args: str) -> str:
    """A git command in the workspace repository; paths printed as they are, not quoted."""
    return str(repo.git.execute(["git", "-c", "core.quotepath=off", *args]))


def split_subject(subject: str) -> tuple[str, str]:
    """(kind, summary) of a transaction's commit subject ("edit: ..."); ("", subject) otherwise."""
    kind, sep, rest = subject.partition(": ")
    return (kind, rest) if sep and kind in KINDS else ("", subject)


def commits(root: Path, limit: int) -> list[Commit]:
    """The newest `limit` commits of the workspace at `root`, newest first."""
    with _repo(root) as repo:
        if repo is None:
            return []
        out = _git(repo, "log", f"-n{limit}", f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%s", "--name-only", "HEAD")
    rows = []
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        head, _, rest = record.partition("\n")
        sha, at, subject = head.split(_FIELD, 2)
        kind, summary = split_subject(subject)
        rows.append(Commit(sha, kind, summary, float(at), tuple(line for line in rest.splitlines() if line.strip())))
    return rows


def _diff(repo: git.Repo, sha: str) -> str:
    return _git(repo, "show", "--format=", "--patch", "--no-color", "--no-renames", sha, "--", *DIFF_PATHS)


def commit_diff(root: Path, sha: str) -> str:
    """The unified diff commit `sha` made to the topics and the rendered core ("" without a history)."""
    with _repo(root) as repo:
        return "" if repo is None else _diff(repo, sha)


def commit_changes(root: Path, sha: str) -> CommitChanges | None:
    """The diff, per-file line counts and parentage of commit `sha` (None without a history)."""
    with _repo(root) as repo:
        if repo is None:
            return None
        stats = []
        for line in _git(repo, "show", "--format=", "--numstat", "--no-renames", sha).splitlines():
            added, removed, path = line.split("\t", 2)
            stats.append((path, int(added) if added.isdigit() else None, int(removed) if removed.isdigit() else None))
        return CommitChanges(_diff(repo, sha), stats, bool(repo.commit(sha).parents))


def _block_at(commit: git.Commit | None, files: list[str], block_id: str) -> tuple[str, str] | None:
    """(topic path, paragraph text) of the block in `files` at `commit`, if one holds it."""
    if commit is None:
        return None
    for name in files:
        try:
            blob = commit.tree / name
        except KeyError:
            continue
        rel = name.removeprefix("topics/")
        doc = parse_cached(rel, blob.data_stream.read().decode("utf-8", errors="replace"))
        paragraph = next((p for p in doc.paragraphs if block_id in p.ids), None)
        if paragraph is not None:
            return rel, paragraph.text
    return None


def block_history(root: Path, block_id: str, limit: int = BLOCK_SCAN) -> list[BlockChange]:
    """The commits (newest first) among the last `limit` that changed topics/ and changed
    this block: it appeared, its paragraph changed, it moved to another file, or it went."""
    out = []
    with _repo(root) as repo:
        if repo is None:
            return []
        log = _git(repo, "log", f"-n{limit}", f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%s", "--name-only",
                   "--no-renames", "--", "topics")
        for record in log.split(_RECORD)[1:]:
            head, _, names = record.partition("\n")
            sha, stamp, summary = head.split(_FIELD, 2)
            files = [n for n in names.split("\n") if n.endswith(".md")]
            commit = repo.commit(sha)
            after = _block_at(commit, files, block_id)
            before = _block_at(commit.parents[0] if commit.parents else None, files, block_id)
            if after == before:
                continue
            change: Change
            if before is None:
                change = "created"
            elif after is None:
                change = "removed"
            else:
                change = "moved" if after[0] != before[0] else "edited"
            out.append(BlockChange(sha, float(stamp), summary, change, after[0] if after else None))
    return out
