"""The written marker (DESIGN §4): "memory has written this turn" lives on the turn.

`memory_written_scriptorium: <workspace id>` in a node's metadata. Pending turns of a
branch are the records after the newest record marked by *this* workspace, found by
walking from the tip toward the root and stopping at the first such mark — a cost
that follows the backlog, never the session's length.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..paths import StatePaths
from ..values import TYPE_CHECKING, Frozen
from ..workspace_id import WORKSPACE_ID_RE as WORKSPACE_ID_RE  # re-exported: the marker's value
from ..workspace_id import WorkspaceIdError as WorkspaceIdError
from ..workspace_id import workspace_id as workspace_id
from .errors import InvalidNode, UnknownNode
from .index import IndexEntry, SessionIndex, collector_paused
from .store import SessionStore

if TYPE_CHECKING:
    from collections.abc import Iterable

PROVIDER = "scriptorium"
MARK_KEY = f"memory_written_{PROVIDER}"
SHARED_IDS_FILE = "workspaces.json"  # versioned in memory/: the workspaces that share this memory's history


def read_shared_ids(data: bytes | None) -> list[str]:
    """The workspace ids in a `workspaces.json` (sync keeps it); [] when absent or unreadable."""
    try:
        ids = json.loads(data or b"{}").get("workspaces", [])
    except (ValueError, AttributeError):
        return []
    return [i for i in ids if isinstance(i, str) and WORKSPACE_ID_RE.match(i)] if isinstance(ids, list) else []


def counted_ids(state_dir: str | os.PathLike[str]) -> frozenset[str]:
    """Marks that count as written here: this workspace's, and those of every workspace that
    shares this memory's history through sync (the same transcript imported on two synced
    machines is written once)."""
    path = StatePaths(Path(state_dir)).memory / SHARED_IDS_FILE
    try:
        shared = read_shared_ids(path.read_bytes())
    except OSError:
        shared = []
    return frozenset([workspace_id(state_dir), *shared])


class PendingTurn:
    """A record the writer still owes. `tokens` (exact, o200k_base) is counted when first read
    and kept in the session index: a walk over a long backlog of uncounted turns (a session
    OpenProgram wrote, a first open) neither reads their text again nor loads the tokenizer,
    and the writer counts only the turns its batch takes (`cut_batch` stops at the
    threshold). Read-only by convention; equal when id, role, tokens and time are."""

    __slots__ = ("id", "role", "created_at", "_tokens", "_counter")

    def __init__(self, id: str, role: str, tokens: int, created_at: float,
                 counter: _Counter | None = None) -> None:
        self.id = id
        self.role = role  # "user" | "assistant"
        self.created_at = created_at
        self._tokens = tokens  # < 0: not counted yet (`counter` counts it)
        self._counter = counter

    @property
    def tokens(self) -> int:
        if self._tokens < 0:
            self._tokens = self._counter(self.id) if self._counter is not None else 0
            self._counter = None
        return self._tokens

    def _key(self) -> tuple[str, str, int, float]:
        return (self.id, self.role, self.tokens, self.created_at)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, PendingTurn) else NotImplemented

    def __hash__(self) -> int:
        return hash((self.id, self.role, self.created_at))  # without counting

    def __repr__(self) -> str:
        shown = self._tokens if self._tokens >= 0 else "?"
        return f"PendingTurn(id={self.id!r}, role={self.role!r}, tokens={shown}, created_at={self.created_at!r})"


class _Counter:
    """Counts pending turns on demand through the session index that listed them."""

    __slots__ = ("store", "sid", "index")

    def __init__(self, store: SessionStore, sid: str, index: SessionIndex) -> None:
        self.store, self.sid, self.index = store, sid, index

    def __call__(self, nid: str) -> int:
        return self.store.token_count(self.sid, nid, self.index)


class BranchPending(Frozen):
    __slots__ = ("tip", "is_head", "turns")

    def __init__(self, tip: str, is_head: bool, turns: list[PendingTurn]) -> None:
        self.tip = tip
        self.is_head = is_head
        self.turns = turns

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self.turns)


def pending(store: SessionStore, sid: str, tip: str | None = None,
            workspace: str | frozenset[str] | None = None) -> list[PendingTurn]:
    """Records after the newest record this workspace marked on the branch, oldest first.

    No mark at all hands over the whole branch (when in doubt, re-process). Rewound
    turns and non-records (tools, runtime turns, summaries) are stepped over. Turns not
    counted yet are counted when their `tokens` is read and kept in the session's index
    for the next process: saved when the store is collected or the process exits, or at
    once by `store.save_index(sid)`.
    """
    index = store.index(sid)
    with collector_paused(len(index.entries)):
        out = _PendingWalk(store, sid, index, _ids(store, workspace)).branch(tip)
    if index.dirty:
        index.save()
    return out


class _PendingWalk:
    """Pending turns of many branches of one index, each node walked once.

    Walking down from a node always yields the same turns, so the first walk through a
    node remembers where that node's prefix ends in its result (`shared`: for walks of
    many branches); a later branch stops there and copies the prefix (a C-level slice)
    instead of walking it again. Two thousand branches forking off one long line cost the
    line once, not two thousand times. The walk is `SessionReader.walk_ids` inlined (a
    first open of a long unwritten session walks every turn: a generator step, a set of
    the nodes seen and a tuple per node were most of its cost); a predecessor cycle is
    found by the walk outgrowing the index instead.
    """

    def __init__(self, store: SessionStore, sid: str, index: SessionIndex, wids: frozenset[str],
                 shared: bool = False) -> None:
        self.store, self.sid, self.index, self.wids = store, sid, index, wids
        self.prefix: dict[str, tuple[list[PendingTurn], int]] = {}  # node -> (a result, its length there)
        self.shared = shared
        self.counter = _Counter(store, sid, index)

    def branch(self, tip: str | None) -> list[PendingTurn]:
        entries = self.index.entries
        start = tip if tip is not None else self.store.head(self.sid)
        if start is None:
            return []
        e = entries.get(start)
        if e is None:
            raise UnknownNode(f"unknown node {start} in session {self.sid}")
        wids, prefix = self.wids, self.prefix
        walked: list[IndexEntry] = []
        append = walked.append
        base: list[PendingTurn] = []
        for _ in range(len(entries)):  # a walk longer than the index has gone round a cycle
            if prefix:
                known = prefix.get(e.id)
                if known is not None:
                    base = known[0][: known[1]]
                    break
            append(e)
            if e.is_record and e.marks and not e.rewound and e.marks.get(MARK_KEY) in wids:
                break
            p = e.predecessor
            if p is None:
                break
            e = entries.get(p)
            if e is None:
                break
        else:
            raise InvalidNode(f"session {self.sid}: predecessor cycle at {e.id}")
        out = base
        keep = out.append
        counter = self.counter
        shared = self.shared
        for e in reversed(walked):
            if e.is_record and not e.rewound and (not e.marks or e.marks.get(MARK_KEY) not in wids):
                keep(PendingTurn(e.id, e.kind, e.tokens, e.created_at, counter))
            if shared:
                prefix[e.id] = (out, len(out))
        return out


def _ids(store: SessionStore, workspace: str | frozenset[str] | None) -> frozenset[str]:
    if workspace is None:
        return counted_ids(store.state_dir)
    return frozenset([workspace]) if isinstance(workspace, str) else workspace


def pending_branches(store: SessionStore, sid: str,
                     workspace: str | frozenset[str] | None = None) -> list[BranchPending]:
    """Every live branch with its pending turns; the head's branch first. One index, one
    walk shared by all branches (see _PendingWalk), one save."""
    index = store.index(sid)
    head = store.head(sid)
    walk = _PendingWalk(store, sid, index, _ids(store, workspace), shared=True)
    out = [BranchPending(tip, tip == head, walk.branch(tip)) for tip in store.list_branches(sid, index)]
    if index.dirty:
        index.save()
    return out


DEFAULT_THRESHOLD = 8000


def trigger_tokens(state_dir: str | os.PathLike[str]) -> int:
    """The batch threshold in tokens: config `writer.trigger_tokens`, default 8000."""
    from ..config import load_config  # here: marking and pending read no config

    return load_config(Path(state_dir)).integer("writer.trigger_tokens", DEFAULT_THRESHOLD)


def cut_batch(turns: list[PendingTurn], threshold: int) -> list[PendingTurn]:
    """The next batch: leading turns whose cumulative tokens first reach the threshold
    (inclusive), or all of them when they never do (formats §5.3)."""
    total = 0
    for i, turn in enumerate(turns):
        total += turn.tokens
        if total >= threshold:
            return turns[: i + 1]
    return list(turns)


def mark_written(store: SessionStore, sid: str, node_ids: Iterable[str], workspace: str | None = None) -> list[str]:
    """Mark exactly these nodes as written by this workspace — never a sweep."""
    wid = workspace or workspace_id(store.state_dir)
    ids = list(dict.fromkeys(node_ids))
    store.mark_nodes(sid, {nid: {MARK_KEY: wid} for nid in ids})
    return ids
