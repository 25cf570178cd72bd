"""The marks' redo log: one fsync makes a mark of twenty turns durable.

A mark rewrites node files (temp + rename). Making each rename durable costs an fsync of
every temp and one of `history/`; instead the new bytes of the files one mark rewrites go
into `.scriptorium/marks.redo` as one checksummed record, and that file's one fdatasync is
the mark's durable commit. The temps are renamed over the node files after it, unsynced.

If the machine goes down before the kernel has written those back, a node file can come
back as it was before the mark (the rename lost) or empty (its data lost): `recover`
rewrites each such file from its record. A record names each file as it was before the
mark and as the mark wrote it, by (inode, size, mtime): a file that is neither — written
again since, by us or by OpenProgram, always through a new inode — is left alone, and a
file that is gone is never brought back (a crash cannot remove a name a rename replaced;
someone deleted it). Readers check at their first look at a session in a process (a stat
of the log, and of the logged files while it holds records); writers under the lock
before they write.

Only a crash of the kernel that held the renames in its cache can undo them (a killed
process cannot): the machine went down, so it booted again, or the file system went away
under it (a disk pulled out, then mounted again). Each record carries the writer's key —
this boot's id (/proc/sys/kernel/random/boot_id) and the mount id of `history/`'s file
system (/proc/self/fdinfo) — and a check whose key equals the log's first record's trusts
the whole log without reading it: records only ever follow one another in time, so the
first one being of this boot and this mount makes every one of them so. Any other key (a
reboot, a remount, another machine over a network file system, no /proc, an old record
without a key) is checked file by file as before.

A checkpoint empties the log once its files are durable: fsync of each and of
`history/`, then truncate. On this machine's disk an fsync of a file the kernel wrote back
long ago costs about what a dirty one does (a device cache flush: twenty in four threads
1-3 ms), so checkpointing each mark's predecessor would only move the fsyncs one mark
later. The next mark checkpoints when the log is longer than CHECKPOINT_BYTES (about ten
marks of twenty turns: one checkpoint of ~200 files, ~12 ms, instead of ten rounds of
fsyncs) or older than CHECKPOINT_S; a reader's check of a full log is ~0.6 ms (stats).
"""

from __future__ import annotations

import binascii
import contextlib
import json
import os
import time

from ..fsutil import fsync_all, fsync_dir, write_all
from ..values import TYPE_CHECKING
from .paths import HISTORY_REL, REDO_REL

if TYPE_CHECKING:
    from pathlib import Path

MAGIC = b"MARKS1"  # a record without a key (written before keys, or where /proc is not there)
KEYED = b"MARKS2"  # a record with its writer's key: "MARKS2 <key> <header length> <payload length>"
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"
CHECKPOINT_BYTES = 64 << 10  # past this the next mark empties the log (~10 marks of 20 turns)
CHECKPOINT_S = 3600.0  # or once its newest record is this old: an idle session's log does not linger

Identity = tuple[int, int, int]  # (inode, size, mtime_ns)


def identity(st: os.stat_result) -> Identity:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Entry:
    """One rewritten file of a record: its name, identities before and after, new bytes."""

    __slots__ = ("filename", "before", "after", "data")

    def __init__(self, filename: str, before: Identity, after: Identity, data: bytes) -> None:
        self.filename, self.before, self.after, self.data = filename, before, after, data


def log_path(session_dir: Path | str) -> str:
    return f"{session_dir}/{REDO_REL}"


_BOOT: list[bytes] = []  # this boot's id, read once a process (a process never outlives its boot)


def _boot_id() -> bytes:
    if not _BOOT:
        try:
            fd = os.open(BOOT_ID_PATH, os.O_RDONLY | os.O_CLOEXEC)
            try:
                boot = os.read(fd, 64).strip()
            finally:
                os.close(fd)
        except OSError:
            boot = b""
        _BOOT.append(boot if boot and boot.replace(b"-", b"").isalnum() else b"")
    return _BOOT[0]


