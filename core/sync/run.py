"""`scriptorium sync`: fetch, merge by block, validate, install, push (DESIGN §17).

1. fetch the remote's memory (unreachable: retryable, nothing changed);
2. an empty remote, or one we already contain: push, done;
3. otherwise merge the three trees (merge base, ours, theirs): topics by block
   (`blocks.py`), evidence by record (`evidence.py`), the shared workspace ids by union;
   derived views are never merged, the transaction rebuilds them;
4. install the result through the transaction (kind `sync`): what does not validate is
   refused and nothing changes here;
5. join the histories with a merge commit holding the installed tree, and push it. A push
   refused because the remote moved starts again at 1 (a few times).

A crash anywhere leaves a valid workspace: the install has its journal, and a merge commit
not yet made or pushed is simply made again by the next sync (merging what we already hold
changes nothing).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_text
from ..outcome import Outcome, exit_code
from ..memory import install
from ..memory.errors import LockBusy, WorkspaceError
from ..memory.names import name_problem
from ..memory import Transaction
from ..memory.transaction.lifecycle import LOCK_TIMEOUT
from ..memory.workspace import Workspace
from ..sessions.marker import SHARED_IDS_FILE, read_shared_ids
from . import remote as git_remote
from .blocks import merge_topics
from .evidence import merge_archives

ATTEMPTS = 3
STATUS_FILE = "sync.json"


@dataclass
class SyncResult:
    outcome: Outcome
    code: str
    message: str
    remote: str | None = None
    pushed: bool = False
    pulled_blocks: int = 0
    added_records: int = 0
    commit: str | None = None
    conflicts: list[dict[str, str]] = field(default_factory=list)
    reports: list[str] = field(default_factory=list)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    at: str = ""

    @property
    def exit_code(self) -> int:
        return exit_code(self.outcome)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def choose_remote(root: Path, name: str | None) -> str:
    remotes = git_remote.list_remotes(root)
    if name is not None:
        if not any(r.name == name for r in remotes):
            raise git_remote.RemoteError(f"no remote named {name!r} (scriptorium remote list)")
        return name
    if not remotes:
        raise git_remote.RemoteError("no remote set: scriptorium remote add NAME URL")
    if len(remotes) > 1 and not any(r.name == "origin" for r in remotes):
        raise git_remote.RemoteError("several remotes: name the one to sync with")
    return "origin" if any(r.name == "origin" for r in remotes) else remotes[0].name


def sync(state_dir: str | os.PathLike[str], name: str | None = None, *,
         lock_timeout: float = LOCK_TIMEOUT) -> SyncResult:
    """One sync with remote `name` (default: the only one, or `origin`)."""
    ws = Workspace.open(state_dir)
    try:
        name = choose_remote(ws.root, name)
        result = _sync(ws, name, lock_timeout)
    except git_remote.RemoteUnreachable as e:
        result = SyncResult("retryable", e.code, str(e), remote=name)
    except LockBusy as e:
        result = SyncResult("retryable", e.code, "memory is busy (another write holds the lock); try again", remote=name)
    except (git_remote.RemoteError, WorkspaceError) as e:
        result = SyncResult("permanent", e.code, str(e), remote=name)
    result.at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _save_status(ws, result)
    return result


def _shared_ids_file(ids: list[str]) -> bytes:
    return (json.dumps({"workspaces": sorted(set(ids))}, indent=2) + "\n").encode()


def _join_shared_ids(ws: Workspace, lock_timeout: float) -> None:
    """Put this workspace's id into the versioned list before memory leaves the machine,
    so every tree on the remote names the workspaces that wrote it (their marks count)."""
    path = ws.root / SHARED_IDS_FILE
    current = read_shared_ids(path.read_bytes() if path.exists() else None)
    if ws.id in current:
        return
    with Transaction(ws, "sync", "join this machine to the shared memory", lock_timeout=lock_timeout) as txn:
        txn.write_versioned(SHARED_IDS_FILE, _shared_ids_file([*current, ws.id]))
        txn.commit()


def _sync(ws: Workspace, name: str, lock_timeout: float) -> SyncResult:
    root = ws.root
    for _attempt in range(ATTEMPTS):
        theirs = git_remote.fetch(root, name)
        install.checkpoint("sync-fetched")
        _join_shared_ids(ws, lock_timeout)  # after the fetch: an unreachable remote changes nothing
        ours = git_remote.rev(root, "HEAD")
        if theirs is None or (ours and git_remote.is_ancestor(root, theirs, ours)):
            if ours is None or ours == theirs:
                return SyncResult("ok", "UP_TO_DATE", f"memory is the same as {name}'s", remote=name)
            if git_remote.push(root, name, ours):
                return SyncResult("ok", "PUSHED", f"pushed memory to {name}", remote=name, pushed=True, commit=ours)
            continue
        merged = _merge(ws, name, ours, theirs, lock_timeout)
        if merged.outcome != "ok":
            return merged
        install.checkpoint("sync-installed")
        if git_remote.push(root, name, merged.commit or ""):
            merged.pushed = True
            return merged
    return SyncResult("retryable", "REMOTE_MOVED", f"{name} kept moving while syncing; try again", remote=name)


def _merge(ws: Workspace, name: str, ours: str | None, theirs: str, lock_timeout: float) -> SyncResult:
    root = ws.root
    base = git_remote.merge_base(root, ours, theirs) if ours else None
    travels = ("topics/", "sources/", SHARED_IDS_FILE)
    if base is None:  # nothing shared yet: everything is new to one side
        paths: set[str] = {"topics", "sources", SHARED_IDS_FILE}
    else:  # only what changed on either side since the base: the cost follows the change
        assert ours is not None  # a base exists only when both sides have commits
        paths = {p for p in git_remote.changed_paths(root, base, ours) | git_remote.changed_paths(root, base, theirs)
                 if p.startswith(travels)} | {SHARED_IDS_FILE}  # (tiny, and the ids are a union)
    trees = [git_remote.tree_files(root, sha, paths) if paths else {} for sha in (base, ours, theirs)]
    topics = [{p[len("topics/"):]: _text(d) for p, d in t.items()  # names memory accepts only (names.py)
               if p.startswith("topics/") and name_problem(p[len("topics/"):]) is None} for t in trees]
    sources = [{p: d for p, d in t.items() if p.startswith("sources/")} for t in trees]
    blocks = merge_topics(*topics, remote=name)
    evidence = merge_archives(*sources)
    if evidence.errors:
        return SyncResult("permanent", "SYNC_REJECTED", f"{name}'s memory was refused: its evidence does not merge",
                          remote=name, diagnostics=[{"rule": "evidence", "file": f"sources/{rel}", "message": why}
                                                    for rel, why in evidence.errors])
    ids = [*read_shared_ids(trees[1].get(SHARED_IDS_FILE)), *read_shared_ids(trees[2].get(SHARED_IDS_FILE)), ws.id]
    with Transaction(ws, "sync", f"merge {name}", lock_timeout=lock_timeout) as txn:
        for rel, data in evidence.archives.items():
            txn.merge_archive(rel, data)
        for rel in blocks.deleted:
            txn.delete_topic(rel)
        for rel, text in blocks.topics.items():
            txn.write_topic(rel, text)
        for bid, reason in blocks.retire.items():
            txn.retire(bid, reason)
        txn.write_versioned(SHARED_IDS_FILE, _shared_ids_file(ids))
        installed = txn.commit()
    if installed.outcome == "rejected":
        return SyncResult("permanent", "SYNC_REJECTED", f"{name}'s memory was refused: it does not validate",
                          remote=name, diagnostics=[d.to_json() for d in installed.diagnostics])
    with ws.lock(lock_timeout):
        head = git_remote.rev(root, "HEAD") or ""
        pulled = bool(ours and git_remote.is_ancestor(root, ours, theirs)) and _adopt(ws, head, theirs, name)
        head = git_remote.rev(root, "HEAD") or ""  # _adopt may have committed their derived views
        commit = theirs if pulled else git_remote.commit_merge(root, head, theirs, f"sync: merge {name}")
        git_remote.git(root, "update-ref", "-m", f"sync: {name}", "HEAD", commit, head)
    return SyncResult(
        "ok", "PULLED" if pulled else "MERGED", f"{'pulled' if pulled else 'merged'} {name}: {len(blocks.topics)} topic(s) changed, {evidence.added} record(s) added"
        + (f", {len(blocks.conflicts)} conflict(s) to resolve" if blocks.conflicts else ""),
        remote=name, pulled_blocks=len(installed.changed_topics), added_records=evidence.added, commit=commit,
        conflicts=[{"block_id": c.block_id, "topic": c.topic, "ours": c.ours, "theirs": c.theirs}
                   for c in blocks.conflicts],
        reports=blocks.reports,
    )


def _adopt(ws: Workspace, head: str, theirs: str, name: str) -> bool:
    """We hold nothing they lack and our topics now equal theirs: take their tree whole, so
    both machines end byte-identical (their derived views, their order of records in an
    archive both sides appended to). True when HEAD's tree is now theirs; call locked."""
    root = ws.root
    listing = git_remote.git(root, "diff", "--no-renames", "--name-only", "-z", head, theirs).stdout
    paths = [p.decode("utf-8", "surrogateescape") for p in listing.split(b"\0") if p]
    if any(p.startswith("topics/") for p in paths):
        return False
    incoming = git_remote.tree_files(root, theirs, paths) if paths else {}
    for path in paths:
        if path.startswith("sources/"):
            mine, new = (root / path).read_bytes() if (root / path).exists() else b"", incoming.get(path)
            if new is None or not _same_records_or_more(path, mine, new):
                return False
    if paths:
        changes = [install.Change(p, incoming.get(p)) for p in sorted(paths)]
        token = secrets.token_hex(8)
        install.install(root, ws.runtime, ws.repo, changes, txn=token, message=f"sync: take {name}'s derived views",
                        audit_record={"txn": token, "kind": "sync", "summary": f"take {name}'s derived views",
                                      "changed_files": sorted(paths), "workspace": ws.id})
    return git_remote.same_tree(root, "HEAD", theirs)


def _same_records_or_more(rel: str, mine: bytes, new: bytes) -> bool:
    from ..memory.sources import scan_archive

    if not mine:
        return True
    a, b = scan_archive(mine, rel), scan_archive(new, rel)
    def same(x, y) -> bool:  # a frame's line number differs with its place, its bytes must not
        return y is not None and (x.anchor, x.lines, x.meta) == (y.anchor, y.lines, y.meta)

    return a.complete and b.complete and all(same(f, b.by_id.get(i)) for i, f in a.by_id.items())


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _save_status(ws: Workspace, result: SyncResult) -> None:
    try:
        atomic_write_text(ws.runtime / STATUS_FILE, json.dumps(result.to_json(), indent=2) + "\n")
    except OSError:
        pass


def last_sync(state_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    path = Workspace(state_dir).runtime / STATUS_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
