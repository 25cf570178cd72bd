"""Reading sessions: their ids, meta, the compact index, nodes, walks and branches.

Nothing here writes a session's files (only the index cache, refreshed against disk).
While this process holds a session's batch open (`writing.SessionWriter.batch`) the
batch's meta and index are the truth, and `held` carries that meta.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..paths import StatePaths
from ..values import TYPE_CHECKING, Frozen
from . import redo
from .errors import InvalidNode, SessionError, UnknownNode, UnknownSession
from .index import IndexEntry, NodeFileError, SessionIndex, read_node_file
from .nodes import ROOT_ID, Node, valid_node_id
from .paths import SessionPaths

if TYPE_CHECKING:
    import weakref
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any

HEAD = object()  # sentinel: "predecessor defaults to the head" (an append's default)
REDACTIONS_KEY = "redactions"  # meta.json: {kind: count} of the secrets redacted from this session's nodes


def add_counts(old: Any, new: Mapping[str, int]) -> dict[str, int]:
    """`old` (a meta value, maybe malformed) plus `new`, by kind."""
    out = {k: v for k, v in old.items() if isinstance(k, str) and isinstance(v, int)} if isinstance(old, dict) else {}
    for kind, n in new.items():
        out[kind] = out.get(kind, 0) + n
    return out


def redaction_counts(meta: Mapping[str, Any]) -> dict[str, int]:
    """A session's redactions by kind, from its meta (empty when none or malformed)."""
    return add_counts(meta.get(REDACTIONS_KEY), {})


class SessionSummary(Frozen):
    __slots__ = ("id", "title", "created_at", "updated_at", "head_id", "node_count", "redactions")

    def __init__(self, id: str, title: str, created_at: float, updated_at: float, head_id: str | None,
                 node_count: int, redactions: int = 0) -> None:
        self.id = id
        self.title = title
        self.created_at = created_at
        self.updated_at = updated_at
        self.head_id = head_id
        self.node_count = node_count
        self.redactions = redactions  # secrets redacted from its nodes (meta.json)


class SessionProblem(Frozen):
    __slots__ = ("id", "message")

    def __init__(self, id: str, message: str) -> None:
        self.id = id
        self.message = message