def key(session_dir: Path | str) -> bytes:
    """This boot's id and the mount id of the session's `history/`, b"" when either is
    unknown (then nothing is trusted)."""
    boot = _boot_id()
    if not boot:
        return b""
    try:
        fd = os.open(f"{session_dir}/{HISTORY_REL}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        info = os.open(f"/proc/self/fdinfo/{fd}", os.O_RDONLY | os.O_CLOEXEC)
        try:
            text = os.read(info, 4096)
        finally:
            os.close(info)
    except OSError:
        return b""
    finally:
        os.close(fd)
    at = text.find(b"mnt_id:")
    if at < 0:
        return b""
    mount = text[at + 7:].split(b"\n", 1)[0].strip()
    return boot + b"." + mount if mount.isdigit() else b""


def append(session_dir: Path | str, entries: list[Entry]) -> None:
    """Append one record and make it durable (fdatasync; the folder too when the log is new)."""
    header = json.dumps([[e.filename, *e.before, *e.after] for e in entries], ensure_ascii=False,
                        separators=(",", ":")).encode("utf-8")
    payload = b"".join(e.data for e in entries)
    body = header + payload
    writer = key(session_dir)
    lead = b"%s %s" % (KEYED, writer) if writer else MAGIC
    record = b"%s %d %d\n%s%08x\n" % (lead, len(header), len(payload), body, binascii.crc32(body))
    path = log_path(session_dir)
    new = False  # the folder is synced only when the log's name is new: a log a checkpoint emptied keeps its entry
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except FileNotFoundError:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        new = True
    try:
        write_all(fd, record)
        os.fdatasync(fd)
    finally:
        os.close(fd)
    if new:
        fsync_dir(os.path.dirname(path))


def read(session_dir: Path | str, *, payloads: bool = True) -> list[Entry]:
    """Every entry of the log's whole records, oldest first (a torn or altered record ends it)."""
    try:
        fd = os.open(log_path(session_dir), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return []
    try:
        data = os.read(fd, os.fstat(fd).st_size + 1)
    finally:
        os.close(fd)
    out: list[Entry] = []
    at = 0
    while at < len(data):
        eol = data.find(b"\n", at)
        parts = data[at:eol].split(b" ") if eol > 0 else []
        if len(parts) == 4 and parts[0] == KEYED:
            del parts[1]  # the writer's key: only `lost` reads it
        elif len(parts) != 3 or parts[0] != MAGIC:
            break
        if not parts[1].isdigit() or not parts[2].isdigit():
            break
        hlen, plen = int(parts[1]), int(parts[2])
        body = data[eol + 1: eol + 1 + hlen + plen]
        crc = data[eol + 1 + hlen + plen: eol + 10 + hlen + plen]
        if len(body) != hlen + plen or crc != b"%08x\n" % binascii.crc32(body):
            break
        try:
            rows = json.loads(body[:hlen])
            offset = hlen
            for name, *ids in rows:
                size = ids[4]
                out.append(Entry(name, (ids[0], ids[1], ids[2]), (ids[3], ids[4], ids[5]),
                                 body[offset:offset + size] if payloads else b""))
                offset += size
        except (ValueError, TypeError, IndexError):
            break
        at = eol + 10 + hlen + plen
    return out


def _lost(history: str, e: Entry) -> bool:
    """Whether the crash undid this entry's write: the file is as before the mark, or holds
    the mark's inode with other bytes than it wrote (data lost), or is empty."""
    try:
        st = os.lstat(f"{history}/{e.filename}")
    except FileNotFoundError:
        return False  # deleted by someone: never resurrected
    now = identity(st)
    if now == e.after:
        return False
    return (now == e.before or st.st_size == 0
            or (now[0], now[2]) == (e.after[0], e.after[2]))  # the mark's inode and time, not all its bytes


def lost(session_dir: Path | str, only: set[str] | None = None) -> bool:
    """Does the log hold an entry a crash undid (of the files in `only`, if given)? Stats
    only; a stat of the log when it is empty, as it is after a checkpoint, and a look at
    its first record's key when that is this boot's and this mount's (nothing undone)."""
    try:
        fd = os.open(log_path(session_dir), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        head = os.read(fd, len(KEYED) + 100)
    finally:
        os.close(fd)
    if not head:
        return False
    if head.startswith(KEYED + b" "):
        writer = key(session_dir)
        if writer and head.startswith(b"%s %s " % (KEYED, writer)):
            return False
    history = f"{session_dir}/{HISTORY_REL}"
    return any(_lost(history, e) for e in read(session_dir, payloads=False) if only is None or e.filename in only)


def recover(session_dir: Path | str) -> int:
    """Under the session lock: rewrite, durably, every logged file a crash undid (the newest
    record of a file wins). Returns how many."""
    return _recover(f"{session_dir}/{HISTORY_REL}", read(session_dir))


def _recover(history: str, entries: list[Entry]) -> int:
    newest: dict[str, Entry] = {}
    for e in entries:
        newest[e.filename] = e
    fixed = 0
    for e in newest.values():
        if not _lost(history, e):
            continue
        tmp = f"{history}/{e.filename}.{os.getpid()}.redo.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            write_all(fd, e.data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, f"{history}/{e.filename}")
        fixed += 1
    if fixed:
        fsync_dir(history)
    return fixed


def due(session_dir: Path | str) -> bool:
    """Whether the next mark should checkpoint: the log holds more than CHECKPOINT_BYTES,
    or records of which the newest is older than CHECKPOINT_S."""
    try:
        st = os.stat(log_path(session_dir))
    except OSError:
        return False
    return st.st_size > 0 and (st.st_size > CHECKPOINT_BYTES or time.time() - st.st_mtime > CHECKPOINT_S)


def checkpoint(session_dir: Path | str) -> None:
    """Under the session lock: recover, make every logged file durable, empty the log (read
    once: the recovery and the fsyncs take their names from the same records)."""
    history = f"{session_dir}/{HISTORY_REL}"
    entries = read(session_dir)
    _recover(history, entries)
    fds: list[int] = []
    try:
        for name in {e.filename for e in entries}:
            with contextlib.suppress(OSError):
                fds.append(os.open(f"{history}/{name}", os.O_RDONLY | os.O_CLOEXEC))
        fsync_all(fds)
    finally:
        for fd in fds:
            os.close(fd)
    fsync_dir(history)
    fd = os.open(log_path(session_dir), os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, 0)
        os.fsync(fd)
    finally:
        os.close(fd)
