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

Block ids never change on the way: the incoming blocks keep the ids they were committed
with elsewhere (the transaction admits them), and a machine whose memory holds nothing of
its own takes the remote's history itself. What arrives passes the door every local change
passes: topics and records are validated and redacted with this machine's rules; derived
views, `.scriptorium/` and anything else never come from a remote (this machine renders its
own); a topic that is not UTF-8 is refused. A remote that is not a memory is refused before
anything is pushed. A person's edits in progress (`local_edits.py`) are merged as a local
change, or the sync is refused with nothing changed.

A crash anywhere leaves a valid workspace: the install has its journal, and a merge commit
not yet made or pushed is simply made again by the next sync (merging what we already hold
changes nothing).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..config import load_config
from ..fsutil import atomic_write_text, is_utf8
from ..outcome import Outcome, exit_code
from ..memory import install
from ..memory.history import VERSIONED
from ..runtime_state import load_runtime
from ..redact import for_state as redactor_for
from ..memory.errors import LockBusy, WorkspaceError
from ..memory.names import name_problem
from ..memory import Transaction
from ..memory.transaction.lifecycle import LOCK_TIMEOUT
from ..memory.workspace import Workspace
from ..sessions.marker import SHARED_IDS_FILE, read_shared_ids
from . import remote as git_remote
from .blocks import merge_topics, side_blocks
from .evidence import merge_archives
from .local_edits import local_edits
from .purges import ReplayNeeded, held_secrets, listed_tags, replay
from ..purge.purge_record import PURGES_FILE, load_commit_map, purges_file

ATTEMPTS = 3
RECENT_FILE = "recent_events.jsonl"
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
        timeout = load_config(ws.state_dir).positive("sync.timeout_seconds", git_remote.NETWORK_TIMEOUT_S)
        result = _sync(ws, name, lock_timeout, timeout)
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


def _foreign(root: Path, sha: str) -> str | None:
    """Why commit `sha` is not a Scriptorium memory (None when it is): memory's tree holds
    the versioned names only (a hidden name like `.scriptorium` is ignored, never taken),
    and a memory that was ever synced names its workspaces."""
    names = git_remote.top_level(root, sha)
    strange = sorted(n for n in names if n not in VERSIONED and not n.startswith("."))
    if strange:
        return f"its tree holds {', '.join(strange[:3])}{', …' if len(strange) > 3 else ''}"
    if names and SHARED_IDS_FILE not in names and "topics" not in names:
        return "its tree holds no topics/ and no workspaces.json"
    return None


def _refused_foreign(root: Path, name: str, why: str) -> SyncResult:
    git_remote.delete_ref(root, git_remote.tracking_ref(name))
    return SyncResult(
        "permanent", "SYNC_REJECTED",
        f"{name} is not a Scriptorium memory ({why}): nothing was pushed. Sync with an empty repository "
        f"made for memory (git init --bare -b main memory.git, or a new empty repository on your git host), "
        f"then: scriptorium remote remove {name} && scriptorium remote add {name} URL", remote=name)


def _sync(ws: Workspace, name: str, lock_timeout: float, timeout: float) -> SyncResult:
    root = ws.root
    with ws.lock(lock_timeout):
        git_remote.ensure_main(root)
    for _attempt in range(ATTEMPTS):
        edits = local_edits(root)
        if edits.refusal:
            return SyncResult("permanent", "UNSAVED_EDITS", edits.refusal, remote=name)
        if (done := _replace_purged(ws, name, timeout)) is not None:
            return done
        theirs = git_remote.fetch(root, name, timeout)
        install.checkpoint("sync-fetched")
        ours = git_remote.rev(root, "HEAD")
        ahead = theirs is None or (ours is not None and git_remote.is_ancestor(root, theirs, ours))
        if not ahead and theirs is not None and (why := _foreign(root, theirs)) is not None:
            return _refused_foreign(root, name, why)
        _join_shared_ids(ws, lock_timeout)  # after the fetch: an unreachable remote changes nothing
        ours = git_remote.rev(root, "HEAD")
        if ahead:
            if ours is None or ours == theirs:
                return SyncResult("ok", "UP_TO_DATE", f"memory is the same as {name}'s", remote=name)
            if git_remote.push(root, name, ours, timeout):
                git_remote.point_head(root, name)
                return SyncResult("ok", "PUSHED", f"pushed memory to {name}", remote=name, pushed=True, commit=ours)
            continue
        assert theirs is not None
        fetched, stale = theirs, None
        try:
            merged = _merge(ws, name, ours, theirs, edits.topics, lock_timeout)
        except ReplayNeeded as needed:
            theirs = _replay(ws, name, theirs, needed.secrets)
            stale = fetched if theirs != fetched else None  # what we fetched held the secret too
            merged = _merge(ws, name, git_remote.rev(root, "HEAD"), theirs, local_edits(root).topics, lock_timeout)
            merged.reports.append(f"replayed {len(needed.secrets)} purge(s) made on another machine")
        if merged.outcome != "ok":
            return merged
        install.checkpoint("sync-installed")
        if merged.commit == fetched or git_remote.push(root, name, merged.commit or "", timeout, replacing=stale):
            merged.pushed = merged.commit != fetched
            return merged
    return SyncResult("retryable", "REMOTE_MOVED", f"{name} kept moving while syncing; try again", remote=name)