class SessionReader:
    """The sessions of one state directory, read. Cheap to create; caches per-session indexes."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.root = StatePaths(self.state_dir).sessions
        self._indexes: dict[str, SessionIndex] = {}
        self._known: dict[str, Path] = {}  # sessions seen valid (never deleted under us) -> their dir
        self.held: dict[str, dict[str, Any]] = {}  # sessions whose batch we hold open -> the batch's meta
        self._saver: weakref.finalize | None = None  # saves counted tokens at the latest at exit (`_keep_counts`)

    # --- paths and validation ----------------------------------------------

    def session_dir(self, sid: str) -> Path:
        known = self._known.get(sid)
        if known is not None:
            return known
        if not isinstance(sid, str) or not valid_node_id(sid):
            raise UnknownSession(f"invalid session id: {sid!r}")
        return self.root / sid

    def session_paths(self, sid: str) -> SessionPaths:
        """The layout of session `sid`'s directory (the id is checked)."""
        return SessionPaths(self.session_dir(sid))

    def has_session(self, sid: str) -> bool:
        try:
            d = self.session_dir(sid)
        except UnknownSession:
            return False
        return SessionPaths(d).is_session()

    def require(self, sid: str) -> Path:
        """The directory of an existing session, else UnknownSession."""
        known = self._known.get(sid)
        if known is not None:
            return known
        if not self.has_session(sid):
            raise UnknownSession(f"unknown session: {sid}")
        self._known[sid] = d = self.root / sid
        return d

    def session_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if self.has_session(p.name))

    # --- meta ----------------------------------------------------------------

    def meta(self, sid: str) -> dict[str, Any]:
        held = self.held.get(sid)
        if held is not None:
            return held
        path = SessionPaths(self.require(sid)).meta
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SessionError(f"unreadable meta.json of session {sid}: {exc}") from exc
        if not isinstance(meta, dict):
            raise SessionError(f"unreadable meta.json of session {sid}: not an object")
        if "head_id" not in meta and "last_node_id" in meta:
            meta["head_id"] = meta["last_node_id"]
        return meta

    def head(self, sid: str) -> str | None:
        head = self.meta(sid).get("head_id")
        return head if isinstance(head, str) and head else None

    # --- index ---------------------------------------------------------------

    def index(self, sid: str) -> SessionIndex:
        """The session's compact index, refreshed against disk (cheap when unchanged)."""
        d = self.require(sid)
        if sid in self.held:
            return self._indexes[sid]  # we hold the lock: nobody else writes
        try:
            index = self._indexes.get(sid)
            if index is None:
                if redo.lost(d):  # a crash undid marks the redo log holds: put them back first
                    _recover_marks(d)
                index = SessionIndex.open(d)
                self._indexes[sid] = index
                changed = True
            else:
                changed = index.refresh()
        except NodeFileError as exc:
            self._indexes.pop(sid, None)
            raise InvalidNode(f"session {sid}: {exc}") from exc
        if changed and index.dirty:
            index.save()  # lazily counted tokens are saved by whoever counts them (see `pending`)
        return index

    def loaded_index(self, sid: str) -> SessionIndex | None:
        """The index this process holds for `sid`, as it is (no refresh), if any."""
        return self._indexes.get(sid)

    def forget_index(self, sid: str) -> None:
        """Drop the cached index: it is read from disk again when next asked."""
        self._indexes.pop(sid, None)

    def save_index(self, sid: str) -> None:
        """Write the loaded index of `sid` if it changed since it was saved: tokens counted
        lazily (a pending turn's `tokens`) are then known to the next process too."""
        index = self._indexes.get(sid)
        if index is not None and index.dirty and sid not in self.held:
            index.save()

    def entry(self, sid: str, nid: str) -> IndexEntry:
        e = self.index(sid).entries.get(nid)
        if e is None:
            raise UnknownNode(f"unknown node {nid} in session {sid}")
        return e

    def has_node(self, sid: str, nid: str) -> bool:
        return nid in self.index(sid).entries

    def node(self, sid: str, nid: str, index: SessionIndex | None = None) -> Node:
        return self.nodes_by_id(sid, [nid], index)[0]

    def nodes_by_id(self, sid: str, ids: Iterable[str], index: SessionIndex | None = None) -> list[Node]:
        """The nodes `ids`, in that order: the session resolved once, one file read each."""
        index = index or self.index(sid)
        layout = SessionPaths(self.require(sid))
        out = []
        for nid in ids:
            e = index.entries.get(nid)
            if e is None:
                raise UnknownNode(f"unknown node {nid} in session {sid}")
            try:
                out.append(read_node_file(layout.node(e.filename)))
            except NodeFileError as exc:
                raise InvalidNode(str(exc)) from exc
        return out

    def nodes(self, sid: str) -> list[Node]:
        """Every node in seq order (reads every file: for display and exports, not walks)."""
        index = self.index(sid)
        return self.nodes_by_id(sid, [e.id for e in sorted(index.entries.values(), key=lambda e: e.seq)], index)

    def token_count(self, sid: str, nid: str, index: SessionIndex | None = None) -> int:
        """Tokens of a record, counted once and cached in the index."""
        index = index or self.index(sid)
        e = index.entries[nid]
        if e.tokens < 0:
            return self.token_counts(sid, self.nodes_by_id(sid, [nid], index), index)[0]
        return e.tokens

    def token_counts(self, sid: str, nodes: list[Node], index: SessionIndex | None = None) -> list[int]:
        """Tokens of each of `nodes` (already read), counted once and cached in the index."""
        index = index or self.index(sid)
        out = []
        for node in nodes:
            e = index.entries[node.id]
            if e.tokens < 0:
                from ..tokens import count_tokens

                e.tokens = count_tokens(node.text) if e.is_record else 0
                index.dirty = True
                self._keep_counts()
            out.append(e.tokens)
        return out

    def _keep_counts(self) -> None:
        """Counts made here outlive this reader: whatever index is still unsaved when the
        reader is collected, or the process exits, is saved then (an API caller who reads
        `pending()`'s tokens need not call `save_index`; calling it saves them sooner)."""
        if self._saver is None:
            import weakref

            self._saver = weakref.finalize(self, _save_unsaved, self._indexes, self.held)

    # --- walks and branches --------------------------------------------------

    def is_spawn_branch(self, sid: str, tip: str) -> bool:
        """Does the branch ending at `tip` start at a sub-agent's spawn root (DESIGN §4: such a
        branch holds delegated work and is written in full at a session boundary)?"""
        root = None
        for root in self.walk_ids(sid, tip):
            pass
        return root is not None and root.spawn_root

    def walk_ids(self, sid: str, tip: str | None = None, index: SessionIndex | None = None) -> Iterator[IndexEntry]:
        """Entries from the tip toward the root along `predecessor` (rewound included)."""
        index = index or self.index(sid)
        start = tip if tip is not None else self.head(sid)
        if start is None:
            return
        if start not in index.entries:
            raise UnknownNode(f"unknown node {start} in session {sid}")
        seen: set[str] = set()
        current: str | None = start
        while current is not None and current in index.entries:
            if current in seen:
                raise InvalidNode(f"session {sid}: predecessor cycle at {current}")
            seen.add(current)
            e = index.entries[current]
            yield e
            current = e.predecessor

    def branch_entries(self, sid: str, tip: str | None = None) -> list[IndexEntry]:
        """The branch root->tip from the index: rewound and ROOT hidden."""
        out = [e for e in self.walk_ids(sid, tip) if not e.rewound and e.kind != "root"]
        out.reverse()
        return out

    def get_branch(self, sid: str, tip: str | None = None) -> list[Node]:
        """The branch root->tip as full nodes, rewound nodes and ROOT hidden."""
        return [self.node(sid, e.id) for e in self.branch_entries(sid, tip)]

    def list_branches(self, sid: str, index: SessionIndex | None = None) -> list[str]:
        """Every live tip, the head's first, then newest first (`index`: one the caller
        already holds, so a walk over every branch reads the index once)."""
        index = index or self.index(sid)
        children = index.children
        entries = index.entries

        def live_chain_child(cid: str) -> bool:
            c = entries[cid]
            return not c.rewound and c.kind not in ("summary", "root")

        tips = []
        for e in entries.values():
            if e.rewound or e.kind in ("summary", "root"):
                continue
            if e.predecessor is None and not e.spawn_root and e.caller not in ("", ROOT_ID):
                continue  # an OpenProgram tool call hanging off its caller, not a chain member
            if any(live_chain_child(c) for c in children.get(e.id, ())):
                continue
            tips.append(e)
        head = self.head(sid)
        head_entry = entries.get(head) if head else None
        tips.sort(key=lambda e: -e.seq)
        ordered = [e.id for e in tips]
        if head is not None and head_entry is not None and not head_entry.rewound and head_entry.kind not in ("summary", "root"):
            if head in ordered:
                ordered.remove(head)
            ordered.insert(0, head)
        return ordered

    # --- listing -------------------------------------------------------------

    def list_sessions(self) -> tuple[list[SessionSummary], list[SessionProblem]]:
        """Every session, newest activity first; unreadable ones are reported, not fatal."""
        out: list[SessionSummary] = []
        problems: list[SessionProblem] = []
        for sid in self.session_ids():
            try:
                meta = self.meta(sid)
                index = self.index(sid)
            except SessionError as exc:
                problems.append(SessionProblem(sid, str(exc)))
                continue
            out.append(SessionSummary(
                id=sid, title=str(meta.get("title") or ""), created_at=_num(meta.get("created_at")),
                updated_at=_num(meta.get("updated_at")), head_id=meta.get("head_id"),
                node_count=sum(1 for e in index.entries.values() if e.kind != "root"),
                redactions=sum(redaction_counts(meta).values())))
        out.sort(key=lambda s: -s.updated_at)
        return out, problems


def _save_unsaved(indexes: dict[str, SessionIndex], held: dict[str, dict[str, Any]]) -> None:
    for sid, index in list(indexes.items()):
        if index.dirty and sid not in held:
            with contextlib.suppress(OSError):  # a cache: a read-only disk keeps none
                index.save()


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


RECOVER_WAIT_S = 5.0  # a reader waits this long for the session lock to repair marks; its holder repairs them too


def _recover_marks(d: Path) -> None:
    """A reader's repair of marks a crash undid (redo.py), under the session lock."""
    from ..flock import flock

    with contextlib.suppress(Exception):  # a busy lock: its holder (a writer, a marker) recovers before it writes
        with flock(SessionPaths(d).lock, RECOVER_WAIT_S):
            redo.recover(d)

