"""Planning that resumes where the last read stopped, so following a live transcript costs
what was appended, not the file's size.

A `Planner` holds one source session's folding state (the importer's folder, its
`SessionPlan` bookkeeping, tool calls still waiting for results) and a `FileMark` per
file: how many bytes and lines it has consumed, and fingerprints of the first bytes and
of the bytes just before the mark. `run()` feeds every file from its mark and returns a
plan of the nodes that are new since the last run. A file that shrank or whose
fingerprints changed was rewritten: the planner is invalid and the caller starts a new
one from byte 0 (`plan.py`'s stable ids make that re-plan land on the same nodes).

The importers' `plan_sessions(files, cache)` keep their planners in `cache` (one
`PlannerCache` per follower); without a cache every call plans from scratch, as a
one-off `scriptorium import` does.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .plan import SessionPlan

FINGERPRINT_BYTES = 4096


def _digest(path: Path, start: int, end: int) -> bytes:
    with open(path, "rb") as fh:
        fh.seek(start)
        return hashlib.blake2b(fh.read(end - start), digest_size=16).digest()


@dataclass
class FileMark:
    """How far one file has been read (complete lines only) and what its bytes were."""

    offset: int = 0
    lines: int = 0
    head: bytes = b""  # digest of the first min(FINGERPRINT_BYTES, offset) bytes
    tail: bytes = b""  # digest of the FINGERPRINT_BYTES before `offset`
    ignored: bool = False  # the importer decided to read no more of this file
    in_long_line: bool = False  # `offset` is inside a line too long to read (jsonl.MAX_LINE_BYTES), still unfinished

    def seal(self, path: Path) -> None:
        """Fingerprint the consumed prefix (after a read)."""
        self.head = _digest(path, 0, min(FINGERPRINT_BYTES, self.offset))
        self.tail = _digest(path, max(0, self.offset - FINGERPRINT_BYTES), self.offset)

    def still_prefix_of(self, path: Path) -> bool:
        """Is what was read still the start of the file (appended to, not rewritten)?"""
        if self.offset == 0:
            return True
        try:
            if path.stat().st_size < self.offset:
                return False
            return (_digest(path, 0, min(FINGERPRINT_BYTES, self.offset)) == self.head
                    and _digest(path, max(0, self.offset - FINGERPRINT_BYTES), self.offset) == self.tail)
        except OSError:
            return False


class Planner:
    """One source session's resumable planning. Subclasses feed their files in `read()`
    (via `jsonl.iter_records(path, plan, mark)`) and settle a pass in `close()`."""

    def __init__(self, plan: SessionPlan) -> None:
        self.plan = plan
        self.marks: dict[Path, FileMark] = {}

    def mark(self, path: Path) -> FileMark:
        return self.marks.setdefault(path, FileMark())

    def valid(self) -> bool:
        return all(mark.still_prefix_of(path) for path, mark in self.marks.items())

    def read(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """End of a pass: plan what a later line has shown to be over (tool calls)."""

    def run(self) -> SessionPlan:
        """Read what was appended since the last run; a plan of the nodes it adds."""
        plan = self.plan
        counters = (Counter(plan.skipped), Counter(plan.folded), Counter(plan.notes))
        plan.nodes, plan.sources, plan.bytes_read = [], [], 0
        self.read()
        self.close()
        for path, mark in self.marks.items():
            if path in plan.sources and mark.offset:
                mark.seal(path)
        delta = SessionPlan(session_id=plan.session_id, kind=plan.kind, title=plan.title, meta=dict(plan.meta),
                            nodes=plan.nodes, skipped=plan.skipped - counters[0], folded=plan.folded - counters[1],
                            notes=plan.notes - counters[2], sources=list(plan.sources), bytes_read=plan.bytes_read,
                            started=plan.started)
        plan.nodes = []  # written by the caller; the planner keeps only the bookkeeping
        return delta


class PlannerCache(dict[str, Planner]):
    """A follower's planners, by source session key."""

    def reuse(self, key: str) -> Planner | None:
        """The planner for `key`, if it has one whose files were only appended to."""
        planner = self.get(key)
        if planner is not None and planner.valid():
            return planner
        self.pop(key, None)
        return None

    def forget(self, session_id: str) -> None:
        """Drop the planners of a session whose nodes could not all be written: their marks
        are past those lines, so the next import must read the files again."""
        for key in [k for k, planner in self.items() if planner.plan.session_id == session_id]:
            del self[key]
