"""Sessions as DAGs on disk, compatible with an OpenProgram state directory (formats §1).

`<state>/sessions/<id>/` is one git repository per session: `meta.json` (head_id,
updated_at, title, ...), `history/NNNN-<u|l|c>-<node>.json` (one file per node),
and our git-excluded cache in `.scriptorium/` (the compact index and a lock).
Positions are never identities: everything here is keyed by node id.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import repo as session_git
from ..flock import flock as _flock
from ..fsutil import atomic_write_bytes, atomic_write_many, fsync_dir, write_file_batched
from ..paths import StatePaths
from .nodes import FILENAME_RE, ROLE_ALIASES, ROOT_ID, Node, clean_text, valid_node_id
from .index import IndexEntry, NodeFileError, SessionIndex, bump_generation, read_node_file
from .paths import META_REL, WORKDIR_KEEP_REL, SessionPaths, node_rel
from ..outcome import ScriptoriumError

if TYPE_CHECKING:
    from filelock import FileLock

    from .pack import PackedCommit

    from ..redact import Redactor

LOCK_TIMEOUT_S = 10.0
MARK_STALL_S = 600.0  # marking gives up on the session lock only after its holder did nothing this long
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


class SessionError(ScriptoriumError):
    """Base class: bad input or unreadable state; the message is user-facing."""

    code = "SESSION_ERROR"


class UnknownSession(SessionError):
    code = "UNKNOWN_SESSION"


class SessionExists(SessionError):
    pass


class UnknownNode(SessionError):
    pass


class InvalidNode(SessionError):
    pass


class SessionBusy(SessionError):
    """The session lock stayed held by a writer that showed no sign of work for
    MARK_STALL_S (a hung process): marking gave up; later, it will not."""

    code = "SESSION_BUSY"
    retryable = True


_HEAD = object()  # sentinel: "predecessor defaults to the head"


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str
    created_at: float
    updated_at: float
    head_id: str | None
    node_count: int
    redactions: int = 0  # secrets redacted from its nodes (meta.json)


@dataclass(frozen=True)
class SessionProblem:
    id: str
    message: str


@dataclass
class _Batch:
    """An open batch: the session lock is held throughout; node files are streamed to
    one pack as they are written; meta.json and the write generation are written once,
    at exit."""

    message: str
    paths: set[str]
    lock: FileLock
    meta: dict[str, Any]
    pack: PackedCommit
    wrote: bool = False


class SessionStore:
    """All sessions of one state directory. Cheap to create; caches per-session indexes."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.root = StatePaths(self.state_dir).sessions
        self._indexes: dict[str, SessionIndex] = {}
        self._batches: dict[str, _Batch] = {}
        self._undos: dict[str, _Undo] = {}  # locked writes under way outside a batch (see _undoable)
        self._repos: set[Path] = set()  # session directories known to be repositories
        self._known: dict[str, Path] = {}  # sessions seen valid (never deleted under us) -> their dir
        self._unborn: dict[str, set[str]] = {}  # created with commit=False: init files awaiting a commit
        self._registry_pending: dict[str, dict[str, Any]] | None = None  # see registry_deferred
        self._redactor: Redactor | None = None

    @property
    def redactor(self) -> Redactor:
        """Secrets never enter a session (DESIGN §16): every node passes this at `append`."""
        if self._redactor is None:
            self._redactor = redactor_for(self.state_dir)
        return self._redactor

    # --- paths and validation ----------------------------------------------

    def session_dir(self, sid: str) -> Path:
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

    def _require(self, sid: str) -> Path:
        known = self._known.get(sid)
        if known is not None:
            return known
        if not self.has_session(sid):
            raise UnknownSession(f"unknown session: {sid}")
        self._known[sid] = d = self.session_dir(sid)
        return d

    def session_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if self.has_session(p.name))

    # --- meta ----------------------------------------------------------------

    def meta(self, sid: str) -> dict[str, Any]:
        batch = self._batches.get(sid)
        if batch is not None:
            return batch.meta
        path = SessionPaths(self._require(sid)).meta
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SessionError(f"unreadable meta.json of session {sid}: {exc}") from exc
        if not isinstance(meta, dict):
            raise SessionError(f"unreadable meta.json of session {sid}: not an object")
        if "head_id" not in meta and "last_node_id" in meta:
            meta["head_id"] = meta["last_node_id"]
        return meta

    def _write_meta(self, sid: str, meta: dict[str, Any], *, durable: bool = True) -> None:
        batch = self._batches.get(sid)
        if batch is not None:  # written once when the batch closes
            batch.meta, batch.wrote = meta, True
            return
        data = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        path = self.session_paths(sid).meta
        if (undo := self._undos.get(sid)) is not None:
            undo.keep(path)
        atomic_write_bytes(path, data, durable=durable)

    def _bump(self, sid: str) -> None:
        """Bump the write generation (see session_index); deferred inside a batch."""
        batch = self._batches.get(sid)
        if batch is not None:
            batch.wrote = True
        else:
            bump_generation(self.session_dir(sid))

    def head(self, sid: str) -> str | None:
        head = self.meta(sid).get("head_id")
        return head if isinstance(head, str) and head else None

    # --- creation ------------------------------------------------------------

    def create_session(self, title: str = "", session_id: str | None = None, *, commit: bool = True,
                       started_at: float | None = None, **extra: Any) -> str:
        """A new empty session. With `commit=False` its files join the session's first
        commit instead of an init commit of their own, and — like a batch's — that commit
        is their durability point (imports: fewer git processes, no fsyncs). `started_at`:
        when the conversation began, if not now (an imported transcript's first record);
        it dates ROOT and the session's `created_at`."""
        sid = session_id or os.urandom(6).hex()
        counts: Counter[str] = Counter()
        title = self.redactor.text(title, counts)
        extra = self.redactor.value(extra, counts)
        if counts:
            extra = {**extra, REDACTIONS_KEY: dict(counts)}
        d = self.session_dir(sid)
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            d.mkdir()  # the claim: of two processes creating one session, exactly one gets here
        except FileExistsError:
            raise SessionExists(f"session already exists: {sid}") from None
        try:
            self._init_session(sid, d, title, commit, started_at, extra)
        except BaseException:  # a full disk: no half-made session directory is left behind
            import shutil

            shutil.rmtree(d, ignore_errors=True)
            self._repos.discard(d)
            self._unborn.pop(sid, None)
            raise
        return sid

    def _init_session(self, sid: str, d: Path, title: str, commit: bool, started_at: float | None,
                      extra: dict[str, Any]) -> None:
        layout = SessionPaths(d)
        layout.history.mkdir()
        layout.workdir.mkdir()
        layout.workdir_keep.touch()
        layout.runtime.mkdir()
        now = time.time()
        started = started_at if started_at is not None else now
        meta = {"id": sid, "agent_id": "main", "title": title, "source": "scriptorium", "created_at": started,
                "updated_at": now, "project_id": "default", "head_id": None, **extra}
        root = Node(id=ROOT_ID, seq=0, role="user", output="", caller="", metadata={"display": "root"},
                    created_at=started)
        session_git.set_flag(d, True)  # should we die before their commit (git init included), the next writer makes it
        atomic_write_bytes(layout.node(root.filename), root.to_json_bytes(), durable=commit)
        self._write_meta(sid, meta, durable=commit)
        repo = self._repo(d)
        init_paths = [META_REL, node_rel(root.filename), WORKDIR_KEEP_REL]
        if commit:
            session_git.commit_paths(repo, init_paths, "session init")
            session_git.set_flag(d, False)
            self._registry_update(sid, meta)
        else:
            self._unborn[sid] = set(init_paths)  # the first commit also updates the registry

    # --- git -----------------------------------------------------------------

    def _repo(self, d: Path) -> Path:
        if d not in self._repos:
            self._repos.add(session_git.open_repo(d))
        return d

    def _committed(self, sid: str, paths: list[str], message: str) -> None:
        batch = self._batches.get(sid)
        if batch is not None:
            batch.paths.update(paths)
            return
        paths = sorted(set(paths) | self._unborn.pop(sid, set()))
        if (undo := self._undos.get(sid)) is not None:
            undo.committing = paths
        session_git.commit_paths(self._repo(self.session_dir(sid)), paths, message)

    @contextlib.contextmanager
    def batch(self, sid: str, message: str = "import") -> Iterator[None]:
        """Group many writes into one git commit (imports, demos). The session lock is
        held for the whole batch; node files are not fsynced one by one, and meta.json
        is written once at exit — the commit at exit is the durability point."""
        d = self._require(sid)
        if sid in self._batches:
            yield
            return
        layout = SessionPaths(d)
        layout.runtime.mkdir(exist_ok=True)
        lock = _session_lock(layout)
        with lock:
            carried = self._begin_writes(sid, d, time.time(), fold=True)
            index = self.index(sid)
            from .pack import PackedCommit  # the writers' modules load with the first write, never for a listing

            self._batches[sid] = _Batch(message, carried, lock, dict(self.meta(sid)), PackedCommit(d))
            try:
                yield
            finally:
                batch = self._batches.pop(sid)
                if batch.wrote:
                    self._write_meta(sid, batch.meta)
                    bump_generation(d)
                    index.adopt_fingerprint()
                unborn = self._unborn.pop(sid, None)
                if batch.paths or unborn:
                    paths = sorted(batch.paths | {META_REL} | (unborn or set()))
                    repo = self._repo(d)
                    if not batch.pack.commit(paths, batch.message, name=session_git.GIT_NAME,
                                             email=session_git.GIT_EMAIL,
                                             new_branch="refs/heads/main" if unborn else None):
                        session_git.commit_paths(repo, paths, batch.message)
                    self._registry_update(sid, batch.meta)
                else:
                    batch.pack.close()
                session_git.set_flag(d, False)
                index.save()

    # --- index ---------------------------------------------------------------

    def index(self, sid: str) -> SessionIndex:
        """The session's compact index, refreshed against disk (cheap when unchanged)."""
        d = self._require(sid)
        if sid in self._batches:
            return self._indexes[sid]  # we hold the lock: nobody else writes
        try:
            index = self._indexes.get(sid)
            if index is None:
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

    def entry(self, sid: str, nid: str) -> IndexEntry:
        e = self.index(sid).entries.get(nid)
        if e is None:
            raise UnknownNode(f"unknown node {nid} in session {sid}")
        return e

    def has_node(self, sid: str, nid: str) -> bool:
        return nid in self.index(sid).entries

    def node(self, sid: str, nid: str, index: SessionIndex | None = None) -> Node:
        e = (index or self.index(sid)).entries.get(nid)
        if e is None:
            raise UnknownNode(f"unknown node {nid} in session {sid}")
        path = self.session_paths(sid).node(e.filename)
        try:
            return read_node_file(path)
        except NodeFileError as exc:
            raise InvalidNode(str(exc)) from exc

    def nodes(self, sid: str) -> list[Node]:
        """Every node in seq order (reads every file: for display and exports, not walks)."""
        return [self.node(sid, e.id) for e in sorted(self.index(sid).entries.values(), key=lambda e: e.seq)]

    def save_index(self, sid: str) -> None:
        """Write the loaded index of `sid` if it changed since it was saved: tokens counted
        lazily (a pending turn's `tokens`) are then known to the next process too."""
        index = self._indexes.get(sid)
        if index is not None and index.dirty and sid not in self._batches:
            index.save()

    def token_count(self, sid: str, nid: str, index: SessionIndex | None = None) -> int:
        """Tokens of a record, counted once and cached in the index."""
        index = index or self.index(sid)
        e = index.entries[nid]
        if e.tokens < 0:
            from ..tokens import count_tokens

            e.tokens = count_tokens(self.node(sid, nid, index).text) if e.is_record else 0
            index.dirty = True
        return e.tokens

    # --- appending -----------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, sid: str) -> Iterator[SessionIndex]:
        d = self._require(sid)
        if sid in self._batches:
            yield self._indexes[sid]
            return
        layout = SessionPaths(d)
        layout.runtime.mkdir(exist_ok=True)
        with _flock(layout.lock, LOCK_TIMEOUT_S):  # as filelock takes it: not loading filelock halves an append
            self._begin_writes(sid, d, time.time())
            with self._undoable(sid, layout):
                yield self.index(sid)
            session_git.set_flag(d, False)  # every locked write ends with its commit

    @contextlib.contextmanager
    def _undoable(self, sid: str, layout: SessionPaths) -> Iterator[None]:
        """A locked write outside a batch completes or leaves no trace (a full disk may fail
        any step: a node file, meta.json, git): every file it replaces or creates is noted
        first (`_Undo.keep`), and a failure takes them all back — by unlinks and renames,
        which need no free space — and puts git's index back. Left on disk, the next writer
        would commit them as an interrupted write's leftovers: a failed append would become
        a phantom branch beside its caller's retry, a failed rewind would happen after all."""
        undo = self._undos[sid] = _Undo(layout, set(self._unborn.get(sid, ())))
        try:
            yield
        except BaseException:
            self._take_back(sid, undo)
            raise
        finally:
            self._undos.pop(sid, None)
        undo.discard()

    def _take_back(self, sid: str, undo: _Undo) -> None:
        if not undo.kept and undo.committing is None:
            return  # refused before writing anything (an unknown node, a duplicate id)
        d = undo.layout.root
        undo.restore()
        if undo.committing:
            with contextlib.suppress(OSError, session_git.GitError):
                session_git.unstage(d, undo.committing)  # else commit_paths drops a staged path gone from disk
        fsync_dir(undo.layout.history)  # removals as durable as the files were
        self._indexes.pop(sid, None)  # re-read from disk when next asked
        with contextlib.suppress(OSError):
            bump_generation(d)  # other processes' indexes re-verify
        if undo.unborn:
            self._unborn[sid] = undo.unborn  # the session's init files still await their first commit
        # The uncommitted flag stays up: whatever disk and git may still disagree on (a file
        # that could not be put back), the next writer commits as it is on disk.

    def _begin_writes(self, sid: str, d: Path, locked_at: float, *, fold: bool = False) -> set[str]:
        """Under the session lock (acquired at `locked_at`), before writing files a commit
        will follow: clear the git locks a killed git left (git_locks.py), commit whatever
        an interrupted writer left on disk ahead of its commit (its flag is still up),
        then raise ours. Costs a few stats when the last writer finished. (Our own
        deferred session-init files are no leftovers: they join our next commit.)"""
        from ..git_locks import clear_stale_locks

        clear_stale_locks(SessionPaths(d).git, locked_at)
        if session_git.flag_is_up(d) and sid not in self._unborn:
            self._repo(d)  # a `git init` killed half-way is completed first: its status would fail
            if paths := session_git.leftovers(d):  # marks awaiting a commit, or a killed writer's files
                if fold:  # a batch takes them into its own commit
                    session_git.set_flag(d, True)
                    return set(paths)
                session_git.commit_paths(self._repo(d), paths, "recover: files an interrupted write left uncommitted")
        session_git.set_flag(d, True)
        return set()

    def append(
        self,
        sid: str,
        role: str,
        content: Any,
        *,
        predecessor: Any = _HEAD,
        metadata: Mapping[str, Any] | None = None,
        node_id: str | None = None,
        name: str = "",
        caller: str = "",
        created_at: float | None = None,
        move_head: bool = True,
        input: Any = None,
    ) -> Node:
        """Append one node; by default it follows the head and becomes the head."""
        raw_role = ROLE_ALIASES.get(role)
        if raw_role is None:
            raise InvalidNode(f"unknown role {role!r} (use user, assistant, tool or system)")
        if isinstance(content, str):
            content = clean_text(content)
        counts: Counter[str] = Counter()
        redactor = self.redactor
        content = redactor.value(content, counts)
        input = redactor.value(input, counts)
        md = dict(redactor.value(dict(metadata or {}), counts))
        if role == "system":
            md["role"] = "system"
        nid = node_id or os.urandom(6).hex()
        if not valid_node_id(nid) or nid == ROOT_ID:
            raise InvalidNode(f"invalid node id: {nid!r}")
        with self._locked(sid) as index:
            meta = self.meta(sid)
            if nid in index.entries:
                raise InvalidNode(f"node {nid} already exists in session {sid}")
            if predecessor is _HEAD:
                head = meta.get("head_id")
                predecessor = head if head else ROOT_ID
            if predecessor is not None and predecessor not in index.entries:
                raise UnknownNode(f"predecessor {predecessor} is not a node of session {sid}")
            seq = index.max_seq + 1
            node = Node(id=nid, seq=seq, role=raw_role, output=content, name=name or ("" if raw_role != "llm" else "scriptorium"),
                        input=input, caller=caller, predecessor=predecessor, metadata=md,
                        created_at=created_at if created_at is not None else time.time())
            self._write_node(sid, index, node)
            kind = node.kind
            if move_head and kind not in ("summary", "root"):
                meta["head_id"] = nid
            if counts:
                meta[REDACTIONS_KEY] = add_counts(meta.get(REDACTIONS_KEY), counts)
            meta["updated_at"] = time.time()
            self._write_meta(sid, meta)
            self._bump(sid)
            if sid not in self._batches:
                index.adopt_fingerprint()
            message = "" if sid in self._batches else _turn_message(node)
            self._committed(sid, [node_rel(node.filename), META_REL], message)
            if sid not in self._batches:
                self._registry_update(sid, meta)
                index.save()
        return node

    def _write_node(self, sid: str, index: SessionIndex, node: Node) -> None:
        st = self._write_history_file(sid, node.filename, node.to_json_bytes())
        # tokens are counted by the first reader that needs them (`token_count`, which keeps
        # the count): loading the tokenizer costs ten times what an append does
        index.record_write(IndexEntry.from_node(node, node.filename, (st.st_mtime_ns, st.st_size)))

    def _write_history_file(self, sid: str, filename: str, data: bytes) -> os.stat_result:
        """Durable on its own outside a batch; inside one, cheap and streamed to its pack."""
        batch = self._batches.get(sid)
        if batch is None:
            path = self.session_paths(sid).node(filename)
            if (undo := self._undos.get(sid)) is not None:
                undo.keep(path)
            atomic_write_bytes(path, data)
            return path.stat()
        rel = node_rel(filename)
        where = os.path.join(self.root, sid, rel)
        st = write_file_batched(where, data)
        try:
            batch.pack.add(rel, data)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(where)  # not in the batch's commit: it must not be on disk either
            raise
        return st

    def append_summary(self, sid: str, covers_ids: list[str], text: str, *, node_id: str | None = None,
                       created_at: float | None = None, at: str | None = None) -> Node:
        """A compaction summary, never the head: a sibling of the turns it covers (OpenProgram's
        splice), or, with `at`, a child of the turn where the compaction happened (an imported
        agent compacts mid-conversation and goes on from there)."""
        if not covers_ids:
            raise InvalidNode("a summary must cover at least one node")
        first = self.entry(sid, covers_ids[0])
        for cid in covers_ids[1:]:
            self.entry(sid, cid)
        predecessor = first.predecessor if at is None else self.entry(sid, at).id
        nid = node_id or f"summary_{os.urandom(5).hex()}"
        body = text if text.startswith("[Previous conversation summary]") else "[Previous conversation summary]\n" + text
        return self.append(sid, "assistant", body, predecessor=predecessor, node_id=nid, name="context/summary",
                           metadata={"type": "compactionSummary", "source": "compaction", "compaction": True,
                                     "covers_ids": list(covers_ids)},
                           created_at=created_at if created_at is not None else first.created_at - 1e-6,
                           move_head=False)

    def spawn_branch(self, sid: str, prompt: str, *, caller: str, source: str = "agent_spawn",
                     node_id: str | None = None, register_head: bool = False, created_at: float | None = None,
                     metadata: Mapping[str, Any] | None = None) -> Node:
        """A sub-agent's branch root: no predecessor, linked to the spawning node by `caller`."""
        if caller != ROOT_ID:
            self.entry(sid, caller)
        md = {**(metadata or {}), "source": source, "spawn_branch_root": True}
        return self.append(sid, "user", prompt, predecessor=None, node_id=node_id, caller=caller, metadata=md,
                           created_at=created_at, move_head=register_head)

    # --- reading branches ----------------------------------------------------

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

    # --- rewriting -----------------------------------------------------------

    def rewind(self, sid: str, nid: str) -> list[str]:
        """Hide the head's turns back to `nid` inclusive; the head moves to its predecessor."""
        with self._locked(sid) as index:
            if nid not in index.entries:
                raise UnknownNode(f"unknown node {nid} in session {sid}")
            chain = [e.id for e in self.walk_ids(sid) if not e.rewound]
            if nid not in chain:
                raise InvalidNode(f"node {nid} is not on the head branch of session {sid}")
            target = chain[: chain.index(nid) + 1]
            doomed = set(target)
            # tool calls hanging off a rewound turn go with it
            for e in index.entries.values():
                if e.caller in doomed and e.predecessor is None and not e.spawn_root:
                    doomed.add(e.id)
            now = time.time()
            paths = self._merge_locked(sid, index, {d: {"rewound": True, "rewound_at": now} for d in doomed})
            meta = self.meta(sid)
            meta["head_id"] = index.entries[nid].predecessor
            self._write_meta(sid, meta)
            self._bump(sid)
            self._committed(sid, paths + [META_REL], "rewind")
        return target

    def merge_node_metadata_batch(self, sid: str, patches: Mapping[str, Mapping[str, Any]], *,
                                  message: str = "memory: mark written") -> list[str]:
        """Merge metadata patches into existing nodes; each file rewritten atomically.

        Touches nothing else: `updated_at` stays (the idle watcher compares it) and the
        index is not marked as synced (the next access re-verifies against disk).
        """
        if not patches:
            return []
        with self._locked(sid) as index:
            missing = [n for n in patches if n not in index.entries]
            if missing:
                raise UnknownNode(f"unknown node(s) in session {sid}: {', '.join(missing)}")
            paths = self._merge_locked(sid, index, patches)
            self._committed(sid, paths, message)
            if sid not in self._batches:
                index.save()
        return paths

    def mark_nodes(self, sid: str, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """Merge metadata patches (written marks) at the cost of what they write: each node
        file is rewritten and fsynced before this returns, but there is no git commit and
        no index rewrite. The uncommitted flag stays up, so the session's next writer
        commits them into history first (as after a crash: `_begin_writes`); the
        index gets a journal line (SessionIndex.append_journal). Inside a batch: as
        `merge_node_metadata_batch`.

        Marks follow an installed batch: giving up on the session lock would only have the
        batch written again. So this waits for the lock as long as its holder works (an
        import of a long transcript holds it for minutes), and raises `SessionBusy` only
        when the holder has shown no sign of work for MARK_STALL_S."""
        if not patches:
            return []
        if sid in self._batches:
            return self.merge_node_metadata_batch(sid, patches)
        d = self._require(sid)
        layout = SessionPaths(d)
        layout.runtime.mkdir(exist_ok=True)

        def busy() -> SessionBusy:
            return SessionBusy(f"session {sid}: a writer holding its lock has shown no sign of work for "
                               f"{MARK_STALL_S:.0f} s; the turns were not marked")

        with _flock(layout.lock, MARK_STALL_S, activity=lambda: _activity(layout), busy=busy):
            index = self._indexes.get(sid)
            files = ({n: e.filename for n in patches if (e := index.entries.get(n)) is not None} if index is not None
                     else _node_files(layout.history, set(patches)))
            missing = [n for n in patches if n not in files]
            if missing:
                raise UnknownNode(f"unknown node(s) in session {sid}: {', '.join(missing)}")
            session_git.set_flag(d, True)  # written ahead of their commit
            nodes = []
            for nid, filename in files.items():
                try:
                    node = read_node_file(layout.node(filename))
                except NodeFileError as exc:
                    raise InvalidNode(str(exc)) from exc
                node.metadata.update(patches[nid])
                nodes.append((node, filename))
            atomic_write_many([(layout.node(f), node.to_json_bytes(stdlib=True)) for node, f in nodes])
            entries = []
            for node, filename in nodes:
                st = layout.node(filename).stat()
                old = index.entries.get(node.id) if index is not None else None
                entries.append(IndexEntry.from_node(node, filename, (st.st_mtime_ns, st.st_size),
                                                    old.tokens if old is not None else -1))
            if index is not None:
                for e in entries:
                    index.record_write(e)
                index.forget_fingerprint()
            with contextlib.suppress(OSError):  # the marks are on disk; renaming them in changed history/'s mtime
                bump_generation(d)
            if index is not None and index.journal_is_long():
                index.save()
            else:
                SessionIndex.append_journal(d, entries)
                if index is not None:
                    index.dirty = False
        return [node_rel(f) for f in files.values()]

    def _merge_locked(self, sid: str, index: SessionIndex, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
        nodes = []
        for nid in patches:
            node = self.node(sid, nid)
            node.metadata.update(patches[nid])
            nodes.append(node)
        paths = []
        for node in nodes:
            old = index.entries[node.id]
            node_file = old.filename  # rewrites keep the original file name
            st = self._write_history_file(sid, node_file, node.to_json_bytes())
            fresh = IndexEntry.from_node(node, node_file, (st.st_mtime_ns, st.st_size), old.tokens)
            index.record_write(fresh)
            paths.append(node_rel(node_file))
        if sid not in self._batches:
            index.forget_fingerprint()
        self._bump(sid)
        return paths

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

    @contextlib.contextmanager
    def registry_deferred(self) -> Iterator[None]:
        """Collect registry updates and write them once at exit: an import of a thousand
        sessions would otherwise rewrite the whole registry a thousand times."""
        if self._registry_pending is not None:
            yield
            return
        self._registry_pending = {}
        try:
            yield
        finally:
            pending, self._registry_pending = self._registry_pending, None
            if pending:
                self._registry_write(pending)

    def _registry_update(self, sid: str, meta: dict[str, Any]) -> None:
        if self._registry_pending is not None:
            self._registry_pending[sid] = dict(meta)  # dict item assignment: safe across threads
        else:
            self._registry_write({sid: meta})

    def _registry_write(self, metas: Mapping[str, Mapping[str, Any]]) -> None:
        from .registry import update_registry

        update_registry(StatePaths(self.state_dir).sessions_registry, metas, lock_timeout=LOCK_TIMEOUT_S)


def redactor_for(state_dir: Path) -> Redactor:
    """The state's redactor; its patterns load with the first write, never for a listing."""
    from ..redact import for_state

    return for_state(state_dir)


@dataclass
class _Undo:
    """What a locked write has replaced or created so far, to take back (see `_undoable`)."""

    layout: SessionPaths
    unborn: set[str]  # the session's init files awaiting their first commit, as they were
    kept: list[tuple[Path, Path | bytes | None]] = field(default_factory=list)  # path, old content (None: new)
    committing: list[str] | None = None  # the paths handed to git

    def keep(self, path: Path) -> None:
        """Before `path` is written: its content as it is, as a hard link (put back by a
        rename, no free space needed), or its bytes where links fail; or that it is new."""
        if any(p == path for p, _old in self.kept):
            return
        backup = self.layout.undo(len(self.kept))
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()  # a killed writer's
        try:
            os.link(path, backup)
            self.kept.append((path, backup))
            return
        except OSError:
            pass  # a new file; or no links here (a read-only disk fails the write itself next)
        try:
            self.kept.append((path, path.read_bytes()))
        except FileNotFoundError:
            self.kept.append((path, None))

    def restore(self) -> None:
        for path, old in reversed(self.kept):
            with contextlib.suppress(OSError):
                if old is None:
                    path.unlink(missing_ok=True)
                elif isinstance(old, Path):
                    os.replace(old, path)
                else:
                    atomic_write_bytes(path, old)

    def discard(self) -> None:
        for _path, old in self.kept:
            if isinstance(old, Path):
                with contextlib.suppress(OSError):
                    old.unlink()


def _session_lock(layout: SessionPaths) -> FileLock:
    """The session's write lock (filelock is loaded by the first writer, never by readers)."""
    from filelock import FileLock

    return FileLock(str(layout.lock), timeout=LOCK_TIMEOUT_S)


def _activity(layout: SessionPaths) -> tuple[object, ...]:
    """What a session writer at work changes, by stats alone: node files appear in
    `history/`, meta.json and the generation are rewritten, git's index and objects and
    the pack `git fast-import` streams to grow."""
    git_dir = layout.git
    seen: list[object] = []
    for path in (layout.history, layout.meta, layout.generation, git_dir, git_dir / "index", git_dir / "objects"):
        try:
            st = os.stat(path)
            seen.append((st.st_mtime_ns, st.st_size))
        except OSError:
            seen.append(None)
    try:
        with os.scandir(git_dir / "objects" / "pack") as it:
            seen.append(sorted((e.name, e.stat().st_size) for e in it))
    except OSError:
        seen.append(None)
    return tuple(seen)


def _node_files(history: Path, ids: set[str]) -> dict[str, str]:
    """Node id -> file name for `ids`, from the names alone (no index loaded): one listing,
    filtered by a set lookup of each name's suffix (one slice and hash per name, not one
    comparison per wanted id); the full check only for the few wanted."""
    wanted = {f"-{nid}.json" for nid in ids}
    out = {}
    names = os.listdir(history)
    for size in {len(w) for w in wanted}:
        cut = -size
        for name in [n for n in names if n[cut:] in wanted]:
            m = FILENAME_RE.match(name)
            if m is not None and m.group(3) in ids:
                out[m.group(3)] = name
    return out


def _num(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _turn_message(node: Node) -> str:
    text = "".join(ch if ch.isprintable() or ch == "\n" else " " for ch in node.text[:2000]).strip()
    first = text.splitlines()[0][:60].strip() if text else ""
    return f"turn: {first}" if first else "turn"
