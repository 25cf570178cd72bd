"""Live updates: files changed on disk by someone else reach the open screens.

A watchdog observer watches the state directory with four watches, whatever the
number of sessions: the state directory and `memory/` themselves, `sessions/` and
`memory/topics/` with everything below (events inside git and runtime directories
are dropped). Setting the watches up walks `sessions/`, so it happens on the
watcher's own thread, never in the app's. Events are coalesced on that thread by
the engine's debounce (core/watch/coalesce.py: a short quiet period, a bounded delay)
into one `DiskChanged` per burst, posted to every subscribed screen (`post_message`
is thread-safe).

A screen's own changes do not echo back to it: its save runs inside
`own_change(screen)`, which holds reports back and records the digests of the files
the save wrote (`acknowledge(paths)`); while a file still has that digest, the change
is reported to the other screens (the History screen shows the new commit) but not to
the one that made it. A file is reported only when its content differs from the last
content seen, so touching or re-reading a file reports nothing.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scriptorium.core.paths import StatePaths
from scriptorium.core.watch.coalesce import Coalescer

from .common.messages import DiskChanged

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

QUIET_S = 0.15  # wait for a writer to pause...
MAX_DELAY_S = 1.0  # ...but never longer than this behind a busy one
_WRITES = frozenset({"created", "modified", "moved", "deleted", "closed"})  # not "opened", "closed_no_write"
_GONE = "-"  # the digest of a file that does not exist


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except IsADirectoryError:
        return "dir"
    except OSError:
        return _GONE


class LiveUpdates:
    """`start()` begins watching (a state directory that does not exist yet is not
    watched); `stop()` ends both threads. Subscribers get `DiskChanged` messages."""

    def __init__(self, state_dir: Path, *, quiet_s: float = QUIET_S, max_delay_s: float = MAX_DELAY_S) -> None:
        self.paths = StatePaths(Path(state_dir))
        self._changed: Coalescer[Path] = Coalescer((quiet_s, max_delay_s))
        self._subscribers: list[MessagePump] = []
        self._known: dict[Path, str] = {}  # path -> digest last seen
        self._own: dict[Path, tuple[str, object]] = {}  # path -> (digest, the subscriber that wrote it)
        self._lock = threading.Lock()  # subscribers, digests seen, own changes
        self._observer: Any = None
        self._handler = _Handler(self)
        self._watched: dict[Path, Any] = {}  # directory -> watchdog's ObservedWatch
        self._watch_lock = threading.Lock()
        self.ready = threading.Event()  # set once the watches are in place
        self.error = ""  # why watching could not start, if it could not
        self._thread: threading.Thread | None = None

    # --- subscribers ----------------------------------------------------------

    def subscribe(self, target: MessagePump) -> None:
        with self._lock:
            if target not in self._subscribers:
                self._subscribers.append(target)

    def unsubscribe(self, target: MessagePump) -> None:
        with self._lock:
            if target in self._subscribers:
                self._subscribers.remove(target)

    # --- lifecycle ------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Watching (the watches are in place)."""
        return self.ready.is_set()

    def start(self) -> None:
        if self._thread is not None or not self.paths.root.is_dir():
            return
        self._thread = threading.Thread(target=self._run, name="scriptorium-live", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._lock:  # the observer is made under it: none is made after this
            self._changed.close()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join()
        if self._observer is not None:
            self._observer.stop()
            if self._observer.is_alive():
                self._observer.join()

    def _wanted(self) -> list[tuple[Path, bool]]:
        """(directory, recursive) to watch, of those that exist now."""
        paths = self.paths
        wanted = [(paths.root, False), (paths.sessions, True), (paths.memory, False), (paths.topics, True)]
        return [(directory, recursive) for directory, recursive in wanted if directory.is_dir()]

    def _ensure_watches(self) -> None:
        """Watch what exists now (`sessions/` or `topics/` may appear after the app opened)."""
        with self._watch_lock:
            for directory, recursive in self._wanted():
                if directory not in self._watched:
                    try:
                        self._watched[directory] = self._observer.schedule(self._handler, str(directory),
                                                                           recursive=recursive)
                    except OSError:  # vanished meanwhile, or out of watches: the next event retries
                        continue

    def _forget_watches(self, gone: Path) -> None:
        """A watched directory was removed: drop its watches, so a new one there is watched."""
        with self._watch_lock:
            for directory in [d for d in self._watched if d == gone or gone in d.parents]:
                watch = self._watched.pop(directory)
                try:
                    self._observer.unschedule(watch)
                except KeyError:  # watchdog already dropped it
                    pass

    # --- events (observer thread) --------------------------------------------

    def _event(self, path: Path, is_directory: bool, event_type: str) -> None:
        if is_directory:
            if event_type in ("deleted", "moved"):
                self._forget_watches(path)
            if event_type in ("created", "moved") and path.parent in (self.paths.root, self.paths.memory):
                self._ensure_watches()  # sessions/, memory/ or topics/ appeared
            if self._kind(path) is None or event_type == "modified":
                return
        elif self._kind(path) is None:
            return
        self._changed.add([path])

    def _kind(self, path: Path) -> tuple[str, str] | None:
        """("sessions", session id) / ("topics", topic path) / ("memory", name), or None to ignore."""
        paths = self.paths
        try:
            rel = path.relative_to(paths.root).parts
        except ValueError:
            return None
        if any(part.startswith(".") for part in rel) or not rel:
            return None
        if paths.sessions in path.parents:
            return "sessions", path.relative_to(paths.sessions).parts[0]
        if paths.topics in path.parents:
            return ("topics", path.relative_to(paths.topics).as_posix()) if path.name.endswith(".md") else None
        if path.parent == paths.memory and path != paths.topics:
            return "memory", path.name
        return None

    # --- the app's own changes ---------------------------------------------------

    @contextmanager
    def own_change(self, origin: object) -> Iterator[Callable[[Iterable[Path]], None]]:
        """Hold reports while `origin` (a subscriber) changes files; call the yielded
        `acknowledge(paths)` with the files it changed, so they are not reported back to it."""
        def acknowledge(paths: Iterable[Path]) -> None:
            digests = {Path(p): _digest(Path(p)) for p in paths}
            with self._lock:
                self._own.update((path, (digest, origin)) for path, digest in digests.items())

        with self._changed.hold():
            yield acknowledge

    # --- the watcher's thread: set up, then coalesce -----------------------------------

    def _run(self) -> None:
        from watchdog.observers import Observer

        with self._lock:
            if self._changed.closed:
                return
            self._observer = Observer()
        try:
            self._ensure_watches()
            self._observer.start()
        except OSError as exc:  # no inotify left, say: the app works on, without live updates
            self.error = str(exc)
            return
        self.ready.set()
        while (batch := self._changed.next_batch()) is not None:
            self._report(batch)

    def _report(self, batch: set[Path]) -> None:
        changes: list[tuple[str, str, object]] = []  # (kind, name, the subscriber not to tell)
        digests = {path: _digest(path) for path in batch}
        with self._lock:
            for path, digest in sorted(digests.items()):
                kind = self._kind(path)
                if self._known.get(path) == digest or kind is None:
                    continue
                self._known[path] = digest
                own = self._own.pop(path, None)
                changes.append((*kind, own[1] if own is not None and own[0] == digest else None))
            subscribers = list(self._subscribers)
        for target in subscribers:
            seen = {kind: frozenset(name for k, name, origin in changes if k == kind and origin is not target)
                    for kind in ("sessions", "topics", "memory")}
            if any(seen.values()):
                target.post_message(DiskChanged(seen["sessions"], seen["topics"], seen["memory"]))


class _Handler:
    """watchdog's handler protocol (`dispatch`), without importing watchdog with the app."""

    def __init__(self, live: LiveUpdates) -> None:
        self.live = live

    def dispatch(self, event: Any) -> None:
        if event.event_type not in _WRITES:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self.live._event(Path(str(raw)), event.is_directory, event.event_type)
