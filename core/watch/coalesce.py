"""One debounce for everything that reacts to bursts of file-system events.

Events arrive on a watcher's thread, many per write; the reaction (re-import a
transcript, tell the screens what changed) should run once per burst. A `Coalescer`
collects items from any thread and hands them to one consumer thread as a batch once
the burst pauses for the quiet period, or once the longest delay after its first item
has passed, whichever comes first — a busy writer is followed with bounded latency.
The import follower (follow.py) and the TUI's live updates both use it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")

Delays = Callable[[], tuple[float, float]]  # () -> (quiet period, longest delay), in seconds


class Coalescer(Generic[T]):
    """`add()` from any thread; `next_batch()` from the consumer's. While `hold()` is
    active no batch is released (items still collect); `close()` ends the waiting."""

    def __init__(self, delays: Delays | tuple[float, float]) -> None:
        if callable(delays):
            self._delays: Delays = delays
        else:
            fixed = delays
            self._delays = lambda: fixed
        self._items: set[T] = set()
        self._first = self._last = 0.0
        self._held = 0
        self._closed = False
        self._cond = threading.Condition()

    def add(self, items: Iterable[T]) -> None:
        with self._cond:
            now = time.monotonic()
            items = set(items)
            if not items:
                return
            if not self._items:
                self._first = now
            self._last = now
            self._items |= items
            self._cond.notify_all()

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Release nothing until the block ends (held batches then follow their delays)."""
        with self._cond:
            self._held += 1
        try:
            yield
        finally:
            with self._cond:
                self._held -= 1
                self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def next_batch(self) -> set[T] | None:
        """Wait for the next batch; None once closed (what is pending then is dropped)."""
        with self._cond:
            while not self._closed:
                if self._items and not self._held:
                    quiet, longest = self._delays()
                    due = min(self._last + quiet, self._first + longest)
                    now = time.monotonic()
                    if now >= due:
                        batch, self._items = self._items, set()
                        return batch
                    self._cond.wait(due - now)
                else:
                    self._cond.wait()
            return None