def _replace_purged(ws: Workspace, name: str, timeout: float) -> SyncResult | None:
    """After a purge here: the remote's tip is a commit the purge rewrote, so it still holds
    the secret. Replace it with our history (which holds its rewritten self) without
    fetching it; None when that is not the case (an ordinary sync follows)."""
    renamed = load_commit_map(ws.runtime)
    if not renamed:
        return None
    tip = git_remote.remote_tip(ws.root, name, timeout)
    head = git_remote.rev(ws.root, "HEAD")
    if tip is None or tip not in renamed or head is None or not git_remote.is_ancestor(ws.root, renamed[tip], head):
        return None
    if not git_remote.push(ws.root, name, head, timeout, replacing=tip):
        return None  # it moved meanwhile: fetch, and the replay finds what it holds
    return SyncResult("ok", "PUSHED", f"replaced {name}'s memory with the purged history", remote=name,
                      pushed=True, commit=head)


def _replay(ws: Workspace, name: str, theirs: str, secrets: set[str]) -> str:
    """Purge `secrets` here, the fetched commits included (kept on a ref of ours while the
    history is rewritten: git-filter-repo drops remote-tracking refs); their rewritten tip."""
    root = ws.root
    incoming = f"refs/scriptorium/incoming/{name}"
    git_remote.git(root, "update-ref", incoming, theirs)
    git_remote.delete_ref(root, git_remote.tracking_ref(name))
    try:
        replay(ws.state_dir, secrets)
        return git_remote.rev(root, incoming) or theirs
    finally:
        git_remote.delete_ref(root, incoming)


def _has_memory(root: Path, sha: str | None) -> bool:
    """Does commit `sha` hold memory of its own (a topic or an evidence record)?"""
    return sha is not None and bool(git_remote.git(root, "ls-tree", "--name-only", sha, "--", "topics", "sources")
                                    .stdout.strip())


