"""One import run: discover files, plan each session, apply it, and report."""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import Timeout

from ..sessions.errors import SessionError

from ..sessions.store import SessionStore
from . import KINDS, importer
from .apply import ApplyResult, apply_plan, preview_plan, shown_title
from .plan import SessionPlan
from .resume import PlannerCache

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, what is being imported)
WORKERS = 2  # sessions written at once (see import_sources)


@dataclass
class ImportReport:
    kind: str
    files: int = 0
    bytes: int = 0
    sessions: list[ApplyResult] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    folded: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0  # how long the import took
    dry_run: bool = False  # planned only: "added" means "would add"
    refused: list[tuple[Path, str | None]] = field(default_factory=list)  # (file, the kind it looks like)

    @property
    def nodes_added(self) -> int:
        return sum(s.added for s in self.sessions)

    @property
    def nodes_unchanged(self) -> int:
        return sum(s.unchanged for s in self.sessions)

    @property
    def redactions(self) -> Counter[str]:
        """Secrets redacted from the nodes this import added, by kind."""
        total: Counter[str] = Counter()
        for s in self.sessions:
            total.update(s.redactions)
        return total

    @property
    def errors(self) -> list[str]:
        return [f"{s.session_id}: {e}" for s in self.sessions for e in s.errors]

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "files": self.files,
            "bytes": self.bytes,
            "sessions": len(self.sessions),
            "sessions_created": sum(1 for s in self.sessions if s.created),
            "nodes_added": self.nodes_added,
            "nodes_unchanged": self.nodes_unchanged,
            "skipped": dict(self.skipped.most_common()),
            "folded": dict(self.folded.most_common()),
            "notes": dict(self.notes.most_common()),
            "errors": self.errors,
            "session_ids": [s.session_id for s in self.sessions],
            "seconds": round(self.seconds, 3),
            "dry_run": self.dry_run,
            "not_this_kind": [{"path": str(path), "looks_like": other} for path, other in self.refused],
            "redactions": dict(self.redactions.most_common()),
            "sessions_redacted": sum(1 for s in self.sessions if s.redactions),
        }


def resolve_files(kind: str, paths: Iterable[Path] | None) -> list[Path]:
    """The transcript files an import of `paths` (default: the agent's own store) covers.

    Raises FileNotFoundError for an explicit path that does not exist; a missing
    default directory simply means there is nothing to import.
    """
    module = importer(kind)
    given = [Path(p).expanduser() for p in paths] if paths else []
    for path in given:
        if not path.exists():
            raise FileNotFoundError(f"no such file or directory: {path}")
    roots = given or [r for r in module.default_roots() if r.is_dir()]
    return module.discover(roots)


def import_sources(store: SessionStore, kind: str, paths: Iterable[Path] | None = None, *,
                   progress: Progress | None = None, workers: int = WORKERS, dry_run: bool = False,
                   planners: PlannerCache | None = None) -> ImportReport:
    """Import every session found under `paths` (or the agent's default location);
    with `dry_run`, plan and count only — no session or node is written. `planners`
    (a follower's) resume each session where the last call stopped reading.

    Sessions are written by `workers` threads at once (one session never by two):
    most of a session's cost is waiting — on file creation and on git — so a second
    session proceeds meanwhile. The report lists sessions in plan order; the first
    error raised while applying a plan is re-raised once the others have finished.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown importer {kind!r} (choose from {', '.join(KINDS)})")
    started = time.monotonic()
    files = resolve_files(kind, paths)
    report = ImportReport(kind=kind, files=len(files), dry_run=dry_run)
    meter = _Meter(sum(_size(f) for f in files), progress)
    session_locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
    running: list[Future[ApplyResult]] = []
    in_flight: set[Future[ApplyResult]] = set()
    with store.registry_deferred():
        pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="scriptorium-import")
        try:
            for plan in _one_ahead(importer(kind).plan_sessions(files, planners)):
                report.bytes += plan.bytes_read
                report.skipped.update(plan.skipped)
                report.folded.update(plan.folded)
                report.notes.update(plan.notes)
                share = sum(_size(f) for f in plan.sources)
                if plan.refused:
                    report.refused += [(path, looks_like(path, kind)) for path in plan.sources]
                if not plan.nodes:
                    meter.advance(share, "")
                    continue  # nothing to import (not a transcript, or nothing but metadata yet)
                if dry_run:
                    report.sessions.append(preview_plan(store, plan))
                    meter.advance(share, shown_title(store, plan) or plan.session_id)
                    continue
                future = pool.submit(_apply, store, plan, share, meter, session_locks[plan.session_id])
                running.append(future)
                in_flight.add(future)
                if len(in_flight) > max(1, workers):  # bound the plans held in memory
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    if any(f.exception() is not None for f in done):
                        break  # stop planning; the error is raised below
        except BaseException:  # Ctrl+C included: sessions being written finish, queued ones never start
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    report.sessions += [f.result() for f in running]
    if planners is not None:
        for result in report.sessions:
            if result.errors:
                planners.forget(result.session_id)
    report.seconds = time.monotonic() - started
    return report


def looks_like(path: Path, not_kind: str) -> str | None:
    """Which other importer's kind a file is, if any (for a useful error on a wrong `kind`)."""
    return next((kind for kind in KINDS if kind != not_kind and importer(kind).recognizes(path)), None)


def _apply(store: SessionStore, plan: SessionPlan, share: int, meter: _Meter,
           lock: threading.Lock) -> ApplyResult:
    label = shown_title(store, plan) or plan.session_id
    credited = 0

    def on_node(n: int, of: int) -> None:
        nonlocal credited
        now = share * n // max(of, 1)
        meter.advance(now - credited, label)
        credited = now

    with lock:
        meter.advance(0, label)
        try:
            result = apply_plan(store, plan, on_node=on_node)
        except (SessionError, Timeout) as exc:  # one unusable session must not cost the others
            result = ApplyResult(session_id=plan.session_id, title=label, created=False, errors=[str(exc)])
    meter.advance(share - credited, label)
    return result


class _Meter:
    """Bytes imported so far, summed across the writing threads, for the progress bar."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        self.total, self.done = total, 0
        self._progress = progress
        self._lock = threading.Lock()

    def advance(self, nbytes: int, label: str) -> None:
        if self._progress is None:
            return
        with self._lock:
            self.done = min(self.total, self.done + nbytes)
            self._progress(self.done, self.total, label)


def _one_ahead(plans: Iterable[SessionPlan]) -> Iterator[SessionPlan]:
    """Plan the next session on a thread while this one is written: writing waits on the
    disk and on git much of the time, planning needs the interpreter. A planner's
    exception surfaces here, in order."""
    end, source = object(), iter(plans)
    with ThreadPoolExecutor(1, thread_name_prefix="scriptorium-plan") as pool:
        upcoming = pool.submit(next, source, end)
        while (plan := upcoming.result()) is not end:
            upcoming = pool.submit(next, source, end)
            yield plan  # type: ignore[misc]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
