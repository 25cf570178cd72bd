"""A read-only report of a project's trilogy, for the CLI and the TUI's Project memory screen.

Everything a screen draws comes from here: per file and per PROJECT.md section the
bytes injected against the bytes on disk, the area map with each area's share, the
archive, and the hints (staleness, bootstrap).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

from .archive import archived_entries
from .injection import build_injection
from .layout import trilogy_paths
from .settings import TrilogySettings
from .snapshot import read_snapshot


@dataclass(frozen=True)
class FileStatus:
    name: str
    path: str
    exists: bool
    actual_bytes: int
    injected_bytes: int
    entries: int | None
    entries_injected: int | None


@dataclass(frozen=True)
class SectionStatus:
    name: str
    actual_bytes: int
    injected_bytes: int
    cap_bytes: int
    cut: bool


@dataclass(frozen=True)
class AreaStatus:
    name: str
    entries: int
    injected: int
    weight: float
    cap: int


@dataclass(frozen=True)
class ArchiveStatus:
    path: str
    exists: bool
    entries: int
    newest: str | None
    oldest: str | None
    headings: tuple[str, ...]


@dataclass(frozen=True)
class TrilogyStatus:
    root: str
    memory: str
    enabled: bool
    budget: int
    injected_bytes: int
    actual_bytes: int
    files: tuple[FileStatus, ...]
    sections: tuple[SectionStatus, ...]
    areas: tuple[AreaStatus, ...]
    archive: ArchiveStatus
    accounting_line: str
    area_line: str
    stale_days: int | None
    bootstrap: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def trilogy_status(
    start_dir: Path, settings: TrilogySettings, *, window: int | None = None, today: date | None = None
) -> TrilogyStatus:
    paths = trilogy_paths(start_dir, settings)
    snapshot = read_snapshot(paths)
    injection = build_injection(snapshot, settings, window=window, today=today)
    on_disk = dict(zip((paths.project, paths.decisions, paths.sessions), snapshot.mtimes))
    files = tuple(
        FileStatus(
            name=account.name,
            path=str(paths.file(account.name)),
            exists=on_disk[paths.file(account.name)] is not None,
            actual_bytes=account.actual_bytes,
            injected_bytes=account.injected_bytes,
            entries=account.entries,
            entries_injected=account.entries_injected,
        )
        for account in injection.files
    )
    injected_per_area = dict(injection.area_injected)
    areas = tuple(
        AreaStatus(share.name, share.entries, injected_per_area.get(share.name, 0), round(share.weight, 4), share.cap)
        for share in injection.areas
    )
    archived = archived_entries(paths)
    dates = sorted(e.date for e in archived if e.date is not None)
    archive = ArchiveStatus(
        path=str(paths.archive),
        exists=paths.archive.is_file(),
        entries=len(archived),
        newest=dates[-1].isoformat() if dates else None,
        oldest=dates[0].isoformat() if dates else None,
        headings=tuple(e.heading for e in archived),
    )
    return TrilogyStatus(
        root=str(paths.root),
        memory=str(paths.memory),
        enabled=settings.enabled,
        budget=injection.budget,
        injected_bytes=injection.injected_bytes,
        actual_bytes=injection.actual_bytes,
        files=files,
        sections=tuple(SectionStatus(c.name, c.actual_bytes, c.injected_bytes, c.cap_bytes, c.cut) for c in injection.sections),
        areas=areas,
        archive=archive,
        accounting_line=injection.accounting_line,
        area_line=injection.area_line,
        stale_days=injection.stale_days,
        bootstrap=injection.bootstrap,
    )