def _merge(ws: Workspace, name: str, ours: str | None, theirs: str, dirty: dict[str, bytes],
           lock_timeout: float) -> SyncResult:
    root = ws.root
    base = git_remote.merge_base(root, ours, theirs) if ours else None
    adopt = not dirty and not _has_memory(root, ours)  # nothing of ours: their history becomes ours
    travels = ("topics/", "sources/", SHARED_IDS_FILE, PURGES_FILE)
    if base is None:  # nothing shared yet: everything is new to one side
        paths: set[str] = {"topics", "sources", SHARED_IDS_FILE, PURGES_FILE}
    else:  # only what changed on either side since the base: the cost follows the change
        assert ours is not None  # a base exists only when both sides have commits
        paths = {p for p in git_remote.changed_paths(root, base, ours) | git_remote.changed_paths(root, base, theirs)
                 if p.startswith(travels)} | {SHARED_IDS_FILE, PURGES_FILE}  # (tiny, and unions)
    paths |= {f"topics/{rel}" for rel in dirty}
    trees = [git_remote.tree_files(root, sha, paths) if paths else {} for sha in (base, ours, theirs)]
    trees[1].update({f"topics/{rel}": data for rel, data in dirty.items()})  # a person's edit in progress is ours
    tags = listed_tags(trees[1], trees[2])
    if secrets := held_secrets(tags, trees[1], trees[2]):
        raise ReplayNeeded(secrets)
    undecodable = sorted(p for p, d in trees[2].items() if p.startswith("topics/") and not is_utf8(d))
    if undecodable:
        return SyncResult("permanent", "SYNC_REJECTED", f"{name}'s memory was refused: a topic is not valid UTF-8",
                          remote=name, diagnostics=[{"rule": "parse", "file": p, "message": "not valid UTF-8"}
                                                    for p in undecodable])
    topics = [{p[len("topics/"):]: d.decode("utf-8", "replace") for p, d in t.items()  # names memory accepts only
               if p.startswith("topics/") and name_problem(p[len("topics/"):]) is None} for t in trees]
    sources = [{p: d for p, d in t.items() if p.startswith("sources/")} for t in trees]
    blocks = merge_topics(*topics, remote=name)
    redactor = redactor_for(ws.state_dir)
    behind = bool(ours and git_remote.is_ancestor(root, ours, theirs))
    evidence = merge_archives(sources[0], sources[1], sources[2], redact=redactor.text)
    if evidence.errors:
        return SyncResult("permanent", "SYNC_REJECTED", f"{name}'s memory was refused: its evidence does not merge",
                          remote=name, diagnostics=[{"rule": "evidence", "file": f"sources/{rel}", "message": why}
                                                    for rel, why in evidence.errors])
    ids = [*read_shared_ids(trees[1].get(SHARED_IDS_FILE)), *read_shared_ids(trees[2].get(SHARED_IDS_FILE)), ws.id]
    known = {bid for side in (topics[0], topics[2]) for bid in side_blocks(side)[0]}  # ids committed elsewhere
    with Transaction(ws, "sync", f"merge {name}", lock_timeout=lock_timeout, admit_ids=known,
                     manual_sources=bool(dirty)) as txn:
        for rel, data in evidence.archives.items():
            txn.merge_archive(rel, data)
        for rel in blocks.deleted:
            txn.delete_topic(rel)
        for rel, text in blocks.topics.items():
            txn.write_topic(rel, text)
        for bid, reason in blocks.retire.items():
            txn.retire(bid, reason)
        txn.write_versioned(SHARED_IDS_FILE, _shared_ids_file(ids))
        if tags:
            txn.write_versioned(PURGES_FILE, purges_file(tags))
        installed = txn.commit()
    if installed.outcome == "rejected":
        why = "your unsaved edits and its changes do not validate together" if dirty else "it does not validate"
        return SyncResult("permanent", "SYNC_REJECTED", f"{name}'s memory was refused: {why}",
                          remote=name, diagnostics=[d.to_json() for d in installed.diagnostics])
    _match_recent_order(ws, name, theirs, lock_timeout)
    with ws.lock(lock_timeout):
        head = git_remote.rev(root, "HEAD") or ""
        same = git_remote.same_tree(root, head, theirs)
        pulled = same and (adopt or behind)
        if pulled:
            commit = theirs  # their commit itself: the same ids, the same history
        elif adopt:  # our own history held nothing: continue theirs, with what this machine rendered
            commit = git_remote.commit_on(root, head, theirs, f"sync: take {name}'s memory")
        else:
            commit = git_remote.commit_merge(root, head, theirs, f"sync: merge {name}")
        git_remote.git(root, "update-ref", "-m", f"sync: {name}", "HEAD", commit, head)
    return SyncResult(
        "ok", "PULLED" if pulled or adopt else "MERGED",
        f"{'pulled' if pulled or adopt else 'merged'} {name}: {len(blocks.topics)} topic(s) changed, "
        f"{evidence.added} record(s) added" + (f", {len(blocks.conflicts)} conflict(s) to resolve" if blocks.conflicts else ""),
        remote=name, pulled_blocks=len(installed.changed_topics), added_records=evidence.added, commit=commit,
        conflicts=[{"block_id": c.block_id, "topic": c.topic, "ours": c.ours, "theirs": c.theirs}
                   for c in blocks.conflicts],
        reports=blocks.reports,
    )


def _match_recent_order(ws: Workspace, name: str, theirs: str, lock_timeout: float) -> None:
    """With the same memory as theirs, our render may still differ in one place:
    `recent_events.jsonl` orders blocks by when each machine first saw them. Take their
    order of the blocks they list (the newest; every other block before them, in ours) and
    render again: this machine's render of the same memory, now byte for byte theirs, so
    the machines stop trading merge commits. Their file is read for its order only."""
    root = ws.root
    head = git_remote.rev(root, "HEAD") or ""
    if git_remote.changed_paths(root, head, theirs) != {RECENT_FILE}:
        return
    listed: dict[str, int] = {}
    for line in git_remote.tree_files(root, theirs, [RECENT_FILE]).get(RECENT_FILE, b"").decode("utf-8", "replace").splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            return
        if not isinstance(doc, dict) or not isinstance(doc.get("memory_id"), str) or type(doc.get("created_order")) is not int:
            return
        listed[doc["memory_id"]] = doc["created_order"]
    if not listed:
        return
    ours = load_runtime(ws.paths).get("creation_order") or {}
    older = sorted((bid for bid in ours if bid not in listed), key=lambda bid: ours[bid])
    low = min(listed.values()) - len(older)
    hint = {bid: low + i for i, bid in enumerate(older)} | listed
    with Transaction(ws, "sync", f"order recent blocks as {name} does", lock_timeout=lock_timeout,
                     creation_order=hint) as txn:
        txn.commit()


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
