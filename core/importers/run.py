"""One import run: discover files, plan each session, apply it, and report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..session_store import SessionStore
from . import IMPORTERS
from .apply import ApplyResult, apply_plan

Progress = Callable[[int, int, str], None]  # (bytes done, bytes total, what is being imported)


@dataclass
class ImportReport:
    kind: str
    files: int = 0
    bytes: int = 0
    sessions: list[ApplyResult] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    folded: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)

    @property
    def nodes_added(self) -> int:
        return sum(s.added for s in self.sessions)

    @property
    def nodes_unchanged(self) -> int:
        return sum(s.unchanged for s in self.sessions)

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
        }


def resolve_files(kind: str, paths: Iterable[Path] | None) -> list[Path]:
    """The transcript files an import of `paths` (default: the agent's own store) covers.

    Raises FileNotFoundError for an explicit path that does not exist; a missing
    default directory simply means there is nothing to import.
    """
    module = IMPORTERS[kind]
    given = [Path(p).expanduser() for p in paths] if paths else []
    for path in given:
        if not path.exists():
            raise FileNotFoundError(f"no such file or directory: {path}")
    roots = given or [r for r in module.default_roots() if r.is_dir()]
    return module.discover(roots)


def import_sources(store: SessionStore, kind: str, paths: Iterable[Path] | None = None, *,
                   progress: Progress | None = None) -> ImportReport:
    """Import every session found under `paths` (or the agent's default location)."""
    if kind not in IMPORTERS:
        raise ValueError(f"unknown importer {kind!r} (choose from {', '.join(IMPORTERS)})")
    files = resolve_files(kind, paths)
    report = ImportReport(kind=kind, files=len(files))
    total = sum(_size(f) for f in files)
    done = 0
    for plan in IMPORTERS[kind].plan_sessions(files):
        report.bytes += plan.bytes_read
        report.skipped.update(plan.skipped)
        report.folded.update(plan.folded)
        report.notes.update(plan.notes)
        if not plan.nodes:
            done = min(total, done + sum(_size(f) for f in plan.sources))
            continue  # nothing to import (not a transcript, or nothing but metadata yet)
        label = plan.title or plan.session_id
        base, share = done, sum(_size(f) for f in plan.sources)

        def on_node(n: int, of: int, base: int = base, share: int = share, label: str = label) -> None:
            if progress is not None:
                progress(min(total, base + share * n // max(of, 1)), total, label)

        if progress is not None:
            progress(base, total, label)
        report.sessions.append(apply_plan(store, plan, on_node=on_node))
        done = min(total, base + share)
        if progress is not None:
            progress(done, total, label)
    return report


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
