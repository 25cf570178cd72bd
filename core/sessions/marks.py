"""Written marks on node files, at the cost of what they write (see `mark_nodes`).

The marks' meaning (which turns are written, which are pending) is `marker.py`'s; this
module only puts metadata patches into node files, durably and without a git commit.
"""

from __future__ import annotations

import contextlib
import os

from . import repo as session_git
from ..flock import flock as _flock
from ..fsutil import atomic_write_many
from ..values import TYPE_CHECKING
from .errors import InvalidNode, SessionBusy, UnknownNode
from .index import IndexEntry, NodeFileError, SessionIndex, bump_generation, read_node_file
from .nodes import FILENAME_RE
from .paths import HISTORY_REL, SessionPaths, node_rel

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .reading import SessionReader

MARK_STALL_S = 600.0  # marking gives up on the session lock only after its holder did nothing this long


def mark_nodes(reader: SessionReader, sid: str, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Merge metadata patches (written marks) at the cost of what they write: each node
    file is rewritten and fsynced before this returns, but there is no git commit and
    no index rewrite. The uncommitted flag stays up, so the session's next writer
    commits them into history first (as after a crash: `SessionWriter._begin_writes`); the
    index gets a journal line (SessionIndex.append_journal); an index that was fresh when
    the lock was taken stays fresh (only our marks changed disk meanwhile), so the next
    read costs a few stats, not a stat of every node file. (Inside a batch the writer
    merges them instead: `SessionStore.mark_nodes`.)

    Marks follow an installed batch: giving up on the session lock would only have the
    batch written again. So this waits for the lock as long as its holder works (an
    import of a long transcript holds it for minutes), and raises `SessionBusy` only
    when the holder has shown no sign of work for MARK_STALL_S."""
    if not patches:
        return []
    d = reader.require(sid)
    layout = SessionPaths(d)
    history = f"{d}/{HISTORY_REL}"  # str paths: a Path per file costs more than its syscalls
    with contextlib.suppress(FileExistsError):
        os.mkdir(layout.runtime)

    def busy() -> SessionBusy:
        return SessionBusy(f"session {sid}: a writer holding its lock has shown no sign of work for "
                           f"{MARK_STALL_S:.0f} s; the turns were not marked")

    with _flock(layout.lock, MARK_STALL_S, activity=lambda: _activity(layout), busy=busy):
        index = reader.loaded_index(sid)
        fresh = index is not None and index.is_fresh()
        files = ({n: e.filename for n in patches if (e := index.entries.get(n)) is not None} if index is not None
                 else _node_files(history, set(patches)))
        missing = [n for n in patches if n not in files]
        if missing:
            raise UnknownNode(f"unknown node(s) in session {sid}: {', '.join(missing)}")
        session_git.set_flag(d, True)  # written ahead of their commit
        nodes = []
        for nid, filename in files.items():
            try:
                node = read_node_file(f"{history}/{filename}")
            except NodeFileError as exc:
                raise InvalidNode(str(exc)) from exc
            node.metadata.update(patches[nid])
            nodes.append((node, filename))
        stats = atomic_write_many([(f"{history}/{f}", node.to_json_bytes(stdlib=True)) for node, f in nodes])
        entries = []
        for (node, filename), st in zip(nodes, stats):
            old = index.entries.get(node.id) if index is not None else None
            entries.append(IndexEntry.from_node(node, filename, (st.st_mtime_ns, st.st_size),
                                                old.tokens if old is not None else -1))
        if index is not None:
            for e in entries:
                index.record_write(e)
            index.forget_fingerprint()
        with contextlib.suppress(OSError):  # the marks are on disk; renaming them in changed history/'s mtime
            bump_generation(d)
            if fresh and index is not None:
                index.adopt_fingerprint()  # disk is what the index knew plus our marks
        if index is not None and index.journal_is_long():
            index.save()
        else:
            SessionIndex.append_journal(d, entries)
            if index is not None:
                index.dirty = False
    return [node_rel(f) for f in files.values()]


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


def _node_files(history: str, ids: set[str]) -> dict[str, str]:
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
