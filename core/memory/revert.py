"""Revert a commit of the workspace history: a new, validated `revert` transaction.

The inverse of the commit's topic changes is laid onto the current topics one file at
a time by a three-way merge (`git merge-file`: the current text, the commit's text as
the base, its parent's text as the other side), so later edits elsewhere in a file
survive, as with `git revert`. Blocks the inverse takes out are retired with a reason
naming the commit; the transaction then judges the result like any other edit. What
would break later memory is rejected with diagnostics, never forced: later changes
overlapping the commit's (a merge conflict, reported at the current line and block),
or a later block linking to a block the revert takes out (`link-resolves`).

Only topics are reverted: sources are append-only evidence, the derived views are
rebuilt by the transaction. A block the commit retired comes back as a new block:
the retired-id registry never hands an id out twice.
"""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import git

from .errors import WorkspaceError
from .topics import parse_cached
from .transaction.lifecycle import LOCK_TIMEOUT, Transaction
from .transaction.result import TransactionResult
from .validate import Diagnostic

if TYPE_CHECKING:
    from .workspace import Workspace

TOPICS = "topics/"
CONFLICT_HINT = "change the topic by hand instead, or revert the later commits that touched it first"


class RevertError(WorkspaceError):
    """The commit cannot be reverted at all (unknown, the first one, nothing to undo)."""

    code = "INVALID_ARGUMENT"


def revert_commit(workspace: Workspace, sha: str, *, lock_timeout: float = LOCK_TIMEOUT) -> TransactionResult:
    """Undo commit `sha`'s topic changes as a new `revert` commit; a rejection (with
    diagnostics) changes nothing. Raises `RevertError` when there is nothing to revert."""
    repo = workspace.repo
    commit = _resolve(repo, sha)
    short = commit.hexsha[:12]
    subject = str(commit.message).splitlines()[0] if commit.message else ""
    with Transaction(workspace, "revert", f"undo {short} ({subject})", lock_timeout=lock_timeout) as txn:
        parent = commit.parents[0]
        paths = repo.git.diff_tree("--no-renames", "-r", "--name-only", "-z", parent.hexsha, commit.hexsha,
                                   "--", TOPICS.rstrip("/")).split("\0")
        paths = sorted(p for p in paths if p.startswith(TOPICS) and p.endswith(".md"))
        if not paths:
            raise RevertError(f"commit {short} changed no topic: nothing to revert")
        merged: dict[str, bytes] = {}
        conflicts: list[Diagnostic] = []
        with tempfile.TemporaryDirectory(prefix="scriptorium-revert-") as tmp:
            for path in paths:
                rel = path[len(TOPICS):]
                ours = _live(txn, rel)
                text, clean = _merge(repo, Path(tmp), ours, _blob(commit, path), _blob(parent, path), short)
                if clean:
                    merged[rel] = text
                else:
                    conflicts.append(_conflict(path, rel, ours, text, short))
        if conflicts:
            return TransactionResult("rejected", "revert", txn.summary, diagnostics=conflicts)
        if all(merged[rel] == _live(txn, rel) for rel in merged):
            raise RevertError(f"nothing to revert: the topic changes of {short} are already undone")
        removed = set()
        for rel, text in merged.items():
            removed |= _ids(rel, _live(txn, rel)) - _ids(rel, text)
            if text.strip():
                txn.write_topic(rel, text)
            else:
                txn.delete_topic(rel)
        for block_id in sorted(removed):
            txn.retire(block_id, f"reverted with commit {short}")
        return txn.commit()


def _resolve(repo: git.Repo, sha: str) -> git.Commit:
    try:
        if sha.startswith("-"):
            raise ValueError(sha)
        commit = repo.commit(repo.git.rev_parse("--verify", "--quiet", f"{sha}^{{commit}}"))
    except (git.GitCommandError, ValueError) as exc:
        raise RevertError(f"no such commit in the memory history: {sha}") from exc
    if not repo.head.is_valid() or not repo.is_ancestor(commit, repo.head.commit):
        raise RevertError(f"commit {sha} is not in the memory history")
    if not commit.parents:
        raise RevertError("the first commit of the memory history cannot be reverted")
    return commit


def _blob(commit: git.Commit, path: str) -> bytes:
    try:
        return commit.tree[path].data_stream.read()
    except KeyError:
        return b""  # absent on that side: the empty text


def _live(txn: Transaction, rel: str) -> bytes:
    text = txn.live_text(rel)
    return b"" if text is None else text.encode("utf-8")


def _ids(rel: str, data: bytes) -> set[str]:
    return set(parse_cached(rel, data.decode("utf-8", errors="replace")).id_set) if data else set()


def _merge(repo: git.Repo, tmp: Path, ours: bytes, base: bytes, theirs: bytes, short: str) -> tuple[bytes, bool]:
    """`theirs`' change from `base` laid onto `ours`; False when they overlap."""
    files = []
    for name, data in (("current", ours), ("base", base), ("other", theirs)):
        (tmp / name).write_bytes(data)
        files.append(str(tmp / name))
    status, out, err = repo.git.merge_file(
        "-p", "-L", "current", "-L", short, "-L", f"before {short}", *files,
        with_extended_output=True, with_exceptions=False, stdout_as_string=False,
        strip_newline_in_stdout=False)
    if status < 0 or status > 127:
        detail = err.decode("utf-8", errors="replace") if isinstance(err, bytes) else err
        raise WorkspaceError(f"git merge-file failed: {detail}")
    return out, status == 0


def _conflict(path: str, rel: str, ours: bytes, merged: bytes, short: str) -> Diagnostic:
    """Where in the current text the first overlap begins, and the block there."""
    current = ours.decode("utf-8", errors="replace").split("\n")
    result = merged.decode("utf-8", errors="replace").split("\n")
    start = next(i for i, line in enumerate(result) if line.startswith("<<<<<<< "))
    index = len(current)
    for a, b, size in difflib.SequenceMatcher(None, current, result, autojunk=False).get_matching_blocks():
        if b + size > start + 1:
            index = a + max(0, start + 1 - b)
            break
    line = min(index, max(len(current) - 1, 0)) + 1
    doc = parse_cached(rel, ours.decode("utf-8", errors="replace"))
    block = next((p.block_id for p in doc.blocks if p.start < line <= p.end), None)
    return Diagnostic("conflict", path, line, block, f"later changes overlap what {short} changed here", CONFLICT_HINT)
