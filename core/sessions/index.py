"""A compact, fingerprinted index of one session's nodes.

The pending walk must cost what the backlog costs, not what the session costs
(DESIGN §4, §14). So each session keeps, beside its node files, a small index of
what the walk needs — ids, predecessors, kinds, flags, marks, token counts — in
`<session>/.scriptorium/index.json` (git-excluded). It is trusted while a stat
fingerprint of the session (history dir mtime, meta.json mtime and size) matches;
a mismatch re-stats the node files and re-reads only the ones that changed, so
another process's append or mark is seen on the next access.

Every Scriptorium write happens under the session lock and bumps a generation
counter (`.scriptorium/gen`), which is part of the fingerprint: a write by another
Scriptorium process is always seen, even within one file-system timestamp tick.
For writers that do not bump it (OpenProgram itself), a fingerprint captured within
the timestamp granularity is "racy", as in git's index, and is re-verified rather
than trusted — unless it was captured by our own write under the lock.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import time
from operator import attrgetter
from pathlib import Path

from ..fsutil import atomic_write_bytes
from ..values import TYPE_CHECKING, Value
from .nodes import FILENAME_RE, Node, checked_fields, classify, text_of
from .paths import GENERATION_REL, SessionPaths

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

INDEX_VERSION = 1
RACY_NS = 100_000_000  # 100 ms: coarser than any common file-system timestamp tick
MARK_PREFIX = "memory_written_"
JOURNAL_MAX = 1 << 20  # bytes of journalled rows before a full save folds them in


class IndexEntry(Value):
    """What the walk, the branch listing and the graph need of a node, without its text."""

    __slots__ = ("id", "seq", "role", "kind", "predecessor", "caller", "created_at", "tokens", "rewound",
                 "spawn_root", "is_record", "marks", "filename", "stat")

    def __init__(self, id: str, seq: int, role: str, kind: str, predecessor: str | None, caller: str,
                 created_at: float, tokens: int, rewound: bool, spawn_root: bool, is_record: bool,
                 marks: dict[str, str], filename: str, stat: tuple[int, int]) -> None:
        self.id = id
        self.seq = seq
        self.role = role
        self.kind = kind
        self.predecessor = predecessor
        self.caller = caller
        self.created_at = created_at
        self.tokens = tokens  # -1: not counted yet (filled lazily)
        self.rewound = rewound
        self.spawn_root = spawn_root
        self.is_record = is_record
        self.marks = marks
        self.filename = filename
        self.stat = stat  # (mtime_ns, size) of the node file when read

    @classmethod
    def from_node(cls, node: Node, filename: str, stat: tuple[int, int], tokens: int = -1) -> "IndexEntry":
        md = node.metadata
        return cls(
            id=node.id,
            seq=node.seq,
            role=node.role,
            kind=node.kind,
            predecessor=node.predecessor,
            caller=node.caller,
            created_at=node.created_at,
            tokens=tokens if node.is_record else 0,
            rewound=node.rewound,
            spawn_root=bool(md.get("spawn_branch_root")) or md.get("source") == "agent_spawn",
            is_record=node.is_record,
            marks={k: v for k, v in md.items() if k.startswith(MARK_PREFIX) and isinstance(v, str)},
            filename=filename,
            stat=stat,
        )

    @classmethod
    def from_payload(cls, payload: Any, filename: str, stat: tuple[int, int], tokens: int = -1) -> "IndexEntry":
        """Straight from a node file's JSON, no `Node` built and thrown away (first open of a
        session without an index reads thousands); the same checks as `Node.from_payload`.
        Positional arguments and no copies: a first open makes ten thousand of these."""
        nid, role, seq, md, pred, created = checked_fields(payload)
        kind = classify(nid, role, payload.get("name") or "", md)
        if kind == "user" or kind == "assistant":
            output = payload.get("output", "")
            text = output if isinstance(output, str) else text_of(output)
            is_record = bool(text) and not text.isspace()  # = bool(text.strip()), without the copy
        else:
            is_record = False
        if md:
            rewound = bool(md.get("rewound"))
            spawn = bool(md.get("spawn_branch_root")) or md.get("source") == "agent_spawn"
            marks = {k: v for k, v in md.items() if k.startswith(MARK_PREFIX) and isinstance(v, str)}
        else:
            rewound = spawn = False
            marks = {}
        return cls(nid, seq, role, kind, pred, payload.get("caller") or "", created, tokens if is_record else 0,
                   rewound, spawn, is_record, marks, filename, stat)

    def to_row(self) -> tuple[Any, ...]:
        """The saved row (a JSON array): the slots in order, the stat a pair."""
        return _ROW(self)

    @classmethod
    def from_row(cls, row: list[Any]) -> "IndexEntry":
        (nid, seq, role, kind, pred, caller, created, tokens, rewound, spawn, is_rec, marks, fname, stat) = row
        return cls(nid, seq, role, kind, pred, caller, created, tokens, rewound, spawn, is_rec, marks, fname, (stat[0], stat[1]))


_ROW = attrgetter(*IndexEntry.__slots__)  # one C call per row (a first open saves ten thousand)

Fingerprint = tuple[int, int, int, int]
NO_FINGERPRINT: Fingerprint = (0, 0, 0, -1)


def _generation(session_dir: Path) -> int:
    try:
        return int(SessionPaths(session_dir).generation.read_bytes() or b"0")
    except (OSError, ValueError):
        return 0


def fingerprint(session_dir: Path) -> Fingerprint:
    """(history dir mtime, meta.json mtime, meta.json size, write generation)."""
    layout = SessionPaths(session_dir)
    try:
        h = os.stat(layout.history).st_mtime_ns
    except FileNotFoundError:
        h = 0
    try:
        m = os.stat(layout.meta)
        meta = (m.st_mtime_ns, m.st_size)
    except FileNotFoundError:
        meta = (0, 0)
    return (h, meta[0], meta[1], _generation(session_dir))


def bump_generation(session_dir: Path | str) -> None:
    """Called under the session lock after every write. Rewritten in place, not by a temp
    renamed over: a rename over frees the old file's inode, which on a busy ext4 waits for
    the journal (0.2-3 ms, more than the rest of a mark's bookkeeping). A reader racing the
    write may read a mix of the old and new digits: any value but the one its index saw
    makes it re-verify, so at worst it re-verifies. Durability is not needed (a lost bump
    only makes indexes re-verify, see `fingerprint`)."""
    path = f"{session_dir}/{GENERATION_REL}"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):
            os.mkdir(os.path.dirname(path))  # not the session's folder: a deleted session stays deleted
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        old = os.read(fd, 64)
        try:
            value = int(old or b"0") + 1
        except ValueError:
            value = 1
        data = str(value).encode("ascii")
        os.pwrite(fd, data, 0)
        if len(data) < len(old):  # it only grows, unless it held something else
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


class NodeFileError(Exception):
    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"unreadable node file {path}: {reason}")
        self.path = path
        self.reason = reason


def read_node_file(path: Path | str) -> Node:
    try:
        return Node.from_payload(json.loads(read_whole(path, os.O_RDONLY | os.O_CLOEXEC)[0]))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise NodeFileError(path, str(exc)) from exc


def read_whole(path: Path | str, flags: int) -> tuple[bytes, os.stat_result]:
    """A file's bytes and the stat they were read under: open, fstat, read, close (a buffered
    file object adds an isatty ioctl, a seek and a second read to each of the thousands a
    first open reads and the twenty a mark rewrites)."""
    fd = os.open(path, flags)
    try:
        return read_open(fd)
    finally:
        os.close(fd)


def read_open(fd: int) -> tuple[bytes, os.stat_result]:
    """An open file's bytes from where it stands and the stat they were read under."""
    st = os.fstat(fd)
    data = os.read(fd, st.st_size + 1)
    if len(data) != st.st_size:  # changed under us, or a short read: read to the end
        parts = [data]
        while part := os.read(fd, 1 << 20):
            parts.append(part)
        data = b"".join(parts)
    return data, st


