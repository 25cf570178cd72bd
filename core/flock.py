"""An exclusive lock on a file, taken exactly as filelock takes it on Unix.

`flock(2)` on the same file, which is never deleted, so it and a `filelock.FileLock` on
that path exclude each other (and a killed holder's lock goes with its process). For the
short, hot writers (a plain `session append`, marking, the sessions registry): importing
filelock costs more than one of them does.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time

from .values import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@contextlib.contextmanager
def flock(path: str | os.PathLike[str], timeout: float, *, activity: Callable[[], object] | None = None,
          busy: Callable[[], BaseException] | None = None) -> Iterator[None]:
    """Hold the lock on `path` (created 0644 if missing) for the block.
    Waits up to `timeout` — with `activity`, counted from the last time what it returns
    changed: a holder at work keeps the wait going — then raises `busy()`, or else
    filelock's own `Timeout` (imported only then), as every other writer does."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        now = time.monotonic()
        deadline, pause, look_at = now + timeout, 0.005, now + 1.0
        seen: object = None
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if activity is not None and seen is None:
                    seen = activity()  # looked at only once there is a holder to watch
                now = time.monotonic()
                if activity is not None and now >= look_at:
                    look_at = now + 1.0
                    if (current := activity()) != seen:
                        seen, deadline = current, now + timeout
                if now > deadline:
                    if busy is not None:
                        raise busy() from None
                    from filelock import Timeout

                    raise Timeout(os.fspath(path)) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        yield
    finally:
        os.close(fd)  # releases the flock
