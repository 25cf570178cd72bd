"""Small file-system helpers shared by every writer of state: atomic replace, and whether bytes are text."""

from __future__ import annotations

import _thread
import contextlib
import os
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    """Write every byte: os.write may write fewer than it was given."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def fsync_dir(path: Path | str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600, durable: bool = True) -> None:
    """Write `data` to `path` so that readers see the old or the new bytes, never a mix.

    Temp file `<name>.<32 random hex>.tmp` (os.urandom: `uuid` would import `platform`) in the same directory, fsync, chmod, `os.replace`,
    fsync of the parent (the OpenProgram convention).
    """
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.urandom(16).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


FSYNC_GROUP = 64  # files written (fds open) and fsynced at once by atomic_write_many
FSYNC_THREADS = 4  # enough concurrent fsyncs for the journal to group them; more only cost thread starts (20 marks: 16 ms median at 4, 19 at 16)


def fsync_all(fds: list[int]) -> None:
    """fsync every fd, several at once in threads: a journaling file system commits
    concurrent fsyncs together (ext4's jbd2, XFS's log), so twenty small files cost about
    what one does instead of twenty journal commits. Raises the first failure.

    Bare `_thread` threads, joined through one lock each: `threading` costs a fresh
    process more to import (~1 ms) than its three threads cost to run."""
    if len(fds) < 2:
        for fd in fds:
            os.fsync(fd)
        return
    errors: list[OSError] = []
    shares = [fds[i::FSYNC_THREADS] for i in range(min(FSYNC_THREADS, len(fds)))]

    def run(share: list[int], done: _thread.LockType | None) -> None:
        try:
            for fd in share:
                try:
                    os.fsync(fd)
                except OSError as exc:
                    errors.append(exc)
        finally:
            if done is not None:
                done.release()

    joins = []
    for share in shares[1:]:
        done = _thread.allocate_lock()
        done.acquire()
        joins.append(done)
        try:
            _thread.start_new_thread(run, (share, done))
        except RuntimeError:  # no thread to be had: this one does that share too
            run(share, done)
    run(shares[0], None)
    for done in joins:
        done.acquire()
    if errors:
        raise errors[0]


def write_synced_many(items: list[tuple[Path | str, bytes]], *, mode: int = 0o600,
                      exclusive: bool = False) -> list[os.stat_result]:
    """Write each file (created, or truncated unless `exclusive`) and fsync them together
    (`fsync_all`, FSYNC_GROUP files open at a time): durable when this returns. Returns
    each file's stat as written (fstat: no lookup by name)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | (os.O_EXCL if exclusive else os.O_TRUNC)
    stats: list[os.stat_result] = []
    for start in range(0, len(items), FSYNC_GROUP):
        fds: list[int] = []
        try:
            for path, data in items[start:start + FSYNC_GROUP]:
                fd = os.open(path, flags, mode)
                fds.append(fd)
                write_all(fd, data)
            fsync_all(fds)
            stats.extend(os.fstat(fd) for fd in fds)
        finally:
            for fd in fds:
                os.close(fd)
    return stats


def atomic_write_many(items: list[tuple[Path | str, bytes]], *, mode: int = 0o600) -> list[os.stat_result]:
    """`atomic_write_bytes` for many files, durable when it returns: all temp files written
    and fsynced together (`write_synced_many`), then all renamed, then one fsync per directory.
    Returns each file's stat as written (a rename keeps mtime and size)."""
    salt = os.urandom(16).hex()  # one draw for all: the temp names differ by their targets
    temps = [(f"{path}.{salt}.tmp", path) for path, _data in items]
    try:
        stats = write_synced_many([(tmp, data) for (tmp, _path), (_p, data) in zip(temps, items)], mode=mode,
                                  exclusive=True)
        for tmp, path in temps:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _path in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    for d in {os.path.dirname(path) for _tmp, path in temps}:
        fsync_dir(d)
    return stats


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode, durable=durable)


def write_file_batched(path: str, data: bytes, *, mode: int = 0o600) -> os.stat_result:
    """Replace `path` atomically (temp file + rename) but without fsync, in five system calls.

    For writers inside a batch whose commit is the durability point (bulk imports): a
    crash leaves at worst a stray `.tmp` file, never a half-written one under `path`.
    Returns the stat of the written file (rename keeps size and mtime).
    """
    tmp = f"{path}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, mode)
    except FileExistsError:  # left by a crashed run of a process with our pid
        tmp = f"{path}.{os.urandom(16).hex()}.tmp"
        fd = os.open(tmp, flags, mode)
    try:
        try:
            write_all(fd, data)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return st


def is_utf8(data: bytes) -> bool:
    """Whether a file's bytes are UTF-8 text (memory holds nothing else; purge rewrites only text)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