ORJSON_FILES = 2000  # past this many files to read, orjson's parse saves more than its import costs


def _read_entries(history: str, names: list[str], fast: bool) -> list[IndexEntry]:
    """Node files of `history` read once each into their index entries, in one loop: open,
    fstat, read, close (no buffered file object), the stat taken from the bytes read.
    `fast`: parsed by orjson (C, ~3x the stdlib per small file) — for a first open of
    thousands; its import (~15 ms: it loads dataclasses, uuid, datetime, platform) costs
    more than it saves on a few hundred."""
    if fast:
        import orjson

        def parse(data: bytes) -> Any:
            try:
                return orjson.loads(data)
            except orjson.JSONDecodeError:
                return json.loads(data)  # what orjson refuses (lone surrogates, huge ints) the stdlib may take
    else:
        def parse(data: bytes) -> Any:
            return json.loads(data)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    entry = IndexEntry.from_payload
    out: list[IndexEntry] = []
    append = out.append
    opened, fstat, read, close = os.open, os.fstat, os.read, os.close
    # Opened relative to the folder: the kernel walks one name, not the whole path (~10% of
    # the system calls' time for ten thousand files here).
    folder = opened(history, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names:
            try:
                fd = opened(name, flags, dir_fd=folder)
                try:
                    st = fstat(fd)
                    data = read(fd, st.st_size + 1)
                finally:
                    close(fd)
                if len(data) != st.st_size:  # changed under us, or a short read
                    data, st = read_whole(f"{history}/{name}", flags)
                append(entry(parse(data), name, (st.st_mtime_ns, st.st_size), -1))
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                raise NodeFileError(Path(history, name), str(exc)) from exc
    finally:
        close(folder)
    return out


@contextlib.contextmanager
def collector_paused(count: int) -> Iterator[None]:
    """The cyclic garbage collector paused while `count` node files are read, rows written
    or pending turns made (`marker.pending`): none of them makes cycles (payloads, rows and
    turns are freed by their counts), but their allocations would trigger a collection
    every 700 of them, each walking the entries made so far — ~9% of a first open of 10,000
    files."""
    paused = gc.isenabled() and count >= GC_PAUSE_FILES
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


GC_PAUSE_FILES = 500  # below this many files the collector's passes cost nothing to speak of
ORJSON_ROWS = 4000  # past this many rows orjson's dump saves more than its import (~13 ms) costs


def _dumps(doc: dict[str, Any], rows: int) -> bytes:
    """The index document as compact UTF-8 JSON: orjson (8x the stdlib) when it is loaded
    already (a first open read the node files with it) or the index is large."""
    if rows >= ORJSON_ROWS or "orjson" in sys.modules:
        import orjson

        try:
            return orjson.dumps(doc)
        except (orjson.JSONEncodeError, TypeError):
            pass  # lone surrogates in a foreign mark, huge ints: the stdlib copes
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(doc, ensure_ascii=True, separators=(",", ":")).encode("ascii")


_SEQ = attrgetter("seq")  # (a refresh lists in the folder's order; timsort takes sorted rows in one pass)


class SessionIndex:
    """Entries by id plus the derived child map; rebuilt incrementally from disk."""

    def __init__(self, session_dir: Path) -> None:
        self.session_dir = session_dir
        self.entries: dict[str, IndexEntry] = {}
        self.fp: Fingerprint = NO_FINGERPRINT
        self.captured_ns = 0
        self.owned = False  # fp captured right after our own write under the lock
        self.dirty = False  # entries changed since the index file was written
        self.max_seq = -1
        self._children: dict[str, list[str]] | None = None

    @property
    def history(self) -> Path:
        return SessionPaths(self.session_dir).history

    @property
    def index_path(self) -> Path:
        return SessionPaths(self.session_dir).index

    # --- loading -------------------------------------------------------------

    @classmethod
    def open(cls, session_dir: Path) -> "SessionIndex":
        index = cls(session_dir)
        index._load_file()
        index.refresh()
        return index

    def _load_file(self) -> None:
        try:
            doc = json.loads(self.index_path.read_text(encoding="utf-8"))
            if doc.get("version") != INDEX_VERSION:
                return
            self.entries = {row[0]: IndexEntry.from_row(row) for row in doc["nodes"]}
            self.max_seq = max((e.seq for e in self.entries.values()), default=-1)
            self.fp = tuple(doc["fp"])
            self.captured_ns = int(doc["captured_ns"])
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            self.entries, self.fp, self.captured_ns = {}, NO_FINGERPRINT, 0

        self._apply_journal()

    @property
    def journal_path(self) -> Path:
        return SessionPaths(self.session_dir).index_journal

    def _apply_journal(self) -> None:
        """Rows appended by marks since the last full save (see `append_journal`). A journal
        is only a hint: the fingerprint is dropped, so the stats re-verify every entry."""
        try:
            data = self.journal_path.read_bytes()
        except OSError:
            return
        for line in data.splitlines():
            try:
                row = IndexEntry.from_row(json.loads(line))
            except (ValueError, TypeError, IndexError):
                continue  # a torn last line of a killed writer
            old = self.entries.get(row.id)
            if row.tokens < 0 and old is not None:
                row.tokens = old.tokens  # a metadata merge never changes the text
            self.entries[row.id] = row
            self.max_seq = max(self.max_seq, row.seq)
        self.fp, self.captured_ns = NO_FINGERPRINT, 0

    @staticmethod
    def append_journal(session_dir: Path, entries: list[IndexEntry]) -> None:
        """Note rewritten entries without rewriting the index (marking costs what it writes);
        past JOURNAL_MAX bytes the next full save folds the journal in."""
        path = SessionPaths(session_dir).index_journal
        try:
            with open(path, "ab") as fh:
                fh.write("".join(json.dumps(e.to_row(), ensure_ascii=False, separators=(",", ":")) + "\n"
                                 for e in entries).encode("utf-8"))
        except OSError:
            pass  # a lost hint: the stats re-verify anyway

    def journal_is_long(self) -> bool:
        try:
            return self.journal_path.stat().st_size > JOURNAL_MAX
        except OSError:
            return False

    def is_fresh(self) -> bool:
        current = fingerprint(self.session_dir)
        if current != self.fp:
            return False
        return self.owned or self.captured_ns - max(current[:2]) > RACY_NS

    def refresh(self) -> bool:
        """Bring entries in line with disk; returns True when anything changed."""
        if self.is_fresh():
            return False
        fp_before = fingerprint(self.session_dir)
        captured = time.time_ns()
        seen: dict[str, IndexEntry] = {}
        by_file = {e.filename: e for e in self.entries.values()}
        changed = False
        try:
            scan = list(os.scandir(self.history))
        except FileNotFoundError:
            scan = []
        fast = len(scan) - len(by_file) >= ORJSON_FILES or "orjson" in sys.modules  # at least that many to read
        match = FILENAME_RE.match
        unknown: list[str] = []
        for entry in scan:
            name = entry.name
            if not match(name) or not entry.is_file(follow_symlinks=False):
                continue
            known = by_file.get(name)
            if known is not None:
                st = entry.stat(follow_symlinks=False)
                if known.stat == (st.st_mtime_ns, st.st_size):
                    seen[known.id] = known
                    continue
            unknown.append(name)  # a file we do not know: no stat before its read
        if unknown:
            changed = True
            with collector_paused(len(unknown)):
                read = _read_entries(str(self.history), unknown, fast)
            for e in read:
                known = by_file.get(e.filename)
                if known is not None and known.stat[1] == e.stat[1]:
                    e.tokens = known.tokens if e.is_record else 0
                seen[e.id] = e  # the same id in two files (a damaged session): a file read wins
        if len(seen) != len(self.entries):
            changed = True
        self.entries = seen
        self.max_seq = max((e.seq for e in seen.values()), default=-1)
        self.fp = fp_before
        self.captured_ns = captured
        self.owned = False
        self._children = None
        self.dirty = True
        return changed

    def save(self) -> None:
        if not self.dirty:
            return
        entries = sorted(self.entries.values(), key=_SEQ)  # rows in seq order: a mark finds a batch's rows by short searches
        with collector_paused(len(entries)):
            doc = {"version": INDEX_VERSION, "fp": list(self.fp), "captured_ns": self.captured_ns,
                   "nodes": list(map(_ROW, entries))}
            data = _dumps(doc, len(self.entries))
        self.index_path.parent.mkdir(exist_ok=True)
        try:
            atomic_write_bytes(self.index_path, data, durable=False)
            self.journal_path.unlink(missing_ok=True)  # folded in
            self.dirty = False
        except OSError:
            pass  # a cache that cannot be saved is rebuilt next time

    # --- own writes ----------------------------------------------------------

    def record_write(self, entry: IndexEntry) -> None:
        """Note a node we just wrote (the caller decides about the fingerprint)."""
        self.entries[entry.id] = entry
        self.max_seq = max(self.max_seq, entry.seq)
        self._children = None
        self.dirty = True

    def adopt_fingerprint(self) -> None:
        """After our own append under the session lock: disk is exactly what we wrote."""
        self.fp = fingerprint(self.session_dir)
        self.captured_ns = time.time_ns()
        self.owned = True
        self.dirty = True

    def forget_fingerprint(self) -> None:
        """After a metadata merge: never claim to be synced (that could hide another
        process's concurrent change); the next access re-verifies against disk."""
        self.fp = NO_FINGERPRINT
        self.owned = False
        self.dirty = True

    # --- queries -------------------------------------------------------------

    @property
    def children(self) -> dict[str, list[str]]:
        if self._children is None:
            kids: dict[str, list[str]] = {}
            for e in sorted(self.entries.values(), key=lambda e: e.seq):
                if e.predecessor is not None:
                    kids.setdefault(e.predecessor, []).append(e.id)
            self._children = kids
        return self._children
