"""Written marks on node files, at the cost of what they write (see `mark_nodes`).

The marks' meaning (which turns are written, which are pending) is `marker.py`'s; this
module only puts metadata patches into node files, durably and without a git commit.
"""

from __future__ import annotations

import contextlib
import json
import os

from . import redo
from . import repo as session_git
from ..fsutil import write_all
from ..flock import flock as _flock
from ..values import TYPE_CHECKING
from .errors import InvalidNode, SessionBusy, UnknownNode
from .index import IndexEntry, NodeFileError, SessionIndex, bump_generation, read_open, read_whole
from .nodes import FILENAME_RE, Node
from .paths import HISTORY_REL, SessionPaths, node_rel

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from .reading import SessionReader

MARK_STALL_S = 600.0  # marking gives up on the session lock only after its holder did nothing this long


def mark_nodes(reader: SessionReader, sid: str, patches: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Merge metadata patches (written marks) at the cost of what they write: durable
    when this returns — by one fdatasync of the marks' redo log, the node files replaced
    after it unsynced (redo.py: a crash that undoes one is repaired from the log) — but
    with no git commit and no index rewrite. The uncommitted flag stays up, so the
    session's next writer commits them into history first (as after a crash:
    `SessionWriter._begin_writes`); the index gets a journal line
    (SessionIndex.append_journal); an index that was fresh when the lock was taken stays
    fresh (only our marks changed disk meanwhile), so the next read costs a few stats, not
    a stat of every node file. A process that has not read the session finds the files
    through the saved index's rows (`_named_in_saved_index`), not a listing of
    `history/`. (Inside a batch the writer merges them instead: `SessionStore.mark_nodes`.)

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
                 else _named_in_saved_index(layout, list(patches)))
        if redo.due(d):
            redo.checkpoint(d)  # (it recovers first)
        _recover(d, set(files.values()))
        held: list[int] = []  # the old files, open until their names are replaced (see `_close_later`)
        try:
            found = _read_nodes(history, files, patches, held)
            if len(found) < len(patches):  # not in the saved index (appended since), or gone: the names say
                listed = _node_files(history, {n for n in patches if n not in found})
                _recover(d, set(listed.values()))
                files.update(listed)
                found.update(_read_nodes(history, files, {n: p for n, p in patches.items() if n not in found},
                                         held))
            missing = [n for n in patches if n not in found]
            if missing:
                raise UnknownNode(f"unknown node(s) in session {sid}: {', '.join(missing)}")
            session_git.set_flag(d, True)  # written ahead of their commit
            nodes = [found[n] for n in patches]
            stats = _write_logged(d, history, nodes)
        finally:
            _close_later(held)
        entries = []
        for (node, filename, _before), st in zip(nodes, stats):
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
    return [node_rel(f) for _node, f, _before in nodes]


def _recover(d: Path, filenames: set[str]) -> None:
    """Before these files are read to be marked again: an earlier mark of theirs that a
    crash undid is put back from the redo log (or this mark would write over it)."""
    if redo.lost(d, filenames):
        redo.recover(d)


def _write_logged(d: Path, history: str, nodes: list[tuple[Node, str, os.stat_result]]) -> list[os.stat_result]:
    """Write each node to a temp beside its file, log them all in one durable record of the
    redo log, then rename the temps over the files (no fsync of theirs: the record is the
    commit). Returns each file's stat as written (a rename keeps it)."""
    salt = os.urandom(8).hex()
    temps: list[str] = []
    entries: list[redo.Entry] = []
    stats: list[os.stat_result] = []
    try:
        for node, filename, before in nodes:
            data = node.to_json_bytes(stdlib=True)
            tmp = f"{history}/{filename}.{salt}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            temps.append(tmp)
            try:
                write_all(fd, data)
                st = os.fstat(fd)
            finally:
                os.close(fd)
            stats.append(st)
            entries.append(redo.Entry(filename, redo.identity(before), redo.identity(st), data))
        redo.append(d, entries)
        while temps:
            tmp = temps[0]
            os.replace(tmp, tmp[: -len(salt) - 5])
            temps.pop(0)
    except BaseException:
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    return stats


def _read_held(path: str, held: list[int]) -> tuple[bytes, os.stat_result]:
    """`read_whole`, the file left open in `held` while it has room."""
    if len(held) >= HOLD_MAX:
        return read_whole(path, os.O_RDONLY | os.O_CLOEXEC)
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    held.append(fd)
    return read_open(fd)


