"""The locked write unit: every change to a session's files, under its lock.

`append` (and the summaries and spawn roots built on it), `rewind` and metadata merges
each run inside `_locked`: the session lock, the leftovers of an interrupted writer
committed first (`_begin_writes`), every replaced file noted for `Undo`, and one git
commit at the end (`_committed`). A `batch` holds the lock across many writes and
streams them into one pack. Secrets are redacted before anything is written.

Over 400 lines for a reason: these writes share one state — the open batches, the undo
of the write under way, the session-init files awaiting their first commit — and each
step reads it; split across modules, that state would travel as arguments.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import redo
from . import repo as session_git
from ..flock import flock as _flock
from ..fsutil import atomic_write_bytes, fsync_dir, write_file_batched
from .errors import InvalidNode, SessionExists, UnknownNode
from .index import IndexEntry, SessionIndex, bump_generation
from .nodes import ROLE_ALIASES, ROOT_ID, Node, clean_text, valid_node_id
from .paths import META_REL, WORKDIR_KEEP_REL, SessionPaths, node_rel
from .reading import HEAD, REDACTIONS_KEY, SessionReader, add_counts
from .registry import RegistryWriter
from .undo import Undo

if TYPE_CHECKING:
    from filelock import FileLock

    from ..redact import Redactor
    from .pack import PackedCommit

LOCK_TIMEOUT_S = 10.0


@dataclass
class _Batch:
    """An open batch: the session lock is held throughout; node files are streamed to
    one pack as they are written; meta.json (`SessionReader.held` meanwhile) and the write
    generation are written once, at exit."""

    message: str
    paths: set[str]
    lock: FileLock
    pack: PackedCommit
    wrote: bool = False


class SessionWriter:
    """The writes of one store: what it reads goes through `reader`, registry updates through `registry`."""

    def __init__(self, reader: SessionReader, registry: RegistryWriter) -> None:
        self.reader = reader
        self.registry = registry
        self._batches: dict[str, _Batch] = {}
        self._undos: dict[str, Undo] = {}  # locked writes under way outside a batch (see _undoable)
        self._repos: set[Path] = set()  # session directories known to be repositories
        self._unborn: dict[str, set[str]] = {}  # created with commit=False: init files awaiting a commit
        self._redactor: Redactor | None = None

    @property
    def redactor(self) -> Redactor:
        """Secrets never enter a session (DESIGN §16): every node passes this at `append`;
        its patterns load with the first write, never for a listing."""
        if self._redactor is None:
            self._redactor = redactor_for(self.reader.state_dir)
        return self._redactor

    def in_batch(self, sid: str) -> bool:
        return sid in self._batches

    def _layout(self, sid: str) -> SessionPaths:
        """The layout of a session this writer already checked (`reader.require` at the lock)."""
        return SessionPaths(self.reader.root / sid)

    # --- meta and generation -------------------------------------------------

    def _write_meta(self, sid: str, meta: dict[str, Any], *, durable: bool = True) -> None:
        batch = self._batches.get(sid)
        if batch is not None:  # written once when the batch closes
            self.reader.held[sid], batch.wrote = meta, True
            return
        data = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        path = self._layout(sid).meta
        if (undo := self._undos.get(sid)) is not None:
            undo.keep(path)
        atomic_write_bytes(path, data, durable=durable)

    def _bump(self, sid: str) -> None:
        """Bump the write generation (see session_index); deferred inside a batch."""
        batch = self._batches.get(sid)
        if batch is not None:
            batch.wrote = True
        else:
            bump_generation(self._layout(sid).root)

    # --- creation ------------------------------------------------------------

    def create_session(self, title: str = "", session_id: str | None = None, *, commit: bool = True,
                       started_at: float | None = None, **extra: Any) -> str:
        """A new empty session. With `commit=False` its files join the session's first
        commit instead of an init commit of their own, and — like a batch's — that commit
        is their durability point (imports: fewer git processes, no fsyncs). `started_at`:
        when the conversation began, if not now (an imported transcript's first record);
        it dates ROOT and the session's `created_at`. `extra` are the session's own fields
        (`cwd=`, `source=`, `speakers=`): a `meta=` mapping would nest them where no reader
        looks, so it is refused."""
        if "meta" in extra:
            raise TypeError("create_session takes the session's fields as keywords (cwd=..., source=...), not meta={...}")
        sid = session_id or os.urandom(6).hex()
        counts: Counter[str] = Counter()
        title = self.redactor.text(title, counts)
        extra = self.redactor.value(extra, counts)
        if counts:
            extra = {**extra, REDACTIONS_KEY: dict(counts)}
        d = self.reader.session_dir(sid)
        self.reader.root.mkdir(parents=True, exist_ok=True)
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
            self.registry.update(sid, meta)
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
        session_git.commit_paths(self._repo(self._layout(sid).root), paths, message)

    @contextlib.contextmanager
    def batch(self, sid: str, message: str = "import") -> Iterator[None]:
        """Group many writes into one git commit (imports, demos). The session lock is
        held for the whole batch; node files are not fsynced one by one, and meta.json
        is written once at exit — the commit at exit is the durability point."""
        d = self.reader.require(sid)
        if sid in self._batches:
            yield
            return
        layout = SessionPaths(d)
        layout.runtime.mkdir(exist_ok=True)
        lock = _session_lock(layout)
        with lock:
            carried = self._begin_writes(sid, d, time.time(), fold=True)
            index = self.reader.index(sid)
            from .pack import PackedCommit  # the writers' modules load with the first write, never for a listing

            meta = dict(self.reader.meta(sid))
            self._batches[sid] = _Batch(message, carried, lock, PackedCommit(d))
            self.reader.held[sid] = meta
            try:
                yield
            finally:
                batch = self._batches.pop(sid)
                meta = self.reader.held.pop(sid)
                if batch.wrote:
                    self._write_meta(sid, meta)
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
                    self.registry.update(sid, meta)
                else:
                    batch.pack.close()
                session_git.set_flag(d, False)
                index.save()

    # --- the lock and its undo -----------------------------------------------

    @contextlib.contextmanager
    def _locked(self, sid: str) -> Iterator[SessionIndex]:
        d = self.reader.require(sid)
        if sid in self._batches:
            yield self.reader.index(sid)
            return
        layout = SessionPaths(d)
        layout.runtime.mkdir(exist_ok=True)
        with _flock(layout.lock, LOCK_TIMEOUT_S):  # as filelock takes it: not loading filelock halves an append
            self._begin_writes(sid, d, time.time())
            with self._undoable(sid, layout):
                yield self.reader.index(sid)
            session_git.set_flag(d, False)  # every locked write ends with its commit

    @contextlib.contextmanager
    def _undoable(self, sid: str, layout: SessionPaths) -> Iterator[None]:
        """A locked write outside a batch completes or leaves no trace (a full disk may fail
        any step: a node file, meta.json, git): every file it replaces or creates is noted
        first (`Undo.keep`), and a failure takes them all back — by unlinks and renames,
        which need no free space — and puts git's index back. Left on disk, the next writer
        would commit them as an interrupted write's leftovers: a failed append would become
        a phantom branch beside its caller's retry, a failed rewind would happen after all."""
        undo = self._undos[sid] = Undo(layout, set(self._unborn.get(sid, ())))
        try:
            yield
        except BaseException:
            self._take_back(sid, undo)
            raise
        finally:
            self._undos.pop(sid, None)
        undo.discard()

    def _take_back(self, sid: str, undo: Undo) -> None:
        if not undo.kept and undo.committing is None:
            return  # refused before writing anything (an unknown node, a duplicate id)
        d = undo.layout.root
        undo.restore()
        if undo.committing:
            with contextlib.suppress(OSError, session_git.GitError):
                session_git.unstage(d, undo.committing)  # else commit_paths drops a staged path gone from disk
        fsync_dir(undo.layout.history)  # removals as durable as the files were
        self.reader.forget_index(sid)  # re-read from disk when next asked
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
        recovered = redo.lost(d) and redo.recover(d) > 0  # marks a crash undid, back before anyone rewrites them
        if (recovered or session_git.flag_is_up(d)) and sid not in self._unborn:
            self._repo(d)  # a `git init` killed half-way is completed first: its status would fail
            if paths := session_git.leftovers(d):  # marks awaiting a commit, or a killed writer's files
                if fold:  # a batch takes them into its own commit
                    session_git.set_flag(d, True)
                    return set(paths)
                session_git.commit_paths(self._repo(d), paths, "recover: files an interrupted write left uncommitted")
        session_git.set_flag(d, True)
        return set()

    # --- appending -----------------------------------------------------------

    def append(
        self,
        sid: str,
        role: str,
        content: Any,
        *,
        predecessor: Any = HEAD,
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
            meta = self.reader.meta(sid)
            if nid in index.entries:
                raise InvalidNode(f"node {nid} already exists in session {sid}")
            if predecessor is HEAD:
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
                self.registry.update(sid, meta)
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
            path = self._layout(sid).node(filename)
            if (undo := self._undos.get(sid)) is not None:
                undo.keep(path)
            atomic_write_bytes(path, data)
            return path.stat()
        rel = node_rel(filename)
        where = os.path.join(self.reader.root, sid, rel)
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
        first = self.reader.entry(sid, covers_ids[0])
        for cid in covers_ids[1:]:
            self.reader.entry(sid, cid)
        predecessor = first.predecessor if at is None else self.reader.entry(sid, at).id
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
            self.reader.entry(sid, caller)
        md = {**(metadata or {}), "source": source, "spawn_branch_root": True}
        return self.append(sid, "user", prompt, predecessor=None, node_id=node_id, caller=caller, metadata=md,
                           created_at=created_at, move_head=register_head)

    # --- rewriting -----------------------------------------------------------

    def rewind(self, sid: str, nid: str) -> list[str]:
        """Hide the head's turns back to `nid` inclusive; the head moves to its predecessor."""
        with self._locked(sid) as index:
            if nid not in index.entries:
                raise UnknownNode(f"unknown node {nid} in session {sid}")
            chain = [e.id for e in self.reader.walk_ids(sid) if not e.rewound]
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
            meta = self.reader.meta(sid)
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

    def _merge_locked(self, sid: str, index: SessionIndex, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
        nodes = []
        for nid in patches:
            node = self.reader.node(sid, nid)
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


def redactor_for(state_dir: Path) -> Redactor:
    """The state's redactor; its patterns load with the first write, never for a listing."""
    from ..redact import for_state

    return for_state(state_dir)


def _session_lock(layout: SessionPaths) -> FileLock:
    """The session's write lock (filelock is loaded by the first writer, never by readers)."""
    from filelock import FileLock

    return FileLock(str(layout.lock), timeout=LOCK_TIMEOUT_S)


def _turn_message(node: Node) -> str:
    text = "".join(ch if ch.isprintable() or ch == "\n" else " " for ch in node.text[:2000]).strip()
    first = text.splitlines()[0][:60].strip() if text else ""
    return f"turn: {first}" if first else "turn"
