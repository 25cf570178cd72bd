"""The cross-process write lock: `.scriptorium/write.lock`, an exclusive flock.

One transaction at a time per workspace — also inside one process: the lock is not
re-entrant, because a transaction nested in another would install over the outer
one's baseline and lose an update. A waiter gives up after its timeout with
`LockBusy`, which callers report as retryable: a user must never wait on memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import LockBusy

LOCK_NAME = "write.lock"
POLL_SECONDS = 0.05


@contextmanager
def write_lock(runtime_dir: Path, timeout: float) -> Iterator[None]:
    """Hold the workspace's write lock; raise `LockBusy` after `timeout` seconds."""
    runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = runtime_dir / LOCK_NAME
    lock = FileLock(str(path), mode=0o600, thread_local=False)  # a fresh fd: flock excludes it too
    try:
        lock.acquire(timeout=timeout, poll_interval=POLL_SECONDS)
    except Timeout:
        raise LockBusy(
            f"another write transaction holds the workspace lock ({LOCK_NAME}); retry later"
        ) from None
    try:
        if path.stat().st_mode & 0o777 != 0o600:
            os.chmod(path, 0o600)
        yield
    finally:
        lock.release()