def _close_later(fds: list[int]) -> None:
    """Close the old node files a mark read, in a thread of their own. A rename over a file
    nobody holds frees its inode inside the rename — on ext4 a truncate and a journal wait
    each, 0.25-0.8 ms of wall time per file here, most of a fresh mark's call. Held open
    through the renames, the frees happen at the close instead, and closed in a thread
    (the system call releases the interpreter) they overlap whatever the caller does next
    instead of delaying the mark's return. Nothing reads these descriptors: the names
    readers open already hold the new files, and the mark was durable before the renames
    (its redo record). A process that exits first has its kernel close them at exit."""
    if not fds:
        return
    import _thread  # built in: no import cost

    try:
        _thread.start_new_thread(_close_all, (fds,))
    except RuntimeError:  # no thread to be had (an interpreter shutting down): close them here
        _close_all(fds)


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


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


HOLD_MAX = 64  # old files held open through a mark's renames, at most (a mark of thousands stays under any fd limit)


def _read_nodes(history: str, files: Mapping[str, str], patches: Mapping[str, Mapping[str, Any]],
                held: list[int]) -> dict[str, tuple[Node, str, os.stat_result]]:
    """The patched nodes of `patches` whose file is named in `files` and still there (a name
    from a saved index may be of a node deleted since: it is left out, not an error), each
    with the stat its bytes were read under. Each file read stays open in `held` (up to
    HOLD_MAX), for `_close_later`."""
    out = {}
    for nid, patch in patches.items():
        filename = files.get(nid)
        if filename is None:
            continue
        path = f"{history}/{filename}"
        try:
            data, st = _read_held(path, held)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise InvalidNode(str(NodeFileError(path, str(exc)))) from exc
        try:
            node = Node.from_payload(json.loads(data))
        except (ValueError, UnicodeDecodeError) as exc:
            raise InvalidNode(str(NodeFileError(path, str(exc)))) from exc
        if node.id != nid:
            continue
        node.metadata.update(patch)
        out[nid] = (node, filename, st)
    return out


def _named_in_saved_index(layout: SessionPaths, ids: list[str]) -> dict[str, str]:
    """Node id -> file name from the rows of the saved index and its journal, found by a byte
    search instead of a listing of `history/` (10,000 names: 3-9 ms in a fresh process) or
    a parse of the whole index (1.5 MB: ~15 ms). A node's file name never changes
    (formats §1.3), so any saved row names it; a node appended since is not found here (the
    caller lists for it) and one deleted since fails to open (the same). The rows are in
    seq order and a batch marks neighbouring turns, so each search starts where the last
    one ended: twenty consecutive ids cost one long search and nineteen short ones."""
    out: dict[str, str] = {}
    for path in (layout.index, layout.index_journal):  # any row names the file; the journal has the newest
        wanted = [n for n in ids if n not in out]
        if not wanted:
            break
        try:  # the index is only ever replaced by a rename, never truncated under a mapping; the journal grows
            data = _mapped(path) if path == layout.index else read_whole(path, os.O_RDONLY | os.O_CLOEXEC)[0]
        except (OSError, ValueError):  # (mmap refuses an empty file)
            continue
        last = 0
        for nid in wanted:
            needle = b'[' + json.dumps(nid, ensure_ascii=False).encode("utf-8") + b','  # a row starts with its id
            at = data.find(needle, last)
            if at < 0:
                at = data.find(needle, 0, last + len(needle))
            name = _row_filename(data, at, nid) if at >= 0 else None
            if name is not None:
                out[nid] = name
                last = at
    return out


def _mapped(path: str | Path) -> Any:
    """A file's bytes to search, mapped rather than read: a saved index of 10,000 rows is
    1.5 MB, whose copy (and the fresh memory it lands in) cost a fresh mark more than the
    search does; mapped, only the pages a search passes are touched."""
    import mmap

    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)


def _row_filename(data: bytes, at: int, nid: str) -> str | None:
    """The file name in the index row starting at `at` (rows end in their stat, `[m,s]]`)."""
    end = at
    for _ in range(4):  # a `]]` inside a string ends a try, not the row
        end = data.find(b"]]", end) + 2
        if end < 2:
            return None
        try:
            row = json.loads(data[at:end])
        except ValueError:
            continue
        if isinstance(row, list) and len(row) == 14 and row[0] == nid and isinstance(row[12], str):
            m = FILENAME_RE.match(row[12])
            return row[12] if m is not None and m.group(3) == nid else None
        return None
    return None


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
